/* imc_jpeg_eighth.c: the 1/8-scale decode of a baseline JPEG's scan without libjpeg's entropy decoder.
 *
 * Why: at 1/8 scale libjpeg makes each full-resolution 8x8 block one pixel from its DC coefficient,
 * so nearly all of a thumbnail's or a validation's time is Huffman decoding of AC coefficients that
 * are then thrown away. libjpeg-turbo 2.1.5 decodes them on its checked path one code at a time
 * (imc_jpeg_decode.c hands it 511-byte windows so that damaged data gets one verdict). Here a table
 * indexed by the next FAST_BITS bits resolves a code together with its magnitude bits, so a skipped
 * coefficient usually costs one lookup, and the bit buffer is refilled eight bytes at a time.
 *
 * What stays libjpeg's: the headers, tables and every check up to the scan (jpeg_read_header and
 * jpeg_start_decompress ran), the inverse DCT of blocks scaled to more than one pixel (subsampled
 * chroma), upsampling and colour conversion: its own functions, called through its method tables
 * as its own buffer controllers call them, on the coefficients it would have decoded. So the
 * pixels are libjpeg's, SIMD and all.
 *
 * One verdict: this path only *accepts* what libjpeg decodes without a warning: every code
 * complete, no bit read past the data, each restart marker where it belongs, EOI after the scan
 * (stray restart markers and bytes before it are harmless to libjpeg too). On anything else (a bad
 * code, data cut short, another marker, a DC sum leaving int) it gives up, and the caller decodes
 * the file again with libjpeg, whose verdict and message stand. Both decode the same symbols, so
 * rows handed out before giving up are the rows libjpeg produces.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "imc_internal.h"
#include "imc_jpeg_eighth.h"

#include <jpegint.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define FAST_BITS 10
/* An MCU starts only with this many bytes at hand (or all there will be): ten blocks of 64
 * coefficients at 32 bits each, every byte stuffed, fit with room to spare. */
#define MCU_MARGIN 8192

/* skip[] entries: the bits a whole coefficient takes (code and magnitude), then how far k moves. */
#define SKIP_LENGTH_MASK 31
#define SKIP_ADVANCE_SHIFT 5
#define SKIP_END_OF_BLOCK 0x1000

typedef struct {
  uint16_t code[1 << FAST_BITS]; /* (length << 8) | symbol for codes up to FAST_BITS long; 0: longer */
  uint16_t skip[1 << FAST_BITS]; /* AC: a coefficient resolved in FAST_BITS bits; 0: go the long way */
  int32_t maxcode[18];           /* the largest code of each length, -1 when none; [17] stops the search */
  int32_t valoffset[18];         /* symbols[] index of a length's first code, minus that code */
  uint8_t symbols[256];
} huffman_table;

/* The zigzag order, with 16 extra entries that absorb a run past the block's end as libjpeg's do. */
static const uint8_t natural_order[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,
    6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
    39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/* Bits of the scan, most significant first. Past a marker or the end of the bytes, zero bits are
 * supplied and counted (`padded`); reading into them is reading past the data. */
typedef struct {
  uint64_t bits;
  int count;  /* bits held, padding included */
  uint64_t appended; /* data bits (not padding) put in the buffer since the reader started */
  int padded; /* zero bits appended past the data, at the low end */
  int marker; /* a marker stops the data: `marker_at` is its first FF */
  const uint8_t *marker_at;
  size_t marker_distance; /* between calls: from the caller's position to the marker */
  const uint8_t *next, *end;
  int eof;
  int starved; /* ran out of bytes that more input would have supplied */
} bit_reader;

typedef struct {
  jpeg_component_info *component;
  int index;     /* component_index: the colour converter's plane */
  int scaled;    /* the inverse DCT's output size: 1 uses the DC alone */
  int needed;    /* libjpeg's component_needed: its DC is summed and its pixels made */
  int dc_multiplier; /* the DC's dequantizer, as libjpeg's 1x1 inverse DCT uses it */
  huffman_table *dc, *ac;
  int rows;         /* the rows one row of MCUs makes of it (its row group) */
  JSAMPARRAY plane; /* those rows */
} component_state;

/* What happens to one block of an MCU, decided once. */
enum { BLOCK_SKIPPED = 0, BLOCK_DC_PIXEL, BLOCK_WITH_AC };
typedef struct {
  component_state *state;
  int index; /* the component's place in the scan */
  int kind;  /* BLOCK_*: no pixels (discarding, or libjpeg does not need the component); one pixel
                from the DC (1x1 inverse DCT); AC decoded for libjpeg's larger inverse DCT */
  int y;     /* its first row in the component's plane */
  JDIMENSION x_step, x_offset; /* its first column: mcu_x * x_step + x_offset */
} block_plan;

struct imc_eighth {
  j_decompress_ptr cinfo;
  int discard;
  huffman_table tables[2][NUM_HUFF_TBLS]; /* [0] DC, [1] AC; built when used */
  int built[2][NUM_HUFF_TBLS];
  component_state components[MAX_COMPS_IN_SCAN];
  int component_count;
  int block_component[D_MAX_BLOCKS_IN_MCU]; /* per block of an MCU: its component (scan order) */
  int block_x[D_MAX_BLOCKS_IN_MCU], block_y[D_MAX_BLOCKS_IN_MCU];
  block_plan blocks[D_MAX_BLOCKS_IN_MCU];
  int interleaved;
  JDIMENSION mcus_per_row, mcu_rows;
  int rows_per_mcu_row; /* output rows a row of MCUs makes */
  int plane_row_count;  /* rows of all planes */
  JSAMPLE *range;       /* libjpeg's post-IDCT range limit: sample_range_limit + CENTERJSAMPLE */
  JCOEF *block;         /* one block for the inverse DCTs that use AC coefficients */
  JSAMPROW *plane_rows;
  JSAMPARRAY planes[MAX_COMPONENTS]; /* the upsampler's input: each component's rows, by component_index */
  JSAMPLE *plane_samples;
  JSAMPROW *output_rows;
  uint8_t *output;
  size_t output_row_bytes;
  unsigned output_count;
  /* Where the scan is. */
  bit_reader reader;
  int dc[MAX_COMPS_IN_SCAN];
  JDIMENSION mcu_x, mcu_y;
  unsigned restarts_to_go, next_restart;
  int restarting; /* looking for a restart marker (the bits were dropped) */
  int rows_done;  /* every MCU decoded: looking for EOI */
  JDIMENSION rows_out;
  /* A second thread on the far half of the scan (imc_eighth_split), once started. */
  struct split_state *split;
  int split_tried;
  int replaying; /* the threads met: MCUs come from the second thread's records */
  int always_split;
};

/* ---- tables ---- */

/* Builds the decoding tables; 0 when the table is one libjpeg would refuse (it already checked). */
static int build_table(huffman_table *table, const JHUFF_TBL *source, int ac) {
  int lengths[257];
  uint32_t codes[257];
  int count = 0;
  for (int length = 1; length <= 16; length++) {
    for (int i = 0; i < source->bits[length]; i++) {
      if (count >= 256) return 0;
      lengths[count++] = length;
    }
  }
  memcpy(table->symbols, source->huffval, 256);
  uint32_t code = 0;
  int at = 0;
  for (int length = 1; length <= 16; length++) {
    if (source->bits[length] == 0) {
      table->maxcode[length] = -1;
      table->valoffset[length] = 0;
    } else {
      table->valoffset[length] = at - (int32_t)code;
      for (int i = 0; i < source->bits[length]; i++) codes[at++] = code++;
      table->maxcode[length] = (int32_t)code - 1;
    }
    if (code >= (1u << length)) return 0; /* all ones, or more codes than the length holds */
    code <<= 1;
  }
  table->maxcode[17] = INT32_MAX;
  table->valoffset[17] = 0;
  memset(table->code, 0, sizeof table->code);
  memset(table->skip, 0, sizeof table->skip);
  for (int i = 0; i < count; i++) {
    int length = lengths[i];
    if (length > FAST_BITS) break;
    int symbol = table->symbols[i];
    int run = symbol >> 4, magnitude = symbol & 15;
    uint32_t first = codes[i] << (FAST_BITS - length);
    for (uint32_t fill = 0; fill < 1u << (FAST_BITS - length); fill++) {
      table->code[first + fill] = (uint16_t)(length << 8 | symbol);
      if (!ac) continue;
      if (magnitude == 0) {
        table->skip[first + fill] = (uint16_t)(length | (run == 15 ? 16 << SKIP_ADVANCE_SHIFT : SKIP_END_OF_BLOCK));
      } else if (length + magnitude <= FAST_BITS) {
        table->skip[first + fill] = (uint16_t)((length + magnitude) | (run + 1) << SKIP_ADVANCE_SHIFT);
      }
    }
  }
  return 1;
}

static huffman_table *table_for(imc_eighth *eighth, int ac, int number) {
  if (number < 0 || number >= NUM_HUFF_TBLS) return NULL;
  JHUFF_TBL *source = ac ? eighth->cinfo->ac_huff_tbl_ptrs[number] : eighth->cinfo->dc_huff_tbl_ptrs[number];
  if (!source) return NULL;
  if (!eighth->built[ac][number]) {
    if (!build_table(&eighth->tables[ac][number], source, ac)) return NULL;
    eighth->built[ac][number] = 1;
  }
  return &eighth->tables[ac][number];
}

/* ---- bits ---- */

/* Whether any of the first `bytes` bytes (most significant first) of `word` is 0xFF. */
static inline int has_ff(uint64_t word, int bytes) {
  uint64_t inverted = ~word; /* FF bytes become zero */
  uint64_t zero = (inverted - 0x0101010101010101ull) & ~inverted & 0x8080808080808080ull;
  uint64_t mask = bytes >= 8 ? ~0ull : ~(~0ull >> (8 * bytes));
  return (zero & mask) != 0;
}

static inline void append_byte(bit_reader *reader, unsigned byte) {
  reader->bits |= (uint64_t)byte << (56 - reader->count);
  reader->count += 8;
  reader->appended += 8;
}

/* Data bits consumed since the reader started. */
static inline uint64_t consumed_bits(const bit_reader *reader) {
  return reader->appended - (uint64_t)(reader->count - reader->padded);
}

static inline void pad(bit_reader *reader) {
  reader->count += 8;
  reader->padded += 8;
}

/* Fills the buffer to more than 56 bits: data bytes, then zeros past a marker or the end. */
static void refill(bit_reader *reader) {
  while (reader->count <= 56) {
    if (reader->marker) {
      pad(reader);
      continue;
    }
    if (reader->end - reader->next >= 8) {
      uint64_t word;
      memcpy(&word, reader->next, 8);
      word = __builtin_bswap64(word);
      int take = (64 - reader->count) >> 3;
      if (!has_ff(word, take)) {
        uint64_t kept = take >= 8 ? word : word & ~(~0ull >> (8 * take));
        reader->bits |= kept >> reader->count;
        reader->count += 8 * take;
        reader->appended += 8 * (uint64_t)take;
        reader->next += take;
        continue;
      }
    }
    if (reader->next >= reader->end) {
      if (!reader->eof) reader->starved = 1;
      pad(reader);
      continue;
    }
    unsigned byte = *reader->next;
    if (byte != 0xFF) {
      reader->next++;
      append_byte(reader, byte);
      continue;
    }
    /* FF: fill bytes FF, then 00 (a data byte FF) or a marker code. */
    const uint8_t *after = reader->next + 1;
    while (after < reader->end && *after == 0xFF) after++;
    if (after >= reader->end) {
      if (!reader->eof) reader->starved = 1;
      reader->marker = 1; /* the end inside a marker: nothing more is data */
      reader->marker_at = reader->next;
      continue;
    }
    if (*after == 0x00) {
      reader->next = after + 1;
      append_byte(reader, 0xFF);
    } else {
      reader->marker = 1;
      reader->marker_at = reader->next;
    }
  }
}

/* The reader's hot part, a local while an MCU decodes so that it stays in registers. Refills take
 * eight bytes at once while no FF is among them and `fast_limit` allows; else the byte-wise
 * refill above runs (out of line). */
typedef struct {
  uint64_t bits;
  int count;
  const uint8_t *next;
  uintptr_t fast_limit; /* the last `next` from which eight bytes may be loaded; 0: none */
  uint64_t appended;
} hot_bits;

static inline hot_bits load_bits(const bit_reader *reader) {
  hot_bits hot = {reader->bits, reader->count, reader->next, 0, reader->appended};
  if (!reader->marker && reader->end - reader->next >= 8) hot.fast_limit = (uintptr_t)(reader->end - 8);
  return hot;
}

static inline void store_bits(bit_reader *reader, hot_bits hot) {
  reader->bits = hot.bits;
  reader->count = hot.count;
  reader->next = hot.next;
  reader->appended = hot.appended;
}

static __attribute__((noinline)) hot_bits refill_slowly(bit_reader *reader, hot_bits hot) {
  store_bits(reader, hot);
  refill(reader);
  return load_bits(reader);
}

/* Makes at least 32 bits held (data or padding). */
static inline __attribute__((always_inline)) void fill(hot_bits *hot, bit_reader *reader) {
  if ((uintptr_t)hot->next <= hot->fast_limit) {
    uint64_t word;
    memcpy(&word, hot->next, 8);
    word = __builtin_bswap64(word);
    if (!has_ff(word, 8)) {
      int take = (63 - hot->count) >> 3;
      hot->bits |= (word & ~(~0ull >> (8 * take))) >> hot->count;
      hot->count += 8 * take;
      hot->next += take;
      hot->appended += 8 * (uint64_t)take;
      return;
    }
  }
  *hot = refill_slowly(reader, *hot);
}

static inline unsigned peek(const hot_bits *hot, int bits) { return (unsigned)(hot->bits >> (64 - bits)); }

static inline void drop(hot_bits *hot, int bits) {
  hot->bits <<= bits;
  hot->count -= bits;
}

static inline int take_bits(hot_bits *hot, int bits) {
  int value = (int)peek(hot, bits);
  drop(hot, bits);
  return value;
}

/* The signed value of `bits` magnitude bits (T.81 F.2.2.1's EXTEND). */
static inline int extend(int value, int bits) { return value < (1 << (bits - 1)) ? value - (1 << bits) + 1 : value; }

/* Decodes one symbol (at least 32 bits must be held); -1 for a code no table entry has. */
static inline int decode_symbol(hot_bits *hot, const huffman_table *table) {
  unsigned entry = table->code[peek(hot, FAST_BITS)];
  if (entry) {
    drop(hot, (int)(entry >> 8));
    return (int)(entry & 0xFF);
  }
  /* Longer codes, canonically (T.81 F.2.2.3); no code matched above is shorter than this. */
  for (int length = FAST_BITS + 1; length <= 16; length++) {
    int32_t code = (int32_t)peek(hot, length);
    if (code <= table->maxcode[length]) {
      drop(hot, length);
      return table->symbols[(code + table->valoffset[length]) & 0xFF];
    }
  }
  return -1;
}

/* ---- set-up ---- */

static int eligible(j_decompress_ptr cinfo) {
  if (cinfo->progressive_mode || cinfo->arith_code || cinfo->data_precision != 8) return 0;
  if (cinfo->min_DCT_scaled_size != 1 || cinfo->output_width == 0 || cinfo->output_height == 0) return 0;
  if (cinfo->comps_in_scan != cinfo->num_components || (cinfo->num_components != 1 && cinfo->num_components != 3))
    return 0;
  if (cinfo->Ss != 0 || cinfo->Se != DCTSIZE2 - 1 || cinfo->Ah != 0 || cinfo->Al != 0) return 0;
  if (cinfo->out_color_space == JCS_CMYK || cinfo->out_color_space == JCS_YCCK) return 0;
  if (cinfo->quantize_colors || cinfo->raw_data_out || cinfo->buffered_image) return 0;
  if (cinfo->unread_marker != 0 || cinfo->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU) return 0;
  if (cinfo->num_components == 1 && (cinfo->comp_info[0].h_samp_factor != 1 || cinfo->comp_info[0].v_samp_factor != 1))
    return 0;
  /* An upsampler that needs the rows above and below (vertical fancy upsampling) is fed by
   * libjpeg's context buffer controller, which this path does not copy. */
  if (!cinfo->upsample || cinfo->upsample->need_context_rows) return 0;
  for (int i = 0; i < cinfo->comps_in_scan; i++) {
    const jpeg_component_info *component = cinfo->cur_comp_info[i];
    if (component->DCT_scaled_size < 1 || component->DCT_scaled_size > DCTSIZE) return 0;
  }
  return 1;
}

imc_eighth *imc_eighth_create(j_decompress_ptr cinfo, int discard_pixels) {
  if (!eligible(cinfo)) return NULL;
  imc_eighth *eighth = calloc(1, sizeof *eighth);
  if (!eighth) return NULL;
  eighth->cinfo = cinfo;
  eighth->discard = discard_pixels;
  eighth->range = cinfo->sample_range_limit + CENTERJSAMPLE;
  eighth->component_count = cinfo->comps_in_scan;
  eighth->interleaved = cinfo->comps_in_scan > 1;
  eighth->mcus_per_row = cinfo->MCUs_per_row;
  eighth->mcu_rows = cinfo->MCU_rows_in_scan;
  eighth->rows_per_mcu_row = cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size;
  if (!eighth->interleaved) eighth->rows_per_mcu_row = cinfo->cur_comp_info[0]->DCT_scaled_size;
  size_t plane_width = 0;
  for (int i = 0; i < eighth->component_count; i++) {
    component_state *state = &eighth->components[i];
    jpeg_component_info *component = cinfo->cur_comp_info[i];
    state->component = component;
    state->index = component->component_index;
    state->scaled = component->DCT_scaled_size;
    state->needed = component->component_needed;
    /* libjpeg's inverse DCTs take the quantizers as its MULTIPLIER type, short in a SIMD build and
     * int without: the same value only up to 32767 (never more in an 8-bit table). */
    if (!component->quant_table || component->quant_table->quantval[0] > 32767) goto refuse;
    state->dc_multiplier = component->quant_table->quantval[0];
    state->dc = table_for(eighth, 0, component->dc_tbl_no);
    state->ac = table_for(eighth, 1, component->ac_tbl_no);
    if (!state->dc || !state->ac) goto refuse;
    int across = eighth->interleaved ? component->MCU_width : 1;
    state->rows = (eighth->interleaved ? component->MCU_height : 1) * state->scaled;
    eighth->plane_row_count += state->rows;
    size_t width = (size_t)eighth->mcus_per_row * (size_t)across * (size_t)state->scaled;
    if (width > plane_width) plane_width = width;
  }
  /* Each block of an MCU: its component and place (T.81 A.2.3: components in scan order, each
   * component's blocks left to right, top to bottom). */
  int block = 0;
  for (int i = 0; i < eighth->component_count; i++) {
    jpeg_component_info *component = cinfo->cur_comp_info[i];
    int across = eighth->interleaved ? component->MCU_width : 1, down = eighth->interleaved ? component->MCU_height : 1;
    for (int y = 0; y < down; y++) {
      for (int x = 0; x < across; x++, block++) {
        if (block >= D_MAX_BLOCKS_IN_MCU) goto refuse;
        eighth->block_component[block] = i;
        eighth->block_x[block] = x;
        eighth->block_y[block] = y;
      }
    }
  }
  if (block != cinfo->blocks_in_MCU) goto refuse;
  eighth->restarts_to_go = cinfo->restart_interval;
  if (!discard_pixels) {
    int components = cinfo->out_color_components;
    if (components < 1 || components > 4) goto refuse;
    plane_width += 64; /* libjpeg's converters may read a little past a row, as in its own buffers */
    int rows = eighth->rows_per_mcu_row;
    size_t plane_rows = (size_t)eighth->plane_row_count;
    eighth->block = calloc(DCTSIZE2, sizeof(JCOEF));
    eighth->plane_rows = calloc(plane_rows, sizeof(JSAMPROW));
    eighth->plane_samples = calloc(plane_rows, plane_width);
    eighth->output_row_bytes = (size_t)cinfo->output_width * (size_t)components;
    eighth->output = malloc((size_t)rows * (eighth->output_row_bytes + 64));
    eighth->output_rows = calloc((size_t)rows, sizeof(JSAMPROW));
    if (!eighth->block || !eighth->plane_rows || !eighth->plane_samples || !eighth->output || !eighth->output_rows)
      goto refuse;
    size_t first = 0;
    for (int i = 0; i < eighth->component_count; i++) {
      component_state *state = &eighth->components[i];
      if (state->index < 0 || state->index >= MAX_COMPONENTS) goto refuse;
      state->plane = eighth->plane_rows + first;
      eighth->planes[state->index] = state->plane;
      for (int row = 0; row < state->rows; row++)
        state->plane[row] = eighth->plane_samples + (first + (size_t)row) * plane_width;
      first += (size_t)state->rows;
    }
    for (int row = 0; row < rows; row++)
      eighth->output_rows[row] = eighth->output + (size_t)row * (eighth->output_row_bytes + 64);
    /* Planes of components libjpeg does not need stay zero (the converter reads none of them). */
  }
  for (int block = 0; block < cinfo->blocks_in_MCU; block++) {
    block_plan *plan = &eighth->blocks[block];
    plan->index = eighth->block_component[block];
    plan->state = &eighth->components[plan->index];
    const component_state *state = plan->state;
    plan->kind = discard_pixels || !state->needed ? BLOCK_SKIPPED : state->scaled > 1 ? BLOCK_WITH_AC : BLOCK_DC_PIXEL;
    plan->y = eighth->block_y[block] * state->scaled;
    plan->x_step = (JDIMENSION)(eighth->interleaved ? state->component->MCU_width : 1) * (JDIMENSION)state->scaled;
    plan->x_offset = (JDIMENSION)eighth->block_x[block] * (JDIMENSION)state->scaled;
  }
  return eighth;
refuse:
  imc_eighth_destroy(eighth);
  return NULL;
}

static void destroy_split(struct split_state *split);

void imc_eighth_destroy(imc_eighth *eighth) {
  if (!eighth) return;
  destroy_split(eighth->split);
  free(eighth->block);
  free(eighth->plane_rows);
  free(eighth->plane_samples);
  free(eighth->output);
  free(eighth->output_rows);
  free(eighth);
}

/* ---- the scan ---- */

/* Decodes one block: its DC difference, and its AC coefficients into `block` (zeroed by the caller)
 * when the inverse DCT uses them, else skipped. Returns 0 to give up (a code no table has). */
static inline __attribute__((always_inline)) int decode_block(hot_bits *hot, bit_reader *reader,
                                                              const component_state *state, JCOEF *block,
                                                              int *difference) {
  if (hot->count < 32) fill(hot, reader);
  int size = decode_symbol(hot, state->dc);
  if (size < 0) return 0;
  *difference = 0;
  if (size) {
    if (hot->count < 32) fill(hot, reader);
    *difference = extend(take_bits(hot, size), size);
  }
  const huffman_table *ac = state->ac;
  if (block) {
    for (int k = 1; k < DCTSIZE2; k++) {
      if (hot->count < 32) fill(hot, reader);
      int symbol = decode_symbol(hot, ac);
      if (symbol < 0) return 0;
      int run = symbol >> 4, magnitude = symbol & 15;
      if (magnitude) {
        k += run;
        block[natural_order[k]] = (JCOEF)extend(take_bits(hot, magnitude), magnitude);
      } else {
        if (run != 15) break;
        k += 15;
      }
    }
    return 1;
  }
  for (int k = 1; k < DCTSIZE2;) {
    if (hot->count < FAST_BITS) fill(hot, reader);
    unsigned entry = ac->skip[peek(hot, FAST_BITS)];
    if (entry) {
      drop(hot, (int)(entry & SKIP_LENGTH_MASK));
      if (entry & SKIP_END_OF_BLOCK) break;
      k += (int)(entry >> SKIP_ADVANCE_SHIFT);
      continue;
    }
    if (hot->count < 32) fill(hot, reader);
    int symbol = decode_symbol(hot, ac);
    if (symbol < 0) return 0;
    int run = symbol >> 4, magnitude = symbol & 15;
    if (magnitude) {
      drop(hot, magnitude);
      k += run + 1;
    } else {
      if (run != 15) break;
      k += 16;
    }
  }
  return 1;
}

/* Adds a DC difference to the component's sum, as libjpeg does; 0 when the sum would leave int. */
static inline int add_dc(imc_eighth *eighth, const component_state *state, int index, int difference) {
  if (!state->needed) return 1;
  int last = eighth->dc[index];
  if ((last >= 0 && difference > INT_MAX - last) || (last < 0 && difference < INT_MIN - last)) return 0;
  eighth->dc[index] = last + difference;
  return 1;
}

/* The pixels of one block of the current MCU, from its component's DC sum (and eighth->block's AC
 * coefficients when its inverse DCT uses them), into the planes. */
static inline void make_pixels(imc_eighth *eighth, const block_plan *plan) {
  const component_state *state = plan->state;
  JDIMENSION x = eighth->mcu_x * plan->x_step + plan->x_offset;
  if (plan->kind == BLOCK_DC_PIXEL) {
    /* libjpeg's 1x1 inverse DCT: the DC as libjpeg stores it (a JCOEF), dequantized, descaled by
     * 8 with rounding, range-limited through its table. */
    int value = (int)(JCOEF)eighth->dc[plan->index] * state->dc_multiplier;
    state->plane[plan->y][x] = eighth->range[((value + 4) >> 3) & (MAXJSAMPLE * 4 + 3)];
  } else if (plan->kind == BLOCK_WITH_AC) {
    j_decompress_ptr cinfo = eighth->cinfo;
    eighth->block[0] = (JCOEF)eighth->dc[plan->index];
    cinfo->idct->inverse_DCT[state->index](cinfo, state->component, eighth->block, state->plane + plan->y, x);
  }
}

/* Decodes one MCU and makes its pixels in the planes. Returns 0 to give up. */
static int decode_mcu(imc_eighth *eighth) {
  j_decompress_ptr cinfo = eighth->cinfo;
  bit_reader *reader = &eighth->reader;
  hot_bits hot = load_bits(reader);
  int decoded = 1;
  for (int block = 0; block < cinfo->blocks_in_MCU; block++) {
    const block_plan *plan = &eighth->blocks[block];
    int with_ac = plan->kind == BLOCK_WITH_AC;
    if (with_ac) memset(eighth->block, 0, DCTSIZE2 * sizeof(JCOEF));
    int difference;
    if (!decode_block(&hot, reader, plan->state, with_ac ? eighth->block : NULL, &difference) ||
        !add_dc(eighth, plan->state, plan->index, difference)) {
      decoded = 0;
      break;
    }
    make_pixels(eighth, plan);
  }
  store_bits(reader, hot);
  if (!decoded) return 0;
  if (reader->count < reader->padded) return 0; /* read past the data */
  if (reader->starved) return 0;
  return 1;
}

/* ---- Two threads on one scan ----
 * A scan without restart markers is one chain of variable-length codes: where a code starts is
 * known only by decoding everything before it. But Huffman codes resynchronize: decoding from an
 * arbitrary bit soon falls into step with the true code boundaries. So when all of a large scan's
 * bytes are here and no other fast decode runs, a second thread starts at the middle byte as if an
 * MCU began there, and records where each MCU it decodes starts and what it decoded (DC
 * differences, and AC coefficients where an inverse DCT uses them). The first thread decodes from
 * the start as usual; past the middle, once one of its MCUs starts exactly where one of the
 * second's did, both decoders are in the same state (same bit, same place in the MCU), so the
 * second's records from there on are what the first would decode: it replays them, summing the
 * DC differences from its own predictions. If they never meet, the first decodes on alone. Any
 * failure the second met after the meeting point is a failure of the stream (give up). */

typedef struct split_state {
  imc_eighth *eighth; /* tables and components, read-only while the thread runs */
  pthread_t thread;
  bit_reader reader;     /* from `origin` on */
  uint64_t origin_bits;  /* the first thread's position (data bits) at `origin` */
  size_t capacity;       /* MCUs the records hold */
  uint64_t *starts;      /* data bits after `origin` where each MCU starts */
  uint8_t *failed;       /* the MCU at starts[i] could not be decoded (then the next starts a bit later) */
  int16_t *differences;  /* blocks_in_MCU per MCU */
  uint32_t *ac_first;    /* per MCU: its first AC pair */
  uint8_t *ac_positions; /* (position, value) pairs of each AC-decoded block, 0 ends a block */
  int16_t *ac_values;
  size_t ac_count, ac_capacity; /* the pairs are allocated whole (untouched pages cost nothing), */
  int exhausted;                 /* so they never move while the first thread reads them */
  JCOEF block[DCTSIZE2];
  _Atomic size_t recorded; /* starts[0, recorded) are written (release/acquire) */
  atomic_int stop;
  size_t ended;        /* records there are, once `finished` */
  atomic_int finished; /* set (release) when the thread is done */
  size_t cursor; /* the first thread's search in starts[] */
  size_t replay; /* after the meeting: the next record to replay */
  int joined;
} split_state;

static int store_pair(split_state *split, uint8_t position, int16_t value) {
  if (split->ac_count == split->ac_capacity) {
    split->exhausted = 1;
    return 0;
  }
  split->ac_positions[split->ac_count] = position;
  split->ac_values[split->ac_count++] = value;
  return 1;
}

/* The second thread's MCU: decoded and recorded, no pixels. 0 when it cannot go on. */
static int record_mcu(split_state *split, size_t mcu) {
  imc_eighth *eighth = split->eighth;
  bit_reader *reader = &split->reader;
  int blocks = eighth->cinfo->blocks_in_MCU;
  hot_bits hot = load_bits(reader);
  int decoded = 1;
  for (int block = 0; block < blocks && decoded; block++) {
    const block_plan *plan = &eighth->blocks[block];
    int with_ac = plan->kind == BLOCK_WITH_AC;
    if (with_ac) memset(split->block, 0, sizeof split->block);
    int difference;
    if (!decode_block(&hot, reader, plan->state, with_ac ? split->block : NULL, &difference)) {
      decoded = 0;
      break;
    }
    split->differences[mcu * (size_t)blocks + (size_t)block] = (int16_t)difference;
    if (!with_ac) continue;
    for (int k = 1; k < DCTSIZE2 && decoded; k++)
      if (split->block[k] && !store_pair(split, (uint8_t)k, split->block[k])) decoded = 0;
    if (decoded && !store_pair(split, 0, 0)) decoded = 0;
  }
  store_bits(reader, hot);
  return decoded && reader->count >= reader->padded;
}

/* Until it falls into step, the thread decodes garbage, which may hold codes no table has: then it
 * marks the record failed and tries again one bit later. The data's end stops it. */
static void *speculate(void *argument) {
  split_state *split = argument;
  size_t mcu = 0;
  while (mcu < split->capacity) {
    if (atomic_load_explicit(&split->stop, memory_order_relaxed)) break;
    bit_reader before = split->reader;
    split->starts[mcu] = consumed_bits(&split->reader);
    split->ac_first[mcu] = (uint32_t)split->ac_count;
    split->failed[mcu] = split->ac_count > UINT32_MAX / 2 || !record_mcu(split, mcu);
    atomic_store_explicit(&split->recorded, mcu + 1, memory_order_release);
    mcu++;
    if (!split->failed[mcu - 1]) continue;
    if (split->reader.count < split->reader.padded || split->exhausted) break; /* the data's end, or memory */
    split->reader = before;
    if (split->reader.count < 1) refill(&split->reader);
    if (split->reader.count - split->reader.padded < 1) break;
    split->reader.bits <<= 1;
    split->reader.count -= 1;
  }
  split->ended = mcu;
  atomic_store_explicit(&split->finished, 1, memory_order_release);
  return NULL;
}

/* Waits for the thread; `stop`: tells it to stop first. */
static void join_split(split_state *split, int stop) {
  if (split->joined) return;
  if (stop) atomic_store(&split->stop, 1);
  pthread_join(split->thread, NULL);
  split->joined = 1;
}

static void destroy_split(split_state *split) {
  if (!split) return;
  join_split(split, 1);
  free(split->starts);
  free(split->failed);
  free(split->differences);
  free(split->ac_first);
  free(split->ac_positions);
  free(split->ac_values);
  free(split);
}

/* CPUs this thread may run on. */
static int usable_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set);
}

#define SPLIT_MIN_BYTES ((size_t)1 << 20)

void imc_eighth_always_split(imc_eighth *eighth) { eighth->always_split = 1; }

void imc_eighth_split(imc_eighth *eighth, const uint8_t *input, size_t length, size_t position) {
  j_decompress_ptr cinfo = eighth->cinfo;
  if (eighth->split || eighth->split_tried || eighth->rows_done) return;
  eighth->split_tried = 1;
  if (cinfo->restart_interval || length < position || length - position < SPLIT_MIN_BYTES) return;
  if (!eighth->always_split && (imc_busy_count() > 1 || usable_cpus() < 2)) return;
  size_t middle = position + (length - position) / 2;
  if (input[middle - 1] == 0xFF) middle++;
  /* The first thread's position at the middle, in data bits: those it has read, then every byte
   * up to the middle less the stuffed zeros. Anything else (fill bytes, a marker): no split. */
  if (eighth->reader.marker) return;
  uint64_t data_bytes = 0;
  const uint8_t *at = input + position;
  const uint8_t *stop = input + middle;
  while (at < stop) {
    const uint8_t *ff = memchr(at, 0xFF, (size_t)(stop - at));
    if (!ff) {
      data_bytes += (uint64_t)(stop - at);
      break;
    }
    if (ff + 1 >= stop || ff[1] != 0x00) return;
    data_bytes += (uint64_t)(ff - at) + 1;
    at = ff + 2;
  }
  split_state *split = calloc(1, sizeof *split);
  if (!split) return;
  split->eighth = eighth;
  split->origin_bits = eighth->reader.appended + data_bytes * 8;
  size_t mcus = (size_t)eighth->mcus_per_row * (size_t)eighth->mcu_rows;
  split->capacity = mcus + 1;
  split->starts = malloc(split->capacity * sizeof *split->starts);
  split->failed = malloc(split->capacity);
  split->differences = malloc(split->capacity * (size_t)cinfo->blocks_in_MCU * sizeof *split->differences);
  split->ac_first = malloc(split->capacity * sizeof *split->ac_first);
  /* At most 63 pairs and an end per block whose AC coefficients are decoded. */
  size_t ac_blocks = 0;
  for (int block = 0; block < cinfo->blocks_in_MCU; block++)
    ac_blocks += eighth->blocks[block].kind == BLOCK_WITH_AC;
  split->ac_capacity = split->capacity * ac_blocks * DCTSIZE2;
  if (split->ac_capacity) {
    split->ac_positions = malloc(split->ac_capacity);
    split->ac_values = malloc(split->ac_capacity * sizeof *split->ac_values);
    if (!split->ac_positions || !split->ac_values) {
      destroy_split(split);
      return;
    }
  }
  split->reader.next = input + middle;
  split->reader.end = input + length;
  split->reader.eof = 1;
  split->joined = 1;
  if (!split->starts || !split->failed || !split->differences || !split->ac_first ||
      pthread_create(&split->thread, NULL, speculate, split) != 0) {
    destroy_split(split);
    return;
  }
  split->joined = 0;
  eighth->split = split;
}

/* Before each of the first thread's MCUs: whether it starts where one of the second's did. */
static void look_for_meeting(imc_eighth *eighth) {
  split_state *split = eighth->split;
  uint64_t here = consumed_bits(&eighth->reader);
  if (here < split->origin_bits) return;
  uint64_t there = here - split->origin_bits;
  size_t recorded = atomic_load_explicit(&split->recorded, memory_order_acquire);
  while (split->cursor < recorded && split->starts[split->cursor] < there) split->cursor++;
  if (split->cursor < recorded && split->starts[split->cursor] == there) {
    split->replay = split->cursor;
    eighth->replaying = 1;
  }
}

/* One MCU from the second thread's records. Returns 0 to give up. */
static int replay_mcu(imc_eighth *eighth) {
  split_state *split = eighth->split;
  /* The thread may still be decoding: wait for the record (it is usually far ahead). */
  while (split->replay >= atomic_load_explicit(&split->recorded, memory_order_acquire) &&
         !atomic_load_explicit(&split->finished, memory_order_acquire))
    sched_yield();
  size_t recorded = atomic_load_explicit(&split->recorded, memory_order_acquire);
  /* A record that failed, or none: from the same state the first thread fails the same way. */
  if (split->replay >= recorded || split->failed[split->replay]) return 0;
  int blocks = eighth->cinfo->blocks_in_MCU;
  const int16_t *differences = split->differences + split->replay * (size_t)blocks;
  size_t pair = split->ac_first[split->replay];
  for (int block = 0; block < blocks; block++) {
    const block_plan *plan = &eighth->blocks[block];
    if (!add_dc(eighth, plan->state, plan->index, differences[block])) return 0;
    if (plan->kind == BLOCK_WITH_AC) {
      memset(eighth->block, 0, DCTSIZE2 * sizeof(JCOEF));
      for (; split->ac_positions[pair] != 0; pair++) eighth->block[split->ac_positions[pair]] = split->ac_values[pair];
      pair++;
    }
    make_pixels(eighth, plan);
  }
  split->replay++;
  return 1;
}

/* After the last replayed MCU: the first thread's reader takes the place where the second's stopped
 * (at the first marker after the middle, or the end), to look for EOI. */
static void take_over_reader(imc_eighth *eighth) {
  split_state *split = eighth->split;
  bit_reader *reader = &eighth->reader;
  reader->marker = split->reader.marker;
  reader->marker_at = split->reader.marker_at;
  reader->next = split->reader.marker ? split->reader.marker_at : split->reader.end;
  reader->bits = 0;
  reader->count = reader->padded = 0;
}

/* Finds the marker after the data: where the reader stopped at one, or the first one from its
 * position on (bytes between are data libjpeg discards, a harmless warning). 1 found (*code, and
 * *after just past it), 0 not yet (more input may come), -1 never (the input ended). */
static int find_marker(bit_reader *reader, int *code, const uint8_t **after) {
  const uint8_t *at = reader->marker ? reader->marker_at : reader->next;
  while (at < reader->end) {
    const uint8_t *ff = memchr(at, 0xFF, (size_t)(reader->end - at));
    if (!ff) break;
    const uint8_t *next = ff + 1;
    while (next < reader->end && *next == 0xFF) next++;
    if (next >= reader->end) break;
    if (*next == 0x00) {
      at = next + 1;
      continue;
    }
    *code = *next;
    *after = next + 1;
    return 1;
  }
  return reader->eof ? -1 : 0;
}

static void drop_bits(bit_reader *reader) {
  reader->bits = 0;
  reader->count = 0;
  reader->padded = 0;
}

/* At a restart: the marker must be the next RSTn. 1 done, 0 more input, -1 give up. */
static int restart(imc_eighth *eighth) {
  bit_reader *reader = &eighth->reader;
  if (!eighth->restarting) {
    drop_bits(reader);
    eighth->restarting = 1;
  }
  int code = 0;
  const uint8_t *after = NULL;
  int found = find_marker(reader, &code, &after);
  if (found <= 0) return found;
  if (code != JPEG_RST0 + (int)eighth->next_restart) return -1;
  reader->next = after;
  reader->marker = 0;
  reader->marker_at = NULL;
  for (int i = 0; i < MAX_COMPS_IN_SCAN; i++) eighth->dc[i] = 0;
  eighth->next_restart = (eighth->next_restart + 1) & 7;
  eighth->restarts_to_go = eighth->cinfo->restart_interval;
  eighth->restarting = 0;
  return 1;
}

/* After the last MCU: EOI, after any stray restart markers. */
static int finish(imc_eighth *eighth) {
  bit_reader *reader = &eighth->reader;
  drop_bits(reader);
  for (;;) {
    int code = 0;
    const uint8_t *after = NULL;
    int found = find_marker(reader, &code, &after);
    if (found == 0) return IMC_EIGHTH_INPUT;
    if (found < 0) return IMC_EIGHTH_GIVE_UP;
    if (code == JPEG_EOI) return IMC_EIGHTH_DONE;
    if (code < JPEG_RST0 || code > JPEG_RST0 + 7) return IMC_EIGHTH_GIVE_UP;
    reader->next = after;
    reader->marker = 0;
  }
}

int imc_eighth_step(imc_eighth *eighth, const uint8_t *input, size_t length, int eof, size_t *position) {
  bit_reader *reader = &eighth->reader;
  /* The reader's pointers are rebuilt from the position: the input may have moved. */
  reader->next = input + *position;
  reader->end = input + length;
  reader->eof = eof;
  if (reader->marker) reader->marker_at = reader->next + reader->marker_distance;
  int result;
  if (eighth->rows_done) {
    result = finish(eighth);
    goto out;
  }
  while (eighth->mcu_x < eighth->mcus_per_row) {
    if (eighth->cinfo->restart_interval) {
      if (eighth->restarts_to_go == 0) {
        int restarted = restart(eighth);
        if (restarted == 0) {
          result = IMC_EIGHTH_INPUT;
          goto out;
        }
        if (restarted < 0) {
          result = IMC_EIGHTH_GIVE_UP;
          goto out;
        }
      }
    }
    if (eighth->split && !eighth->replaying) look_for_meeting(eighth);
    if (eighth->replaying) {
      if (!replay_mcu(eighth)) {
        result = IMC_EIGHTH_GIVE_UP;
        goto out;
      }
      eighth->mcu_x++;
      continue;
    }
    if (!eof && !reader->marker && reader->end - reader->next < MCU_MARGIN) {
      result = IMC_EIGHTH_INPUT;
      goto out;
    }
    if (!decode_mcu(eighth)) {
      result = IMC_EIGHTH_GIVE_UP;
      goto out;
    }
    if (eighth->cinfo->restart_interval) eighth->restarts_to_go--;
    eighth->mcu_x++;
  }
  /* A row of MCUs is complete. */
  j_decompress_ptr cinfo = eighth->cinfo;
  JDIMENSION left = cinfo->output_height - eighth->rows_out;
  unsigned count = left < (JDIMENSION)eighth->rows_per_mcu_row ? (unsigned)left : (unsigned)eighth->rows_per_mcu_row;
  if (!eighth->discard && count > 0) {
    /* One row group per row of MCUs at 1/8 scale, as libjpeg's simple main controller hands it. */
    JDIMENSION group = 0, made = 0;
    cinfo->upsample->upsample(cinfo, eighth->planes, &group, 1, eighth->output_rows, &made, (JDIMENSION)count);
    if (made != count) {
      result = IMC_EIGHTH_GIVE_UP;
      goto out;
    }
  }
  eighth->output_count = count;
  eighth->rows_out += count;
  eighth->mcu_x = 0;
  eighth->mcu_y++;
  if (eighth->mcu_y >= eighth->mcu_rows) {
    eighth->rows_done = 1;
    /* After replaying, the thread's reader ends where the data does (take_over_reader). */
    if (eighth->split) join_split(eighth->split, !eighth->replaying);
    if (eighth->replaying) take_over_reader(eighth);
  }
  result = IMC_EIGHTH_ROWS;
out:
  /* The marker stays in the input the caller keeps: the position never passes it. */
  if (reader->marker) reader->marker_distance = (size_t)(reader->marker_at - reader->next);
  *position = (size_t)(reader->next - input);
  return result;
}

uint8_t *imc_eighth_rows(const imc_eighth *eighth, unsigned *count) {
  *count = eighth->discard ? 0 : eighth->output_count;
  return eighth->discard ? NULL : eighth->output;
}

size_t imc_eighth_row_bytes(const imc_eighth *eighth) { return eighth->output_row_bytes + 64; }
