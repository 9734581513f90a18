/* imc_decoder.c: the format-neutral decoder handle. It sniffs the magic bytes, hands the session to
 * the PNG or JPEG back end, and checks the caller's buffer before any pixel is written. */
#include "imc_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void imc_status_set(imc_status *status, int32_t code, const char *message) {
  status->code = code;
  snprintf(status->message, sizeof status->message, "%s", message);
}

void imc_status_setf(imc_status *status, int32_t code, const char *format, ...) {
  va_list args;
  va_start(args, format);
  status->code = code;
  vsnprintf(status->message, sizeof status->message, format, args);
  va_end(args);
}

void imc_request_normalize(imc_request *request) {
  if (request->max_pixels == 0) request->max_pixels = IMC_DEFAULT_MAX_PIXELS;
  if (request->max_width == 0) request->max_width = IMC_DEFAULT_MAX_DIMENSION;
  if (request->max_height == 0) request->max_height = IMC_DEFAULT_MAX_DIMENSION;
  if (request->max_scans <= 0) request->max_scans = IMC_DEFAULT_MAX_SCANS;
  if (request->max_chunk_bytes == 0) request->max_chunk_bytes = IMC_DEFAULT_MAX_CHUNK_BYTES;
  if (request->scale_eighths <= 0) request->scale_eighths = 8;
}

int imc_check_limits(const imc_request *request, uint32_t width, uint32_t height, imc_status *status) {
  if (width == 0 || height == 0) {
    imc_status_setf(status, IMC_ERR_CORRUPT, "image has a zero dimension (%ux%u)", width, height);
    return 1;
  }
  if (width > request->max_width || height > request->max_height) {
    imc_status_setf(status, IMC_ERR_LIMIT, "image is %ux%u, larger than the %ux%u limit", width, height,
                    request->max_width, request->max_height);
    return 1;
  }
  uint64_t pixels = (uint64_t)width * (uint64_t)height; /* cannot overflow: both are 32-bit */
  if (pixels > request->max_pixels) {
    /* In the unit the limit is given in (--max-pixels 1000: "over the 1000-pixel limit"). */
    imc_status_setf(status, IMC_ERR_LIMIT, "image is %ux%u (%llu pixels), over the %llu-pixel limit", width,
                    height, (unsigned long long)pixels, (unsigned long long)request->max_pixels);
    return 1;
  }
  return 0;
}

size_t imc_source_read(imc_source *source, uint8_t *out, size_t n) {
  if (source->file) {
    size_t got = fread(out, 1, n, source->file);
    if (got < n) source->hit_end = 1;
    return got;
  }
  size_t left = source->length - source->offset;
  size_t take = n < left ? n : left;
  memcpy(out, source->data + source->offset, take);
  source->offset += take;
  if (take < n) source->hit_end = 1;
  return take;
}

int32_t imc_sniff(const uint8_t *data, size_t length) {
  static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (length >= 8 && memcmp(data, png_magic, 8) == 0) return IMC_FORMAT_PNG;
  if (length >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff) return IMC_FORMAT_JPEG;
  return IMC_FORMAT_UNKNOWN;
}

size_t imc_layout_bytes_per_pixel(int32_t layout) {
  switch (layout) {
  case IMC_LAYOUT_GRAY8: return 1;
  case IMC_LAYOUT_GRAYALPHA8: return 2;
  case IMC_LAYOUT_RGB8: return 3;
  case IMC_LAYOUT_RGBA8: return 4;
  case IMC_LAYOUT_GRAY16: return 2;
  case IMC_LAYOUT_GRAYALPHA16: return 4;
  case IMC_LAYOUT_RGB16: return 6;
  case IMC_LAYOUT_RGBA16: return 8;
  default: return 0;
  }
}

static imc_decoder *open_with(imc_decoder *decoder, const uint8_t *magic, size_t magic_length,
                              imc_info *info, imc_status *status) {
  decoder->format = imc_sniff(magic, magic_length);
  decoder->info.format = decoder->format;
  int32_t code;
  switch (decoder->format) {
  case IMC_FORMAT_PNG: code = imc_png_open(decoder, status); break;
  case IMC_FORMAT_JPEG: code = imc_jpeg_open(decoder, status); break;
  default:
    if (magic_length == 0)
      imc_status_set(status, IMC_ERR_NOT_IMAGE, "file is empty");
    else
      imc_status_set(status, IMC_ERR_NOT_IMAGE, "not a PNG or JPEG file (unrecognised signature)");
    code = status->code;
  }
  *info = decoder->info; /* also on failure: the format and whatever the header gave */
  if (code != IMC_OK) {
    imc_decoder_close(decoder);
    return NULL;
  }
  return decoder;
}

static atomic_int busy_decoders;

void imc_busy_enter(int *busy) {
  if (*busy) return;
  *busy = 1;
  atomic_fetch_add(&busy_decoders, 1);
}

void imc_busy_leave(int *busy) {
  if (!*busy) return;
  *busy = 0;
  atomic_fetch_sub(&busy_decoders, 1);
}

int imc_busy_count(void) { return atomic_load(&busy_decoders); }

static imc_decoder *new_decoder(const imc_request *request, imc_status *status) {
  memset(status, 0, sizeof *status);
  imc_decoder *decoder = calloc(1, sizeof *decoder);
  if (!decoder) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return NULL;
  }
  decoder->request = *request;
  imc_request_normalize(&decoder->request);
  imc_color_reset(&decoder->color);
  imc_busy_enter(&decoder->busy);
  return decoder;
}

void imc_color_reset(imc_color *color) {
  memset(color, 0, sizeof *color);
  color->srgb_intent = -1;
  color->adobe_transform = -1;
}

void imc_decoder_color(const imc_decoder *decoder, imc_color *color) { *color = decoder->color; }

void imc_decoder_set_cmyk_converter(imc_decoder *decoder, imc_cmyk_row_converter convert, void *context,
                                    int32_t layout) {
  decoder->cmyk_rows = convert;
  decoder->cmyk_context = convert ? context : NULL;
  decoder->cmyk_layout = layout;
}

imc_decoder *imc_decoder_open_memory(const uint8_t *data, size_t length, const imc_request *request,
                                     imc_info *info, imc_status *status) {
  imc_decoder *decoder = new_decoder(request, status);
  if (!decoder) return NULL;
  decoder->source.data = data;
  decoder->source.length = data ? length : 0;
  decoder->source.size = decoder->source.length;
  return open_with(decoder, data, decoder->source.length, info, status);
}

static imc_decoder *open_stream(imc_decoder *decoder, imc_info *info, imc_status *status);

imc_decoder *imc_decoder_open_file(const char *path, const imc_request *request, imc_info *info,
                                   imc_status *status) {
  imc_decoder *decoder = new_decoder(request, status);
  if (!decoder) return NULL;
  decoder->source.file = fopen(path, "rbe");
  if (!decoder->source.file) {
    imc_status_setf(status, IMC_ERR_IO, "%s", strerror(errno));
    free(decoder);
    return NULL;
  }
  return open_stream(decoder, info, status);
}

imc_decoder *imc_decoder_open_descriptor(int fd, const imc_request *request, imc_info *info,
                                         imc_status *status) {
  imc_decoder *decoder = new_decoder(request, status);
  if (!decoder) {
    close(fd);
    return NULL;
  }
  decoder->source.file = fdopen(fd, "rb");
  if (!decoder->source.file) {
    imc_status_setf(status, IMC_ERR_IO, "%s", strerror(errno));
    close(fd);
    free(decoder);
    return NULL;
  }
  return open_stream(decoder, info, status);
}

static imc_decoder *open_stream(imc_decoder *decoder, imc_info *info, imc_status *status) {
  struct stat facts;
  decoder->source.size = fstat(fileno(decoder->source.file), &facts) == 0 && facts.st_size > 0 ? (uint64_t)facts.st_size : 0;
  uint8_t magic[8];
  size_t got = fread(magic, 1, sizeof magic, decoder->source.file);
  if (ferror(decoder->source.file) || fseek(decoder->source.file, 0, SEEK_SET) != 0) {
    imc_status_setf(status, IMC_ERR_IO, "%s", strerror(errno));
    imc_decoder_close(decoder);
    return NULL;
  }
  return open_with(decoder, magic, got, info, status);
}

int32_t imc_decoder_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, size_t capacity,
                         imc_status *status) {
  memset(status, 0, sizeof *status);
  const imc_info *info = &decoder->info;
  size_t bpp = imc_layout_bytes_per_pixel(info->output_layout);
  uint64_t min_row = (uint64_t)info->output_width * bpp;
  if (bpp == 0 || !pixels || row_bytes < min_row) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "pixel buffer rows are too short for the image");
    return status->code;
  }
  /* (height - 1) * row_bytes + min_row, checked for overflow. */
  uint64_t rows = info->output_height;
  if (rows > 0 && (rows - 1) > (UINT64_MAX - min_row) / row_bytes) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "pixel buffer size overflows");
    return status->code;
  }
  if ((rows - 1) * row_bytes + min_row > capacity) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "pixel buffer is too small for the image");
    return status->code;
  }
  switch (decoder->format) {
  case IMC_FORMAT_PNG: return imc_png_read(decoder, pixels, row_bytes, status);
  case IMC_FORMAT_JPEG: return imc_jpeg_read(decoder, pixels, row_bytes, status);
  default: imc_status_set(status, IMC_ERR_ARGUMENT, "decoder is not open"); return status->code;
  }
}

int32_t imc_decoder_validate(imc_decoder *decoder, imc_status *status) {
  memset(status, 0, sizeof *status);
  switch (decoder->format) {
  case IMC_FORMAT_PNG: return imc_png_validate(decoder, status);
  case IMC_FORMAT_JPEG: return imc_jpeg_validate(decoder, status);
  default: imc_status_set(status, IMC_ERR_ARGUMENT, "decoder is not open"); return status->code;
  }
}

void imc_decoder_close(imc_decoder *decoder) {
  if (!decoder) return;
  if (decoder->png) imc_png_close(decoder);
  if (decoder->jpeg) imc_jpeg_close(decoder);
  if (decoder->source.file) fclose(decoder->source.file);
  imc_busy_leave(&decoder->busy);
  free(decoder);
}
