/* imc_png_framer.c: a PNG stream's chunk framing, judged from lengths and the IHDR alone before
 * libpng allocates anything (see imc_png_framer.h). */
#include "imc_png_framer.h"
#include "imc_bytes.h"

#include <string.h>

/* Judges one chunk header (and, for IHDR, its size fields) once collected. */
static int32_t framer_judge(imc_png_framer *framer, const imc_request *request, imc_status *status) {
  const uint8_t *type = framer->collected + 4;
  uint32_t length = imc_read_be32(framer->collected);
  int letters = 1;
  for (int i = 0; i < 4; i++) letters &= (type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= 'a' && type[i] <= 'z');
  if (length > 0x7fffffffu || !letters) {
    framer->done = 1; /* libpng rejects the length or the type itself, before the length matters */
    framer->impossible = 1;
    return IMC_OK;
  }
  /* libpng refuses an IHDR of another length from its header alone, in both readers. */
  framer->impossible = memcmp(type, "IHDR", 4) == 0 && length != 13;
  if (memcmp(type, "IHDR", 4) == 0) framer->ihdr_seen = 1;
  framer->exif_without_ihdr = memcmp(type, "eXIf", 4) == 0 && !framer->ihdr_seen;
  if ((type[0] & 0x20) && length > request->max_chunk_bytes) {
    framer->done = 1;
    imc_status_setf(status, IMC_ERR_LIMIT, "PNG chunk %.4s is %u bytes, over the %llu-byte chunk limit", (const char *)type, length,
                    (unsigned long long)request->max_chunk_bytes);
    return status->code;
  }
  if (framer->fill == 16) {
    uint32_t width = imc_read_be32(framer->collected + 8), height = imc_read_be32(framer->collected + 12);
    imc_status probe = {0};
    if (width > 0 && height > 0 && imc_check_limits(request, width, height, &probe)) {
      framer->done = 1;
      *status = probe;
      return status->code;
    }
  }
  if (memcmp(type, "IEND", 4) == 0) framer->done = 1;
  framer->next_chunk = framer->chunk_start + 12 + (uint64_t)length;
  framer->fill = 0;
  return IMC_OK;
}

int32_t imc_png_framer_scan(imc_png_framer *framer, const uint8_t *data, size_t count, const imc_request *request,
                            imc_status *status) {
  if (framer->next_chunk == 0) framer->next_chunk = 8; /* after the signature */
  while (count > 0 && !framer->done) {
    if (framer->fill == 0 && framer->position < framer->next_chunk) {
      uint64_t gap = framer->next_chunk - framer->position;
      size_t skip = gap < count ? (size_t)gap : count;
      framer->position += skip;
      data += skip;
      count -= skip;
      continue;
    }
    if (framer->fill == 0) framer->chunk_start = framer->position;
    framer->collected[framer->fill++] = *data++;
    framer->position++;
    count--;
    if (framer->fill == 8) {
      /* IHDR: also collect width and height before judging. An IHDR whose length is not 13 is
       * refused by libpng from its header alone (corrupt), before its size fields matter. */
      if (memcmp(framer->collected + 4, "IHDR", 4) == 0 && imc_read_be32(framer->collected) == 13 &&
          framer->chunk_start == 8)
        continue; /* (a later IHDR is libpng's "out of place", whatever its size) */
      if (framer_judge(framer, request, status) != IMC_OK) return status->code;
    } else if (framer->fill == 16) {
      if (framer_judge(framer, request, status) != IMC_OK) return status->code;
    }
  }
  return IMC_OK;
}

uint64_t imc_png_framer_span(const imc_png_framer *framer) {
  if (framer->done) return 0;
  uint64_t next = framer->next_chunk == 0 ? 8 : framer->next_chunk;
  if (framer->fill == 0 && framer->position < next) return next - framer->position;
  return (framer->fill >= 8 ? 16 : 8) - framer->fill; /* a header: 8 bytes, an IHDR's 16 with its size */
}

/* Where the chunk being read ends (its header's end while the header is still being collected). */
uint64_t imc_png_framer_chunk_end(const imc_png_framer *framer) {
  if (framer->fill > 0) return framer->chunk_start + (framer->fill >= 8 ? 16 : 8);
  return framer->next_chunk;
}

int imc_png_framer_cut(const imc_png_framer *framer, uint64_t size) {
  return !framer->impossible && imc_png_framer_chunk_end(framer) > size;
}

