/* imc_source.c: a pull decode's bytes, the formats' magic bytes and the pixel layouts' sizes. */
#include "imc_core.h"

#include <string.h>

size_t imc_source_read(imc_source *source, uint8_t *out, size_t n) {
  if (source->file) {
    size_t got = fread(out, 1, n, source->file);
    if (got < n) source->hit_end = 1;
    return got;
  }
  size_t left = source->length - source->offset;
  size_t take = n < left ? n : left;
  memcpy(out, source->data + source->offset, take);
  source->offset += take;
  if (take < n) source->hit_end = 1;
  return take;
}

int32_t imc_sniff(const uint8_t *data, size_t length) {
  static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (length >= 8 && memcmp(data, png_magic, 8) == 0) return IMC_FORMAT_PNG;
  /* SOI alone names a JPEG, as libjpeg reads one (its first_marker wants FF D8, nothing more):
   * what follows is the decoder's to judge (a stray byte before the first marker is extraneous
   * data, harmless; nothing or garbage is a JPEG error, said as one). */
  if (length >= 2 && data[0] == 0xff && data[1] == 0xd8) return IMC_FORMAT_JPEG;
  /* RIFF, the container's size, WEBP. */
  if (length >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) return IMC_FORMAT_WEBP;
  /* GIF: "GIF87a" or "GIF89a" (giflib checks "GIF" and reads the version as given). */
  if (length >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) return IMC_FORMAT_GIF;
  /* HEIF: an ISO base media file whose first box is `ftyp` with an image brand, and a small box (its
   * size's first byte 0, as imc_format_possible asks of a prefix: one verdict on every path). */
  if (length >= 12 && data[0] == 0) return imc_heif_brand_format(data + 8);
  return IMC_FORMAT_UNKNOWN;
}

int32_t imc_heif_brand_format(const uint8_t *brand) {
  static const char heic_brands[][5] = {"heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "mif2"};
  if (memcmp(brand - 4, "ftyp", 4) != 0) return IMC_FORMAT_UNKNOWN;
  if (memcmp(brand, "avif", 4) == 0 || memcmp(brand, "avis", 4) == 0) return IMC_FORMAT_AVIF;
  for (size_t i = 0; i < sizeof heic_brands / sizeof heic_brands[0]; i++)
    if (memcmp(brand, heic_brands[i], 4) == 0) return IMC_FORMAT_HEIC;
  return IMC_FORMAT_UNKNOWN;
}

size_t imc_layout_bytes_per_pixel(int32_t layout) {
  switch (layout) {
  case IMC_LAYOUT_GRAY8: return 1;
  case IMC_LAYOUT_GRAYALPHA8: return 2;
  case IMC_LAYOUT_RGB8: return 3;
  case IMC_LAYOUT_RGBA8: return 4;
  case IMC_LAYOUT_GRAY16: return 2;
  case IMC_LAYOUT_GRAYALPHA16: return 4;
  case IMC_LAYOUT_RGB16: return 6;
  case IMC_LAYOUT_RGBA16: return 8;
  default: return 0;
  }
}

