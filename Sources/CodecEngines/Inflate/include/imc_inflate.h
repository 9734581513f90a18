/* imgfetch's own raw DEFLATE (RFC 1951) decoder (imc_inflate.c), an engine of the codec layer: it
 * includes no library header. Its callers are the PNG rows engine (imc_png_fast.c) and the zlib
 * adapter's differential check (imc_inflate_check.c).
 *
 * Strict: it only reports the end of a stream that zlib's raw inflate (windowBits -15) also takes,
 * with the same bytes out; on anything it does not judge exactly as zlib does it gives up, and the
 * caller decides again with zlib (or libpng) from the start. */
#ifndef IMC_INFLATE_H
#define IMC_INFLATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct imc_inflate imc_inflate;

/* What a call reached. */
enum {
  IMC_INFLATE_END = 0,     /* the final block ended: the stream is sound and complete */
  IMC_INFLATE_INPUT = 1,   /* every input byte is taken and more are needed (only when not `last`) */
  IMC_INFLATE_OUTPUT = 2,  /* the output room is full */
  IMC_INFLATE_GIVE_UP = 3  /* damaged, or a case it does not judge: decide again with zlib */
};

/* A decoder at the start of a stream, or NULL when memory ran out. About 50 KiB. */
imc_inflate *imc_inflate_create(void);
void imc_inflate_destroy(imc_inflate *inflater);

/* Decodes from input[0, length) into out[0, room). *consumed: input bytes taken (the decoder keeps
 * up to 8 of them in its bit buffer between calls, so after IMC_INFLATE_INPUT all were taken);
 * *produced: bytes written from out[0] on. `last`: no input follows this call's, so running short is
 * giving up. Bytes of out[*produced, room) may be overwritten with scratch. Matches reach back into
 * earlier calls' output through the decoder's own 32 KiB of history: the caller may reuse its
 * output memory freely. After IMC_INFLATE_GIVE_UP or IMC_INFLATE_END, further calls return the same. */
int imc_inflate_run(imc_inflate *inflater, const uint8_t *input, size_t length, int last, uint8_t *out, size_t room,
                    size_t *consumed, size_t *produced);

/* After IMC_INFLATE_END: the input bytes the decoder took past the stream's end (at most 8; the
 * bits left in the last byte of the stream are not among them), copied to bytes[]. Their count. */
int imc_inflate_extra(const imc_inflate *inflater, uint8_t bytes[8]);

#endif
