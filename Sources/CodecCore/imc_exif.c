/* imc_exif.c: reads the one EXIF field a thumbnailer needs (orientation, tag 0x0112 in IFD0) from a
 * TIFF structure, with every offset bounds-checked. Used for JPEG APP1 and PNG eXIf. */
#include "imc_core.h"

static uint32_t read16(const uint8_t *p, int little) {
  return little ? (uint32_t)(p[0] | p[1] << 8) : (uint32_t)(p[0] << 8 | p[1]);
}

static uint32_t read32(const uint8_t *p, int little) {
  return little ? ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24)
                : ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3]);
}

int32_t imc_exif_orientation(const uint8_t *tiff, size_t length) {
  if (!tiff || length < 8) return 0;
  int little;
  if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
  else if (tiff[0] == 'M' && tiff[1] == 'M') little = 0;
  else return 0;
  if (read16(tiff + 2, little) != 42) return 0;
  uint32_t ifd = read32(tiff + 4, little);
  if (ifd > length || length - ifd < 2) return 0;
  uint32_t count = read16(tiff + ifd, little);
  const uint8_t *entry = tiff + ifd + 2;
  size_t room = (length - ifd - 2) / 12;
  if (count > room) count = (uint32_t)room;
  for (uint32_t i = 0; i < count; i++, entry += 12) {
    if (read16(entry, little) != 0x0112) continue;
    uint32_t type = read16(entry + 2, little);
    uint32_t value = type == 3 ? read16(entry + 8, little) : (type == 4 ? read32(entry + 8, little) : 0);
    return value >= 1 && value <= 8 ? (int32_t)value : 0;
  }
  return 0;
}
