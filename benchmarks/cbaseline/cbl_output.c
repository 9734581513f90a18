/* cbl_output.c: the growable output buffer shared by the JPEG and PNG baselines, and the versions. */
#include "cbl_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#define CBL_STRINGIFY(x) #x
#define CBL_VERSION_TEXT(x) CBL_STRINGIFY(x)

const char *cbl_library_versions(void) {
  static char text[96];
  snprintf(text, sizeof text, "libjpeg-turbo %s, libpng %s", CBL_VERSION_TEXT(LIBJPEG_TURBO_VERSION),
           png_get_libpng_ver(NULL));
  return text;
}

void cbl_output_release(cbl_output *output) {
  free(output->pixels);
  memset(output, 0, sizeof *output);
}

int cbl_output_reserve(cbl_output *output, size_t bytes) {
  if (bytes <= output->capacity) return 0;
  free(output->pixels);
  output->pixels = malloc(bytes);
  output->capacity = output->pixels ? bytes : 0;
  return output->pixels ? 0 : -1;
}
