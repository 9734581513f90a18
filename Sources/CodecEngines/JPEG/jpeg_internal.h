/* The JPEG engine's shared parts: the image's plain structs, the Huffman tables and the bit reader
 * (inline: they are the hot loops). Internal to the engine. */
#ifndef IMC_JPEG_INTERNAL_H
#define IMC_JPEG_INTERNAL_H

#pragma clang diagnostic warning "-Wall"
#pragma clang diagnostic warning "-Wextra"
#pragma clang diagnostic ignored "-Wunused-parameter"

#include "imc_jpeg_engine.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_FRAME_COMPONENTS 3 /* the engine decodes grayscale and three-component images */
#define MAX_BLOCKS_IN_MCU 10   /* T.81 B.2.3 */
#define HUFFMAN_SLOTS 4
#define QUANT_SLOTS 4

/* ---- Huffman tables ---- */

#define FAST_BITS 10

/* A table as a DHT segment defines it. */
typedef struct {
  uint8_t counts[17]; /* codes of each length 1...16 */
  uint8_t values[256];
  int defined;
  uint32_t version; /* bumped by each DHT that defines the slot */
} huffman_spec;

/* fast[]: (length << 8) | symbol for codes of up to FAST_BITS bits; 0 for longer ones.
 * skip[] (AC): a whole coefficient (code and magnitude bits) resolved in FAST_BITS bits: the bits it
 *   takes in bits 0..4, how far the position moves in bits 5..11, SKIP_END_OF_BLOCK for an EOB.
 * coef[] (AC): the same coefficient with its value: the value in the high 16 bits, the run in bits
 *   8..11, the bits taken in bits 0..4, COEF_FLAG set.
 * refine[] (AC, progressive refinement): a symbol resolved with the bits that follow its code: the
 *   bits taken in bits 0..4, the run in bits 5..8, REFINE_* in bits 10..11, an end-of-band run's
 *   length in the high 16 bits, REFINE_FLAG set.
 * Entries that are 0 go the long way: the canonical codes below. */
#define SKIP_LENGTH_MASK 31
#define SKIP_ADVANCE_SHIFT 5
#define SKIP_END_OF_BLOCK 0x1000
#define COEF_FLAG 0x1000
#define REFINE_FLAG 0x200
enum { REFINE_PLUS = 0, REFINE_MINUS = 1, REFINE_ZRL = 2, REFINE_EOB = 3 };

typedef struct {
  uint16_t fast[1 << FAST_BITS];
  uint16_t skip[1 << FAST_BITS];
  int32_t coef[1 << FAST_BITS];
  int32_t refine[1 << FAST_BITS];
  int32_t maxcode[18];   /* the largest code of each length, -1 when none; [17] ends the search */
  int32_t valoffset[18]; /* symbols[] index of a length's first code, minus that code */
  uint8_t symbols[256];
  int built;
  uint32_t built_from; /* the spec's version it was built from */
} huffman_table;

/* Builds `table` from `spec` (`ac`: an AC table). 0 when libjpeg would refuse the table as it
 * derives it for a scan (more codes than a length holds, a DC symbol over 15). */
int imc_jpeg_build_table(huffman_table *table, const huffman_spec *spec, int ac);

/* The symbol of a code longer than FAST_BITS whose bits are at the top of `bits`; *length set.
 * -1 for a code the table does not have. */
static inline int huffman_decode_long(const huffman_table *table, uint64_t bits, int *length) {
  for (int taken = FAST_BITS + 1; taken <= 16; taken++) {
    int32_t candidate = (int32_t)(bits >> (64 - taken));
    if (candidate <= table->maxcode[taken]) {
      *length = taken;
      return table->symbols[(candidate + table->valoffset[taken]) & 0xFF];
    }
  }
  return -1;
}

/* Zigzag order with 16 extra entries (63): a run past a block's end lands on its last coefficient. */
extern const uint8_t imc_jpeg_zigzag[64 + 16];

/* Whether any of the first `bytes` bytes (most significant first) of `word` is 0xFF. It may also
 * say so when the byte after them is 0xFF (a borrow): the slower path, never a wrong answer. */
static inline int has_ff(uint64_t word, int bytes) {
  uint64_t inverted = ~word;
  uint64_t zero = (inverted - 0x0101010101010101ull) & ~inverted & 0x8080808080808080ull;
  uint64_t mask = bytes >= 8 ? ~0ull : ~(~0ull >> (8 * bytes));
  return (zero & mask) != 0;
}

/* ---- the bit reader ----
 * Bits of a scan's entropy-coded data, most significant first. Past a marker or the end of the
 * bytes, zero bits are supplied and counted (`padded`): taking them is reading past the data, on
 * which the engine gives up (libjpeg would warn, or could decode differently). */
typedef struct {
  uint64_t bits;
  int count;         /* bits held, padding included */
  int padded;        /* zero bits appended past the data, at the low end */
  int marker;        /* a marker ends the data: its first FF is at `next`, which never moves past it */
  int ended;         /* the bytes ran out (no marker) */
  uint64_t appended; /* data bits put into `bits` since the reader started */
  const uint8_t *next, *end;
} bit_reader;

/* Data bits taken since the reader started. */
static inline uint64_t consumed_bits(const bit_reader *r) { return r->appended - (uint64_t)(r->count - r->padded); }

/* Fills to more than 56 bits a byte at a time: data, stuffed FFs, then padding. */
void imc_jpeg_refill(bit_reader *r);

/* Makes at least 32 bits held (data or padding). */
static inline __attribute__((always_inline)) void fill(bit_reader *r) {
  if (!r->marker && r->end - r->next >= 8) {
    uint64_t word;
    memcpy(&word, r->next, 8);
    word = __builtin_bswap64(word);
    if (!has_ff(word, 8)) {
      int take = (63 - r->count) >> 3;
      r->bits |= (word & ~(~0ull >> (8 * take))) >> r->count;
      r->count += 8 * take;
      r->next += take;
      r->appended += 8 * (uint64_t)take;
      return;
    }
  }
  imc_jpeg_refill(r);
}

static inline unsigned peek(const bit_reader *r, int bits) { return (unsigned)(r->bits >> (64 - bits)); }

static inline void drop(bit_reader *r, int bits) {
  r->bits <<= bits;
  r->count -= bits;
}

static inline int take_bits(bit_reader *r, int bits) {
  int value = (int)peek(r, bits);
  drop(r, bits);
  return value;
}

static inline int take_bit(bit_reader *r) {
  int value = (int)(r->bits >> 63);
  drop(r, 1);
  return value;
}

/* T.81 F.2.2.1's EXTEND: the signed value of `bits` magnitude bits. */
static inline int extend(int value, int bits) { return value < (1 << (bits - 1)) ? value - (1 << bits) + 1 : value; }

/* A DC sum: `last + difference` into *sum, 0 when it would leave int. There libjpeg's sequential
 * decoder wraps and 3.x's progressive one stops with an error, so the engine gives up and leaves the
 * file to libjpeg; *sum then holds the wrapped sum, which no caller reads. An overflow test rather
 * than a test of `last`'s sign, which goes either way as often and would be mispredicted. */
static inline int add_dc_difference(int last, int difference, int *sum) {
  return !__builtin_add_overflow(last, difference, sum);
}

/* One symbol (at least 16 bits held); -1 for a code no entry has. */
static inline int decode_symbol(bit_reader *r, const huffman_table *t) {
  unsigned entry = t->fast[peek(r, FAST_BITS)];
  if (entry) {
    drop(r, (int)(entry >> 8));
    return (int)(entry & 0xFF);
  }
  int length = 0;
  int symbol = huffman_decode_long(t, r->bits, &length);
  if (symbol >= 0) drop(r, length);
  return symbol;
}

/* Whether the reader took bits past the data (or met the end of the bytes). */
static inline int read_past_data(const bit_reader *r) { return r->padded > r->count || r->ended; }

/* ---- the image ---- */

typedef struct {
  /* From the frame header. */
  int id;
  int h, v;       /* sampling factors */
  int quant_slot; /* Tq */
  /* Latched at the component's first scan, as libjpeg latches it (natural order). */
  uint16_t quant[64];
  int latched;
  /* Derived. */
  uint32_t width_in_blocks, height_in_blocks;
  uint32_t block_stride, block_rows; /* its blocks as MCUs cover them */
  int scaled;                        /* inverse DCT output size: 1, 2, 4 or 8 */
  uint32_t downsampled_width;        /* samples of a row at that size */
  int needed;                        /* its samples reach the output */
  int upsample;                      /* UPSAMPLE_* */
  /* Progressive: which bits of each coefficient have been sent (-1 none, else the last Al). */
  int coef_bits[64];
  /* Coefficient storage (progressive): whole blocks, or DC values alone (a 1x1 output, or a
   * component whose samples are not needed), with each block's mask of nonzero AC coefficients
   * (bit k: zigzag index k), which is what refinement scans are parsed with. */
  int16_t *blocks; /* 64 per block, natural order; NULL when DC-only */
  int16_t *dc;     /* DC-only: one per block; NULL when not kept */
  uint64_t *nonzero;
  size_t blocks_bytes, dc_bytes, nonzero_bytes;
} component_info;

enum { UPSAMPLE_NONE = 0, UPSAMPLE_H2V1_REPLICATE, UPSAMPLE_H2V1_FANCY };

typedef struct {
  int count;
  int component[4];          /* indexes into the frame's components */
  int dc_table[4], ac_table[4];
  int Ss, Se, Ah, Al;
} scan_header;

typedef struct {
  /* Tables as defined so far. */
  uint16_t quant[QUANT_SLOTS][64]; /* natural order */
  int quant_defined[QUANT_SLOTS];
  huffman_spec huffman[2][HUFFMAN_SLOTS]; /* [0] DC, [1] AC */
  unsigned restart_interval;
  /* Markers that decide the colour space, as libjpeg reads them. */
  int saw_jfif, saw_adobe, adobe_transform;
  /* The frame. */
  int have_frame, progressive;
  uint32_t width, height;
  int components;
  component_info component[MAX_FRAME_COMPONENTS];
  int max_h, max_v;
  int color_space; /* 1 gray, 3 YCbCr */
  uint32_t mcus_per_row, mcu_rows; /* of an interleaved scan */
  uint32_t imcu_rows;
  int scans;
} frame_info;

/* ---- engine parts ---- */

typedef struct imc_jpeg_sequential imc_jpeg_sequential;
typedef struct imc_jpeg_progressive imc_jpeg_progressive;
typedef struct imc_jpeg_output imc_jpeg_output;

/* Marker segments (jpeg_markers.c). A segment is read only when all of it is here. */
enum { MARKERS_NEED_INPUT = 0, MARKERS_SCAN = 1, MARKERS_EOI = 2, MARKERS_GIVE_UP = 3 };
/* Reads marker segments from *position until an SOS (its header in *scan) or EOI. `first`: the
 * bytes start with SOI. `reason` is set on MARKERS_GIVE_UP. */
int imc_jpeg_read_markers(frame_info *frame, const uint8_t *input, size_t length, int eof, size_t *position,
                          int first, scan_header *scan, const char **reason);
/* Skips what libjpeg skips before a marker (bytes other than FF, stuffed FF 00, fill FFs) and says
 * where the marker's FF is: 1 found, 0 more bytes needed, -1 the bytes ended. On 0 and -1,
 * *position is past every byte skipped (at the trailing FFs that may begin a marker). */
int imc_jpeg_find_marker(const uint8_t *input, size_t length, int eof, size_t *position);
/* Once the frame header is read: the derived sizes for the request. 0 to give up. */
int imc_jpeg_prepare_frame(frame_info *frame, const imc_jpeg_engine_request *request, const char **reason);
/* At each scan: latch quantization tables, check the scan against the frame. 0 to give up. */
int imc_jpeg_prepare_scan(frame_info *frame, const scan_header *scan, const char **reason);

/* Inverse DCTs (jpeg_idct.c): a block's coefficients (natural order) and quantizers to size x size
 * samples at `out`, rows `stride` apart. Returns 0 when the block left the range in which every
 * version of libjpeg's inverse DCT gives these samples (the engine then gives up). */
int imc_jpeg_idct(int size, const int16_t *coefficients, const uint16_t *quant, uint8_t *out, size_t stride);
/* The inverse DCT at `size` of a block whose AC coefficients are all zero (the same samples as
 * imc_jpeg_idct gives it, and the same answer about exactness). */
int imc_jpeg_idct_flat(int size, int16_t dc, uint16_t quant, uint8_t *out, size_t stride);
/* The 1x1 inverse DCT of a DC coefficient (exact for every input): libjpeg's, the product descaled
 * by 8 and put through its range limit (a value's low 10 bits: [-512, 511] clamped to [0, 255] after
 * the +128 shift, wrapped beyond). Inline: a 1/8 decode runs it for nearly every block. */
static inline uint8_t imc_jpeg_idct_dc(int16_t dc, uint16_t quant) {
  int64_t value = (int64_t)dc * (int16_t)quant;
  int index = (int)(((value + 4) >> 3) & 1023);
  /* Clamped without branches (a branch on a DC's sign is mispredicted in busy images). */
  int sample = ((index ^ 512) - 512) + 128; /* the low 10 bits as a signed value, shifted */
  sample = sample < 0 ? 0 : sample;
  return (uint8_t)(sample > 255 ? 255 : sample);
}

/* The output stage (jpeg_output.c): component planes of one iMCU row to output rows. */
struct imc_jpeg_output {
  const frame_info *frame;
  int layout;       /* IMC_JPEG_ENGINE_* */
  int scale;        /* the smallest inverse DCT size */
  int rows_per_imcu; /* output rows an iMCU row makes */
  uint32_t output_width, output_height;
  uint32_t rows_out;
  size_t plane_stride[MAX_FRAME_COMPONENTS];
  uint8_t *planes[MAX_FRAME_COMPONENTS]; /* rows_per_imcu rows of each needed component */
  uint8_t *upsampled;                    /* two rows (Cb, Cr) widened 2:1, scratch_stride apart */
  size_t scratch_stride;
  uint8_t *rows;                         /* the output rows */
  size_t row_stride;
  uint32_t count; /* rows ready */
  int inexact;    /* a block left the range where the inverse DCT is libjpeg's */
};
/* Whether the output stage handles the frame's sampling (after imc_jpeg_prepare_frame, which
 * checks each component's upsampling): 0, with `reason`, to give up. */
int imc_jpeg_output_handles(const frame_info *frame, const char **reason);
int imc_jpeg_output_init(imc_jpeg_output *output, const frame_info *frame, int layout, int scale, size_t limit);
void imc_jpeg_output_free(imc_jpeg_output *output);
/* Colour-converts the planes of the next iMCU row into output rows (count set). */
void imc_jpeg_output_convert(imc_jpeg_output *output);

/* Sequential (baseline) scans (jpeg_sequential.c). */
enum { STEP_ROWS = 0, STEP_INPUT = 1, STEP_DONE = 2, STEP_GIVE_UP = 3 };
imc_jpeg_sequential *imc_jpeg_sequential_create(frame_info *frame, const scan_header *scan, imc_jpeg_output *output,
                                                const imc_jpeg_engine_request *request, const char **reason);
/* Decodes a row of MCUs: STEP_ROWS after each (output->count rows unless discarding), STEP_INPUT,
 * or STEP_GIVE_UP. After the last row, *position is where the scan's data ends. */
int imc_jpeg_sequential_step(imc_jpeg_sequential *sequential, const uint8_t *input, size_t length, int eof,
                             size_t *position, const char **reason);
/* Whether every row of MCUs is decoded. */
int imc_jpeg_sequential_finished(const imc_jpeg_sequential *sequential);
void imc_jpeg_sequential_destroy(imc_jpeg_sequential *sequential);

/* Progressive scans (jpeg_progressive.c). */
imc_jpeg_progressive *imc_jpeg_progressive_create(frame_info *frame, const imc_jpeg_engine_request *request,
                                                  const char **reason);
/* Starts a scan (its header read and checked). 0 to give up. */
int imc_jpeg_progressive_start_scan(imc_jpeg_progressive *progressive, const scan_header *scan, const char **reason);
/* STEP_INPUT or STEP_DONE (the scan's data is decoded; *position is where it ends) or STEP_GIVE_UP. */
int imc_jpeg_progressive_step(imc_jpeg_progressive *progressive, const uint8_t *input, size_t length, int eof,
                              size_t *position, const char **reason);
/* After EOI: whether libjpeg would smooth blocks (then the engine gives up on the pixels). */
int imc_jpeg_progressive_would_smooth(const imc_jpeg_progressive *progressive);
/* After EOI: the planes of iMCU row `row` for the output stage. */
void imc_jpeg_progressive_output_row(imc_jpeg_progressive *progressive, imc_jpeg_output *output, uint32_t row);
void imc_jpeg_progressive_destroy(imc_jpeg_progressive *progressive);

/* Shared by the scan decoders (jpeg_restart.c). */
/* The table of DHT slot `slot` (`ac`: AC) for a scan, built into `tables` from the frame's spec
 * when the spec changed since it was built. NULL when the slot is undefined (libjpeg substitutes
 * its standard tables: the engine gives up) or libjpeg would refuse the table. */
const huffman_table *imc_jpeg_table_for(huffman_table tables[2][HUFFMAN_SLOTS], const frame_info *frame, int ac,
                                        int slot);
/* At a restart: drops the reader's bits (once, *restarting then set), then the next marker must be
 * the RSTn libjpeg expects (*next_restart, advanced past). 1 done (the reader after the marker), 0
 * more input (the reader moved past the bytes skipped so far), -1 not (give up). The caller resets
 * its own state (DC predictors, end-of-band run, the interval's count). */
int imc_jpeg_restart(bit_reader *r, int *restarting, unsigned *next_restart, const uint8_t *input, size_t length,
                     int eof);

/* Thread-local counts (jpeg_counts.c). */
void imc_jpeg_count_scan(void);
void imc_jpeg_count_give_up(void);
void imc_jpeg_count_dc_only(void);

/* Bytes an MCU may start with: ten blocks of 64 coefficients at 32 bits each, every byte stuffed,
 * fit with room to spare. Fewer than this (and no marker ahead, and more to come): wait. */
#define MCU_MARGIN 8192

/* The last point at which an MCU may start: MCU_MARGIN bytes before the end, or a marker that lies
 * ahead (the reader stops there), or the end when no more bytes come. */
uintptr_t imc_jpeg_safe_limit(const uint8_t *from, const uint8_t *end, int eof);

/* imc_jpeg_safe_limit, looked for only when needed: an MCU that starts MCU_MARGIN bytes or more
 * before the end may start whatever the tail holds, so the tail is searched for a marker only once
 * the reader passes that point (a sequential scan steps once per MCU row, and searching the tail at
 * every step was a measurable share of a large baseline thumbnail's instructions: benchmarks/README.md).
 * Same answers. */
typedef struct {
  const uint8_t *from, *end;
  int eof, searched;
  uintptr_t limit;
} mcu_start_limit;

static inline void mcu_start_limit_reset(mcu_start_limit *m, const uint8_t *from, const uint8_t *end, int eof) {
  m->from = from;
  m->end = end;
  m->eof = eof;
  m->searched = eof;
  m->limit = eof ? (uintptr_t)end : (size_t)(end - from) > MCU_MARGIN ? (uintptr_t)(end - MCU_MARGIN) : 0;
}

/* Whether an MCU may start where the reader is (a reader stopped at a marker always may). */
static inline int mcu_may_start(mcu_start_limit *m, const bit_reader *r) {
  if ((uintptr_t)r->next <= m->limit || r->marker) return 1;
  if (m->searched) return 0;
  m->limit = imc_jpeg_safe_limit(m->from, m->end, m->eof);
  m->searched = 1;
  return (uintptr_t)r->next <= m->limit;
}

#endif
