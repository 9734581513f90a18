/* The libheif adapter: HEIF files (HEIC: HEVC images) and AVIF files (AV1 images) through libheif's
 * public API, opened with dlopen by the first HEIF decode. */
#ifndef IMC_LIBHEIF_H
#define IMC_LIBHEIF_H

#include "imc_core.h"

/* The HEIC and AVIF entries of the front ends' format table (one adapter: the container is the same). */
extern const imc_format_ops imc_heic_format;
extern const imc_format_ops imc_avif_format;

#endif
