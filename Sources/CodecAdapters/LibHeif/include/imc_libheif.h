/* The libheif adapter: HEIF files (HEIC: HEVC images) and AVIF files (AV1 images) through libheif's
 * public API, opened with dlopen by the first HEIF decode. */
#ifndef IMC_LIBHEIF_H
#define IMC_LIBHEIF_H

#include "imc_core.h"

/* The HEIC and AVIF entries of the front ends' format table (one adapter: the container is the same). */
extern const imc_format_ops imc_heic_format;
extern const imc_format_ops imc_avif_format;

/* The version of the libheif HEIF decodes use ("1.15.1"), loading it if no decode has: 1 and the
 * version in `out`, or 0 and the reason it cannot be loaded. */
int imc_heif_library_version(char *out, size_t capacity);

#endif
