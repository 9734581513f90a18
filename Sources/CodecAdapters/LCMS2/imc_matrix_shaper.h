/* imc_matrix_shaper.h: the conversion of 8-bit RGB rows between two matrix-shaper spaces, over
 * plain tables (no lcms2 type): three input curves sampled at the 256 codes, a 3x3 matrix, and the
 * output curve's inverse sampled at IMC_ENCODE_STEPS + 1 points and interpolated. imc_lcms2.c fills
 * the tables from lcms2 (the profiles' own curves and colorants) and uses this instead of an lcms2
 * transform where both ends are matrix-shaper RGB: building lcms2's 8-bit transform evaluates the
 * output curve's inverse at 3 x 16,385 points (milliseconds), more than a thumbnail's conversion
 * costs, and these tables take a tenth of that. Tests hold the result to lcms2's transform (within
 * one code value; benchmarks/README.md, "Colour").
 */
#ifndef IMC_MATRIX_SHAPER_H
#define IMC_MATRIX_SHAPER_H

#include <stddef.h>
#include <stdint.h>

#define IMC_ENCODE_STEPS 4096

typedef struct {
  float linear[3][256];                /* input code -> linear light, per channel */
  float matrix[3][3];                  /* linear source RGB -> linear target RGB (rows: target) */
  float encode[IMC_ENCODE_STEPS + 1];  /* linear light in [0, 1] -> target code / 255 */
} imc_matrix_shaper;

/* Converts `rows` rows of `width` pixels of `channels` (3: RGB, 4: RGBA, alpha copied) bytes each;
 * `in` and `out` may be the same rows. */
void imc_matrix_shaper_rows(const imc_matrix_shaper *shaper, const uint8_t *in, size_t in_stride, uint8_t *out,
                            size_t out_stride, uint32_t width, uint32_t rows, int channels);

#endif
