/* imc_png_encode.c: libpng compression to a growing memory buffer. Errors longjmp back here;
 * nothing is printed. */
#include "imc_libpng.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  imc_buffer buffer;
  size_t capacity;
  imc_status *status;
} png_sink;

static void on_png_encode_error(png_structp png, png_const_charp message) {
  png_sink *sink = png_get_error_ptr(png);
  if (sink->status->code == IMC_OK) imc_status_set(sink->status, IMC_ERR_ARGUMENT, message);
  png_longjmp(png, 1);
}

static void on_png_encode_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

static void on_png_write(png_structp png, png_bytep data, size_t length) {
  png_sink *sink = png_get_io_ptr(png);
  if (length > SIZE_MAX - sink->buffer.length) png_error(png, "PNG output too large");
  size_t needed = sink->buffer.length + length;
  if (needed > sink->capacity) {
    size_t capacity = sink->capacity ? sink->capacity : 65536;
    while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
    uint8_t *grown = realloc(sink->buffer.data, capacity);
    if (!grown) {
      sink->status->code = IMC_ERR_NO_MEMORY;
      png_error(png, "out of memory");
    }
    sink->buffer.data = grown;
    sink->capacity = capacity;
  }
  memcpy(sink->buffer.data + sink->buffer.length, data, length);
  sink->buffer.length = needed;
}

static void on_png_flush(png_structp png) { (void)png; }

int32_t imc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                       int32_t layout, int32_t level, const char *comment, const uint8_t *icc,
                       size_t icc_length, imc_buffer *out, imc_status *status) {
  memset(status, 0, sizeof *status);
  out->data = NULL;
  out->length = 0;
  int color_type, depth = layout >= IMC_LAYOUT_GRAY16 ? 16 : 8;
  switch (layout) {
  case IMC_LAYOUT_GRAY8: case IMC_LAYOUT_GRAY16: color_type = PNG_COLOR_TYPE_GRAY; break;
  case IMC_LAYOUT_GRAYALPHA8: case IMC_LAYOUT_GRAYALPHA16: color_type = PNG_COLOR_TYPE_GRAY_ALPHA; break;
  case IMC_LAYOUT_RGB8: case IMC_LAYOUT_RGB16: color_type = PNG_COLOR_TYPE_RGB; break;
  case IMC_LAYOUT_RGBA8: case IMC_LAYOUT_RGBA16: color_type = PNG_COLOR_TYPE_RGB_ALPHA; break;
  default: imc_status_set(status, IMC_ERR_ARGUMENT, "unknown pixel layout"); return status->code;
  }
  if (width == 0 || height == 0) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "PNG cannot hold an empty image");
    return status->code;
  }
  int ascii = 1;
  if (comment) {
    size_t length = strlen(comment);
    if (length >= 1000000) {
      imc_status_set(status, IMC_ERR_ARGUMENT, "a PNG comment must be under 1 MB");
      return status->code;
    }
    for (size_t i = 0; i < length; i++) ascii &= (unsigned char)comment[i] < 0x80;
  }
  png_sink sink;
  memset(&sink, 0, sizeof sink);
  sink.status = status;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_png_encode_error, on_png_encode_warning);
  if (!png) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, info ? &info : NULL);
    free(sink.buffer.data);
    if (status->code == IMC_OK) imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  png_set_write_fn(png, &sink, on_png_write, on_png_flush);
  png_set_compression_level(png, level < 0 ? 0 : (level > 9 ? 9 : level));
  png_set_IHDR(png, info, width, height, depth, color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (comment) {
    /* libpng copies the key and the text (measured with strlen) into its own memory. */
    png_text text;
    memset(&text, 0, sizeof text);
    text.compression = ascii ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
    text.key = (png_charp) "Comment";
    text.text = (png_charp)comment;
    png_set_text(png, info, &text, 1);
  }
  if (icc && icc_length >= 132 && icc_length <= 0x7fffffffu) {
    /* libpng checks the profile; one it judges unfit is left out with a warning, not an error. */
    png_set_benign_errors(png, 1);
    png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_length);
  }
  png_write_info(png, info);
  if (depth == 16) png_set_swap(png); /* host order in memory, big-endian in the file */
  for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(pixels + (size_t)y * row_bytes));
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  *out = sink.buffer;
  return IMC_OK;
}
