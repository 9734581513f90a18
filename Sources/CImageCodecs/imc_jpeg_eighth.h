/* The 1/8-scale decode of a baseline JPEG's scan without libjpeg's entropy decoder (imc_jpeg_eighth.c).
 * Internal to CImageCodecs: the caller is imc_jpeg_decode.c, after jpeg_start_decompress. */
#ifndef IMC_JPEG_EIGHTH_H
#define IMC_JPEG_EIGHTH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct imc_eighth imc_eighth;

/* What a step reached. */
enum {
  IMC_EIGHTH_ROWS = 0,   /* a row of MCUs is decoded: imc_eighth_rows has its output rows */
  IMC_EIGHTH_INPUT = 1,  /* more bytes are needed (only when the caller said more may come) */
  IMC_EIGHTH_DONE = 2,   /* every MCU decoded and EOI found after the scan: libjpeg would accept */
  IMC_EIGHTH_GIVE_UP = 3 /* anything this path does not judge: decode the file again with libjpeg */
};

/* The fast path for the decompressor `cinfo` (jpeg_start_decompress done, nothing of the scan read),
 * or NULL when the stream is not one it decodes exactly as libjpeg (not 1/8 scale, not a single
 * interleaved Huffman scan of 8-bit samples, a component that needs upsampling, CMYK, ...) or
 * memory ran out. `discard_pixels`: only the verdict is wanted, so no inverse DCT or colour
 * conversion runs. */
imc_eighth *imc_eighth_create(j_decompress_ptr cinfo, int discard_pixels);

/* Decodes from input[*position, length) until a row of MCUs is complete, the bytes run short
 * (`eof` zero: more may be appended; the caller keeps input[*position...] and calls again), or the
 * end. Advances *position past what it consumed. */
int imc_eighth_step(imc_eighth *eighth, const uint8_t *input, size_t length, int eof, size_t *position);

/* Every byte is here (input[0, length), the fast path at `position`): when the scan is large, has no
 * restart markers, no other fast decode runs and a second CPU is free, a second thread decodes the
 * far half of the scan meanwhile (see imc_jpeg_eighth.c). At most once; otherwise nothing. */
void imc_eighth_split(imc_eighth *eighth, const uint8_t *input, size_t length, size_t position);
/* Splits whenever the scan allows, other decodes or not (the tests' way to reach the two threads). */
void imc_eighth_always_split(imc_eighth *eighth);

/* After IMC_EIGHTH_ROWS: the output rows of that MCU row (count, each output_width pixels in the
 * output colour space, `imc_eighth_row_bytes` apart). None when discarding pixels. */
uint8_t *imc_eighth_rows(const imc_eighth *eighth, unsigned *count);
size_t imc_eighth_row_bytes(const imc_eighth *eighth);

void imc_eighth_destroy(imc_eighth *eighth);

#endif
