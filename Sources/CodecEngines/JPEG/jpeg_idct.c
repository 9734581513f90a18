/* jpeg_idct.c: the reduced-size inverse DCTs libjpeg uses for its scaled decodes (1x1, 2x2 and 4x4
 * outputs of an 8x8 block), with the same integer arithmetic, so the samples are libjpeg's.
 *
 * libjpeg's C versions (jidctred.c) and its SIMD versions (x86-64 SSE2, Arm Neon) give the same
 * samples for every block a real image holds, but not for extreme coefficients: the SIMD code
 * dequantizes in 16 bits, keeps the first pass's results in 16 bits (saturating), accumulates in 32
 * bits, and clamps the final value where the C code wraps it through its range-limit table. So the
 * engine computes the exact C arithmetic and reports a block as exact only when every step stayed
 * where all of libjpeg's versions agree:
 *   - each dequantized coefficient within +-16383 (so no 32-bit sum of four products overflows),
 *   - each first-pass result within +-16383 (no saturation, and no overflow in the second pass),
 *   - each final value within [-512, 511] before the +128 level shift (where wrap and clamp agree).
 * A block outside that makes the engine give up: libjpeg decodes the file, whichever version runs.
 * The 1x1 output has no SIMD version and is exact for every input (quantizers are at most 32767).
 *
 * Constants: cos-based factors scaled by 2^13 (CONST_BITS), the first pass keeping 2 extra bits
 * (PASS1_BITS), as libjpeg's islow family does.
 */
#include "jpeg_internal.h"

#define CONST_BITS 13
#define PASS1_BITS 2

/* Rounded arithmetic right shift, as libjpeg's DESCALE. */
static inline int64_t descale(int64_t x, int n) { return (x + ((int64_t)1 << (n - 1))) >> n; }

/* The range limit of a value already checked within [-512, 511], where it is a clamp. */
static inline uint8_t clamped(int32_t x) {
  int32_t sample = x + 128;
  return (uint8_t)(sample < 0 ? 0 : sample > 255 ? 255 : sample);
}

/* Whether every value is within +-bound (as unsigned comparisons, without overflow). */
static inline int within(int32_t value, int32_t bound) { return (uint32_t)(value + bound) <= (uint32_t)(2 * bound); }

/* A block whose AC coefficients are all zero: every sample is the DC's, as the 1x1 output's (the
 * first pass makes 4 * DC, the second descales it by 32). Exact when 4 * DC stays within the
 * first pass's bound and the sample within [-512, 511]. */
int imc_jpeg_idct_flat(int size, int16_t dc, uint16_t quant, uint8_t *out, size_t stride) {
  int32_t value = (int32_t)dc * (int16_t)quant;
  int32_t x = (value + 4) >> 3;
  if (!within(value, 4095) || x < -512 || x > 511) return 0;
  uint8_t sample = clamped(x);
  /* Stores of each row's 2 or 4 samples, not a memset call per row (about half the chroma blocks of
   * a 4:2:0 photo at 1/8 are flat). */
  uint32_t four = sample * 0x01010101u;
  for (int row = 0; row < size; row++) {
    uint8_t *o = out + (size_t)row * stride;
    switch (size) {
    case 2: memcpy(o, &four, 2); break;
    case 4: memcpy(o, &four, 4); break;
    default: memset(o, sample, (size_t)size); break;
    }
  }
  return 1;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* The dequantized coefficients of row `row` (8 columns), in 16 bits: 0 when a product in one of
 * the columns the output uses (`used`: a byte mask of them, as _mm_movemask_epi8 gives it) leaves
 * the first pass's bound (|v| <= 16383, which also keeps it within 16 bits). */
static inline int dequantized_row(const int16_t *in, const uint16_t *q, int row, int used, __m128i *v) {
  __m128i c = _mm_loadu_si128((const __m128i *)(in + 8 * row));
  __m128i k = _mm_loadu_si128((const __m128i *)(q + 8 * row));
  __m128i low = _mm_mullo_epi16(c, k), high = _mm_mulhi_epi16(c, k);
  /* In 16 bits when the high half is the low half's sign; then within the bound. */
  __m128i wide = _mm_xor_si128(_mm_cmpeq_epi16(high, _mm_srai_epi16(low, 15)), _mm_set1_epi16(-1));
  __m128i over = _mm_or_si128(_mm_cmpgt_epi16(low, _mm_set1_epi16(16383)), _mm_cmplt_epi16(low, _mm_set1_epi16(-16383)));
  *v = low;
  return (_mm_movemask_epi8(_mm_or_si128(wide, over)) & used) == 0;
}

/* a*x + b*y in 32-bit lanes, for the four low (`high` 0) or high columns. */
static inline __m128i pair(__m128i x, __m128i y, int16_t a, int16_t b, int high) {
  __m128i mixed = high ? _mm_unpackhi_epi16(x, y) : _mm_unpacklo_epi16(x, y);
  return _mm_madd_epi16(mixed, _mm_set_epi16(b, a, b, a, b, a, b, a));
}

/* v << shift in 32-bit lanes (shift < 16), for the four low or high columns. */
static inline __m128i widened(__m128i v, int shift, int high) {
  __m128i spread = high ? _mm_unpackhi_epi16(_mm_setzero_si128(), v) : _mm_unpacklo_epi16(_mm_setzero_si128(), v);
  return _mm_srai_epi32(spread, 16 - shift);
}

static inline __m128i descaled(__m128i x, int n) { return _mm_srai_epi32(_mm_add_epi32(x, _mm_set1_epi32(1 << (n - 1))), n); }

/* Whether every used lane (`used`: a byte mask, as _mm_movemask_epi8 gives it) is within +-16383. */
static inline int lanes_within(__m128i x, int used) {
  __m128i over = _mm_or_si128(_mm_cmpgt_epi32(x, _mm_set1_epi32(16383)), _mm_cmplt_epi32(x, _mm_set1_epi32(-16383)));
  return (_mm_movemask_epi8(over) & used) == 0;
}

/* Byte masks of the columns an output uses: 2x2 0, 1, 3, 5, 7; 4x4 all but 4. In 16-bit lanes (a
 * row), and in the 32-bit lanes of the low and high four columns. */
#define USED_2X2 0xCCCF
#define USED_4X4 0xFCFF
static inline int used_low(int mask16) { return ((mask16 & 0x3) ? 0x000F : 0) | ((mask16 & 0xC) ? 0x00F0 : 0) | ((mask16 & 0x30) ? 0x0F00 : 0) | ((mask16 & 0xC0) ? 0xF000 : 0); }
static inline int used_high(int mask16) { return used_low(mask16 >> 8); }

/* The 2x2 output's first pass on every column at once (columns 2, 4 and 6 are computed and not
 * used). The same integers as the scalar pass: each value and sum is exact in 32 bits. */
static int pass1_2x2(const int16_t *in, const uint16_t *q, int32_t workspace[2][8]) {
  __m128i v0, v1, v3, v5, v7;
  const int used = USED_2X2;
  if (!dequantized_row(in, q, 0, used, &v0) || !dequantized_row(in, q, 1, used, &v1) ||
      !dequantized_row(in, q, 3, used, &v3) || !dequantized_row(in, q, 5, used, &v5) ||
      !dequantized_row(in, q, 7, used, &v7))
    return 0;
  for (int high = 0; high < 2; high++) {
    int lanes = high ? used_high(used) : used_low(used);
    __m128i even = widened(v0, CONST_BITS + 2, high);
    __m128i odd = _mm_add_epi32(pair(v7, v5, -5906, 6967, high), pair(v3, v1, -10426, 29692, high));
    __m128i a = descaled(_mm_add_epi32(even, odd), CONST_BITS - PASS1_BITS + 2);
    __m128i b = descaled(_mm_sub_epi32(even, odd), CONST_BITS - PASS1_BITS + 2);
    if (!lanes_within(a, lanes) || !lanes_within(b, lanes)) return 0;
    _mm_storeu_si128((__m128i *)(workspace[0] + 4 * high), a);
    _mm_storeu_si128((__m128i *)(workspace[1] + 4 * high), b);
  }
  return 1;
}

/* The 4x4 output's first pass on every column at once (column 4 is computed and not used). */
static int pass1_4x4(const int16_t *in, const uint16_t *q, int32_t workspace[4][8]) {
  __m128i v0, v1, v2, v3, v5, v6, v7;
  const int used = USED_4X4;
  if (!dequantized_row(in, q, 0, used, &v0) || !dequantized_row(in, q, 1, used, &v1) ||
      !dequantized_row(in, q, 2, used, &v2) || !dequantized_row(in, q, 3, used, &v3) ||
      !dequantized_row(in, q, 5, used, &v5) || !dequantized_row(in, q, 6, used, &v6) ||
      !dequantized_row(in, q, 7, used, &v7))
    return 0;
  for (int high = 0; high < 2; high++) {
    int lanes = high ? used_high(used) : used_low(used);
    __m128i t0 = widened(v0, CONST_BITS + 1, high);
    __m128i t2 = pair(v2, v6, 15137, -6270, high);
    __m128i t10 = _mm_add_epi32(t0, t2), t12 = _mm_sub_epi32(t0, t2);
    __m128i o0 = _mm_add_epi32(pair(v7, v5, -1730, 11893, high), pair(v3, v1, -17799, 8697, high));
    __m128i o2 = _mm_add_epi32(pair(v7, v5, -4176, -4926, high), pair(v3, v1, 7373, 20995, high));
    const int n = CONST_BITS - PASS1_BITS + 1;
    __m128i w0 = descaled(_mm_add_epi32(t10, o2), n), w3 = descaled(_mm_sub_epi32(t10, o2), n);
    __m128i w1 = descaled(_mm_add_epi32(t12, o0), n), w2 = descaled(_mm_sub_epi32(t12, o0), n);
    if (!lanes_within(w0, lanes) || !lanes_within(w1, lanes) || !lanes_within(w2, lanes) || !lanes_within(w3, lanes))
      return 0;
    _mm_storeu_si128((__m128i *)(workspace[0] + 4 * high), w0);
    _mm_storeu_si128((__m128i *)(workspace[1] + 4 * high), w1);
    _mm_storeu_si128((__m128i *)(workspace[2] + 4 * high), w2);
    _mm_storeu_si128((__m128i *)(workspace[3] + 4 * high), w3);
  }
  return 1;
}
#endif

static int idct_2x2(const int16_t *in, const uint16_t *q, uint8_t *out, size_t stride) {
  int32_t workspace[2][8];
#if defined(__SSE2__)
  if (!pass1_2x2(in, q, workspace)) return 0;
#else
  /* Pass 1: columns 0, 1, 3, 5, 7 (a 2x2 output needs no others). Every product fits 32 bits
   * (16 x 16); once checked within +-16383, every sum does too. */
  static const int columns[5] = {0, 1, 3, 5, 7};
  for (int i = 0; i < 5; i++) {
    int column = columns[i];
    const int16_t *c = in + column;
    const uint16_t *k = q + column;
    int32_t v0 = (int32_t)c[0] * (int16_t)k[0];
    if ((c[8] | c[24] | c[40] | c[56]) == 0) {
      if (!within(v0, 4095)) return 0;
      workspace[0][column] = workspace[1][column] = v0 * 4;
      continue;
    }
    int32_t v1 = (int32_t)c[8] * (int16_t)k[8], v3 = (int32_t)c[24] * (int16_t)k[24];
    int32_t v5 = (int32_t)c[40] * (int16_t)k[40], v7 = (int32_t)c[56] * (int16_t)k[56];
    if (!within(v0, 16383) || !within(v1, 16383) || !within(v3, 16383) || !within(v5, 16383) || !within(v7, 16383))
      return 0;
    int32_t even = v0 * (1 << (CONST_BITS + 2));
    int32_t odd = v7 * -5906 + v5 * 6967 + v3 * -10426 + v1 * 29692;
    int32_t a = (int32_t)descale(even + odd, CONST_BITS - PASS1_BITS + 2);
    int32_t b = (int32_t)descale(even - odd, CONST_BITS - PASS1_BITS + 2);
    if (!within(a, 16383) || !within(b, 16383)) return 0;
    workspace[0][column] = a;
    workspace[1][column] = b;
  }
#endif
  /* Pass 2: the two rows. */
  for (int row = 0; row < 2; row++) {
    const int32_t *w = workspace[row];
    uint8_t *o = out + (size_t)row * stride;
    int32_t a, b;
    if ((w[1] | w[3] | w[5] | w[7]) == 0) {
      a = b = (int32_t)descale(w[0], PASS1_BITS + 3);
    } else {
      int32_t even = w[0] * (1 << (CONST_BITS + 2));
      int32_t odd = w[7] * -5906 + w[5] * 6967 + w[3] * -10426 + w[1] * 29692;
      a = (int32_t)descale(even + odd, CONST_BITS + PASS1_BITS + 3 + 2);
      b = (int32_t)descale(even - odd, CONST_BITS + PASS1_BITS + 3 + 2);
    }
    if (a < -512 || a > 511 || b < -512 || b > 511) return 0;
    o[0] = clamped(a);
    o[1] = clamped(b);
  }
  return 1;
}

static int idct_4x4(const int16_t *in, const uint16_t *q, uint8_t *out, size_t stride) {
  int32_t workspace[4][8];
#if defined(__SSE2__)
  if (!pass1_4x4(in, q, workspace)) return 0;
#else
  /* Pass 1: every column but 4, rows 0-3, 5-7. */
  for (int column = 0; column < 8; column++) {
    if (column == 4) continue;
    const int16_t *c = in + column;
    const uint16_t *k = q + column;
    int32_t v0 = (int32_t)c[0] * (int16_t)k[0];
    if ((c[8] | c[16] | c[24] | c[40] | c[48] | c[56]) == 0) {
      if (!within(v0, 4095)) return 0;
      for (int r = 0; r < 4; r++) workspace[r][column] = v0 * 4;
      continue;
    }
    int32_t v1 = (int32_t)c[8] * (int16_t)k[8], v2 = (int32_t)c[16] * (int16_t)k[16];
    int32_t v3 = (int32_t)c[24] * (int16_t)k[24], v5 = (int32_t)c[40] * (int16_t)k[40];
    int32_t v6 = (int32_t)c[48] * (int16_t)k[48], v7 = (int32_t)c[56] * (int16_t)k[56];
    if (!within(v0, 16383) || !within(v1, 16383) || !within(v2, 16383) || !within(v3, 16383) ||
        !within(v5, 16383) || !within(v6, 16383) || !within(v7, 16383))
      return 0;
    int32_t t0 = v0 * (1 << (CONST_BITS + 1));
    int32_t t2 = v2 * 15137 + v6 * -6270;
    int32_t t10 = t0 + t2, t12 = t0 - t2;
    int32_t o0 = v7 * -1730 + v5 * 11893 + v3 * -17799 + v1 * 8697;
    int32_t o2 = v7 * -4176 + v5 * -4926 + v3 * 7373 + v1 * 20995;
    const int n = CONST_BITS - PASS1_BITS + 1;
    int32_t w0 = (int32_t)descale(t10 + o2, n), w3 = (int32_t)descale(t10 - o2, n);
    int32_t w1 = (int32_t)descale(t12 + o0, n), w2 = (int32_t)descale(t12 - o0, n);
    if (!within(w0, 16383) || !within(w1, 16383) || !within(w2, 16383) || !within(w3, 16383)) return 0;
    workspace[0][column] = w0;
    workspace[1][column] = w1;
    workspace[2][column] = w2;
    workspace[3][column] = w3;
  }
#endif
  /* Pass 2: the four rows. */
  for (int row = 0; row < 4; row++) {
    const int32_t *w = workspace[row];
    uint8_t *o = out + (size_t)row * stride;
    int32_t x[4];
    if ((w[1] | w[2] | w[3] | w[5] | w[6] | w[7]) == 0) {
      x[0] = x[1] = x[2] = x[3] = (int32_t)descale(w[0], PASS1_BITS + 3);
    } else {
      int32_t t0 = w[0] * (1 << (CONST_BITS + 1));
      int32_t t2 = w[2] * 15137 + w[6] * -6270;
      int32_t t10 = t0 + t2, t12 = t0 - t2;
      int32_t o0 = w[7] * -1730 + w[5] * 11893 + w[3] * -17799 + w[1] * 8697;
      int32_t o2 = w[7] * -4176 + w[5] * -4926 + w[3] * 7373 + w[1] * 20995;
      const int n = CONST_BITS + PASS1_BITS + 3 + 1;
      x[0] = (int32_t)descale(t10 + o2, n);
      x[3] = (int32_t)descale(t10 - o2, n);
      x[1] = (int32_t)descale(t12 + o0, n);
      x[2] = (int32_t)descale(t12 - o0, n);
    }
    for (int i = 0; i < 4; i++) {
      if (x[i] < -512 || x[i] > 511) return 0;
      o[i] = clamped(x[i]);
    }
  }
  return 1;
}

int imc_jpeg_idct(int size, const int16_t *coefficients, const uint16_t *quant, uint8_t *out, size_t stride) {
  switch (size) {
  case 1: out[0] = imc_jpeg_idct_dc(coefficients[0], quant[0]); return 1;
  case 2: return idct_2x2(coefficients, quant, out, stride);
  case 4: return idct_4x4(coefficients, quant, out, stride);
  default: return 0;
  }
}
