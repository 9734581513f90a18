/* imc_formats.c: the format table: which adapter decodes which container (PNG, JPEG, WebP, GIF). The
 * only place the front ends name a format. */
#include "imc_formats.h"

#include "imc_libgif.h"
#include "imc_libheif.h"
#include "imc_libjpeg.h"
#include "imc_libpng.h"
#include "imc_libwebp.h"

const imc_format_ops *imc_format_for(int32_t format) {
  switch (format) {
  case IMC_FORMAT_PNG: return &imc_png_format;
  case IMC_FORMAT_JPEG: return &imc_jpeg_format;
  case IMC_FORMAT_WEBP: return &imc_webp_format;
  case IMC_FORMAT_GIF: return &imc_gif_format;
  case IMC_FORMAT_HEIC: return &imc_heic_format;
  case IMC_FORMAT_AVIF: return &imc_avif_format;
  default: return NULL;
  }
}

/* HEIF: the `ftyp` box's size (its first byte 0: the box is small), "ftyp", then a brand. */
static int heif_possible(const uint8_t *magic, size_t length) {
  if (magic[0] != 0) return 0;
  if (length <= 4) return 1;
  return memcmp(magic + 4, "ftyp", length - 4 < 4 ? length - 4 : 4) == 0;
}

int imc_format_possible(const uint8_t *magic, size_t length) {
  static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  static const uint8_t jpeg_magic[2] = {0xff, 0xd8}; /* SOI: imc_sniff's JPEG signature */
  if (length == 0) return 1;
  if (memcmp(magic, png_magic, length < 8 ? length : 8) == 0 || memcmp(magic, jpeg_magic, length < 2 ? length : 2) == 0)
    return 1;
  /* GIF: "GIF87a" or "GIF89a". */
  size_t gif_length = length < 6 ? length : 6;
  if (memcmp(magic, "GIF87a", gif_length) == 0 || memcmp(magic, "GIF89a", gif_length) == 0) return 1;
  if (heif_possible(magic, length)) return 1;
  /* WebP: "RIFF", four bytes of size (anything), "WEBP". */
  if (memcmp(magic, "RIFF", length < 4 ? length : 4) != 0) return 0;
  return length <= 8 || memcmp(magic + 8, "WEBP", length - 8 < 4 ? length - 8 : 4) == 0;
}
