/* The libwebp adapter's decoding side: WebP files (lossy, lossless, with alpha, animated) through
 * libwebp's incremental decoder (still images, on every path) and libwebpdemux's WebPAnimDecoder
 * (animations, once complete), public API only. */
#ifndef IMC_LIBWEBP_H
#define IMC_LIBWEBP_H

#include "imc_core.h"

/* The WebP entry of the front ends' format table. */
extern const imc_format_ops imc_webp_format;

#endif
