/* imc_webp.h: WebP files over libwebp (encoding, and decoding for checks) and libwebpmux (the
 * extended container's ICC profile and comment chunks), through their public API only.
 * Nothing here prints; symbols carry the `imc_` prefix.
 */
#ifndef IMC_WEBP_H
#define IMC_WEBP_H

#include <stddef.h>
#include <stdint.h>

/* The chunk imgfetch keeps a comment in (a thumbnail's stamp): RIFF's own "comment" FourCC. WebP
 * readers ignore chunks they do not know (the container specification requires it). */
#define IMC_WEBP_COMMENT_FOURCC "ICMT"

typedef struct {
  int32_t quality;  /* lossy: 0...100 */
  int32_t lossless; /* nonzero: lossless (quality then trades time for size) */
  int32_t method;   /* 0 (fast) ... 6 (small); libwebp's default is 4 */
} imc_webp_options;

/* Encodes 8-bit pixels with `channels` 1 (gray), 2 (gray, alpha), 3 (RGB) or 4 (RGBA) per pixel,
 * rows `row_bytes` apart. Alpha is stored when the pixels have it. A non-NULL `icc` is stored as the
 * ICCP chunk, a non-NULL `comment` as an IMC_WEBP_COMMENT_FOURCC chunk. On success *out and *length
 * hold a malloc'd file (free with imc_webp_free) and 0 is returned; otherwise nonzero, with
 * `message` saying why. */
int32_t imc_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t row_bytes, int32_t channels,
                        const imc_webp_options *options, const uint8_t *icc, size_t icc_length, const char *comment,
                        uint8_t **out, size_t *length, char *message, size_t message_size);

/* Decodes a WebP file to RGBA8 (alpha 255 where it has none), for tests and measurements: a
 * malloc'd buffer of width * height * 4 bytes (free with imc_webp_free), or NULL. */
uint8_t *imc_webp_decode_rgba(const uint8_t *data, size_t length, int32_t *width, int32_t *height);

void imc_webp_free(void *memory);

#endif
