/* imc_matrix_shaper.c: see imc_matrix_shaper.h. */
#include "imc_matrix_shaper.h"

static uint8_t encode(const imc_matrix_shaper *shaper, float linear) {
  if (!(linear > 0.0f)) linear = 0.0f; /* also NaN */
  if (linear > 1.0f) linear = 1.0f;
  float position = linear * (float)IMC_ENCODE_STEPS;
  int index = (int)position;
  if (index >= IMC_ENCODE_STEPS) index = IMC_ENCODE_STEPS - 1;
  float fraction = position - (float)index;
  float value = shaper->encode[index] + fraction * (shaper->encode[index + 1] - shaper->encode[index]);
  float code = value * 255.0f + 0.5f;
  if (code < 0.0f) code = 0.0f;
  if (code > 255.0f) code = 255.0f;
  return (uint8_t)code;
}

void imc_matrix_shaper_rows(const imc_matrix_shaper *shaper, const uint8_t *in, size_t in_stride, uint8_t *out,
                            size_t out_stride, uint32_t width, uint32_t rows, int channels) {
  const float(*m)[3] = shaper->matrix;
  for (uint32_t y = 0; y < rows; y++) {
    const uint8_t *source = in + (size_t)y * in_stride;
    uint8_t *target = out + (size_t)y * out_stride;
    for (uint32_t x = 0; x < width; x++, source += channels, target += channels) {
      float r = shaper->linear[0][source[0]], g = shaper->linear[1][source[1]], b = shaper->linear[2][source[2]];
      uint8_t alpha = channels == 4 ? source[3] : 0;
      target[0] = encode(shaper, m[0][0] * r + m[0][1] * g + m[0][2] * b);
      target[1] = encode(shaper, m[1][0] * r + m[1][1] * g + m[1][2] * b);
      target[2] = encode(shaper, m[2][0] * r + m[2][1] * g + m[2][2] * b);
      if (channels == 4) target[3] = alpha;
    }
  }
}
