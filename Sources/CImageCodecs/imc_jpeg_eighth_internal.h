/* The 1/8-scale decoder's shared parts (imc_jpeg_eighth.c, imc_jpeg_eighth_split.c): its state, the
 * Huffman tables, the bit reader and the block decoder, inline because they are the hot loop. */
#ifndef IMC_JPEG_EIGHTH_INTERNAL_H
#define IMC_JPEG_EIGHTH_INTERNAL_H

#include "imc_jpeg_eighth.h"
#include "imc_jpeg_huffman.h"

#include <jpegint.h>
#include <limits.h>
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
  imc_huffman_codes codes;       /* the canonical codes: longer ones are decoded from these */
} huffman_table;

/* Bits of the scan, most significant first. Past a marker or the end of the bytes, zero bits are
 * supplied and counted (`padded`); reading into them is reading past the data. */
typedef struct {
  uint64_t bits;
  int count;  /* bits held, padding included */
  uint64_t appended; /* data bits (not padding) put in the buffer since the reader started */
  int padded; /* zero bits appended past the data, at the low end */
  int marker; /* a marker stops the data: its first FF is at `next`, which never moves past it */
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

/* ---- bits ---- */

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
void imc_eighth_refill(bit_reader *reader);

/* The reader's hot part, a local while an MCU decodes so that it stays in registers. Refills take
 * eight bytes at once while no FF is among them and `fast_limit` allows; else the byte-wise
 * refill (imc_eighth_refill) runs, out of line. */
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
  imc_eighth_refill(reader);
  return load_bits(reader);
}

/* Makes at least 32 bits held (data or padding). */
static inline __attribute__((always_inline)) void fill(hot_bits *hot, bit_reader *reader) {
  if ((uintptr_t)hot->next <= hot->fast_limit) {
    uint64_t word;
    memcpy(&word, hot->next, 8);
    word = __builtin_bswap64(word);
    if (!imc_jpeg_has_ff(word, 8)) {
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
  int length = 0;
  int symbol = imc_huffman_decode_long(&table->codes, hot->bits, FAST_BITS + 1, &length);
  if (symbol >= 0) drop(hot, length);
  return symbol;
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
        block[imc_jpeg_natural_order[k]] = (JCOEF)extend(take_bits(hot, magnitude), magnitude);
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

/* The two-thread path (imc_jpeg_eighth_split.c), as the first thread uses it. */
/* Before each MCU: whether it starts where one of the second thread's did (then `replaying`). */
void imc_eighth_look_for_meeting(imc_eighth *eighth);
/* One MCU from the second thread's records; 0 to give up. */
int imc_eighth_replay_mcu(imc_eighth *eighth);
/* After the last replayed MCU: the reader takes the second's place at the data's end. */
void imc_eighth_take_over_reader(imc_eighth *eighth);
/* Waits for the second thread; `stop`: tells it to stop first. */
void imc_eighth_join_split(struct split_state *split, int stop);
void imc_eighth_destroy_split(struct split_state *split);

#endif
