/* cbl_png.c: the libpng ceiling. libpng has no reusable read object, so each decode creates one,
 * reads from memory through a memcpy callback (libpng 1.6 has no memory source for the low-level
 * API), asks libpng for the transforms that give RGBA8 and reads every row straight into place. */
#include "cbl_internal.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t *data;
  size_t length;
  size_t offset;
  char *message;
} memory_reader;

static void on_error(png_structp png, png_const_charp text) {
  memory_reader *reader = png_get_error_ptr(png);
  snprintf(reader->message, CBL_MESSAGE_SIZE, "%s", text);
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) { (void)png, (void)text; }

static void on_read(png_structp png, png_bytep out, size_t count) {
  memory_reader *reader = png_get_io_ptr(png);
  if (reader->length - reader->offset < count) png_error(png, "unexpected end of data");
  memcpy(out, reader->data + reader->offset, count);
  reader->offset += count;
}

int cbl_png_decode(const uint8_t *data, size_t length, cbl_output *output, char *message) {
  memory_reader reader = {data, length, 0, message};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, on_error, on_warning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  png_bytep *volatile rows = NULL;
  if (!info) {
    snprintf(message, CBL_MESSAGE_SIZE, "out of memory");
    png_destroy_read_struct(&png, NULL, NULL);
    return -1;
  }
  if (setjmp(png_jmpbuf(png))) {
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return -1;
  }
  png_set_read_fn(png, &reader, on_read);
  png_read_info(png, info);
  png_uint_32 width, height;
  int depth, color, interlace;
  png_get_IHDR(png, info, &width, &height, &depth, &color, &interlace, NULL, NULL);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (depth == 16) png_set_strip_16(png);
  if (!(color & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
  png_set_filler(png, 0xff, PNG_FILLER_AFTER); /* ignored when the data already has alpha */
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  size_t stride = png_get_rowbytes(png, info);
  if (cbl_output_reserve(output, stride * height) != 0 || !(rows = malloc(sizeof(png_bytep) * height)))
    png_error(png, "out of memory");
  for (png_uint_32 y = 0; y < height; y++) rows[y] = output->pixels + (size_t)y * stride;
  png_read_image(png, rows);
  png_read_end(png, NULL);
  free(rows);
  png_destroy_read_struct(&png, &info, NULL);
  output->byte_count = stride * height;
  output->width = width;
  output->height = height;
  output->channels = 4;
  return 0;
}
