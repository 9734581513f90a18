/* benchmarks/startup/pngdecode.c: the C side of the start-up comparison. It does what
 * `imgfetch verify FILE` does for a PNG, with nothing else in the process: opens the file, decodes
 * every row to RGBA8 with libpng (palette and tRNS expanded, 16-bit reduced, gray to RGB, opaque
 * alpha added, interlacing handled), reads to IEND, and prints "FILE: OK" or exits 1 with the
 * reason. benchmarks/compare compiles it with `cc -O2` against the system libpng. */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static void fail(png_structp png, png_const_charp message) {
  fprintf(stderr, "pngdecode: %s\n", message);
  png_longjmp(png, 1);
}

static void quiet(png_structp png, png_const_charp message) {
  (void)png;
  (void)message;
}

static int decode(FILE *file) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, fail, quiet);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  unsigned char *pixels = NULL;
  png_bytep *rows = NULL;
  int ok = 0;
  if (!info) goto done;
  if (setjmp(png_jmpbuf(png))) goto done;
  png_init_io(png, file);
  png_read_info(png, info);
  png_set_expand(png);
  png_set_strip_16(png);
  png_set_gray_to_rgb(png);
  png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  size_t stride = png_get_rowbytes(png, info);
  pixels = malloc(stride * height);
  rows = malloc(sizeof(png_bytep) * height);
  if (!pixels || !rows || stride != (size_t)width * 4) goto done;
  for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + y * stride;
  png_read_image(png, rows);
  png_read_end(png, NULL);
  ok = 1;
done:
  png_destroy_read_struct(png ? &png : NULL, info ? &info : NULL, NULL);
  free(rows);
  free(pixels);
  return ok;
}

int main(int argc, char **argv) {
  int status = 0;
  for (int i = 1; i < argc; i++) {
    FILE *file = fopen(argv[i], "rbe");
    if (file && decode(file)) {
      printf("%s: OK\n", argv[i]);
    } else {
      fprintf(stderr, "%s: not a valid PNG\n", argv[i]);
      status = 1;
    }
    if (file) fclose(file);
  }
  return status;
}
