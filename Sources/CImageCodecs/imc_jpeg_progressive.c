/* imc_jpeg_progressive.c: the scans of a progressive Huffman JPEG decoded without libjpeg's
 * progressive entropy decoder.
 *
 * Why: a progressive JPEG's strict decode spends about three quarters of its time in libjpeg-turbo's
 * jdphuff.c, which reads the data a byte at a time through jpeg_fill_bit_buffer and, since every
 * source here hands libjpeg at most 511 bytes at a time (imc_jpeg_decode.c, WINDOW), a function call
 * per symbol. Every DCT scale needs every coefficient decoded (refinement scans depend on each
 * coefficient's history), so here the same symbols are decoded into the same coefficient blocks with
 * a bit buffer refilled eight bytes at a time and tables that resolve a code (with its magnitude
 * bits, for a first AC scan) in one lookup.
 *
 * What stays libjpeg's: markers, tables, the progression checks and their warnings (its entropy
 * decoder's start_pass still runs for every scan, before this decoder sees the scan), the coefficient
 * buffers, inverse DCT, block smoothing, upsampling and colour conversion. This decoder replaces only
 * the coefficient controller's consume_data, which libjpeg calls for each scan's data.
 *
 * At 1/8 scale (a thumbnail's usual scale, and a validation's) libjpeg's 1x1 inverse DCT reads a
 * block's DC coefficient and nothing else, while its coefficient buffers hold all 64 of every block:
 * 32 MB of luma for a 16 MP photo, zeroed and faulted in again for every decode (about a third of
 * such a thumbnail's time). There each component scaled to 1x1 (luma; subsampled chroma is scaled
 * up by a larger inverse DCT that reads AC coefficients, and keeps them) is decoded DC-only: the
 * decoder keeps its blocks' DC and the nonzero masks (all that a refinement scan's parsing depends
 * on), stores no AC value, skips the correction bits of the coefficients it does not keep, and never
 * touches libjpeg's buffer for it. In the output pass libjpeg's own routine makes the other
 * components' rows (told the DC-only ones are not needed), and each DC-only block goes through
 * libjpeg's inverse DCT as a block holding its DC alone. Where libjpeg would decode something
 * itself, the component's DCs (and a nonzero stand-in for each AC coefficient a mask holds; no AC
 * value reaches a 1x1 output) go into libjpeg's buffer first and libjpeg goes on from there: a scan
 * this decoder does not take, or block smoothing (an image whose AC coefficients are not all there)
 * that re-estimates the DCs, which libjpeg does for a component none of whose first nine AC
 * coefficients was sent; otherwise smoothing only estimates AC coefficients, which a 1x1 output
 * never reads.
 */
#include "imc_internal.h"
#include "imc_jpeg_huffman.h"
#include "imc_jpeg_progressive.h"

#include <jpegint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FAST_BITS 10
/* An MCU starts only with this many bytes at hand (or a marker, or all there will be): one block of
 * 64 coefficients at 32 bits each, every byte stuffed, fits with room to spare, as do the ten blocks
 * of an interleaved DC scan. */
#define MCU_MARGIN 2048

/* fast[] entries: (length << 8) | symbol for codes up to FAST_BITS long; 0 for longer ones. */
/* coef[] entries (first AC scans): a coefficient whose code and magnitude bits fit in FAST_BITS:
 * the value in the high 16 bits, the run in bits 8..11, the bits taken in bits 0..4, COEF_FLAG set. */
#define COEF_FLAG 0x1000
/* refine[] entries (AC refinement scans): a symbol resolved with the bits that follow its code,
 * when they fit in FAST_BITS: the bits taken in bits 0..4, the run in bits 5..8, REFINE_* in bits
 * 10..11, and an end-of-band run's length in the high 16 bits. 0: go the long way. */
enum { REFINE_PLUS = 0, REFINE_MINUS = 1, REFINE_ZRL = 2, REFINE_EOB = 3 };
#define REFINE_FLAG 0x200

typedef struct {
  uint16_t fast[1 << FAST_BITS];
  int32_t coef[1 << FAST_BITS];
  int32_t refine[1 << FAST_BITS];
  imc_huffman_codes codes; /* the canonical codes: longer ones are decoded from these */
  /* The table it was built from, to see a DHT between scans redefine it. */
  uint8_t bits[17];
  uint8_t huffval[256];
  int built;
} table;

/* The scan's bits, most significant first. Past a marker, zero bits are supplied and counted
 * (`padded`): taking them is reading past the data. */
typedef struct {
  uint64_t bits;
  int count;  /* bits held, padding included */
  int padded; /* padding bits among them, at the low end */
  const uint8_t *next, *end;
  int marker; /* a marker ends the data: its first FF is at `next`, which never moves past it */
  int ended;  /* the bytes ended (no marker): libjpeg would warn, so give up */
} bits_reader;

enum { SCAN_NONE = 0, SCAN_LIBJPEG, SCAN_DC_FIRST, SCAN_DC_REFINE, SCAN_AC_FIRST, SCAN_AC_REFINE };

struct imc_progressive {
  j_decompress_ptr cinfo;
  imc_progressive_session session;
  int (*libjpeg_consume)(j_decompress_ptr); /* the coefficient controller's own consume_data */
  table tables[2][NUM_HUFF_TBLS];           /* [0] DC, [1] AC */
  /* The scan in progress. */
  int kind;
  int Ss, Se, Al;
  table *ac;
  table *dc[MAX_COMPS_IN_SCAN];
  int blocks; /* per MCU */
  int block_component[D_MAX_BLOCKS_IN_MCU], block_x[D_MAX_BLOCKS_IN_MCU], block_y[D_MAX_BLOCKS_IN_MCU];
  JBLOCKARRAY rows[MAX_COMPS_IN_SCAN];
  int mcu_width[MAX_COMPS_IN_SCAN];
  JDIMENSION mcus_per_row;
  int yoffset, mcu_rows; /* MCU row within the iMCU row, and how many it has */
  JDIMENSION column;
  int row_ready; /* rows[] are accessed for cinfo->input_iMCU_row */
  int dc_last[MAX_COMPS_IN_SCAN];
  unsigned eobrun;
  unsigned restarts_to_go;
  bits_reader reader;
  /* For each block of each component, which AC coefficients are nonzero: bit k for zigzag index k.
   * A refinement scan visits only those (each gets a correction bit) and finds the zero ones (where
   * new coefficients go) without reading all 63. Valid while every AC scan of the component so far
   * was this decoder's; rebuilt from the coefficients otherwise. */
  uint64_t *nonzero[MAX_COMPONENTS];
  size_t nonzero_bytes[MAX_COMPONENTS];
  int nonzero_stale[MAX_COMPONENTS]; /* libjpeg decoded an AC scan of it since */
  uint64_t *nonzero_row; /* the scan's component, at the current block row */
  /* Each component's blocks as the masks and DCs hold them: the columns of libjpeg's buffer, and
   * the rows every scan and the output visit (at least its buffer's). */
  JDIMENSION block_stride[MAX_COMPONENTS];
  size_t block_rows[MAX_COMPONENTS];
  /* DC-only components (1x1 output): each block's DC coefficient in place of libjpeg's buffer. NULL:
   * the component is in libjpeg's. */
  JCOEF *dc_values[MAX_COMPONENTS];
  size_t dc_bytes[MAX_COMPONENTS];
  JCOEF *dc_rows[MAX_COMPS_IN_SCAN]; /* the scan's DC-only components, at the current iMCU row */
  int scan_dc_only;                  /* the scan is an AC scan of a DC-only component */
  void (*libjpeg_prepare_output)(j_decompress_ptr);
  int (*libjpeg_decompress)(j_decompress_ptr, JSAMPIMAGE); /* its multi-scan one, without smoothing */
  int (*libjpeg_output)(j_decompress_ptr, JSAMPIMAGE);     /* the one its output pass picked */
};

static _Thread_local uint64_t scans_finished, decodes_given_up, dc_only_outputs;

void imc_jpeg_progressive_counts(uint64_t *scans, uint64_t *given_up, uint64_t *dc_only) {
  *scans = scans_finished;
  *given_up = decodes_given_up;
  *dc_only = dc_only_outputs;
}

static void give_up(imc_progressive *progressive) {
  decodes_given_up++;
  progressive->session.give_up(progressive->cinfo);
}

/* ---- tables ---- */

static int build_table(table *t, const JHUFF_TBL *source, int ac) {
  int lengths[256];
  uint32_t codes[256];
  int count = 0;
  if (!imc_huffman_assign(source, &t->codes, lengths, codes, &count)) return 0;
  memset(t->fast, 0, sizeof t->fast);
  memset(t->coef, 0, sizeof t->coef);
  memset(t->refine, 0, sizeof t->refine);
  for (int i = 0; i < count && lengths[i] <= FAST_BITS; i++) {
    int length = lengths[i], symbol = t->codes.symbols[i];
    int run = symbol >> 4, magnitude = symbol & 15;
    uint32_t first = codes[i] << (FAST_BITS - length);
    for (uint32_t fill = 0; fill < 1u << (FAST_BITS - length); fill++) {
      uint32_t index = first + fill;
      t->fast[index] = (uint16_t)(length << 8 | symbol);
      if (ac && magnitude && length + magnitude <= FAST_BITS) {
        /* The magnitude bits follow the code in the index. */
        int raw = (int)((index >> (FAST_BITS - length - magnitude)) & ((1u << magnitude) - 1));
        int value = raw < (1 << (magnitude - 1)) ? raw - (1 << magnitude) + 1 : raw;
        t->coef[index] = (int32_t)((uint32_t)value << 16) | run << 8 | COEF_FLAG | (length + magnitude);
      }
      if (!ac) continue;
      /* In a refinement scan: a new coefficient (magnitude 1) and its sign bit, ZRL, or an
       * end-of-band run and its extra bits. Other magnitudes are left to the long way (libjpeg warns). */
      unsigned after = index << length & ((1u << FAST_BITS) - 1); /* the bits after the code, at the top */
      if (magnitude == 1 && length + 1 <= FAST_BITS) {
        int minus = !(after >> (FAST_BITS - 1));
        t->refine[index] = REFINE_FLAG | (minus ? REFINE_MINUS : REFINE_PLUS) << 10 | run << 5 | (length + 1);
      } else if (magnitude == 0 && run == 15) {
        t->refine[index] = REFINE_FLAG | REFINE_ZRL << 10 | 15 << 5 | length;
      } else if (magnitude == 0 && length + run <= FAST_BITS) {
        unsigned eobrun = (1u << run) + (run ? after >> (FAST_BITS - run) : 0);
        t->refine[index] = (int32_t)(eobrun << 16) | REFINE_FLAG | REFINE_EOB << 10 | (length + run);
      }
    }
  }
  return 1;
}

/* The table for a slot, rebuilt only when a DHT changed it since it was built. */
static table *table_for(imc_progressive *progressive, int ac, int number) {
  if (number < 0 || number >= NUM_HUFF_TBLS) return NULL;
  JHUFF_TBL *source = ac ? progressive->cinfo->ac_huff_tbl_ptrs[number] : progressive->cinfo->dc_huff_tbl_ptrs[number];
  if (!source) return NULL;
  table *t = &progressive->tables[ac][number];
  if (t->built && memcmp(t->bits, source->bits, 17) == 0 && memcmp(t->huffval, source->huffval, 256) == 0) return t;
  t->built = 0;
  if (!build_table(t, source, ac)) return NULL;
  memcpy(t->bits, source->bits, 17);
  memcpy(t->huffval, source->huffval, 256);
  t->built = 1;
  return t;
}

/* ---- bits ---- */

static inline void pad(bits_reader *r) {
  r->count += 8;
  r->padded += 8;
}

/* Fills the buffer to more than 56 bits, a byte at a time: data, then zeros at a marker or the end. */
static __attribute__((noinline)) void refill_slowly(bits_reader *r) {
  while (r->count <= 56) {
    if (r->marker || r->ended) {
      pad(r);
      continue;
    }
    if (r->next >= r->end) {
      r->ended = 1;
      continue;
    }
    unsigned byte = *r->next;
    if (byte == 0xFF) {
      /* Fill bytes FF, then 00 (a data byte FF) or a marker code. */
      const uint8_t *after = r->next + 1;
      while (after < r->end && *after == 0xFF) after++;
      if (after >= r->end) {
        r->ended = 1;
        continue;
      }
      if (*after != 0x00) {
        r->marker = 1;
        continue;
      }
      r->next = after + 1;
    } else {
      r->next++;
    }
    r->bits |= (uint64_t)byte << (56 - r->count);
    r->count += 8;
  }
}

/* Makes at least 32 bits held (data or padding). */
static inline __attribute__((always_inline)) void fill(bits_reader *r) {
  if (r->end - r->next >= 8 && !r->marker) {
    uint64_t word;
    memcpy(&word, r->next, 8);
    word = __builtin_bswap64(word);
    if (!imc_jpeg_has_ff(word, 8)) {
      int take = (63 - r->count) >> 3;
      r->bits |= (word & ~(~0ull >> (8 * take))) >> r->count;
      r->count += 8 * take;
      r->next += take;
      return;
    }
  }
  refill_slowly(r);
}

static inline unsigned peek(const bits_reader *r, int bits) { return (unsigned)(r->bits >> (64 - bits)); }

static inline void drop(bits_reader *r, int bits) {
  r->bits <<= bits;
  r->count -= bits;
}

static inline int take_bits(bits_reader *r, int bits) {
  int value = (int)peek(r, bits);
  drop(r, bits);
  return value;
}

static inline int take_bit(bits_reader *r) {
  int value = (int)(r->bits >> 63);
  drop(r, 1);
  return value;
}

/* Drops `count` bits (correction bits of coefficients a DC-only decode does not keep). */
static inline void skip_bits(bits_reader *r, int count) {
  while (count > 0) {
    if (r->count < 32) fill(r);
    int step = count < 32 ? count : 32;
    drop(r, step);
    count -= step;
  }
}

static inline int extend(int value, int bits) { return value < (1 << (bits - 1)) ? value - (1 << bits) + 1 : value; }

/* One symbol (at least 16 bits held); -1 for a code no table entry has. */
static inline int decode_symbol(bits_reader *r, const table *t) {
  unsigned entry = t->fast[peek(r, FAST_BITS)];
  if (entry) {
    drop(r, (int)(entry >> 8));
    return (int)(entry & 0xFF);
  }
  int length = 0;
  int symbol = imc_huffman_decode_long(&t->codes, r->bits, FAST_BITS + 1, &length);
  if (symbol >= 0) drop(r, length);
  return symbol;
}

/* libjpeg's LEFT_SHIFT then its store into a JCOEF. */
static inline JCOEF shifted(int value, int shift) { return (JCOEF)(int32_t)((uint32_t)value << shift); }

/* ---- MCUs ---- */

/* Each returns 0 to give up. */

/* `dc[b]`: the MCU's b-th block's DC coefficient. */
static inline __attribute__((always_inline)) int dc_first(imc_progressive *p, bits_reader *r, JCOEF **dc) {
  for (int b = 0; b < p->blocks; b++) {
    int ci = p->block_component[b];
    if (r->count < 32) fill(r);
    int size = decode_symbol(r, p->dc[ci]);
    if (size < 0) return 0;
    int difference = 0;
    if (size) {
      if (r->count < 32) fill(r);
      difference = extend(take_bits(r, size), size);
    }
    int last = p->dc_last[ci];
    if ((last >= 0 && difference > INT_MAX - last) || (last < 0 && difference < INT_MIN - last)) return 0;
    p->dc_last[ci] = last + difference;
    *dc[b] = shifted(last + difference, p->Al);
  }
  return 1;
}

static inline __attribute__((always_inline)) int dc_refine(imc_progressive *p, bits_reader *r, JCOEF **dc) {
  if (r->count < 32) fill(r);
  JCOEF bit = (JCOEF)(1 << p->Al);
  for (int b = 0; b < p->blocks; b++)
    if (take_bit(r)) *dc[b] |= bit;
  return 1;
}

/* `block` is NULL in a DC-only decode (the values decide the masks, and are not stored). */
static inline __attribute__((always_inline)) int ac_first(imc_progressive *p, bits_reader *r, JCOEF *block,
                                                          uint64_t *nonzero, const int dc_only) {
  if (p->eobrun > 0) {
    p->eobrun--;
    return 1;
  }
  const table *t = p->ac;
  int Se = p->Se, Al = p->Al;
  uint64_t mask = *nonzero;
  for (int k = p->Ss; k <= Se; k++) {
    if (r->count < 32) fill(r);
    int32_t entry = t->coef[peek(r, FAST_BITS)];
    if (entry & COEF_FLAG) {
      drop(r, entry & 31);
      k += (entry >> 8) & 15;
      if (k > Se) return 0; /* libjpeg stores it past the band without a warning: leave it to libjpeg */
      JCOEF value = shifted(entry >> 16, Al);
      if (!dc_only) block[imc_jpeg_natural_order[k]] = value;
      if (value) mask |= 1ull << k;
      continue;
    }
    int symbol = decode_symbol(r, t);
    if (symbol < 0) return 0;
    int run = symbol >> 4, magnitude = symbol & 15;
    if (magnitude) {
      k += run;
      if (k > Se) return 0;
      JCOEF value = shifted(extend(take_bits(r, magnitude), magnitude), Al);
      if (!dc_only) block[imc_jpeg_natural_order[k]] = value;
      if (value) mask |= 1ull << k;
    } else if (run == 15) {
      k += 15;
    } else {
      unsigned eobrun = 1u << run;
      if (run) eobrun += (unsigned)take_bits(r, run);
      p->eobrun = eobrun - 1;
      break;
    }
  }
  *nonzero = mask;
  return 1;
}

/* Zigzag indexes from..63 (from <= 63). */
static inline uint64_t from_index(int from) { return ~0ull << from; }

/* A correction bit for each coefficient in `which` (zigzag bits), in zigzag order: a set bit adds
 * the scan's bit to the magnitude unless it is there already. */
static inline __attribute__((always_inline)) void refine(bits_reader *r, JCOEF *block, uint64_t which, int p1,
                                                         int m1, const int dc_only) {
  if (dc_only) {
    skip_bits(r, __builtin_popcountll(which));
    return;
  }
  while (which) {
    int k = __builtin_ctzll(which);
    which &= which - 1;
    if (r->count < 1) fill(r);
    if (take_bit(r)) {
      JCOEF *coef = block + imc_jpeg_natural_order[k];
      if ((*coef & p1) == 0) *coef = (JCOEF)(*coef + (*coef >= 0 ? p1 : m1));
    }
  }
}

static inline __attribute__((always_inline)) int ac_refine(imc_progressive *p, bits_reader *r, JCOEF *block,
                                                           uint64_t *nonzero, const int dc_only) {
  int Se = p->Se;
  int p1 = 1 << p->Al, m1 = (int)((unsigned)-1 << p->Al);
  uint64_t band = Se == 63 ? ~0ull : (2ull << Se) - 1; /* zigzag indexes up to Se */
  uint64_t mask = *nonzero;
  int k = p->Ss;
  if (p->eobrun == 0) {
    const table *t = p->ac;
    while (k <= Se) {
      if (r->count < 32) fill(r);
      int run, value = 0;
      int32_t entry = t->refine[peek(r, FAST_BITS)];
      if (entry) {
        drop(r, entry & 31);
        int kind = (entry >> 10) & 3;
        if (kind == REFINE_EOB) {
          p->eobrun = (unsigned)entry >> 16;
          break;
        }
        run = (entry >> 5) & 15;
        if (kind != REFINE_ZRL) value = kind == REFINE_PLUS ? p1 : m1;
      } else {
        int symbol = decode_symbol(r, t);
        if (symbol < 0) return 0;
        run = symbol >> 4;
        if (symbol & 15) {
          if ((symbol & 15) != 1) return 0; /* libjpeg warns */
          value = take_bit(r) ? p1 : m1;
        } else if (run != 15) {
          unsigned eobrun = 1u << run;
          if (run) eobrun += (unsigned)take_bits(r, run);
          p->eobrun = eobrun;
          break;
        }
      }
      /* Past `run` coefficients without history (those with one get their correction bits) to the
       * next one without: the new coefficient goes there. Mostly the next run + 1 have none. */
      if (k + run <= Se && (mask & (((2ull << run) - 1) << k)) == 0) {
        if (value) {
          if (!dc_only) block[imc_jpeg_natural_order[k + run]] = (JCOEF)value;
          mask |= 1ull << (k + run);
        }
        k += run + 1;
        continue;
      }
      uint64_t zeros = ~mask & band & from_index(k);
      for (int i = 0; i < run && zeros; i++) zeros &= zeros - 1;
      int target = zeros ? __builtin_ctzll(zeros) : Se + 1;
      uint64_t before = zeros ? (1ull << target) - 1 : band;
      refine(r, block, mask & from_index(k) & before, p1, m1, dc_only);
      if (value) {
        if (target > Se) return 0; /* libjpeg stores it past the band without a warning */
        if (!dc_only) block[imc_jpeg_natural_order[target]] = (JCOEF)value;
        mask |= 1ull << target;
      }
      k = target + 1;
    }
  }
  if (p->eobrun > 0) {
    if (k <= Se) refine(r, block, mask & from_index(k) & band, p1, m1, dc_only);
    p->eobrun--;
  }
  *nonzero = mask;
  return 1;
}

/* The rows of blocks a component's buffer has (libjpeg's: a whole number of its MCU rows). */
static JDIMENSION buffer_rows(const jpeg_component_info *component) {
  JDIMENSION v = (JDIMENSION)component->v_samp_factor;
  return (component->height_in_blocks + v - 1) / v * v;
}

/* Zeroed memory for the masks or DCs (NULL when there is none). Mapped, not malloc'd: a calloc of
 * this size beside libjpeg's large buffers made glibc trim its heap after each decode, and the next
 * decode fault all of libjpeg's buffers in again (60,000 page faults in 50 decodes of a 1.3 MP file
 * instead of 2,500). Populated at once: both are read before they are written (a mask by its
 * scan, a DC by a refinement), so a page left to fault would be mapped to the zero page first and
 * copied on the write, which flushes the TLB of every core running the process (a batch's other
 * decodes). */
static void *map_zeroed(size_t bytes) {
  void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  return memory == MAP_FAILED ? NULL : memory;
}

/* Rebuilds a component's nonzero masks from its coefficients (after libjpeg decoded one of its AC
 * scans). */
static void rebuild_nonzero(imc_progressive *p, jpeg_component_info *component) {
  j_decompress_ptr cinfo = p->cinfo;
  int c = component->component_index;
  JDIMENSION rows = buffer_rows(component);
  for (JDIMENSION y = 0; y < rows; y++) {
    JBLOCKARRAY row = (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, cinfo->coef->coef_arrays[c], y, 1, FALSE);
    uint64_t *masks = p->nonzero[c] + (size_t)y * p->block_stride[c];
    for (JDIMENSION x = 0; x < p->block_stride[c]; x++) {
      uint64_t mask = 0;
      for (int k = 1; k < DCTSIZE2; k++)
        if (row[0][x][imc_jpeg_natural_order[k]] != 0) mask |= 1ull << k;
      masks[x] = mask;
    }
  }
  p->nonzero_stale[c] = 0;
}

/* The component's masks, made when its first AC scan comes; 0 when there is no memory for them. */
static int prepare_nonzero(imc_progressive *p, jpeg_component_info *component) {
  int c = component->component_index;
  if (!p->nonzero[c]) {
    /* Zero, as the coefficients are (unless libjpeg decoded an AC scan already: stale). */
    size_t bytes = (size_t)p->block_stride[c] * p->block_rows[c] * sizeof(uint64_t);
    p->nonzero[c] = map_zeroed(bytes);
    if (!p->nonzero[c]) return 0;
    p->nonzero_bytes[c] = bytes;
  }
  if (p->nonzero_stale[c]) rebuild_nonzero(p, component);
  return 1;
}

/* ---- the scan ---- */

static void access_rows(imc_progressive *p) {
  j_decompress_ptr cinfo = p->cinfo;
  for (int ci = 0; ci < cinfo->comps_in_scan; ci++) {
    jpeg_component_info *component = cinfo->cur_comp_info[ci];
    int c = component->component_index;
    JDIMENSION first_row = cinfo->input_iMCU_row * (JDIMENSION)component->v_samp_factor;
    if (p->dc_values[c]) {
      p->dc_rows[ci] = p->dc_values[c] + (size_t)first_row * p->block_stride[c];
      continue;
    }
    p->rows[ci] = (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, cinfo->coef->coef_arrays[c], first_row,
                                                    (JDIMENSION)component->v_samp_factor, TRUE);
  }
  /* As libjpeg's consume_data sets it for each MCU it starts while no data is missing. */
  cinfo->master->last_good_iMCU_row = cinfo->input_iMCU_row;
  if (cinfo->comps_in_scan > 1) p->mcu_rows = 1;
  else if (cinfo->input_iMCU_row < cinfo->total_iMCU_rows - 1) p->mcu_rows = cinfo->cur_comp_info[0]->v_samp_factor;
  else p->mcu_rows = cinfo->cur_comp_info[0]->last_row_height;
  p->row_ready = 1;
}

/* Sets up the scan libjpeg's start_pass just accepted; 0 to leave it to libjpeg. */
static int start_scan(imc_progressive *p) {
  j_decompress_ptr cinfo = p->cinfo;
  if (!p->session.may_start_scan(cinfo)) return 0;
  p->Ss = cinfo->Ss;
  p->Se = cinfo->Se;
  p->Al = cinfo->Al;
  if (p->Se >= DCTSIZE2 || p->Al > 13) return 0;
  int dc = p->Ss == 0;
  if (dc) {
    if (p->Se != 0) return 0;
    p->kind = cinfo->Ah == 0 ? SCAN_DC_FIRST : SCAN_DC_REFINE;
  } else {
    if (cinfo->comps_in_scan != 1 || p->Ss > p->Se) return 0;
    p->kind = cinfo->Ah == 0 ? SCAN_AC_FIRST : SCAN_AC_REFINE;
  }
  p->blocks = 0;
  p->scan_dc_only = !dc && p->dc_values[cinfo->cur_comp_info[0]->component_index] != NULL;
  for (int ci = 0; ci < cinfo->comps_in_scan; ci++) {
    jpeg_component_info *component = cinfo->cur_comp_info[ci];
    if (p->kind == SCAN_DC_FIRST) {
      p->dc[ci] = table_for(p, 0, component->dc_tbl_no);
      if (!p->dc[ci]) return 0;
    } else if (!dc) {
      p->ac = table_for(p, 1, component->ac_tbl_no);
      if (!p->ac || !prepare_nonzero(p, component)) return 0;
    }
    p->dc_last[ci] = 0;
    p->mcu_width[ci] = component->MCU_width;
    for (int y = 0; y < component->MCU_height; y++)
      for (int x = 0; x < component->MCU_width; x++) {
        if (p->blocks >= D_MAX_BLOCKS_IN_MCU) return 0;
        p->block_component[p->blocks] = ci;
        p->block_x[p->blocks] = x;
        p->block_y[p->blocks] = y;
        p->blocks++;
      }
  }
  if (p->blocks != cinfo->blocks_in_MCU) return 0;
  p->mcus_per_row = cinfo->MCUs_per_row;
  p->eobrun = 0;
  p->restarts_to_go = cinfo->restart_interval;
  p->yoffset = 0;
  p->column = 0;
  p->row_ready = 0;
  memset(&p->reader, 0, sizeof p->reader);
  return 1;
}

/* At a restart marker's place (the interval's last MCU done): the marker must be RSTn, the next
 * libjpeg expects, right there. Returns 1 past it, 0 to wait for bytes; gives up otherwise. */
static int take_restart(imc_progressive *p, bits_reader *r, int eof) {
  const uint8_t *at = r->next;
  if (at >= r->end || *at != 0xFF) {
    if (at >= r->end && !eof) return 0;
    give_up(p);
  }
  at++;
  while (at < r->end && *at == 0xFF) at++;
  if (at >= r->end) {
    if (!eof) return 0;
    give_up(p);
  }
  struct jpeg_marker_reader *marker = p->cinfo->marker;
  if (*at != JPEG_RST0 + marker->next_restart_num) give_up(p);
  marker->next_restart_num = (marker->next_restart_num + 1) & 7;
  memset(r, 0, offsetof(bits_reader, next));
  r->next = at + 1;
  r->marker = 0;
  r->ended = 0;
  for (int ci = 0; ci < MAX_COMPS_IN_SCAN; ci++) p->dc_last[ci] = 0;
  p->eobrun = 0;
  p->restarts_to_go = p->cinfo->restart_interval;
  return 1;
}

/* The last marker (FF, fill FFs, then a byte other than 00) that starts in [from, end), or NULL. */
static const uint8_t *last_marker(const uint8_t *from, const uint8_t *end) {
  const uint8_t *found = NULL;
  for (const uint8_t *at = from; at + 1 < end; at++) {
    if (*at != 0xFF) continue;
    const uint8_t *after = at + 1;
    while (after < end && *after == 0xFF) after++;
    if (after < end && *after != 0x00) found = at;
    at = after;
  }
  return found;
}

/* The bytes from libjpeg's source position on. `*safe`: an MCU may start while the reader is not
 * past it: MCU_MARGIN bytes remain, or a marker lies ahead (the reader stops there), or all the
 * data is here. 0: nowhere. */
static int take_span(imc_progressive *p, bits_reader *r, uintptr_t *safe) {
  const uint8_t *start, *end;
  int eof = p->session.span(p->cinfo, MCU_MARGIN, &start, &end);
  r->next = start;
  r->end = end;
  size_t length = (size_t)(end - start);
  if (eof) {
    *safe = (uintptr_t)end;
    return eof;
  }
  const uint8_t *tail = length > MCU_MARGIN ? end - MCU_MARGIN : start;
  const uint8_t *marker = last_marker(tail, end);
  *safe = length > MCU_MARGIN ? (uintptr_t)tail : 0;
  if (marker && (uintptr_t)marker > *safe) *safe = (uintptr_t)marker;
  return eof;
}

/* Decodes the rest of the scan (of kind KIND). JPEG_SCAN_COMPLETED, or JPEG_SUSPENDED to wait for
 * bytes (between MCUs: the reader's bits kept, libjpeg's source after them). */
static inline __attribute__((always_inline)) int run_scan(imc_progressive *p, const int kind, const int dc_only) {
  j_decompress_ptr cinfo = p->cinfo;
  bits_reader r = p->reader;
  uintptr_t safe;
  int eof = take_span(p, &r, &safe);
  unsigned interval = cinfo->restart_interval;
  while (cinfo->input_iMCU_row < cinfo->total_iMCU_rows) {
    if (!p->row_ready) access_rows(p);
    for (; p->yoffset < p->mcu_rows; p->yoffset++) {
      if (kind == SCAN_AC_FIRST || kind == SCAN_AC_REFINE) {
        jpeg_component_info *component = cinfo->cur_comp_info[0];
        int c = component->component_index;
        JDIMENSION row = cinfo->input_iMCU_row * (JDIMENSION)component->v_samp_factor + (JDIMENSION)p->yoffset;
        p->nonzero_row = p->nonzero[c] + (size_t)row * p->block_stride[c];
      }
      for (; p->column < p->mcus_per_row; p->column++) {
        if (interval && p->restarts_to_go == 0) {
          if (r.padded > r.count || r.ended) give_up(p);
          if (!take_restart(p, &r, eof)) goto suspend;
        }
        if ((uintptr_t)r.next > safe && !r.marker) {
          /* Near the end of the bytes at hand: more, or wait. */
          p->session.seek(cinfo, r.next);
          eof = take_span(p, &r, &safe);
          if ((uintptr_t)r.next > safe && !r.marker) goto suspend;
        }
        JDIMENSION column = p->column;
        if (kind == SCAN_AC_FIRST || kind == SCAN_AC_REFINE) {
          JCOEF *block = dc_only ? NULL : p->rows[0][p->yoffset][column];
          uint64_t *nonzero = p->nonzero_row + column;
          if (kind == SCAN_AC_FIRST) {
            if (p->eobrun > 0) {
              /* A run of empty blocks: skip as many as the row and the interval allow. */
              unsigned skip = p->eobrun;
              JDIMENSION left = p->mcus_per_row - column;
              if (skip > left) skip = left;
              if (interval && skip > p->restarts_to_go) skip = p->restarts_to_go;
              p->eobrun -= skip;
              if (interval) p->restarts_to_go -= skip;
              p->column += skip - 1;
              continue;
            }
            if (!ac_first(p, &r, block, nonzero, dc_only)) give_up(p);
          } else if (!ac_refine(p, &r, block, nonzero, dc_only)) {
            give_up(p);
          }
        } else {
          JCOEF *dc[D_MAX_BLOCKS_IN_MCU];
          for (int b = 0; b < p->blocks; b++) {
            int ci = p->block_component[b];
            JDIMENSION x = column * (JDIMENSION)p->mcu_width[ci] + (JDIMENSION)p->block_x[b];
            int y = p->yoffset + p->block_y[b];
            int c = cinfo->cur_comp_info[ci]->component_index;
            if (p->dc_values[c]) dc[b] = p->dc_rows[ci] + (size_t)y * p->block_stride[c] + x;
            else dc[b] = &p->rows[ci][y][x][0];
          }
          if (!(kind == SCAN_DC_FIRST ? dc_first(p, &r, dc) : dc_refine(p, &r, dc))) give_up(p);
        }
        if (r.padded > r.count || r.ended) give_up(p);
        if (interval) p->restarts_to_go--;
      }
      p->column = 0;
    }
    p->yoffset = 0;
    p->row_ready = 0;
    cinfo->input_iMCU_row++;
  }
  /* The scan is complete: libjpeg reads on from the first byte the reader has not taken. */
  p->session.seek(cinfo, r.next);
  p->kind = SCAN_NONE;
  scans_finished++;
  (*cinfo->inputctl->finish_input_pass)(cinfo);
  return JPEG_SCAN_COMPLETED;
suspend:
  p->session.seek(cinfo, r.next);
  r.next = r.end = NULL; /* the bytes may move before the next call */
  p->row_ready = 0;
  p->reader = r;
  return JPEG_SUSPENDED;
}

static int run_dc_first(imc_progressive *p) { return run_scan(p, SCAN_DC_FIRST, 0); }
static int run_dc_refine(imc_progressive *p) { return run_scan(p, SCAN_DC_REFINE, 0); }
static int run_ac_first(imc_progressive *p) { return run_scan(p, SCAN_AC_FIRST, 0); }
static int run_ac_refine(imc_progressive *p) { return run_scan(p, SCAN_AC_REFINE, 0); }
static int run_ac_first_dc_only(imc_progressive *p) { return run_scan(p, SCAN_AC_FIRST, 1); }
static int run_ac_refine_dc_only(imc_progressive *p) { return run_scan(p, SCAN_AC_REFINE, 1); }

static void leave_dc_only(imc_progressive *p, int c);

/* In place of the coefficient controller's consume_data. */
static int consume(j_decompress_ptr cinfo) {
  imc_progressive *p = imc_jpeg_session_progressive(cinfo);
  if (p->kind == SCAN_NONE && !start_scan(p)) {
    /* libjpeg decodes this scan into its buffers, from what they hold. */
    for (int ci = 0; ci < cinfo->comps_in_scan; ci++) leave_dc_only(p, cinfo->cur_comp_info[ci]->component_index);
    p->kind = SCAN_LIBJPEG;
  }
  switch (p->kind) {
  case SCAN_DC_FIRST: return run_dc_first(p);
  case SCAN_DC_REFINE: return run_dc_refine(p);
  case SCAN_AC_FIRST: return p->scan_dc_only ? run_ac_first_dc_only(p) : run_ac_first(p);
  case SCAN_AC_REFINE: return p->scan_dc_only ? run_ac_refine_dc_only(p) : run_ac_refine(p);
  default: {
    if (cinfo->Ss > 0)
      for (int ci = 0; ci < cinfo->comps_in_scan; ci++) p->nonzero_stale[cinfo->cur_comp_info[ci]->component_index] = 1;
    int result = p->libjpeg_consume(cinfo);
    if (result == JPEG_SCAN_COMPLETED) p->kind = SCAN_NONE;
    return result;
  }
  }
}

/* ---- DC-only components (1x1 output) ---- */

/* Component `c` goes back into libjpeg's buffer: its DCs, and a nonzero stand-in (1) for each AC
 * coefficient its masks hold, so that a refinement by libjpeg reads the same bits. */
static void leave_dc_only(imc_progressive *p, int c) {
  if (!p->dc_values[c]) return;
  j_decompress_ptr cinfo = p->cinfo;
  JDIMENSION rows = buffer_rows(cinfo->comp_info + c);
  for (JDIMENSION y = 0; y < rows; y++) {
    JBLOCKARRAY row = (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, cinfo->coef->coef_arrays[c], y, 1, TRUE);
    const JCOEF *dc = p->dc_values[c] + (size_t)y * p->block_stride[c];
    const uint64_t *masks = p->nonzero[c] ? p->nonzero[c] + (size_t)y * p->block_stride[c] : NULL;
    for (JDIMENSION x = 0; x < p->block_stride[c]; x++) {
      row[0][x][0] = dc[x];
      for (uint64_t mask = masks ? masks[x] : 0; mask; mask &= mask - 1)
        row[0][x][imc_jpeg_natural_order[__builtin_ctzll(mask)]] = 1;
    }
  }
  munmap(p->dc_values[c], p->dc_bytes[c]);
  p->dc_values[c] = NULL;
}

/* A DC-only component's rows of output iMCU row `row`, as libjpeg's decompress_data makes them: each
 * block through libjpeg's inverse DCT (1x1: it reads the DC alone), as a block holding its DC. */
static void output_dc_rows(imc_progressive *p, int c, JDIMENSION row, JSAMPIMAGE output) {
  j_decompress_ptr cinfo = p->cinfo;
  jpeg_component_info *component = cinfo->comp_info + c;
  int v = component->v_samp_factor, size = component->DCT_scaled_size;
  int rows = v; /* of blocks in this iMCU row */
  if (row == cinfo->total_iMCU_rows - 1) {
    rows = (int)(component->height_in_blocks % (JDIMENSION)v);
    if (rows == 0) rows = v;
  }
  JBLOCK block;
  memset(block, 0, sizeof block);
  inverse_DCT_method_ptr inverse = cinfo->idct->inverse_DCT[c];
  JSAMPARRAY out = output[c];
  JDIMENSION first = cinfo->master->first_MCU_col[c], last = cinfo->master->last_MCU_col[c];
  for (int y = 0; y < rows; y++, out += size) {
    const JCOEF *dc = p->dc_values[c] + ((size_t)row * (size_t)v + (size_t)y) * p->block_stride[c];
    JDIMENSION column = 0;
    for (JDIMENSION x = first; x <= last; x++, column += (JDIMENSION)size) {
      block[0] = dc[x];
      (*inverse)(cinfo, component, block, out, column);
    }
  }
}

/* In place of libjpeg's decompress_data (or its block-smoothing one): libjpeg's makes the output
 * iMCU row of every other component, told that the DC-only ones are not needed; then theirs. */
static int decompress_beside_dc(j_decompress_ptr cinfo, JSAMPIMAGE output) {
  imc_progressive *p = imc_jpeg_session_progressive(cinfo);
  JDIMENSION row = cinfo->output_iMCU_row;
  boolean needed[MAX_COMPONENTS];
  for (int c = 0; c < cinfo->num_components; c++) {
    needed[c] = cinfo->comp_info[c].component_needed;
    if (p->dc_values[c]) cinfo->comp_info[c].component_needed = FALSE;
  }
  int result = (*p->libjpeg_output)(cinfo, output);
  for (int c = 0; c < cinfo->num_components; c++) cinfo->comp_info[c].component_needed = needed[c];
  if (result == JPEG_SUSPENDED) return result;
  for (int c = 0; c < cinfo->num_components; c++)
    if (p->dc_values[c] && needed[c]) output_dc_rows(p, c, row, output);
  if (result == JPEG_SCAN_COMPLETED) dc_only_outputs++;
  return result;
}

/* Whether libjpeg's block smoothing re-estimates the component's DCs: it does when none of the AC
 * coefficients it estimates (zigzag 1 to 9) was sent at all. libjpeg reads these bits from the
 * current scans' latch; it would use the previous scan's only for output rows past
 * last_good_iMCU_row, which needs a scan whose data ended early: a warning, on which a strict
 * decode (the only kind this decoder runs in) has already failed. */
static int dcs_smoothed(j_decompress_ptr cinfo, int c) {
  for (int k = 1; k <= 9; k++)
    if (cinfo->coef_bits[c][k] != -1) return 0;
  return 1;
}

/* After libjpeg's output pass setup. It picked its decompress_data, or with block smoothing its
 * smoothing one (an image whose AC coefficients are not all there), which changes only AC
 * coefficients (no 1x1 pixel reads them) unless it re-estimates the DCs: such a component goes back
 * into libjpeg's buffer. The others' rows are ours, around libjpeg's routine. */
static void prepare_output_from_dc(j_decompress_ptr cinfo) {
  imc_progressive *p = imc_jpeg_session_progressive(cinfo);
  (*p->libjpeg_prepare_output)(cinfo);
  int smoothing = cinfo->coef->decompress_data != p->libjpeg_decompress;
  int any = 0;
  for (int c = 0; c < cinfo->num_components; c++) {
    if (p->dc_values[c] && smoothing && (!cinfo->coef_bits || dcs_smoothed(cinfo, c))) leave_dc_only(p, c);
    any |= p->dc_values[c] != NULL;
  }
  if (!any) return;
  p->libjpeg_output = cinfo->coef->decompress_data;
  cinfo->coef->decompress_data = decompress_beside_dc;
}

/* Each component scaled to 1x1 becomes DC-only, its DCs in memory of the decoder's own (zero, as
 * libjpeg's buffers start). */
static void start_dc_only(imc_progressive *p) {
  j_decompress_ptr cinfo = p->cinfo;
  if (cinfo->buffered_image || cinfo->raw_data_out || !cinfo->idct || !cinfo->master->prepare_for_output_pass ||
      !cinfo->coef->decompress_data)
    return;
  int any = 0;
  for (int c = 0; c < cinfo->num_components; c++) {
    jpeg_component_info *component = cinfo->comp_info + c;
    if (component->DCT_scaled_size != 1) continue;
    size_t bytes = (size_t)p->block_stride[c] * p->block_rows[c] * sizeof(JCOEF);
    p->dc_values[c] = map_zeroed(bytes);
    if (!p->dc_values[c]) continue;
    p->dc_bytes[c] = bytes;
    any = 1;
  }
  if (!any) return;
  /* Set at libjpeg's setup for a multi-scan image; its output pass setup picks it, or the smoothing one. */
  p->libjpeg_decompress = cinfo->coef->decompress_data;
  p->libjpeg_prepare_output = cinfo->master->prepare_for_output_pass;
  cinfo->master->prepare_for_output_pass = prepare_output_from_dc;
}

int imc_progressive_eligible(j_decompress_ptr cinfo) {
  return cinfo->progressive_mode && !cinfo->arith_code && cinfo->data_precision == 8;
}

imc_progressive *imc_progressive_install(j_decompress_ptr cinfo, const imc_progressive_session *session) {
  if (!imc_progressive_eligible(cinfo) || !cinfo->coef || !cinfo->coef->coef_arrays || !cinfo->inputctl ||
      !cinfo->master)
    return NULL;
  /* Only before the first scan's data: libjpeg's consume_data in place, nothing consumed. */
  if (cinfo->inputctl->consume_input != cinfo->coef->consume_data || cinfo->input_iMCU_row != 0 ||
      cinfo->input_scan_number != 1)
    return NULL;
  imc_progressive *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->cinfo = cinfo;
  p->session = *session;
  for (int c = 0; c < cinfo->num_components; c++) {
    jpeg_component_info *component = cinfo->comp_info + c;
    JDIMENSION h = (JDIMENSION)component->h_samp_factor, v = (JDIMENSION)component->v_samp_factor;
    p->block_stride[c] = (component->width_in_blocks + h - 1) / h * h;
    p->block_rows[c] = buffer_rows(component);
    if (p->block_rows[c] < (size_t)cinfo->total_iMCU_rows * v) p->block_rows[c] = (size_t)cinfo->total_iMCU_rows * v;
  }
  p->libjpeg_consume = cinfo->coef->consume_data;
  cinfo->coef->consume_data = consume;
  cinfo->inputctl->consume_input = consume;
  start_dc_only(p);
  return p;
}

void imc_progressive_destroy(imc_progressive *progressive) {
  if (!progressive) return;
  for (int c = 0; c < MAX_COMPONENTS; c++) {
    if (progressive->nonzero[c]) munmap(progressive->nonzero[c], progressive->nonzero_bytes[c]);
    if (progressive->dc_values[c]) munmap(progressive->dc_values[c], progressive->dc_bytes[c]);
  }
  free(progressive);
}
