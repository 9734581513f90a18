/* The front ends' format table (imc_formats.c). Private to CImageCodecs. */
#ifndef IMC_FORMATS_H
#define IMC_FORMATS_H

#include "imc_core.h"

#include <string.h>

/* What a file of no known format is told, naming the formats there are. */
#define IMC_NOT_AN_IMAGE_MESSAGE "not a PNG, JPEG, WebP, GIF, HEIC or AVIF file (unrecognised signature)"

/* The adapter of IMC_FORMAT_*, or NULL. */
const imc_format_ops *imc_format_for(int32_t format);
/* Whether the first `length` bytes (fewer than a signature) could still begin a known format. */
int imc_format_possible(const uint8_t *magic, size_t length);

#endif
