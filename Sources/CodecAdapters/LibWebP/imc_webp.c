/* imc_webp.c: the libwebp adapter (see include/imc_webp.h).
 *
 * Why a shim: libwebp's encoder works on a WebPPicture with a writer callback, and its container
 * library assembles the extended format's chunks; both are C APIs with ownership rules best kept
 * in one place. Gray pixels are spread to RGB first (WebP has no gray), alpha is imported only when
 * the pixels have it, and every buffer is released on every path. libwebp never prints.
 */
#pragma clang diagnostic warning "-Wall"
#pragma clang diagnostic warning "-Wextra"

#include "imc_webp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>

static const char *encoding_error(WebPEncodingError code) {
  switch (code) {
  case VP8_ENC_ERROR_OUT_OF_MEMORY:
  case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
  case VP8_ENC_ERROR_BAD_DIMENSION: return "the size is over WebP's 16383 x 16383";
  case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
  case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "a partition is over WebP's size limit";
  case VP8_ENC_ERROR_FILE_TOO_BIG: return "the file would be over 4 GiB";
  default: return "libwebp refused the picture";
  }
}

/* Gray or gray+alpha rows spread to RGB or RGBA, tightly packed: a new buffer, or NULL. */
static uint8_t *spread_gray(const uint8_t *pixels, uint32_t width, uint32_t height, size_t row_bytes, int alpha) {
  size_t out_channels = alpha ? 4 : 3;
  uint8_t *out = malloc((size_t)width * height * out_channels);
  if (!out) return NULL;
  for (uint32_t y = 0; y < height; y++) {
    const uint8_t *in = pixels + (size_t)y * row_bytes;
    uint8_t *o = out + (size_t)y * width * out_channels;
    for (uint32_t x = 0; x < width; x++) {
      uint8_t v = alpha ? in[2 * (size_t)x] : in[x];
      o[0] = o[1] = o[2] = v;
      if (alpha) o[3] = in[2 * (size_t)x + 1];
      o += out_channels;
    }
  }
  return out;
}

/* Wraps the bare bitstream in the extended container with the ICC profile and the comment. */
static int32_t add_chunks(WebPMemoryWriter *writer, const uint8_t *icc, size_t icc_length, const char *comment,
                          uint8_t **out, size_t *length, char *message, size_t message_size) {
  WebPMux *mux = WebPMuxNew();
  if (!mux) {
    snprintf(message, message_size, "out of memory");
    return 1;
  }
  WebPData image = {writer->mem, writer->size};
  WebPMuxError status = WebPMuxSetImage(mux, &image, 0);
  if (status == WEBP_MUX_OK && icc) {
    WebPData profile = {icc, icc_length};
    status = WebPMuxSetChunk(mux, "ICCP", &profile, 0);
  }
  if (status == WEBP_MUX_OK && comment) {
    WebPData text = {(const uint8_t *)comment, strlen(comment)};
    status = WebPMuxSetChunk(mux, IMC_WEBP_COMMENT_FOURCC, &text, 0);
  }
  WebPData assembled = {NULL, 0};
  if (status == WEBP_MUX_OK) status = WebPMuxAssemble(mux, &assembled);
  WebPMuxDelete(mux);
  if (status != WEBP_MUX_OK) {
    WebPDataClear(&assembled);
    snprintf(message, message_size, "libwebpmux could not assemble the file (error %d)", (int)status);
    return 1;
  }
  /* Handed out as plain malloc'd memory, like the bare encoder's output. */
  *out = malloc(assembled.size);
  if (!*out) {
    WebPDataClear(&assembled);
    snprintf(message, message_size, "out of memory");
    return 1;
  }
  memcpy(*out, assembled.bytes, assembled.size);
  *length = assembled.size;
  WebPDataClear(&assembled);
  return 0;
}

int32_t imc_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t row_bytes, int32_t channels,
                        const imc_webp_options *options, const uint8_t *icc, size_t icc_length, const char *comment,
                        uint8_t **out, size_t *length, char *message, size_t message_size) {
  *out = NULL;
  *length = 0;
  if (message_size > 0) message[0] = 0;
  if (channels < 1 || channels > 4 || width == 0 || height == 0) {
    snprintf(message, message_size, "unsupported pixel layout");
    return 1;
  }
  WebPConfig config;
  if (!WebPConfigInit(&config)) {
    snprintf(message, message_size, "libwebp version mismatch");
    return 1;
  }
  config.lossless = options->lossless ? 1 : 0;
  config.quality = (float)(options->quality < 0 ? 0 : options->quality > 100 ? 100 : options->quality);
  config.method = options->method < 0 ? 0 : options->method > 6 ? 6 : options->method;
  config.exact = config.lossless; /* lossless keeps even the colour under transparent pixels */
  if (!WebPValidateConfig(&config)) {
    snprintf(message, message_size, "invalid WebP settings");
    return 1;
  }
  int alpha = channels == 2 || channels == 4;
  uint8_t *spread = NULL;
  const uint8_t *rgb = pixels;
  size_t stride = row_bytes;
  if (channels <= 2) {
    spread = spread_gray(pixels, width, height, row_bytes, alpha);
    if (!spread) {
      snprintf(message, message_size, "out of memory");
      return 1;
    }
    rgb = spread;
    stride = (size_t)width * (alpha ? 4 : 3);
  }
  WebPPicture picture;
  if (!WebPPictureInit(&picture)) {
    free(spread);
    snprintf(message, message_size, "libwebp version mismatch");
    return 1;
  }
  picture.width = (int)width;
  picture.height = (int)height;
  picture.use_argb = config.lossless;
  int imported = alpha ? WebPPictureImportRGBA(&picture, rgb, (int)stride) : WebPPictureImportRGB(&picture, rgb, (int)stride);
  free(spread);
  if (!imported) {
    WebPPictureFree(&picture);
    snprintf(message, message_size, "%s", encoding_error(picture.error_code));
    return 1;
  }
  WebPMemoryWriter writer;
  WebPMemoryWriterInit(&writer);
  picture.writer = WebPMemoryWrite;
  picture.custom_ptr = &writer;
  int encoded = WebPEncode(&config, &picture);
  WebPEncodingError error = picture.error_code;
  WebPPictureFree(&picture);
  if (!encoded) {
    WebPMemoryWriterClear(&writer);
    snprintf(message, message_size, "%s", encoding_error(error));
    return 1;
  }
  int32_t result = 0;
  if (icc || comment) {
    result = add_chunks(&writer, icc, icc_length, comment, out, length, message, message_size);
    WebPMemoryWriterClear(&writer);
  } else {
    /* The writer's memory belongs to libwebp (WebPMemoryWriterClear): hand out a malloc'd copy. */
    *out = malloc(writer.size);
    if (*out) {
      memcpy(*out, writer.mem, writer.size);
      *length = writer.size;
    } else {
      snprintf(message, message_size, "out of memory");
      result = 1;
    }
    WebPMemoryWriterClear(&writer);
  }
  return result;
}

uint8_t *imc_webp_decode_rgba(const uint8_t *data, size_t length, int32_t *width, int32_t *height) {
  int w = 0, h = 0;
  if (!WebPGetInfo(data, length, &w, &h)) return NULL;
  uint8_t *decoded = WebPDecodeRGBA(data, length, &w, &h);
  if (!decoded) return NULL;
  size_t bytes = (size_t)w * (size_t)h * 4;
  uint8_t *copy = malloc(bytes);
  if (copy) memcpy(copy, decoded, bytes);
  WebPFree(decoded);
  *width = w;
  *height = h;
  return copy;
}

void imc_webp_free(void *memory) { free(memory); }
