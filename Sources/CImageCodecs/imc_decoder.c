/* imc_decoder.c: pull decoding, the format-neutral handle. It sniffs the magic bytes, hands the
 * decode to the format's adapter (imc_formats.c), and checks the caller's buffer before any pixel
 * is written. */
#include "CImageCodecs.h"
#include "imc_formats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static imc_decoder *open_with(imc_decoder *decoder, const uint8_t *magic, size_t magic_length,
                              imc_info *info, imc_status *status) {
  decoder->format = imc_sniff(magic, magic_length);
  decoder->info.format = decoder->format;
  const imc_format_ops *ops = imc_format_for(decoder->format);
  int32_t code;
  if (ops) {
    code = ops->open(decoder, status);
  } else {
    if (magic_length == 0)
      imc_status_set(status, IMC_ERR_NOT_IMAGE, "file is empty");
    else
      imc_status_set(status, IMC_ERR_NOT_IMAGE, IMC_NOT_AN_IMAGE_MESSAGE);
    code = status->code;
  }
  *info = decoder->info; /* also on failure: the format and whatever the header gave */
  if (code != IMC_OK) {
    imc_decoder_close(decoder);
    return NULL;
  }
  return decoder;
}

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
  uint8_t magic[12];
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
  const imc_format_ops *ops = imc_format_for(decoder->format);
  if (!ops) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "decoder is not open");
    return status->code;
  }
  return ops->read(decoder, pixels, row_bytes, status);
}

int32_t imc_decoder_validate(imc_decoder *decoder, imc_status *status) {
  memset(status, 0, sizeof *status);
  const imc_format_ops *ops = imc_format_for(decoder->format);
  if (!ops) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "decoder is not open");
    return status->code;
  }
  return ops->validate(decoder, status);
}

void imc_decoder_close(imc_decoder *decoder) {
  if (!decoder) return;
  const imc_format_ops *ops = imc_format_for(decoder->format);
  if (ops && decoder->session) ops->close(decoder);
  if (decoder->source.file) fclose(decoder->source.file);
  imc_busy_leave(&decoder->busy);
  free(decoder);
}
