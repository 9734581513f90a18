/* imc_png_fast.c: the image data of a PNG (8 or 16 bits, plain or Adam7) without libpng's row reader.
 *
 * Why: libpng as Debian builds it undoes the row filters in plain C, one byte at a time; on a photo
 * (mostly Paeth rows) that is about half of the decode, more than zlib's inflate. Here the filters
 * of 3- to 8-byte pixels run on SSE2, a pixel's bytes at once, a validation (no pixels wanted)
 * skips them altogether (only the filter type byte can be wrong, and it is checked), the raw deflate
 * data is inflated 256 KiB at a time by imgfetch's own inflater (imc_inflate.c, faster than zlib's
 * inflate on the corpus photos: benchmarks/README.md, "Figures behind the codecs' choices"), and
 * zlib's wrapper, the Adler-32 (on SSE2) and the chunks' CRC-32 are checked here; it includes no
 * library header (zlib stays libpng's).
 *
 * Sub, Avg and Paeth wait on the pixel to the left (latency-bound: some 14 cycles a pixel for Paeth
 * on one row, the CPU mostly idle), so a row with one of them is undone together with the rows
 * inflated after it, up to four, in a wavefront (each row a pixel behind the row above, whose
 * pixels it gets in registers): four dependency chains at once, any mix of filter types, on SSE2
 * for 3- to 8-byte pixels and in plain C for 1- and 2-byte ones. The rows after the first are
 * marked undone and only converted when handed out; every row's filter type byte is still checked
 * as it is handed out, so which rows are taken, and the verdict, do not depend on the grouping.
 *
 * Adam7: the seven passes' reduced images come one after the other in the image data, each row with
 * its filter type byte and under the previous row of its own pass (a pass without pixels, in a small
 * image, has no bytes at all). They are read as seven small images: the slots stop at each pass's
 * last row and the row above its first is zeros, so the wavefront, the conversions, the Adler-32
 * and the checks are the plain image's. Each converted pass row's pixels go to their places in the
 * whole output image (the last pass's rows are whole ones, converted in place); the caller hands
 * the rows out only when the path is done, as libpng's interlace handling completes rows only in
 * the last pass (so none is handed out before giving up). Its IDATs may be longer (libpng's limit
 * counts 6 more bytes a row), and its data must end with the last row of the last pass that has
 * pixels (what this gained on an interlaced photo: benchmarks/README.md).
 *
 * What stays libpng's: every chunk before the first IDAT (IHDR, PLTE, tRNS, iCCP, eXIf, and all its
 * checks), read by png_read_info or its progressive reader before this path starts.
 *
 * One verdict: this path only *accepts* what libpng decodes without an error: every IDAT's CRC
 * right and its length within libpng's limit, zlib's stream sound (header as zlib takes it for
 * libpng, codes, Adler-32; its window the full 32 KiB, so that no verdict depends on how the calls
 * to inflate are cut; the inflater accepts only deflate data zlib's raw inflate accepts, with its
 * bytes, and gives up on the rest, including incomplete codes zlib tolerates) and ending exactly
 * with the last row at the end of an IDAT, every filter type
 * known, then IEND, empty, with its CRC. On anything else (damage, data cut short, extra data, any
 * other chunk after the image data, a palette index past the palette) it gives up and the caller
 * decodes the file again with libpng, whose verdict and message stand. Both decode the same rows the
 * same way, so rows handed out before giving up are rows libpng produces (a stream may hand out a
 * few more of them before a damaged file fails than libpng alone, which inflates in its own pieces).
 */
#pragma clang diagnostic warning "-Wall"
#pragma clang diagnostic warning "-Wextra"
#pragma clang diagnostic ignored "-Wunused-parameter"

#include "imc_bytes.h"
#include "imc_crc32.h"
#include "imc_inflate.h"
#include "imc_png_fast.h"
#include "imc_types.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bytes past the last row that the vector filters may read and write back unchanged. */
#define ROW_PADDING 16
/* Rows are inflated this many bytes at a time (at least two rows): the inflater's fast loop stops
 * short of the end of each output room and copies every call's last 32 KiB into its history (zlib's
 * did the same: one row per call costs far more inflate time, see benchmarks/README.md). */
#define INFLATE_PIECE ((size_t)256 << 10)

enum { PHASE_DATA, PHASE_CRC, PHASE_HEADER, PHASE_IEND_CRC };

struct imc_png_fast {
  imc_inflate *inflater; /* raw deflate (imc_inflate.c), between zlib's wrapper read here */
  uint32_t width, height;
  /* Adam7: the seven passes' reduced images follow one another in the image data, each row with
   * its filter type byte and the row above it the previous row of the same pass. A plain image is
   * one pass, the image itself. */
  int interlaced;
  int pass;              /* the pass being read (0 to 6; 0 for a plain image) */
  uint32_t pass_width, pass_height; /* its reduced image */
  uint32_t rows_total;   /* rows in every pass */
  uint64_t data_total;   /* image data bytes in every pass */
  uint64_t data_before;  /* those of the passes before this one */
  size_t stride;         /* an interlaced image's output rows are this far apart */
  uint8_t *scratch;      /* a pass row converted, before its pixels go to their places */
  int samples;           /* per pixel in the file: 1 gray or palette, 2 gray+alpha, 3 RGB, 4 RGBA */
  int sample_bytes;      /* 1, or 2 for 16 bits (of which the output keeps the high byte) */
  int pixel_bytes;       /* the filters' unit */
  int palette_image;
  int out_channels;      /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
  size_t row_bytes;      /* a (pass) row's bytes after its filter type byte */
  size_t row_total;      /* and with it */
  /* Rows are inflated into `slots` consecutive rows (each its filter type byte, then its bytes),
   * preceded by the row above the first of them, unfiltered (zeros above the image's first row). */
  uint8_t *buffers;
  uint8_t *slots;
  uint32_t slot_count;
  size_t fill;           /* bytes of the slots inflated so far */
  uint32_t emitted;      /* slots handed out */
  uint32_t undone;       /* slots whose filter is undone (from the first): those past `emitted` were undone with an earlier one */
  uint32_t first_row;    /* the pass row in the first slot */
  uint32_t row;          /* rows handed out (in every pass) */
  int stream_ended;      /* the zlib stream ended: deflate's end, then its Adler-32 checked */
  /* zlib's wrapper, read here: the inflater runs on the raw deflate data between (see inflate_some). */
  uint8_t wrapper[4];    /* the two header bytes, then the four of the Adler-32 */
  int wrapper_count;
  int header_read;
  int deflate_ended;     /* the inflater reported the end of the deflate data: the Adler-32 follows */
  uint32_t adler;        /* of the image data inflated so far */
  int phase;
  uint32_t chunk_left;   /* of the IDAT being read */
  uint32_t crc;          /* of the chunk being read: its type, then its data */
  uint8_t collected[8];  /* a chunk header or CRC, as its bytes arrive */
  int collected_count;
  uint64_t idat_limit;   /* libpng's largest acceptable IDAT length for this image */
  uint8_t colours[256][4]; /* a palette image's entries as RGBA */
  int palette_entries;
};

/* ---- set-up ---- */

static int output_channels(int32_t layout) {
  switch (layout) {
  case IMC_LAYOUT_GRAY8: return 1;
  case IMC_LAYOUT_GRAYALPHA8: return 2;
  case IMC_LAYOUT_RGB8: return 3;
  case IMC_LAYOUT_RGBA8: return 4;
  default: return 0;
  }
}

/* The longest IDAT libpng reads for this image (png_check_chunk_length: the image's bytes with
 * zlib's overhead, and for an interlaced image 6 more bytes a row, for the filter type bytes of the
 * passes' rows); a longer one is an error there, so this path does not take it. libpng's limit
 * is at least this, so giving up above it never refuses what libpng takes. */
static uint64_t idat_limit(const imc_png_fast_image *image, int samples) {
  uint64_t row_factor = (uint64_t)image->width * (uint64_t)samples * (image->bit_depth > 8 ? 2u : 1u) + 1u +
                        (image->interlaced ? 6u : 0u);
  if (row_factor > 0xffffffffu || image->height > 0xffffffffu / row_factor) return 0x7fffffffu;
  uint64_t limit = (uint64_t)image->height * row_factor;
  uint64_t factor = row_factor > 32566 ? 32566 : row_factor;
  limit += 6 + 5 * (limit / factor + 1);
  return limit < 0x7fffffffu ? limit : 0x7fffffffu;
}

/* Adam7 (PNG spec 8.2): pass p takes the pixels at x = x0 + i*dx, y = y0 + j*dy. */
static const uint8_t pass_x0[7] = {0, 4, 0, 2, 0, 1, 0}, pass_dx[7] = {8, 8, 4, 4, 2, 2, 1};
static const uint8_t pass_y0[7] = {0, 0, 4, 0, 2, 0, 1}, pass_dy[7] = {8, 8, 8, 4, 4, 2, 2};

/* Pixels in `size` from `start` on, `step` apart: a pass's width or height (0 for a small image). */
static uint32_t pass_extent(uint32_t size, unsigned start, unsigned step) {
  return size > start ? (uint32_t)((size - start + step - 1) / step) : 0;
}

/* The width and height of pass `pass`'s reduced image (the image itself when not interlaced). A pass
 * with no pixels has no bytes in the image data at all, not even filter type bytes. */
static void pass_size(const imc_png_fast *fast, int pass, uint32_t *width, uint32_t *height) {
  if (!fast->interlaced) {
    *width = fast->width;
    *height = fast->height;
    return;
  }
  *width = pass_extent(fast->width, pass_x0[pass], pass_dx[pass]);
  *height = pass_extent(fast->height, pass_y0[pass], pass_dy[pass]);
  if (*width == 0 || *height == 0) *width = *height = 0;
}

/* Slots for a pass whose rows are `row_total` bytes: INFLATE_PIECE bytes of them, at least two,
 * at most the pass's rows. */
static uint32_t slots_for(size_t row_total, uint32_t rows) {
  size_t slots = INFLATE_PIECE / row_total;
  if (slots < 2) slots = 2;
  if (slots > rows) slots = rows;
  return (uint32_t)slots;
}

/* Starts reading the first pass from `pass` on that has pixels: its geometry, its slots after the
 * row above its first row, zeros. There always is one: called while rows remain. */
static void start_pass(imc_png_fast *fast, int pass) {
  uint32_t width, height;
  for (;; pass++) {
    pass_size(fast, pass, &width, &height);
    if (height > 0) break;
  }
  uint64_t before = 0;
  for (int earlier = 0; earlier < pass; earlier++) {
    uint32_t w, h;
    pass_size(fast, earlier, &w, &h);
    before += (uint64_t)h * (1 + (uint64_t)w * (uint64_t)fast->pixel_bytes);
  }
  fast->pass = pass;
  fast->pass_width = width;
  fast->pass_height = height;
  fast->data_before = before;
  fast->row_bytes = (size_t)width * (size_t)fast->pixel_bytes;
  fast->row_total = 1 + fast->row_bytes;
  fast->slot_count = slots_for(fast->row_total, height);
  fast->slots = fast->buffers + fast->row_total;
  memset(fast->buffers, 0, fast->row_total);
  fast->first_row = 0;
  fast->fill = 0;
  fast->emitted = 0;
  fast->undone = 0;
}

imc_png_fast *imc_png_fast_create(const imc_png_fast_image *image) {
  if (image->has_other_transparency) return NULL;
  if (image->bit_depth != 8 && image->bit_depth != 16) return NULL;
  int samples;
  switch (image->color_type) {
  case IMC_PNG_COLOR_GRAY: samples = 1; break;
  case IMC_PNG_COLOR_GRAY_ALPHA: samples = 2; break;
  case IMC_PNG_COLOR_RGB: samples = 3; break;
  case IMC_PNG_COLOR_RGBA: samples = 4; break;
  case IMC_PNG_COLOR_PALETTE: samples = 1; break;
  default: return NULL;
  }
  int palette_image = image->color_type == IMC_PNG_COLOR_PALETTE;
  if (palette_image && (image->bit_depth != 8 || !image->palette || image->palette_entries < 1 ||
                        image->palette_entries > 256 || image->alpha_entries > image->palette_entries))
    return NULL;
  int out_channels = output_channels(image->layout);
  if (out_channels == 0) return NULL;
  int colour_source = image->color_type & 2;
  /* libpng's RGB-to-gray conversion is not done here; gray+alpha output only from gray+alpha. */
  if (colour_source && out_channels < 3) return NULL;
  if (out_channels == 2 && image->color_type != IMC_PNG_COLOR_GRAY_ALPHA) return NULL;
  if (image->width == 0 || image->height == 0) return NULL;

  imc_png_fast *fast = calloc(1, sizeof *fast);
  if (!fast) return NULL;
  fast->width = image->width;
  fast->height = image->height;
  fast->samples = samples;
  fast->sample_bytes = image->bit_depth / 8;
  fast->pixel_bytes = samples * fast->sample_bytes;
  fast->palette_image = palette_image;
  fast->out_channels = out_channels;
  fast->interlaced = image->interlaced != 0;
  fast->stride = image->stride;
  fast->idat_limit = idat_limit(image, samples);
  if (palette_image) {
    fast->palette_entries = image->palette_entries;
    for (int i = 0; i < image->palette_entries; i++) {
      memcpy(fast->colours[i], image->palette + 3 * i, 3);
      fast->colours[i][3] = i < image->alpha_entries && image->alpha ? image->alpha[i] : 255;
    }
  }
  /* The row above, then the slots, then padding, enough for every pass (each pass starts with
   * the row above its first row zeroed). */
  size_t largest = 0;
  for (int pass = 0; pass < (fast->interlaced ? 7 : 1); pass++) {
    uint32_t width, height;
    pass_size(fast, pass, &width, &height);
    if (height == 0) continue;
    size_t row_total = 1 + (size_t)width * (size_t)fast->pixel_bytes;
    size_t bytes = ((size_t)slots_for(row_total, height) + 1) * row_total;
    if (bytes > largest) largest = bytes;
    fast->rows_total += height;
    fast->data_total += (uint64_t)height * row_total;
  }
  fast->buffers = calloc(1, largest + ROW_PADDING);
  if (!fast->buffers) goto refuse;
  if (fast->interlaced) {
    fast->scratch = malloc((size_t)image->width * (size_t)out_channels);
    if (!fast->scratch) goto refuse;
  }
  start_pass(fast, 0);
  /* Raw deflate with zlib's full window: the wrapper (header and Adler-32) is checked here, the
   * Adler-32 on SSE2 (several times zlib's own, which was a measurable share of a PNG's decode). */
  fast->inflater = imc_inflate_create();
  if (!fast->inflater) goto refuse;
  fast->adler = 1;
  fast->phase = PHASE_DATA;
  fast->chunk_left = image->first_length;
  if (image->first_length > fast->idat_limit) goto refuse;
  fast->crc = imc_crc32(0, (const uint8_t *)"IDAT", 4);
  return fast;
refuse:
  imc_png_fast_destroy(fast);
  return NULL;
}

void imc_png_fast_destroy(imc_png_fast *fast) {
  if (!fast) return;
  imc_inflate_destroy(fast->inflater);
  free(fast->buffers);
  free(fast->scratch);
  free(fast);
}

/* ---- the row filters (PNG spec 9.2), undone in place; `above` is the unfiltered row above ---- */

static inline int paeth_predictor(int left, int above, int upper_left) {
  int to_left = above - upper_left, to_above = left - upper_left;
  int distance_left = abs(to_left), distance_above = abs(to_above), distance_corner = abs(to_left + to_above);
  if (distance_left <= distance_above && distance_left <= distance_corner) return left;
  return distance_above <= distance_corner ? above : upper_left;
}

static void undo_scalar(int filter, uint8_t *row, const uint8_t *above, size_t count, int unit) {
  switch (filter) {
  case 1:
    for (size_t i = (size_t)unit; i < count; i++) row[i] = (uint8_t)(row[i] + row[i - unit]);
    break;
  case 2:
    for (size_t i = 0; i < count; i++) row[i] = (uint8_t)(row[i] + above[i]);
    break;
  case 3:
    for (size_t i = 0; i < (size_t)unit && i < count; i++) row[i] = (uint8_t)(row[i] + (above[i] >> 1));
    for (size_t i = (size_t)unit; i < count; i++) row[i] = (uint8_t)(row[i] + ((row[i - unit] + above[i]) >> 1));
    break;
  case 4:
    for (size_t i = 0; i < (size_t)unit && i < count; i++) row[i] = (uint8_t)(row[i] + above[i]);
    for (size_t i = (size_t)unit; i < count; i++)
      row[i] = (uint8_t)(row[i] + paeth_predictor(row[i - unit], above[i], above[i - unit]));
    break;
  default: break;
  }
}

/* ---- several rows at once, 1- and 2-byte pixels: the same wavefront, a byte at a time ----
 * (in plain C on every CPU; each byte stored alone, so no store reaches past its pixel). */
/* Rows undone together at most. Beyond 4 rows the measured gain is within the noise
 * (benchmarks/README.md). At 4 the rows' SSE state (three vectors a row, the first row's corner, the masks)
 * about fills the 16 registers, beyond it spills; and a group needs fewer rows inflated at once (a
 * stream inflates as its bytes arrive). */
#define GROUP_ROWS 4
#define WAVE_MAX 8 /* rows written out in the wave steps (GROUP_ROWS up to this) */

struct byte_wave {
  uint8_t *row[WAVE_MAX];
  int filter[WAVE_MAX];
  int left[WAVE_MAX][2], before[WAVE_MAX][2]; /* as in struct wave, per byte of the pixel */
  int corner[2];
};

static inline __attribute__((always_inline)) int predict_byte(int filter, int left, int up, int upper_left) {
  switch (filter) {
  case 1: return left;
  case 2: return up;
  case 3: return (left + up) >> 1;
  case 4: return paeth_predictor(left, up, upper_left);
  default: return 0;
  }
}

static inline __attribute__((always_inline)) void byte_wave_pixel(struct byte_wave *w, int k, size_t x,
                                                                  const uint8_t *above, int unit, int filter) {
  for (int b = 0; b < unit; b++) {
    size_t at = x * (size_t)unit + (size_t)b;
    int up, upper_left;
    if (k == 0) {
      up = above[at];
      upper_left = w->corner[b];
      w->corner[b] = up;
    } else {
      up = w->left[k - 1][b];
      upper_left = w->before[k - 1][b];
    }
    int value = (w->row[k][at] + predict_byte(filter >= 0 ? filter : w->filter[k], w->left[k][b], up, upper_left)) & 0xff;
    w->before[k][b] = w->left[k][b];
    w->left[k][b] = value;
    w->row[k][at] = (uint8_t)value;
  }
}

static inline __attribute__((always_inline)) void byte_wave_step(struct byte_wave *w, int rows, size_t t,
                                                                 size_t pixels, const uint8_t *above, int unit,
                                                                 int filter, int all) {
#define WAVE_ROW(k)                                                                                                    \
  if (rows > (k) && (all || (t >= (size_t)(k) && t - (size_t)(k) < pixels)))                                           \
    byte_wave_pixel(w, k, t - (size_t)(k), above, unit, filter);
  WAVE_ROW(7) WAVE_ROW(6) WAVE_ROW(5) WAVE_ROW(4) WAVE_ROW(3) WAVE_ROW(2) WAVE_ROW(1) WAVE_ROW(0)
#undef WAVE_ROW
}

static inline __attribute__((always_inline)) void undo_byte_group_with(int rows, const int *filters, uint8_t *first,
                                                                       size_t stride, const uint8_t *above,
                                                                       size_t count, int unit, int filter) {
  struct byte_wave w;
  memset(&w, 0, sizeof w);
  for (int k = 0; k < rows; k++) {
    w.row[k] = first + (size_t)k * stride;
    w.filter[k] = filters[k];
  }
  size_t pixels = count / (size_t)unit, steps = pixels + (size_t)rows - 1;
  size_t full_from = (size_t)rows - 1, full_to = pixels;
  size_t t = 0;
  for (; t < steps && t < full_from; t++) byte_wave_step(&w, rows, t, pixels, above, unit, filter, 0);
  for (; t < full_to; t++) byte_wave_step(&w, rows, t, pixels, above, unit, filter, 1);
  for (; t < steps; t++) byte_wave_step(&w, rows, t, pixels, above, unit, filter, 0);
}

/* The filter every row of a group has when it is Sub, Avg or Paeth, else -1 (decided per row). */
static int group_filter(int rows, const int *filters) {
  for (int k = 1; k < rows; k++)
    if (filters[k] != filters[0]) return -1;
  return filters[0] == 1 || filters[0] == 3 || filters[0] == 4 ? filters[0] : -1;
}

/* Each count of rows and each filter its own loop, all constants in it. */
#define GROUP_SIZES(GROUP_OF)                                                                                          \
  switch (rows) {                                                                                                      \
  case 2: GROUP_OF(2); break;                                                                                          \
  case 3: GROUP_OF(3); break;                                                                                          \
  case 4: GROUP_OF(4); break;                                                                                          \
  GROUP_SIZES_MORE(GROUP_OF)                                                                                           \
  default: break; /* never: 2 to GROUP_ROWS */                                                                         \
  }
#if GROUP_ROWS > 4
#define GROUP_SIZES_MORE(GROUP_OF)                                                                                     \
  case 5: GROUP_OF(5); break;                                                                                          \
  case 6: GROUP_OF(6); break;                                                                                          \
  case 7: GROUP_OF(7); break;                                                                                          \
  case 8: GROUP_OF(8); break;
#else
#define GROUP_SIZES_MORE(GROUP_OF)
#endif

/* Undoes `rows` (2 to GROUP_ROWS) consecutive rows of 1- or 2-byte pixels `stride` bytes apart, the
 * first of them below `above`. */
static void undo_byte_group(int rows, const int *filters, uint8_t *first, size_t stride, const uint8_t *above,
                            size_t count, int unit) {
  int filter = group_filter(rows, filters);
#define BYTE_GROUP_WITH(n, f)                                                                                          \
  do {                                                                                                                 \
    if (unit == 2) undo_byte_group_with(n, filters, first, stride, above, count, 2, f);                                \
    else undo_byte_group_with(n, filters, first, stride, above, count, 1, f);                                          \
  } while (0)
#define BYTE_GROUP_OF(n)                                                                                               \
  do {                                                                                                                 \
    if (filter == 4) BYTE_GROUP_WITH(n, 4);                                                                            \
    else if (filter == 3) BYTE_GROUP_WITH(n, 3);                                                                       \
    else if (filter == 1) BYTE_GROUP_WITH(n, 1);                                                                       \
    else BYTE_GROUP_WITH(n, -1);                                                                                       \
  } while (0)
  GROUP_SIZES(BYTE_GROUP_OF)
#undef BYTE_GROUP_OF
#undef BYTE_GROUP_WITH
}

#if defined(__SSE2__)
/* One pixel of up to eight bytes per step, its bytes in 16-bit lanes: four bytes are loaded for a
 * 3- or 4-byte pixel, eight for a 6- or 8-byte one. Lanes past the pixel hold the next pixel's
 * first bytes: their predictor is masked to zero, so the store puts them back unchanged (and at
 * the row's end they are padding). */
static inline __m128i load_pixel(const uint8_t *at, int wide) {
  if (wide) return _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)at), _mm_setzero_si128());
  int32_t word;
  memcpy(&word, at, 4);
  return _mm_unpacklo_epi8(_mm_cvtsi32_si128(word), _mm_setzero_si128());
}

static inline void store_pixel(uint8_t *at, __m128i lanes, int wide) {
  __m128i packed = _mm_packus_epi16(lanes, lanes);
  if (wide) {
    _mm_storel_epi64((__m128i *)(void *)at, packed);
    return;
  }
  int32_t word = _mm_cvtsi128_si32(packed);
  memcpy(at, &word, 4);
}

static inline __m128i absolute(__m128i lanes) { return _mm_max_epi16(lanes, _mm_sub_epi16(_mm_setzero_si128(), lanes)); }

static inline __m128i choose(__m128i mask, __m128i when_set, __m128i otherwise) {
  return _mm_or_si128(_mm_and_si128(mask, when_set), _mm_andnot_si128(mask, otherwise));
}

/* A pixel's predictor under `filter` from its left, above and upper-left neighbours (unfiltered). */
static inline __attribute__((always_inline)) __m128i predict(int filter, __m128i left, __m128i up, __m128i upper_left) {
  if (filter == 1) return left;
  if (filter == 2) return up;
  if (filter == 3) return _mm_srli_epi16(_mm_add_epi16(left, up), 1);
  if (filter == 4) {
    __m128i to_left = _mm_sub_epi16(up, upper_left), to_above = _mm_sub_epi16(left, upper_left);
    __m128i distance_left = absolute(to_left), distance_above = absolute(to_above);
    __m128i distance_corner = absolute(_mm_add_epi16(to_left, to_above));
    __m128i corner = _mm_cmplt_epi16(distance_corner, _mm_min_epi16(distance_left, distance_above));
    __m128i take_above = _mm_cmplt_epi16(distance_above, distance_left);
    return choose(corner, upper_left, choose(take_above, up, left));
  }
  return _mm_setzero_si128();
}

/* The left-dependent filters, one loop each so that the filter type is decided once per row. */
static inline __attribute__((always_inline)) void undo_vector_with(int filter, uint8_t *row, const uint8_t *above,
                                                                   size_t count, int unit, int wide) {
  const __m128i low_byte = _mm_set1_epi16(0xff);
  const __m128i lanes_used = _mm_cmplt_epi16(_mm_set_epi16(7, 6, 5, 4, 3, 2, 1, 0), _mm_set1_epi16((short)unit));
  __m128i left = _mm_setzero_si128(), upper_left = _mm_setzero_si128();
  /* Each pixel's bytes are loaded before the pixel to their left is stored: a 3- or 6-byte pixel's
   * load would otherwise overlap that store in part, which the CPU cannot forward (a stall per
   * pixel, most of the filter's time). Past the row's end the load reads padding. */
  __m128i next = load_pixel(row, wide);
  for (size_t i = 0; i < count; i += (size_t)unit) {
    __m128i raw = next;
    next = load_pixel(row + i + (size_t)unit, wide);
    __m128i up = filter == 1 ? left : load_pixel(above + i, wide);
    __m128i predicted = predict(filter, left, up, upper_left);
    upper_left = up;
    left = _mm_and_si128(_mm_add_epi16(raw, _mm_and_si128(predicted, lanes_used)), low_byte);
    store_pixel(row + i, left, wide);
  }
}

static void undo_vector(int filter, uint8_t *row, const uint8_t *above, size_t count, int unit) {
  int wide = unit > 4;
  if (filter == 1) {
    if (wide) undo_vector_with(1, row, above, count, unit, 1);
    else undo_vector_with(1, row, above, count, unit, 0);
  } else if (filter == 3) {
    if (wide) undo_vector_with(3, row, above, count, unit, 1);
    else undo_vector_with(3, row, above, count, unit, 0);
  } else {
    if (wide) undo_vector_with(4, row, above, count, unit, 1);
    else undo_vector_with(4, row, above, count, unit, 0);
  }
}

/* ---- several rows at once: a wavefront ----
 *
 * Sub, Avg and Paeth are latency-bound: each pixel waits for the unfiltered pixel to its left (some
 * 14 cycles a pixel for Paeth), while the CPU could do more at once. Row r+1's pixel x needs only
 * row r's pixels x and x-1 and its own x-1, so consecutive rows are undone together, row k one pixel
 * behind row k-1: at step t row k does pixel t-k, and their dependency chains overlap. A row's
 * unfiltered pixels go to the row below in registers (its `left`, and `before` one pixel earlier),
 * not through memory; only the group's first row loads the row above. Each row keeps the single-row
 * loop's order (its next pixel loaded before its current one is stored), and its last pixel is
 * stored exactly, without the bytes past it (the store of a 3- or 6-byte pixel writes its next
 * pixel's first bytes back unchanged; past a row's last pixel they are the next row's filter type
 * byte and first byte, which that row, already ahead in the wavefront, may have changed). */
struct wave {
  uint8_t *row[WAVE_MAX];
  int filter[WAVE_MAX];
  __m128i left[WAVE_MAX];   /* the row's last unfiltered pixel */
  __m128i before[WAVE_MAX]; /* and the one before it */
  __m128i next[WAVE_MAX];   /* its next pixel's filtered bytes, loaded before `left` was stored */
  __m128i corner;           /* the first row's upper-left pixel */
};

static inline __attribute__((always_inline)) void store_pixel_exact(uint8_t *at, __m128i lanes, int unit) {
  uint8_t bytes[16];
  _mm_storeu_si128((__m128i *)(void *)bytes, _mm_packus_epi16(lanes, lanes));
  memcpy(at, bytes, (size_t)unit);
}

/* Row k's pixel x; `filter` is the row's filter when the same for every row of the group, else -1. */
static inline __attribute__((always_inline)) void wave_pixel(struct wave *w, int k, size_t x, size_t pixels,
                                                             const uint8_t *above, int unit, int wide, int filter,
                                                             int check_last) {
  const __m128i low_byte = _mm_set1_epi16(0xff);
  const __m128i lanes_used = _mm_cmplt_epi16(_mm_set_epi16(7, 6, 5, 4, 3, 2, 1, 0), _mm_set1_epi16((short)unit));
  size_t at = x * (size_t)unit;
  __m128i raw = w->next[k];
  w->next[k] = load_pixel(w->row[k] + at + (size_t)unit, wide);
  __m128i up, upper_left;
  if (k == 0) {
    up = load_pixel(above + at, wide);
    upper_left = w->corner;
    w->corner = up;
  } else {
    up = w->left[k - 1];
    upper_left = w->before[k - 1];
  }
  __m128i predicted;
  if (filter >= 0) {
    predicted = predict(filter, w->left[k], up, upper_left);
  } else {
    switch (w->filter[k]) {
    case 1: predicted = predict(1, w->left[k], up, upper_left); break;
    case 2: predicted = predict(2, w->left[k], up, upper_left); break;
    case 3: predicted = predict(3, w->left[k], up, upper_left); break;
    case 4: predicted = predict(4, w->left[k], up, upper_left); break;
    default: predicted = _mm_setzero_si128(); break;
    }
  }
  __m128i value = _mm_and_si128(_mm_add_epi16(raw, _mm_and_si128(predicted, lanes_used)), low_byte);
  w->before[k] = w->left[k];
  w->left[k] = value;
  if (check_last && x + 1 == pixels) store_pixel_exact(w->row[k] + at, value, unit);
  else store_pixel(w->row[k] + at, value, wide);
}

/* One step of the wavefront: the rows from the last to the first, so that each reads the pixels of
 * the row above as they were after the previous step. `all` when every row has a pixel at this step
 * and none is at its last. */
static inline __attribute__((always_inline)) void wave_step(struct wave *w, int rows, size_t t, size_t pixels,
                                                            const uint8_t *above, int unit, int wide, int filter,
                                                            int all) {
  /* Written out, so that the compiler keeps each row's state in registers (a loop over k it may
   * leave rolled up, the state then in memory: a store and a load on every chain). */
#define WAVE_ROW(k)                                                                                                    \
  if (rows > (k)) {                                                                                                    \
    if (all) wave_pixel(w, k, t - (size_t)(k), pixels, above, unit, wide, filter, 0);                                  \
    else if (t >= (size_t)(k) && t - (size_t)(k) < pixels)                                                             \
      wave_pixel(w, k, t - (size_t)(k), pixels, above, unit, wide, filter, 1);                                         \
  }
  WAVE_ROW(7) WAVE_ROW(6) WAVE_ROW(5) WAVE_ROW(4) WAVE_ROW(3) WAVE_ROW(2) WAVE_ROW(1) WAVE_ROW(0)
#undef WAVE_ROW
}

static inline __attribute__((always_inline)) void undo_group_with(int rows, const int *filters, uint8_t *first,
                                                                  size_t stride, const uint8_t *above, size_t count,
                                                                  int unit, int wide, int filter) {
  struct wave w;
  for (int k = 0; k < rows; k++) {
    w.row[k] = first + (size_t)k * stride;
    w.filter[k] = filters[k];
    w.left[k] = w.before[k] = _mm_setzero_si128();
    w.next[k] = load_pixel(w.row[k], wide);
  }
  w.corner = _mm_setzero_si128();
  size_t pixels = count / (size_t)unit, steps = pixels + (size_t)rows - 1;
  /* Every row busy and none at its last pixel: steps rows-1 to pixels-2. */
  size_t full_from = (size_t)rows - 1, full_to = pixels > 0 ? pixels - 1 : 0;
  size_t t = 0;
  for (; t < steps && t < full_from; t++) wave_step(&w, rows, t, pixels, above, unit, wide, filter, 0);
  for (; t < full_to; t++) wave_step(&w, rows, t, pixels, above, unit, wide, filter, 1);
  for (; t < steps; t++) wave_step(&w, rows, t, pixels, above, unit, wide, filter, 0);
}

/* Undoes `rows` (2 to GROUP_ROWS) consecutive rows of 3- to 8-byte pixels `stride` bytes apart, the
 * first of them below `above`. */
static void undo_group(int rows, const int *filters, uint8_t *first, size_t stride, const uint8_t *above, size_t count,
                       int unit) {
  int filter = group_filter(rows, filters);
#define GROUP_WITH(n, f)                                                                                               \
  do {                                                                                                                 \
    if (unit > 4) undo_group_with(n, filters, first, stride, above, count, unit, 1, f);                                \
    else undo_group_with(n, filters, first, stride, above, count, unit, 0, f);                                         \
  } while (0)
#define GROUP_OF(n)                                                                                                    \
  do {                                                                                                                 \
    if (filter == 4) GROUP_WITH(n, 4);                                                                                 \
    else if (filter == 3) GROUP_WITH(n, 3);                                                                            \
    else if (filter == 1) GROUP_WITH(n, 1);                                                                            \
    else GROUP_WITH(n, -1);                                                                                            \
  } while (0)
  GROUP_SIZES(GROUP_OF)
#undef GROUP_OF
#undef GROUP_WITH
}
#endif

static void undo_filter(int filter, uint8_t *row, const uint8_t *above, size_t count, int unit) {
  if (filter == 0) return;
#if defined(__SSE2__)
  if (filter != 2 && unit >= 3) {
    undo_vector(filter, row, above, count, unit);
    return;
  }
#endif
  undo_scalar(filter, row, above, count, unit);
}

/* ---- output ---- */

/* Pixels from `samples` samples of `step` bytes (the first byte of a 16-bit sample is its high
 * one) to `channels` channels: gray copied to R, G and B, an opaque alpha added or the alpha dropped. */
static inline __attribute__((always_inline)) void convert_pixels(const uint8_t *row, uint8_t *out, uint32_t width,
                                                                 int samples, int step, int channels) {
  int gray = samples <= 2, has_alpha = samples == 2 || samples == 4;
  for (uint32_t x = 0; x < width; x++, row += samples * step, out += channels) {
    uint8_t first = row[0];
    uint8_t alpha = has_alpha ? row[(samples - 1) * step] : 255;
    out[0] = first;
    if (channels == 2) out[1] = alpha;
    if (channels >= 3) {
      out[1] = gray ? first : row[step];
      out[2] = gray ? first : row[2 * step];
    }
    if (channels == 4) out[3] = alpha;
  }
}

/* The unfiltered row in the output layout, as libpng's transformations make it: palette entries
 * (with tRNS alpha when alpha is wanted), gray copied to R, G and B, the high byte of 16-bit
 * samples, an opaque alpha added or the alpha dropped. 0 when a palette index is past the palette. */
static int convert_row(const imc_png_fast *fast, const uint8_t *row, uint8_t *out) {
  uint32_t width = fast->pass_width;
  int channels = fast->out_channels;
  if (fast->palette_image) {
    uint8_t *end = out + (size_t)width * (size_t)channels;
    for (uint32_t x = 0; x < width; x++, out += channels) {
      uint8_t index = row[x];
      if (index >= fast->palette_entries) return 0;
      /* Four bytes at once; an RGB pixel's fourth is the next one's first, written over next,
       * except at the row's end, which gets its three. */
      if (out + 4 <= end) memcpy(out, fast->colours[index], 4);
      else memcpy(out, fast->colours[index], (size_t)channels);
    }
    return 1;
  }
  int samples = fast->samples, step = fast->sample_bytes;
  if (step == 1 && samples == channels) {
    memcpy(out, row, fast->row_bytes);
    return 1;
  }
  /* One loop per combination, so that each is compiled with its constants. */
#define CONVERT(file_samples, file_step, out_channels)                                                                \
  if (samples == file_samples && step == file_step && channels == out_channels) {                                     \
    convert_pixels(row, out, width, file_samples, file_step, out_channels);                                          \
    return 1;                                                                                                         \
  }
  CONVERT(1, 1, 3) CONVERT(1, 1, 4) CONVERT(2, 1, 1) CONVERT(2, 1, 3) CONVERT(2, 1, 4) CONVERT(3, 1, 4)
  CONVERT(4, 1, 3) CONVERT(1, 2, 1) CONVERT(1, 2, 3) CONVERT(1, 2, 4) CONVERT(2, 2, 1) CONVERT(2, 2, 2)
  CONVERT(2, 2, 3) CONVERT(2, 2, 4) CONVERT(3, 2, 3) CONVERT(3, 2, 4) CONVERT(4, 2, 3) CONVERT(4, 2, 4)
#undef CONVERT
  return 0; /* no other combination is created */
}

/* Undoes the filter of the next slot to hand out, whose filter type is `filter` (known); with it, when
 * that filter depends on the pixel to the left, the slots inflated after it (up to GROUP_ROWS in all,
 * each filter type known) in a wavefront, which are then marked undone. A slot's filter type is still
 * checked when it is handed out, so the rows taken and the verdict stay the same. */
static void undo_rows(imc_png_fast *fast, uint8_t *slot, int filter) {
  int unit = fast->pixel_bytes;
  int grouped = unit <= 2;
#if defined(__SSE2__)
  grouped = 1;
#endif
  if (grouped && (filter == 1 || filter == 3 || filter == 4)) {
    size_t ready = fast->fill / fast->row_total - fast->emitted; /* this slot and those inflated after it */
    int filters[GROUP_ROWS], rows = 0;
    while (rows < GROUP_ROWS && (size_t)rows < ready && slot[(size_t)rows * fast->row_total] <= 4) {
      filters[rows] = slot[(size_t)rows * fast->row_total];
      rows++;
    }
    if (rows >= 2) {
      uint8_t *first = slot + 1;
      if (unit <= 2) undo_byte_group(rows, filters, first, fast->row_total, first - fast->row_total, fast->row_bytes, unit);
#if defined(__SSE2__)
      else undo_group(rows, filters, first, fast->row_total, first - fast->row_total, fast->row_bytes, unit);
#endif
      fast->undone = fast->emitted + (uint32_t)rows;
      return;
    }
  }
  undo_filter(filter, slot + 1, slot + 1 - fast->row_total, fast->row_bytes, unit);
}

/* Copies a converted pass row's `count` pixels of `size` bytes to every `step`th pixel of `out`. */
static inline __attribute__((always_inline)) void scatter_with(const uint8_t *row, uint8_t *out, uint32_t count,
                                                               size_t size, size_t step) {
  for (uint32_t x = 0; x < count; x++, row += size, out += step) memcpy(out, row, size);
}

static void scatter(const uint8_t *row, uint8_t *out, uint32_t count, int channels, unsigned every) {
  size_t step = (size_t)channels * every;
  switch (channels) {
  case 1: scatter_with(row, out, count, 1, step); break;
  case 2: scatter_with(row, out, count, 2, step); break;
  case 3: scatter_with(row, out, count, 3, step); break;
  default: scatter_with(row, out, count, 4, step); break;
  }
}

/* The next inflated slot: checks its filter type, undoes it and converts it into `out` (when
 * given: the row, or for an interlaced image the whole image's first row). 0 to give up. */
static int finish_row(imc_png_fast *fast, uint8_t *out) {
  uint8_t *slot = fast->slots + (size_t)fast->emitted * fast->row_total;
  int filter = slot[0];
  if (filter > 4) return 0; /* libpng: "bad adaptive filter value" */
  if (out) {
    if (fast->emitted >= fast->undone) undo_rows(fast, slot, filter);
    if (fast->interlaced) {
      /* The pass row's pixels go to their places in their image row; the last pass fills whole
       * rows, converted in place. */
      int pass = fast->pass;
      uint32_t y = pass_y0[pass] + (fast->first_row + fast->emitted) * (uint32_t)pass_dy[pass];
      uint8_t *image_row = out + (size_t)y * fast->stride + (size_t)pass_x0[pass] * (size_t)fast->out_channels;
      if (pass_dx[pass] == 1) {
        if (!convert_row(fast, slot + 1, image_row)) return 0;
      } else {
        if (!convert_row(fast, slot + 1, fast->scratch)) return 0;
        scatter(fast->scratch, image_row, fast->pass_width, fast->out_channels, pass_dx[pass]);
      }
    } else if (!convert_row(fast, slot + 1, out)) {
      return 0;
    }
  }
  fast->emitted++;
  fast->row++;
  return 1;
}

/* Image data bytes the image has (in every pass), and those inflated so far. */
static uint64_t image_data_bytes(const imc_png_fast *fast) { return fast->data_total; }
static uint64_t inflated_bytes(const imc_png_fast *fast) {
  return fast->data_before + (uint64_t)fast->first_row * fast->row_total + fast->fill;
}

/* Every slot handed out: the last row becomes the row above, the slots are filled again, no further
 * than the pass's last row (so that inflate never runs into the next pass, whose rows differ); or
 * the pass is done and the next one with pixels starts. */
static void next_slots(imc_png_fast *fast) {
  fast->first_row += fast->slot_count;
  if (fast->first_row >= fast->pass_height) {
    start_pass(fast, fast->pass + 1);
    return;
  }
  memcpy(fast->slots - fast->row_total, fast->slots + (size_t)(fast->slot_count - 1) * fast->row_total, fast->row_total);
  if (fast->slot_count > fast->pass_height - fast->first_row) fast->slot_count = fast->pass_height - fast->first_row;
  fast->fill = 0;
  fast->emitted = 0;
  fast->undone = 0;
}

/* ---- the chunks ---- */

/* Collects up to `want` bytes of a header or CRC; 1 when all are there. */
static int collect(imc_png_fast *fast, int want, const uint8_t *input, size_t length, size_t *position) {
  while (fast->collected_count < want && *position < length) fast->collected[fast->collected_count++] = input[(*position)++];
  if (fast->collected_count < want) return 0;
  fast->collected_count = 0;
  return 1;
}

/* ---- zlib's wrapper (RFC 1950) ---- */

#define ADLER_MODULUS 65521u
/* Bytes after which the sums are reduced, so that they stay within 32 bits per vector lane. */
#define ADLER_BLOCK 5552u

/* The Adler-32 of `count` more bytes. Per 16 bytes x[0..15] with sums a, b going in:
 * b += 16a + (16 x[0] + 15 x[1] + ... + x[15]), a += x[0] + ... + x[15]; the vector loop keeps
 * the byte sums, the sums of a at each 16 bytes' start, and the weighted sums apart. */
static uint32_t adler_update(uint32_t adler, const uint8_t *bytes, size_t count) {
  uint64_t a = adler & 0xffff, b = adler >> 16;
  while (count > 0) {
    size_t block = count < ADLER_BLOCK ? count : ADLER_BLOCK;
    count -= block;
#if defined(__SSE2__)
    size_t sixteens = block / 16;
    if (sixteens) {
      const __m128i zero = _mm_setzero_si128();
      const __m128i first_weights = _mm_set_epi16(9, 10, 11, 12, 13, 14, 15, 16);
      const __m128i last_weights = _mm_set_epi16(1, 2, 3, 4, 5, 6, 7, 8);
      __m128i sums = zero, sums_before = zero, weighted = zero;
      for (size_t i = 0; i < sixteens; i++, bytes += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)bytes);
        sums_before = _mm_add_epi32(sums_before, sums);
        sums = _mm_add_epi32(sums, _mm_sad_epu8(x, zero));
        weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpacklo_epi8(x, zero), first_weights));
        weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpackhi_epi8(x, zero), last_weights));
      }
      uint32_t lanes[4];
      _mm_storeu_si128((__m128i *)(void *)lanes, sums);
      uint64_t total = (uint64_t)lanes[0] + lanes[2]; /* _mm_sad_epu8 sums into lanes 0 and 2 */
      _mm_storeu_si128((__m128i *)(void *)lanes, sums_before);
      uint64_t before = (uint64_t)lanes[0] + lanes[2];
      _mm_storeu_si128((__m128i *)(void *)lanes, weighted);
      uint64_t weights = (uint64_t)lanes[0] + lanes[1] + lanes[2] + lanes[3];
      b += 16 * ((uint64_t)sixteens * a + before) + weights;
      a += total;
      block -= sixteens * 16;
    }
#endif
    for (; block > 0; block--, bytes++) {
      a += *bytes;
      b += a;
    }
    a %= ADLER_MODULUS;
    b %= ADLER_MODULUS;
  }
  return (uint32_t)(b << 16 | a);
}

/* Whether zlib's two header bytes are ones zlib takes as libpng asks it to: deflate, the check bits
 * right, no preset dictionary; and the full 32 KiB window (with a smaller one, whether a distance
 * reaches too far back depends on how the calls to inflate cut the output, and libpng cuts it its
 * own way), so the raw inflate here has zlib's window too. */
static int wrapper_header_taken(const uint8_t *header) {
  unsigned method = header[0], flags = header[1];
  return method == 0x78 && ((method << 8) | flags) % 31 == 0 && !(flags & 0x20);
}

/* One byte of zlib's wrapper after the deflate data: the Adler-32's, big-endian. 0 to give up. */
static int adler_byte(imc_png_fast *fast, uint8_t byte) {
  if (fast->wrapper_count == 4) return 0; /* image data after zlib's stream */
  fast->wrapper[fast->wrapper_count++] = byte;
  if (fast->wrapper_count == 4) {
    uint32_t expected = (uint32_t)fast->wrapper[0] << 24 | (uint32_t)fast->wrapper[1] << 16 |
                        (uint32_t)fast->wrapper[2] << 8 | fast->wrapper[3];
    if (expected != fast->adler) return 0; /* zlib: "incorrect data check" */
    fast->stream_ended = 1;
  }
  return 1;
}

/* Inflates what the current IDAT holds of input[*position...]: into the row being made, or after
 * the last row into a byte that must stay unwritten. 1 went on, 0 give up. */
static int inflate_some(imc_png_fast *fast, const uint8_t *input, size_t available, size_t *consumed) {
  uint8_t extra;
  int rows_done = inflated_bytes(fast) == image_data_bytes(fast);
  /* The wrapper's header, then after the deflate data its Adler-32 (big-endian), byte by byte. */
  if (!fast->header_read || fast->deflate_ended) {
    *consumed = 1;
    if (fast->deflate_ended) return adler_byte(fast, input[0]);
    fast->wrapper[fast->wrapper_count++] = input[0];
    if (fast->wrapper_count == 2) {
      if (!wrapper_header_taken(fast->wrapper)) return 0;
      fast->header_read = 1;
      fast->wrapper_count = 0;
    }
    return 1;
  }
  /* The output room: the rest of the slots (which the inflater may fill with scratch past what it
   * produced; no row there is made yet), or one byte that must stay unwritten. */
  uint8_t *out;
  size_t room;
  if (rows_done) {
    out = &extra;
    room = 1;
  } else {
    uint64_t left = image_data_bytes(fast) - inflated_bytes(fast);
    room = (size_t)fast->slot_count * fast->row_total - fast->fill;
    if (room > left) room = (size_t)left;
    out = fast->slots + fast->fill;
  }
  size_t produced = 0;
  int result = imc_inflate_run(fast->inflater, input, available, 0, out, room, consumed, &produced);
  if (result == IMC_INFLATE_GIVE_UP) return 0;
  if (rows_done) {
    if (produced) return 0; /* more image data than the image has */
  } else {
    fast->adler = adler_update(fast->adler, fast->slots + fast->fill, produced);
    fast->fill += produced;
  }
  if (result == IMC_INFLATE_END) {
    fast->deflate_ended = 1; /* the Adler-32 comes next */
    /* The stream ended: it must be with the last row. */
    if (inflated_bytes(fast) != image_data_bytes(fast)) return 0;
    /* The inflater's bit buffer took up to 8 bytes past the deflate data: the Adler-32 begins there. */
    uint8_t after[8];
    int count = imc_inflate_extra(fast->inflater, after);
    for (int i = 0; i < count; i++)
      if (!adler_byte(fast, after[i])) return 0;
  }
  if (*consumed == 0 && produced == 0 && result != IMC_INFLATE_END) return 0; /* no progress: never expected */
  return 1;
}

/* This thread's images that the path finished, and those it gave up on (imc_png_rows_counts). */
static _Thread_local uint64_t images_finished, images_given_up;

void imc_png_rows_counts(uint64_t *finished, uint64_t *given_up) {
  *finished = images_finished;
  *given_up = images_given_up;
}

int imc_png_fast_step(imc_png_fast *fast, const uint8_t *input, size_t length, int eof, size_t *used, uint8_t *row) {
  size_t position = 0;
  int result;
  for (;;) {
    /* Rows inflated and not yet handed out go first, one per call. */
    if ((size_t)fast->emitted * fast->row_total + fast->row_total <= fast->fill) {
      if (!finish_row(fast, row)) goto give_up;
      if (fast->emitted == fast->slot_count && fast->row < fast->rows_total) next_slots(fast);
      /* An interlaced image's rows are only complete after the last pass: no row is handed out. */
      if (fast->interlaced) continue;
      result = IMC_PNG_FAST_ROW;
      goto out;
    }
    if (fast->phase == PHASE_DATA) {
      if (fast->chunk_left == 0) {
        fast->phase = PHASE_CRC;
        continue;
      }
      /* Bytes in an IDAT after zlib's stream ended. */
      if (fast->stream_ended) goto give_up;
      size_t available = length - position;
      if (available > fast->chunk_left) available = fast->chunk_left;
      if (available == 0) goto need_input;
      size_t consumed = 0;
      if (!inflate_some(fast, input + position, available, &consumed)) goto give_up;
      fast->crc = imc_crc32(fast->crc, input + position, consumed);
      position += consumed;
      fast->chunk_left -= (uint32_t)consumed;
      continue;
    }
    if (fast->phase == PHASE_CRC || fast->phase == PHASE_IEND_CRC) {
      if (!collect(fast, 4, input, length, &position)) goto need_input;
      if (imc_read_be32(fast->collected) != fast->crc) goto give_up;
      if (fast->phase == PHASE_IEND_CRC) {
        images_finished++;
        result = IMC_PNG_FAST_DONE;
        goto out;
      }
      fast->phase = PHASE_HEADER;
      continue;
    }
    /* PHASE_HEADER: the next chunk must be another IDAT while the stream goes on, then IEND. */
    if (!collect(fast, 8, input, length, &position)) goto need_input;
    uint32_t chunk_length = imc_read_be32(fast->collected);
    const uint8_t *type = fast->collected + 4;
    fast->crc = imc_crc32(0, type, 4);
    if (memcmp(type, "IDAT", 4) == 0 && !fast->stream_ended && chunk_length <= fast->idat_limit) {
      fast->chunk_left = chunk_length;
      fast->phase = PHASE_DATA;
      continue;
    }
    if (memcmp(type, "IEND", 4) == 0 && fast->stream_ended && fast->row >= fast->rows_total && chunk_length == 0) {
      fast->phase = PHASE_IEND_CRC;
      continue;
    }
    goto give_up;
  }
need_input:
  if (eof) goto give_up;
  result = IMC_PNG_FAST_INPUT;
  goto out;
give_up:
  images_given_up++;
  result = IMC_PNG_FAST_GIVE_UP;
out:
  *used = position;
  return result;
}
