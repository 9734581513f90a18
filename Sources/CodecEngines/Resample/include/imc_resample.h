/* imc_resample.h: the inner loops of imgfetch's separable resampler (Thumbnails' SeparableResampler):
 * weighted sums of whole rows of samples, in 32-bit integer arithmetic.
 *
 * Both functions compute, for every i < count,
 *     sum(i) = rounding + weights[0] * line0[i] + weights[1] * line1[i] + ... (taps terms)
 * where line t starts at first + t * stride (in samples), with 32-bit wrapping arithmetic (the
 * resampler's weights keep every real sum far from wrapping). Integer sums do not depend on their
 * order, so the vector path (SSE2 on x86-64: two taps per multiply-add) and the plain C path give
 * the same results, bit for bit.
 */
#ifndef IMC_RESAMPLE_H
#define IMC_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* 8-bit lines to 16-bit results: out[i] = the low 16 bits of (sum(i) >> shift) (arithmetic shift,
 * 0 <= shift <= 31), for i < count. Reads count samples of each line. */
void imc_resample_lines_u8(const uint8_t *first, ptrdiff_t stride, const int16_t *weights, int taps,
                           int32_t rounding, int shift, size_t count, int16_t *out);

/* 16-bit lines to 32-bit sums: sums[i] = sum(i), for i < count. Reads count samples of each line
 * (a multiple of 16 runs only the vector loop). */
void imc_resample_lines_i16(const int16_t *first, ptrdiff_t stride, const int16_t *weights, int taps,
                            int32_t rounding, size_t count, int32_t *sums);

#endif
