/* imc_resample.c: weighted sums of lines for the separable resampler (see imc_resample.h).
 *
 * The vector path multiplies two taps at once: the samples of two lines are interleaved into
 * 16-bit pairs and _mm_madd_epi16 forms line0 * w0 + line1 * w1 in each 32-bit lane (its one
 * wrapping case, -32768 * -32768 twice, wraps as the plain path's unsigned sums do). An odd last
 * tap is paired with a zero weight. About a third of the instructions of one tap per multiply.
 */
#include "imc_resample.h"

/* The plain path: unsigned arithmetic, which wraps without undefined behaviour. */
static uint32_t line_sum_u8(const uint8_t *p, ptrdiff_t stride, const int16_t *weights, int taps,
                            int32_t rounding) {
  uint32_t sum = (uint32_t)rounding;
  for (int t = 0; t < taps; t++) sum += (uint32_t)((int32_t)p[t * stride] * weights[t]);
  return sum;
}

static uint32_t line_sum_i16(const int16_t *p, ptrdiff_t stride, const int16_t *weights, int taps,
                             int32_t rounding) {
  uint32_t sum = (uint32_t)rounding;
  for (int t = 0; t < taps; t++) sum += (uint32_t)((int32_t)p[t * stride] * weights[t]);
  return sum;
}

/* The low 16 bits of an arithmetic right shift. */
static inline int16_t narrowed(uint32_t sum, int shift) { return (int16_t)(uint16_t)((int32_t)sum >> shift); }

#if defined(__SSE2__)
#include <emmintrin.h>

#include <string.h>

/* Weights t and t+1 as a pair in every 32-bit lane: the two 16-bit weights as they lie in memory
 * (x86 is little-endian, so the first is the low half). */
static inline __m128i weight_pair(const int16_t *weights) {
  int32_t pair;
  memcpy(&pair, weights, sizeof pair);
  return _mm_set1_epi32(pair);
}

/* The last weight of an odd count, paired with 0 (its line is paired with itself). */
static inline __m128i weight_alone(int16_t weight) { return _mm_set1_epi32((uint16_t)weight); }

/* Sign-extends the low 16 bits of each 32-bit lane (the truncation of the plain path). */
static inline __m128i low_halves(__m128i x) { return _mm_srai_epi32(_mm_slli_epi32(x, 16), 16); }

/* sums += the products of 16 8-bit samples of lines a and b with the weight pair w. */
static inline void add_u8(__m128i a, __m128i b, __m128i w, __m128i s[4]) {
  const __m128i zero = _mm_setzero_si128();
  __m128i low = _mm_unpacklo_epi8(a, b), high = _mm_unpackhi_epi8(a, b);
  s[0] = _mm_add_epi32(s[0], _mm_madd_epi16(_mm_unpacklo_epi8(low, zero), w));
  s[1] = _mm_add_epi32(s[1], _mm_madd_epi16(_mm_unpackhi_epi8(low, zero), w));
  s[2] = _mm_add_epi32(s[2], _mm_madd_epi16(_mm_unpacklo_epi8(high, zero), w));
  s[3] = _mm_add_epi32(s[3], _mm_madd_epi16(_mm_unpackhi_epi8(high, zero), w));
}

/* sums += the products of 16 16-bit samples of lines a and b (at a and b) with the weight pair w. */
static inline void add_i16(const int16_t *a, const int16_t *b, __m128i w, __m128i s[4]) {
  __m128i a0 = _mm_loadu_si128((const __m128i *)a), a1 = _mm_loadu_si128((const __m128i *)(a + 8));
  __m128i b0 = _mm_loadu_si128((const __m128i *)b), b1 = _mm_loadu_si128((const __m128i *)(b + 8));
  s[0] = _mm_add_epi32(s[0], _mm_madd_epi16(_mm_unpacklo_epi16(a0, b0), w));
  s[1] = _mm_add_epi32(s[1], _mm_madd_epi16(_mm_unpackhi_epi16(a0, b0), w));
  s[2] = _mm_add_epi32(s[2], _mm_madd_epi16(_mm_unpacklo_epi16(a1, b1), w));
  s[3] = _mm_add_epi32(s[3], _mm_madd_epi16(_mm_unpackhi_epi16(a1, b1), w));
}

void imc_resample_lines_u8(const uint8_t *first, ptrdiff_t stride, const int16_t *weights, int taps,
                           int32_t rounding, int shift, size_t count, int16_t *out) {
  const __m128i by = _mm_cvtsi32_si128(shift);
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m128i s[4] = {_mm_set1_epi32(rounding), _mm_set1_epi32(rounding), _mm_set1_epi32(rounding),
                    _mm_set1_epi32(rounding)};
    int t = 0;
    for (; t + 2 <= taps; t += 2) {
      const uint8_t *p = first + t * stride + i; /* lines t and t + 1, never a pointer past the last */
      add_u8(_mm_loadu_si128((const __m128i *)p), _mm_loadu_si128((const __m128i *)(p + stride)),
             weight_pair(weights + t), s);
    }
    if (t < taps) {
      __m128i a = _mm_loadu_si128((const __m128i *)(first + t * stride + i));
      add_u8(a, a, weight_alone(weights[t]), s);
    }
    for (int k = 0; k < 4; k++) s[k] = low_halves(_mm_sra_epi32(s[k], by));
    _mm_storeu_si128((__m128i *)(out + i), _mm_packs_epi32(s[0], s[1]));
    _mm_storeu_si128((__m128i *)(out + i + 8), _mm_packs_epi32(s[2], s[3]));
  }
  for (; i < count; i++) out[i] = narrowed(line_sum_u8(first + i, stride, weights, taps, rounding), shift);
}

void imc_resample_lines_i16(const int16_t *first, ptrdiff_t stride, const int16_t *weights, int taps,
                            int32_t rounding, size_t count, int32_t *sums) {
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m128i s[4] = {_mm_set1_epi32(rounding), _mm_set1_epi32(rounding), _mm_set1_epi32(rounding),
                    _mm_set1_epi32(rounding)};
    int t = 0;
    for (; t + 2 <= taps; t += 2) {
      const int16_t *p = first + t * stride + i;
      add_i16(p, p + stride, weight_pair(weights + t), s);
    }
    if (t < taps) add_i16(first + t * stride + i, first + t * stride + i, weight_alone(weights[t]), s);
    for (int k = 0; k < 4; k++) _mm_storeu_si128((__m128i *)(sums + i + 4 * k), s[k]);
  }
  for (; i < count; i++) sums[i] = (int32_t)line_sum_i16(first + i, stride, weights, taps, rounding);
}

#else

void imc_resample_lines_u8(const uint8_t *first, ptrdiff_t stride, const int16_t *weights, int taps,
                           int32_t rounding, int shift, size_t count, int16_t *out) {
  for (size_t i = 0; i < count; i++) out[i] = narrowed(line_sum_u8(first + i, stride, weights, taps, rounding), shift);
}

void imc_resample_lines_i16(const int16_t *first, ptrdiff_t stride, const int16_t *weights, int taps,
                            int32_t rounding, size_t count, int32_t *sums) {
  for (size_t i = 0; i < count; i++) sums[i] = (int32_t)line_sum_i16(first + i, stride, weights, taps, rounding);
}

#endif
