/* imgfetch's own decoder for the scans of a progressive Huffman JPEG (imc_jpeg_progressive.c), as
 * imc_jpeg_decode.c uses it. */
#ifndef IMC_JPEG_PROGRESSIVE_H
#define IMC_JPEG_PROGRESSIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct imc_progressive imc_progressive;

/* What the session does for the decoder: the bytes, and giving up. */
typedef struct {
  /* The bytes from libjpeg's source position on, [*start, *end), as many as are at hand (a file is
   * read further when fewer than `wanted` are). Returns nonzero when no more will ever come. */
  int (*span)(j_decompress_ptr cinfo, size_t wanted, const uint8_t **start, const uint8_t **end);
  /* libjpeg's source goes on from `position`, within the last span. */
  void (*seek)(j_decompress_ptr cinfo, const uint8_t *position);
  /* Whether a scan may start here: giving up during it could still start libjpeg over from the
   * first byte (a stream keeps its bytes, or has its file). */
  int (*may_start_scan)(j_decompress_ptr cinfo);
  /* Stops the decode (a longjmp) so that libjpeg decodes the input again from its first byte, alone.
   * Never returns. */
  void (*give_up)(j_decompress_ptr cinfo);
} imc_progressive_session;

/* Whether the decoder can take this file's scans (a progressive Huffman JPEG of 8-bit samples). */
int imc_progressive_eligible(j_decompress_ptr cinfo);

/* Puts the decoder in place of libjpeg's coefficient controller's consume_data, for this scan (none
 * of whose data may have been consumed yet) and every later one. Call it from the progress monitor
 * in jpeg_start_decompress's DSTATE_PRELOAD loop, before the first consume_input. NULL when it
 * could not (libjpeg then decodes alone). */
imc_progressive *imc_progressive_install(j_decompress_ptr cinfo, const imc_progressive_session *session);
void imc_progressive_destroy(imc_progressive *progressive);

/* The session's decoder of `cinfo` (imc_jpeg_decode.c). */
imc_progressive *imc_jpeg_session_progressive(j_decompress_ptr cinfo);

#endif
