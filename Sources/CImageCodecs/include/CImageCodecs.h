/* CImageCodecs: the C boundary of imgfetch, the codec layer's front ends.
 *
 * Swift's ImageCodecs sees plain structs, status codes and byte buffers through this header: it
 * allocates the pixel buffer, C fills it. Behind it: pull decoding (a whole file or memory range)
 * and push decoding (bytes as they arrive), each over the format table of imc_formats.c, whose
 * adapters keep every libpng, libjpeg, libwebp, giflib and libheif session, every setjmp/longjmp
 * and every library callback.
 * Nothing here prints, exits or aborts. All symbols carry the `imc_` prefix.
 */
#ifndef IMC_CODECS_H
#define IMC_CODECS_H

#include "imc_types.h"

/* What Swift also calls below the front ends: the encoders, and the engines' tests and counts. */
#include "imc_jpeg_engine.h"
#include "imc_libheif.h"
#include "imc_libjpeg.h"
#include "imc_libpng.h"
#include "imc_libwebp.h"
#include "imc_png_fast.h"
#include "imc_zlib_check.h"


/* Opens a decoder over bytes in memory (which must outlive it) or over a file. Reads the header and
 * applies the limits, allocating no pixel memory. Returns NULL and fills `status` on failure. */
imc_decoder *imc_decoder_open_memory(const uint8_t *data, size_t length, const imc_request *request,
                                     imc_info *info, imc_status *status);
imc_decoder *imc_decoder_open_file(const char *path, const imc_request *request, imc_info *info,
                                   imc_status *status);
/* As imc_decoder_open_file, over a descriptor opened for reading (by Swift's SystemFiles, which
 * checked it is a regular file). The decoder owns `fd` from this call on, also when it fails. */
imc_decoder *imc_decoder_open_descriptor(int fd, const imc_request *request, imc_info *info,
                                         imc_status *status);

/* The colour facts of an open decoder (after a successful open) or stream (from
 * IMC_STREAM_HEADER_READY on). */
void imc_decoder_color(const imc_decoder *decoder, imc_color *color);

/* A CMYK JPEG's rows through `convert` (an ICC transform) instead of the plain formula R = C*K/255
 * (on inverted values). `layout` (IMC_LAYOUT_*) is what the converter writes: it is used only when
 * that is the decoder's output layout (the formula otherwise, never a row of another size). Set
 * after the open and before the first row; `context` must outlive the decoding. NULL restores the
 * formula. */
void imc_decoder_set_cmyk_converter(imc_decoder *decoder, imc_cmyk_row_converter convert, void *context,
                                    int32_t layout);

/* Decodes every pixel into `pixels` (row_bytes apart, `capacity` bytes in all), in the layout the
 * open call reported. Returns IMC_OK or the status code. A decoder reads once. */
int32_t imc_decoder_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, size_t capacity,
                         imc_status *status);

/* Decodes every pixel, row by row, into one scratch row the decoder owns, and keeps none: the same
 * checks and verdict as imc_decoder_read, with memory that grows with the width, not the area.
 * (An interlaced PNG's passes overwrite the same row: the pixels are wrong, the verdict is not.) */
int32_t imc_decoder_validate(imc_decoder *decoder, imc_status *status);

/* Releases the decoder and closes its file. NULL is allowed. */
void imc_decoder_close(imc_decoder *decoder);

/* Push decoding: bytes are appended as they arrive and rows come out as they are decoded, with the
 * pull decoder's verdict on the same bytes. Memory: the bytes not yet consumed, a queue of rows
 * (a bounded capacity, which finishing may exceed), and the library's own state (a progressive
 * JPEG's coefficients; an interlaced PNG's whole image, handed out when its last pass is done). */
imc_stream *imc_stream_create(const imc_request *request);
/* Before the first byte: the bytes to come are the regular file open at `descriptor`, which can be
 * read again. A JPEG decoded by the 1/8-scale fast path or the progressive decoder then keeps none
 * of them: should libjpeg have to decode the stream from its start after all, it reads that file
 * through the stream's own duplicate of the descriptor (pread, so no file offset is moved), never
 * by its path, which may name another file by then. -1 forgets the file. IMC_OK, or IMC_ERR_IO
 * when the descriptor cannot be duplicated. */
int32_t imc_stream_set_source_file(imc_stream *stream, int32_t descriptor);
/* Appends bytes and decodes what they allow. Returns IMC_OK or the error (which sticks). */
int32_t imc_stream_append(imc_stream *stream, const uint8_t *data, size_t length, imc_status *status);
/* As imc_stream_append, for the last bytes: decoding knows no more follow (a JPEG's last rows are
 * then decoded at once). imc_stream_finish must still be called. */
int32_t imc_stream_append_last(imc_stream *stream, const uint8_t *data, size_t length, imc_status *status);
/* JPEG in IMC_STREAM_HEADER_READY: decode at scale_eighths/8 (checked against the limits), then go on. */
int32_t imc_stream_start(imc_stream *stream, int32_t scale_eighths, imc_status *status);
int32_t imc_stream_state(const imc_stream *stream);
/* The header and output facts (complete from IMC_STREAM_HEADER_READY on; the output from DECODING). */
void imc_stream_info(const imc_stream *stream, imc_info *info);
/* The colour facts (imc_decoder_color) and a CMYK row converter (imc_decoder_set_cmyk_converter,
 * set in IMC_STREAM_HEADER_READY, before imc_stream_start) of a stream. */
void imc_stream_color(const imc_stream *stream, imc_color *color);
void imc_stream_set_cmyk_converter(imc_stream *stream, imc_cmyk_row_converter convert, void *context,
                                   int32_t layout);
size_t imc_stream_rows_available(const imc_stream *stream);
/* Copies up to max_rows queued rows (decoding more as the queue empties) to out, `stride` apart. */
int32_t imc_stream_read_rows(imc_stream *stream, uint8_t *out, size_t stride, size_t max_rows, size_t *copied,
                             imc_status *status);
/* No more bytes: decodes the rest (the queue may grow) and checks the end, as the pull decoder does. */
int32_t imc_stream_finish(imc_stream *stream, imc_status *status);
void imc_stream_destroy(imc_stream *stream);

#endif
