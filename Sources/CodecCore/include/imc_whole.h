/* imc_whole.h: the format-table entry of a format whose library decodes a file from all of its
 * bytes at once (giflib's reader, libheif's context). The adapter says how to read the header and
 * how to decode; this gathers the bytes (a pull decode borrows memory or reads its file, a push
 * decode keeps what arrives), calls the adapter when they allow, and hands a push decode's image
 * out whole at the end, as an interlaced PNG's is. Every path calls the same two functions over the
 * same bytes, so a file has one verdict whichever way it came. No library is named here. */
#ifndef IMC_WHOLE_H
#define IMC_WHOLE_H

#include "imc_core.h"

/* Input kept for one decode at most (a file beyond it is refused before it is read whole). */
#define IMC_WHOLE_MAX_INPUT ((uint64_t)1 << 30)

typedef struct imc_whole_format {
  int32_t format; /* IMC_FORMAT_*: the entry's */
  /* Reads the header from bytes[0, length) (`complete`: they are every byte of the file): fills
   * decoder->info (size, components, frames, orientation) and decoder->color, checks the request's
   * limits, and sets *ready. It may leave *ready at 0 (more bytes needed) only while !complete.
   * *state is the adapter's own (NULL at first); it stays until `release`. */
  int32_t (*read_header)(imc_decoder *decoder, void **state, const uint8_t *bytes, size_t length, int complete,
                         int *ready, imc_status *status);
  /* Sets decoder->info's output layout and size for the request and `scale_eighths` (an adapter
   * that cannot decode smaller keeps the stored size). */
  int32_t (*choose_output)(imc_decoder *decoder, void *state, int32_t scale_eighths, imc_status *status);
  /* Decodes every byte of the file: the image into `out` (rows `stride` apart, in the output
   * layout), every other frame or item it needs checked. `out` NULL: validation only (the adapter
   * may then keep less memory). */
  int32_t (*decode)(imc_decoder *decoder, void *state, const uint8_t *bytes, size_t length, uint8_t *out,
                    size_t stride, imc_status *status);
  void (*release)(void *state);
} imc_whole_format;

/* The entry points a whole-file adapter puts in its imc_format_ops: its open and stream_begin call
 * these with its imc_whole_format; the rest are shared as they are. */
int32_t imc_whole_open(imc_decoder *decoder, const imc_whole_format *format, imc_status *status);
int32_t imc_whole_stream_begin(imc_decoder *decoder, const imc_whole_format *format, imc_status *status);
int32_t imc_whole_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status);
int32_t imc_whole_validate(imc_decoder *decoder, imc_status *status);
void imc_whole_close(imc_decoder *decoder);
int32_t imc_whole_stream_pump(imc_decoder *decoder, imc_status *status);
int32_t imc_whole_stream_start(imc_decoder *decoder, int32_t scale_eighths, imc_status *status);
int imc_whole_stream_done(imc_decoder *decoder);
int imc_whole_stream_header_ready(imc_decoder *decoder);

/* A whole-file adapter's imc_format_ops: `code`, its open and stream_begin functions, the shared
 * rest. */
#define IMC_WHOLE_FORMAT_OPS(code, open_function, begin_function)                                          \
  {                                                                                                      \
    .format = code, .open = open_function, .read = imc_whole_read, .validate = imc_whole_validate,       \
    .close = imc_whole_close, .stream_begin = begin_function, .stream_scan = NULL,                        \
    .stream_pump = imc_whole_stream_pump, .stream_start = imc_whole_stream_start,                         \
    .stream_done = imc_whole_stream_done, .stream_header_ready = imc_whole_stream_header_ready,           \
    .last_bytes_end_input = 1,                                                                            \
  }

#endif
