/* jpeg_output.c: the last stages of a decode, as libjpeg-turbo does them for the layouts the
 * engine produces: a subsampled component's samples widened 2:1 (replicated at 1/8 scale, the
 * "fancy" triangle filter above it), then YCbCr to RGB in libjpeg's fixed-point arithmetic, or
 * the luma alone for grayscale output. libjpeg's SIMD versions of these give the same bytes as its
 * C versions for every input, so these are its bytes.
 */
#include "jpeg_internal.h"

#include <stdlib.h>

#define SCALE_BITS 16
#define ONE_HALF ((int32_t)1 << (SCALE_BITS - 1))
#define FIX(x) ((int32_t)((x) * (1 << SCALE_BITS) + 0.5))

/* YCbCr to RGB as libjpeg's tables hold it (build_ycc_rgb_table), computed rather than looked up so
 * that the compiler can convert many pixels per instruction: x = chroma - 128,
 *   red   = Y + ((FIX(1.402) * Cr_x + ONE_HALF) >> 16)
 *   green = Y + ((-FIX(0.34414) * Cb_x + ONE_HALF - FIX(0.71414) * Cr_x) >> 16)
 *   blue  = Y + ((FIX(1.772) * Cb_x + ONE_HALF) >> 16)
 * each sum the one libjpeg adds from its tables (cr_r, cb_g + cr_g, cb_b), so the same bytes. */
static inline int red_offset(int cr) { return (FIX(1.40200) * (cr - 128) + ONE_HALF) >> SCALE_BITS; }
static inline int green_offset(int cb, int cr) {
  return (-FIX(0.34414) * (cb - 128) + ONE_HALF - FIX(0.71414) * (cr - 128)) >> SCALE_BITS;
}
static inline int blue_offset(int cb) { return (FIX(1.77200) * (cb - 128) + ONE_HALF) >> SCALE_BITS; }

static inline uint8_t clamp(int value) { return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value); }

int imc_jpeg_output_handles(const frame_info *frame, const char **reason) {
  /* Output rows are luma rows as they are (only chroma is ever widened), and a plane holds the rows
   * of an iMCU row at the luma's size: so luma must be the finest-sampled component both ways.
   * (libjpeg upsamples whatever is coarser; 1x1 luma with 2x1 chroma, say, is libjpeg's alone.) */
  if (frame->components > 1 && (frame->component[0].h != frame->max_h || frame->component[0].v != frame->max_v)) {
    *reason = "a component sampled more finely than luma";
    return 0;
  }
  return 1;
}

int imc_jpeg_output_init(imc_jpeg_output *output, const frame_info *frame, int layout, int scale, size_t limit) {
  memset(output, 0, sizeof *output);
  output->frame = frame;
  output->layout = layout;
  output->scale = scale;
  output->rows_per_imcu = frame->max_v * scale;
  output->output_width = (uint32_t)(((uint64_t)frame->width * (uint64_t)scale + 7) / 8);
  output->output_height = (uint32_t)(((uint64_t)frame->height * (uint64_t)scale + 7) / 8);
  size_t total = 0;
  for (int c = 0; c < frame->components; c++) {
    const component_info *component = &frame->component[c];
    if (!component->needed) continue;
    /* Every block an MCU row covers, and room for libjpeg-style readers past the edge. */
    output->plane_stride[c] = (size_t)component->block_stride * (size_t)component->scaled + 64;
    total += output->plane_stride[c] * (size_t)output->rows_per_imcu;
  }
  output->row_stride = (size_t)output->output_width * (size_t)layout;
  /* Two widened chroma rows: 2:1 of a component row, which may pass the output width by a sample. */
  output->scratch_stride = (size_t)output->output_width + 64;
  total += output->row_stride * (size_t)output->rows_per_imcu + 2 * output->scratch_stride;
  if (total > limit) return 0;
  for (int c = 0; c < frame->components; c++) {
    if (!output->plane_stride[c]) continue;
    output->planes[c] = calloc((size_t)output->rows_per_imcu, output->plane_stride[c]);
    if (!output->planes[c]) return 0;
  }
  output->rows = malloc(output->row_stride * (size_t)output->rows_per_imcu + 1);
  output->upsampled = malloc(2 * output->scratch_stride);
  return output->rows && output->upsampled;
}

void imc_jpeg_output_free(imc_jpeg_output *output) {
  for (int c = 0; c < MAX_FRAME_COMPONENTS; c++) free(output->planes[c]);
  free(output->rows);
  free(output->upsampled);
  memset(output, 0, sizeof *output);
}

/* One row of a component at output width: its own samples, or widened 2:1 into `scratch`. */
static const uint8_t *widened(const component_info *component, const uint8_t *in, uint8_t *scratch) {
  uint32_t width = component->downsampled_width;
  switch (component->upsample) {
  case UPSAMPLE_H2V1_REPLICATE:
    for (uint32_t x = 0; x < width; x++) scratch[2 * x] = scratch[2 * x + 1] = in[x];
    return scratch;
  case UPSAMPLE_H2V1_FANCY: {
    /* 3/4 of the nearer sample and 1/4 of the further one, rounding alternately down and up;
     * the first and last samples are kept at the edges. (width > 2 here.) */
    uint8_t *out = scratch;
    int value = in[0];
    *out++ = (uint8_t)value;
    *out++ = (uint8_t)((value * 3 + in[1] + 2) >> 2);
    for (uint32_t x = 1; x + 1 < width; x++) {
      value = in[x] * 3;
      *out++ = (uint8_t)((value + in[x - 1] + 1) >> 2);
      *out++ = (uint8_t)((value + in[x + 1] + 2) >> 2);
    }
    value = in[width - 1];
    *out++ = (uint8_t)((value * 3 + in[width - 2] + 1) >> 2);
    *out = (uint8_t)value;
    return scratch;
  }
  default: return in;
  }
}

/* One row of pixels, a layout per function: a constant pixel size lets the compiler vectorize. */
static void ycc_row_to_rgb(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, uint8_t *out, uint32_t width) {
  for (uint32_t x = 0; x < width; x++) {
    out[3 * x] = clamp(y[x] + red_offset(cr[x]));
    out[3 * x + 1] = clamp(y[x] + green_offset(cb[x], cr[x]));
    out[3 * x + 2] = clamp(y[x] + blue_offset(cb[x]));
  }
}

static void ycc_row_to_rgba(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, uint8_t *out, uint32_t width) {
  for (uint32_t x = 0; x < width; x++) {
    out[4 * x] = clamp(y[x] + red_offset(cr[x]));
    out[4 * x + 1] = clamp(y[x] + green_offset(cb[x], cr[x]));
    out[4 * x + 2] = clamp(y[x] + blue_offset(cb[x]));
    out[4 * x + 3] = 255;
  }
}

void imc_jpeg_output_convert(imc_jpeg_output *output) {
  const frame_info *frame = output->frame;
  uint32_t left = output->output_height - output->rows_out;
  uint32_t count = left < (uint32_t)output->rows_per_imcu ? left : (uint32_t)output->rows_per_imcu;
  uint32_t width = output->output_width;
  for (uint32_t row = 0; row < count; row++) {
    uint8_t *out = output->rows + (size_t)row * output->row_stride;
    const uint8_t *y = output->planes[0] + (size_t)row * output->plane_stride[0];
    if (output->layout == IMC_JPEG_ENGINE_GRAY) {
      memcpy(out, y, width);
      continue;
    }
    if (frame->color_space == 1) {
      for (uint32_t x = 0; x < width; x++, out += output->layout) {
        out[0] = out[1] = out[2] = y[x];
        if (output->layout == IMC_JPEG_ENGINE_RGBA) out[3] = 255;
      }
      continue;
    }
    const uint8_t *cb = widened(&frame->component[1], output->planes[1] + (size_t)row * output->plane_stride[1],
                                output->upsampled);
    const uint8_t *cr = widened(&frame->component[2], output->planes[2] + (size_t)row * output->plane_stride[2],
                                output->upsampled + output->scratch_stride);
    if (output->layout == IMC_JPEG_ENGINE_RGBA) ycc_row_to_rgba(y, cb, cr, out, width);
    else ycc_row_to_rgb(y, cb, cr, out, width);
  }
  output->count = count;
  output->rows_out += count;
}
