/* A PNG stream's chunk framing, followed as its bytes pass by (imc_png_framer.c). Private to the
 * libpng adapter. */
#ifndef IMC_PNG_FRAMER_H
#define IMC_PNG_FRAMER_H

#include "imc_core.h"

/* Follows the chunk framing of a PNG stream as its bytes pass by (before libpng sees them), so that
 * limits are checked from lengths and the IHDR alone, before libpng allocates anything:
 * - an ancillary chunk whose length is over max_chunk_bytes is IMC_ERR_LIMIT (libpng 1.6 only
 *   *warns* "chunk data is too large" and then allocates the length it was given);
 * - an IHDR over the size limits is IMC_ERR_LIMIT as soon as its size fields have passed.
 * Damage it cannot judge (a bad length, CRC, order) is left to libpng.
 * It also tells where the chunk being read ends, for the rule both readers share: an error inside a
 * chunk the data does not complete is `truncated`, unless the chunk's header is already impossible
 * (a length over 2^31-1, a type that is not four letters, an IHDR whose length is not 13): `corrupt`. */
typedef struct {
  uint64_t position;    /* stream bytes seen */
  uint64_t chunk_start; /* where the chunk being collected starts */
  uint64_t next_chunk;  /* where the next chunk header starts (the current chunk's end) */
  uint8_t collected[16];
  uint32_t fill;
  int done;       /* IEND seen or the framing is broken: stop looking */
  int impossible; /* the current chunk's header is impossible: an error in it is corrupt, cut or not */
  int ihdr_seen;  /* an IHDR header has passed */
  /* The current chunk is an eXIf before any IHDR. The adapter keeps eXIf as an unknown chunk (its
   * orientation, in every reader of every libpng), which libpng would refuse here only as "invalid
   * location in png_set_unknown_chunks", after its data: both readers refuse it from its header
   * instead, as libpng's own eXIf handler does ("eXIf: missing IHDR"). */
  int exif_without_ihdr;
} imc_png_framer;

/* Bytes until the framer next judges a header or reaches a chunk's end; 0 when it no longer looks. */
uint64_t imc_png_framer_span(const imc_png_framer *framer);
/* Where the chunk being read ends (its header's end while the header is still being collected). */
uint64_t imc_png_framer_chunk_end(const imc_png_framer *framer);
/* Whether an error while reading the current chunk is a truncation: the chunk ends after `size`. */
int imc_png_framer_cut(const imc_png_framer *framer, uint64_t size);

/* Scans `count` more bytes of the stream; returns IMC_OK or sets `status` to the limit error. */
int32_t imc_png_framer_scan(imc_png_framer *framer, const uint8_t *data, size_t count, const imc_request *request,
                            imc_status *status);

#endif
