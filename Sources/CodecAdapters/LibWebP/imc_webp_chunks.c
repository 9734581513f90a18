/* imc_webp_chunks.c: the RIFF container's top-level chunks, walked header by header as the bytes
 * arrive: the VP8X flags, where the ICC profile and the EXIF data are, how many animation frames
 * there are. Offsets are 64-bit and checked against the bytes there are before any is read; nothing
 * is allocated. A chunk header that points past the RIFF end ends the walk: judging the container
 * is libwebp's business (its decoders refuse what they cannot read). */
#include "imc_core.h"
#include "imc_webp_session.h"

#include <string.h>

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void imc_webp_walk(imc_webp_chunks *chunks, const uint8_t *data, size_t length) {
  if (chunks->riff_end == 0) {
    if (length < 12) return;
    chunks->riff_end = 8 + (uint64_t)le32(data + 4);
    chunks->next = 12;
  }
  /* Chunks past the RIFF end are not the file's. */
  uint64_t have = length < chunks->riff_end ? length : chunks->riff_end;
  while (!chunks->ended) {
    uint64_t at = chunks->next;
    if (at + 8 > chunks->riff_end) {
      chunks->ended = 1;
      break;
    }
    if (at + 8 > have) break;
    const uint8_t *header = data + at;
    uint64_t size = le32(header + 4);
    uint64_t payload = at + 8;
    if (memcmp(header, "VP8X", 4) == 0 && at == 12 && size >= 10 && payload + 10 <= have) {
      chunks->vp8x = 1;
      chunks->flags = header[8];
    } else if (memcmp(header, "VP8X", 4) == 0 && at == 12 && payload + 10 > have) {
      break; /* the flags are needed before going on */
    } else if (memcmp(header, "ICCP", 4) == 0 && !chunks->has_icc && !chunks->has_image && chunks->frames == 0) {
      /* Only a profile before the image data (where the specification puts it): one after it would
       * be known to a decode of the whole file and not to a stream at its header. */
      chunks->has_icc = 1;
      chunks->icc_offset = payload;
      chunks->icc_length = size;
    } else if (memcmp(header, "EXIF", 4) == 0 && !chunks->has_exif) {
      chunks->has_exif = 1;
      chunks->exif_offset = payload;
      chunks->exif_length = size;
    } else if (memcmp(header, "ANMF", 4) == 0) {
      chunks->frames++;
    } else if ((memcmp(header, "VP8 ", 4) == 0 || memcmp(header, "VP8L", 4) == 0) && !chunks->has_image) {
      chunks->has_image = 1;
      chunks->image_offset = payload;
    }
    chunks->next = payload + size + (size & 1); /* chunks are padded to an even size */
  }
  if (chunks->has_exif && chunks->exif_offset + chunks->exif_length <= have) chunks->exif_complete = 1;
}
