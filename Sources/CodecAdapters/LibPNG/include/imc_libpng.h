/* The libpng adapter: PNG decoding and encoding through libpng's public API, with imgfetch's own
 * rows engine (Sources/CodecEngines/PNGRows) taking the image data it decodes exactly as libpng
 * does, and libpng deciding everything else. */
#ifndef IMC_LIBPNG_H
#define IMC_LIBPNG_H

#include "imc_core.h"

/* The PNG entry of the front ends' format table. */
extern const imc_format_ops imc_png_format;

/* Encodes pixels of any IMC_LAYOUT_* as PNG with zlib `level` (0...9). A non-NULL `comment`
 * (NUL-terminated, under 1 MB) is stored before the image data as an uncompressed text chunk with
 * keyword "Comment": tEXt when it is ASCII, iTXt (UTF-8) otherwise. A non-NULL `icc` profile is
 * stored as an iCCP chunk (left out, with no error, when libpng judges the profile unfit). */
int32_t imc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                       int32_t layout, int32_t level, const char *comment, const uint8_t *icc,
                       size_t icc_length, imc_buffer *out, imc_status *status);

#endif
