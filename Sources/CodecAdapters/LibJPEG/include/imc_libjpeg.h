/* The libjpeg-turbo adapter: JPEG decoding and encoding through libjpeg's public, documented API
 * (jpeglib.h and jerror.h only), with imgfetch's own JPEG engine (Sources/CodecEngines/JPEG) taking
 * the scaled decodes it decodes exactly as libjpeg does, and libjpeg deciding everything else. */
#ifndef IMC_LIBJPEG_H
#define IMC_LIBJPEG_H

#include "imc_core.h"

/* The JPEG entry of the front ends' format table. */
extern const imc_format_ops imc_jpeg_format;

/* Encodes gray8, rgb8 or rgba8/grayAlpha8 (alpha ignored) pixels as JPEG. A non-NULL `comment`
 * (NUL-terminated, at most 65533 bytes) is stored as a COM segment right after the JFIF header, a
 * non-NULL `icc` profile as APP2 ICC_PROFILE segments after it (libjpeg's jpeg_write_icc_profile). */
int32_t imc_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                        int32_t layout, const imc_jpeg_options *options, const char *comment,
                        const uint8_t *icc, size_t icc_length, imc_buffer *out, imc_status *status);

#endif
