/* imc_webp_pixels.c: the output of a WebP decode. libwebp writes RGB or RGBA (an animation's canvas
 * is always RGBA); the other layouts are copied from those rows: RGB without the alpha, and gray
 * with Rec. 601 luma weights in 16-bit fixed point, as the JPEG decoder's gray conversion. An
 * opaque still image may be decoded at eighths of its size by libwebp's scaler (shrink on load);
 * an image with alpha is not, because that scaler averages colour without weighting it by alpha. */
#include "imc_core.h"
#include "imc_webp_session.h"

#include <stdlib.h>
#include <string.h>

static int32_t layout_for(int32_t want, int has_alpha) {
  switch (want) {
  case IMC_WANT_RGBA8: return IMC_LAYOUT_RGBA8;
  case IMC_WANT_RGB8: return IMC_LAYOUT_RGB8;
  case IMC_WANT_GRAY8: return IMC_LAYOUT_GRAY8;
  default: return has_alpha ? IMC_LAYOUT_RGBA8 : IMC_LAYOUT_RGB8; /* SOURCE, NATIVE: WebP is 8-bit */
  }
}

int32_t imc_webp_choose_output(struct imc_webp_session *session, int32_t scale_eighths, imc_status *status) {
  imc_decoder *decoder = session->decoder;
  imc_info *info = &decoder->info;
  info->output_layout = layout_for(decoder->request.want, session->features.has_alpha);
  info->output_width = info->width;
  info->output_height = info->height;
  if (scale_eighths > 0 && scale_eighths != 8 && !session->animated && !session->features.has_alpha) {
    /* ceil(size * eighths / 8), as the JPEG decoder's scaled size. */
    info->output_width = (uint32_t)(((uint64_t)info->width * (uint64_t)scale_eighths + 7) / 8);
    info->output_height = (uint32_t)(((uint64_t)info->height * (uint64_t)scale_eighths + 7) / 8);
  }
  if (imc_check_limits(&decoder->request, info->output_width, info->output_height, status)) return status->code;
  return IMC_OK;
}

void imc_webp_convert_rows(const uint8_t *in, size_t in_stride, int in_channels, uint8_t *out, size_t out_stride,
                           int32_t layout, uint32_t width, uint32_t height) {
  size_t out_channels = imc_layout_bytes_per_pixel(layout);
  for (uint32_t y = 0; y < height; y++) {
    const uint8_t *from = in + (size_t)y * in_stride;
    uint8_t *to = out + (size_t)y * out_stride;
    if (layout == IMC_LAYOUT_GRAY8) {
      for (uint32_t x = 0; x < width; x++, from += in_channels)
        to[x] = (uint8_t)(((uint32_t)from[0] * 19595u + (uint32_t)from[1] * 38470u + (uint32_t)from[2] * 7471u + 32768u) >> 16);
    } else if ((size_t)in_channels == out_channels) {
      memcpy(to, from, (size_t)width * out_channels);
    } else {
      for (uint32_t x = 0; x < width; x++, from += in_channels, to += out_channels) {
        to[0] = from[0];
        to[1] = from[1];
        to[2] = from[2];
        if (out_channels == 4) to[3] = in_channels == 4 ? from[3] : 255;
      }
    }
  }
}

/* rows * stride bytes, malloc'd; NULL (with the status set) when that overflows or memory ran out. */
static uint8_t *allocate_image(size_t stride, uint32_t rows, imc_status *status) {
  uint8_t *image = rows > 0 && stride > SIZE_MAX / rows ? NULL : malloc(stride * rows);
  if (!image) imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for the pixels");
  return image;
}

int32_t imc_webp_start_output(struct imc_webp_session *session, uint8_t *out, size_t stride, imc_status *status) {
  imc_decoder *decoder = session->decoder;
  const imc_info *info = &decoder->info;
  uint32_t width = info->output_width, height = info->output_height;
  if (!out) {
    stride = (size_t)width * imc_layout_bytes_per_pixel(info->output_layout);
    session->own = allocate_image(stride, height, status);
    if (!session->own) return status->code;
    out = session->own;
  }
  session->out = out;
  session->out_stride = stride;
  session->started = 1;
  if (session->animated) return IMC_OK; /* WebPAnimDecoder has its own canvas */
  /* libwebp writes RGB or RGBA straight into the output, or RGB into a scratch image for gray. */
  uint8_t *target = out;
  size_t target_stride = stride;
  WEBP_CSP_MODE mode = info->output_layout == IMC_LAYOUT_RGBA8 ? MODE_RGBA : MODE_RGB;
  if (info->output_layout == IMC_LAYOUT_GRAY8) {
    target_stride = (size_t)width * 3;
    session->scratch = allocate_image(target_stride, height, status);
    if (!session->scratch) return status->code;
    target = session->scratch;
  }
  WebPDecoderConfig *config = &session->config;
  if (!WebPInitDecoderConfig(config)) {
    imc_status_set(status, IMC_ERR_UNSUPPORTED, "libwebp's version does not match its headers");
    return status->code;
  }
  config->options.use_threads = 0;
  if (width != info->width || height != info->height) {
    config->options.use_scaling = 1;
    config->options.scaled_width = (int)width;
    config->options.scaled_height = (int)height;
  }
  config->output.colorspace = mode;
  config->output.is_external_memory = 1;
  config->output.u.RGBA.rgba = target;
  config->output.u.RGBA.stride = (int)target_stride;
  config->output.u.RGBA.size = (size_t)target_stride * height;
  session->idec = WebPIDecode(NULL, 0, config);
  if (!session->idec) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for libwebp's decoder");
    return status->code;
  }
  return IMC_OK;
}
