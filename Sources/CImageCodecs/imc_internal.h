/* Shared between the shim's .c files; never seen by Swift. */
#ifndef IMC_INTERNAL_H
#define IMC_INTERNAL_H

/* The shim's warnings, on in every build (Package.swift may not carry unsafeFlags, which SwiftPM
   refuses in a versioned dependency). Every .c file includes this header first. */
#pragma clang diagnostic warning "-Wall"
#pragma clang diagnostic warning "-Wextra"
#pragma clang diagnostic ignored "-Wunused-parameter"

#include "CImageCodecs.h"
#include <stdio.h>

/* Where the compressed bytes come from: a memory range or an open file. */
typedef struct {
  const uint8_t *data;
  size_t length;
  size_t offset;
  FILE *file;
  uint64_t size; /* all the bytes there are: the memory's length, the file's size when opened */
  int hit_end;   /* set when a read asked for more than there was */
} imc_source;

/* Defaults applied where the request leaves a limit at zero. */
#define IMC_DEFAULT_MAX_PIXELS ((uint64_t)100000000)
#define IMC_DEFAULT_MAX_DIMENSION 65500u
#define IMC_DEFAULT_MAX_SCANS 500
#define IMC_DEFAULT_MAX_CHUNK_BYTES ((uint64_t)8000000)

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
} imc_png_framer;

/* Bytes until the framer next judges a header or reaches a chunk's end; 0 when it no longer looks. */
uint64_t imc_png_framer_span(const imc_png_framer *framer);
/* Whether an error while reading the current chunk is a truncation: the chunk ends after `size`. */
int imc_png_framer_cut(const imc_png_framer *framer, uint64_t size);

/* Scans `count` more bytes of the stream; returns IMC_OK or sets `status` to the limit error. */
int32_t imc_png_framer_scan(imc_png_framer *framer, const uint8_t *data, size_t count, const imc_request *request,
                            imc_status *status);

typedef struct imc_png_session imc_png_session;
typedef struct imc_jpeg_session imc_jpeg_session;

typedef struct imc_stream imc_stream;

/* Decoders at work in the process (pull decoders open, streams not yet done or failed): a JPEG's
 * second thread (imc_eighth_split) runs only when its decoder is the only one, so that it takes a
 * core no other decode uses. `busy` is the decoder's own mark, so it is counted once. */
void imc_busy_enter(int *busy);
void imc_busy_leave(int *busy);
int imc_busy_count(void);

struct imc_decoder {
  imc_stream *stream; /* push mode: the stream this decoder belongs to; NULL when pulling */
  int busy;           /* counted in imc_busy_count */
  int32_t format;
  imc_source source;
  imc_request request;
  imc_info info;
  imc_png_session *png;
  imc_jpeg_session *jpeg;
  imc_color color;                  /* filled by the format's open, with the header */
  imc_cmyk_row_converter cmyk_rows; /* NULL: the plain formula */
  void *cmyk_context;
  int32_t cmyk_layout; /* what the converter writes (IMC_LAYOUT_*) */
};

/* No colour facts yet: no profile, no sRGB chunk, no Adobe marker. */
void imc_color_reset(imc_color *color);

/* Status helpers. */
void imc_status_set(imc_status *status, int32_t code, const char *message);
void imc_status_setf(imc_status *status, int32_t code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Fills the request's zero limits with the defaults. */
void imc_request_normalize(imc_request *request);

/* Checks width/height against the request's limits; sets status and returns nonzero when over. */
int imc_check_limits(const imc_request *request, uint32_t width, uint32_t height, imc_status *status);

/* Reads up to n bytes; returns how many were read. */
size_t imc_source_read(imc_source *source, uint8_t *out, size_t n);

/* Format back ends. Each open reads the header into decoder->info; each read fills the pixels. */
int32_t imc_png_open(imc_decoder *decoder, imc_status *status);
int32_t imc_png_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status);
int32_t imc_png_validate(imc_decoder *decoder, imc_status *status);
void imc_png_close(imc_decoder *decoder);

int32_t imc_jpeg_open(imc_decoder *decoder, imc_status *status);
int32_t imc_jpeg_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status);
int32_t imc_jpeg_validate(imc_decoder *decoder, imc_status *status);
void imc_jpeg_close(imc_decoder *decoder);

/* Push mode: the bytes not yet consumed, and a queue of decoded rows. */
struct imc_stream {
  imc_decoder decoder;
  int32_t state;       /* IMC_STREAM_* */
  imc_status failure;  /* once failed, every call reports this */
  int eof;             /* no more bytes will come (a JPEG's last were appended, or finish was called) */
  int unbounded;       /* finishing: the row queue may grow past its capacity */
  uint8_t magic[8];    /* the first bytes, until the format is known */
  size_t magic_length;
  uint8_t *input; /* unconsumed bytes are input[input_start, input_length) */
  size_t input_start, input_length, input_capacity;
  uint64_t skip_pending; /* bytes the decoder skipped before they arrived (JPEG) */
  /* JPEG's 1/8-scale fast path (imc_jpeg_eighth.c) and progressive decoder (imc_jpeg_progressive.c)
   * may give up and start libjpeg over from the first byte: until they are known not to run, or done,
   * every byte is kept (up to RETAIN_LIMIT). */
  int retain;
  int retain_overflow; /* more than RETAIN_LIMIT arrived while retaining */
  char *source_file;   /* the bytes are this file's, which can be read again instead (or NULL) */
  uint8_t *rows;         /* queued rows are rows[head, head + count) (in rows of row_bytes) */
  size_t row_bytes, row_capacity, row_allocated, row_head, row_count;
  int whole_image; /* interlaced PNG: rows is the full image, handed out at the end */
  uint64_t rows_produced;
};

#define IMC_STREAM_RETAIN_LIMIT ((size_t)32 << 20)

/* Sizes the row queue (whole_height > 0: one buffer for the whole image). IMC_OK or IMC_ERR_NO_MEMORY. */
int32_t imc_stream_prepare_rows(imc_stream *stream, size_t row_bytes, uint32_t whole_height);
/* Whether the queue is at capacity (never while finishing). */
int imc_stream_rows_full(const imc_stream *stream);
/* Free slots at the end of the queue (growing it while finishing). */
size_t imc_stream_free_rows(imc_stream *stream);
/* The i-th free slot; commit fills them in order. */
uint8_t *imc_stream_slot(imc_stream *stream, size_t index);
void imc_stream_commit_rows(imc_stream *stream, size_t count);
/* One slot for one row, growing the queue past its capacity if it must; NULL when out of memory. */
uint8_t *imc_stream_push_row(imc_stream *stream);
/* Whole-image mode. */
uint8_t *imc_stream_image_row(imc_stream *stream, uint32_t y);
void imc_stream_image_complete(imc_stream *stream);

int32_t imc_png_stream_begin(imc_decoder *decoder, imc_status *status);
int32_t imc_png_stream_scan(imc_decoder *decoder, const uint8_t *data, size_t length, imc_status *status);
int32_t imc_png_stream_pump(imc_decoder *decoder, imc_status *status);
int imc_png_stream_done(imc_decoder *decoder);

int32_t imc_jpeg_stream_begin(imc_decoder *decoder, imc_status *status);
int32_t imc_jpeg_stream_pump(imc_decoder *decoder, imc_status *status);
int32_t imc_jpeg_stream_start(imc_decoder *decoder, int32_t scale_eighths, imc_status *status);
int imc_jpeg_stream_done(imc_decoder *decoder);
int imc_jpeg_stream_header_ready(imc_decoder *decoder);

#endif
