/* The codec layer's core: what every adapter and front end shares and no library is needed for.
 * Status and its messages, the request's limits, the bytes of a pull decode (a memory range or an
 * open file), the state of one decode, a push decode's kept input and its queue of decoded rows,
 * and the count of decodes at work. Never seen by Swift beyond the types in imc_types.h.
 *
 * Layers, each calling only the ones below it (Package.swift makes them targets; scripts/check-c-layers
 * proves the direction): this core; the engines (Sources/CodecEngines: the inflater, PNG rows,
 * the JPEG engine), which include no library header; the adapters (Sources/CodecAdapters: libpng,
 * libjpeg-turbo, zlib through their public API); the front ends (Sources/CImageCodecs: pull and push
 * decoding, the format table). */
#ifndef IMC_CORE_H
#define IMC_CORE_H

/* The layer's warnings, on in every build (Package.swift may not carry unsafeFlags, which SwiftPM
   refuses in a versioned dependency). Every .c file of the layer includes this header first. */
#pragma clang diagnostic warning "-Wall"
#pragma clang diagnostic warning "-Wextra"
#pragma clang diagnostic ignored "-Wunused-parameter"

#include "imc_types.h"

#include <stdio.h>

/* Where a pull decode's compressed bytes come from: a memory range or an open file. */
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
#define IMC_DEFAULT_MAX_FRAMES 1000u

void imc_status_set(imc_status *status, int32_t code, const char *message);
void imc_status_setf(imc_status *status, int32_t code, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* Fills the request's zero limits with the defaults. */
void imc_request_normalize(imc_request *request);

/* Checks width/height against the request's limits; sets status and returns nonzero when over. */
int imc_check_limits(const imc_request *request, uint32_t width, uint32_t height, imc_status *status);
/* The same, the reason naming `what` instead of "image" ("frame 2 is 9x9, ..."). */
int imc_check_limits_of(const imc_request *request, const char *what, uint32_t width, uint32_t height,
                        imc_status *status);

/* Reads up to n bytes; returns how many were read. */
size_t imc_source_read(imc_source *source, uint8_t *out, size_t n);

/* Bytes per pixel of a layout, 0 for an unknown one. */
size_t imc_layout_bytes_per_pixel(int32_t layout);

/* The format named by the first bytes (12 are enough): IMC_FORMAT_PNG, _JPEG, _WEBP, _GIF, _HEIC, _AVIF
 * or IMC_FORMAT_UNKNOWN. A HEIF whose major brand is a generic one (mif1, msf1) is HEIC until its
 * primary image is read (the adapter then says AVIF when it is AV1). */
int32_t imc_sniff(const uint8_t *data, size_t length);

/* The format an ISO base media file's `ftyp` major brand (the 4 bytes at `brand`, after the 4 of
 * `ftyp`) names: IMC_FORMAT_HEIC, IMC_FORMAT_AVIF or IMC_FORMAT_UNKNOWN. */
int32_t imc_heif_brand_format(const uint8_t *brand);

/* EXIF orientation (1...8) from a TIFF structure (what follows "Exif\0\0"); 0 if absent or invalid. */
int32_t imc_exif_orientation(const uint8_t *tiff, size_t length);

/* Releases an encoder's buffer. NULL and an empty buffer are allowed. */
void imc_buffer_free(imc_buffer *buffer);

/* Decodes at work in the process (pull decoders open, streams not yet done or failed): imgfetch's
 * JPEG engine leaves a 4:2:0 baseline decode at 1/8 to libjpeg (whose SIMD inverse DCT is faster)
 * while others run. `busy` is the decoder's own mark, so it is counted once. */
void imc_busy_enter(int *busy);
void imc_busy_leave(int *busy);
int imc_busy_count(void);

typedef struct imc_decoder imc_decoder;
typedef struct imc_stream imc_stream;

/* One decode: its request, the header's facts, its bytes (pull) or stream (push), and the format
 * adapter's own state. */
struct imc_decoder {
  imc_stream *stream; /* push mode: the stream this decoder belongs to; NULL when pulling */
  int busy;           /* counted in imc_busy_count */
  int32_t format;
  imc_source source;
  imc_request request;
  imc_info info;
  void *session;                    /* the format adapter's */
  imc_color color;                  /* filled by the format's open, with the header */
  imc_cmyk_row_converter cmyk_rows; /* NULL: the plain formula */
  void *cmyk_context;
  int32_t cmyk_layout; /* what the converter writes (IMC_LAYOUT_*) */
};

/* No colour facts yet: no profile, no sRGB chunk, no Adobe marker. */
void imc_color_reset(imc_color *color);

/* Push mode: the bytes not yet consumed, and a queue of decoded rows. */
struct imc_stream {
  imc_decoder decoder;
  int32_t state;      /* IMC_STREAM_* */
  imc_status failure; /* once failed, every call reports this */
  int eof;            /* no more bytes will come (a JPEG's last were appended, or finish was called) */
  int unbounded;      /* finishing: the row queue may grow past its capacity */
  uint8_t magic[12];  /* the first bytes, until the format is known (WebP's signature is 12) */
  size_t magic_length;
  uint8_t *input; /* unconsumed bytes are input[input_start, input_length) */
  size_t input_start, input_length, input_capacity;
  uint64_t skip_pending; /* bytes the decoder skipped before they arrived (JPEG) */
  /* A decode by one of imgfetch's own engines may give up and hand the stream to its library, which
   * then needs every byte from the first: until the engine is known not to run, or done, every byte
   * is kept (up to IMC_STREAM_RETAIN_LIMIT). */
  int retain;
  int retain_overflow; /* more than the limit arrived while retaining */
  int source_fd;       /* the bytes are this open file's, which can be read again instead (or -1); owned */
  uint8_t *rows;       /* queued rows are rows[head, head + count) (in rows of row_bytes) */
  size_t row_bytes, row_capacity, row_allocated, row_head, row_count;
  int whole_image; /* interlaced PNG: rows is the full image, handed out at the end */
  uint64_t rows_produced;
};

enum {
  IMC_STREAM_STARTING = 0,     /* waiting for the header */
  IMC_STREAM_HEADER_READY = 1, /* JPEG: the header is known; call imc_stream_start with the scale */
  IMC_STREAM_DECODING = 2,     /* the header and output are known (imc_stream_info); rows come */
  IMC_STREAM_DONE = 3,         /* the whole image was decoded and its end seen */
  IMC_STREAM_FAILED = 4,
};

#define IMC_STREAM_RETAIN_LIMIT ((size_t)32 << 20)

/* The row queue. Sizes it (whole_height > 0: one buffer for the whole image). IMC_OK or IMC_ERR_NO_MEMORY. */
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
/* Copies up to max_rows queued rows to out, `stride` apart; *copied set. */
void imc_stream_take_rows(imc_stream *stream, uint8_t *out, size_t stride, size_t max_rows, size_t *copied);

/* What a format adapter gives the front ends (their format table, imc_formats.c). Push decoding:
 * `stream_scan` sees appended bytes before they are decoded (NULL: nothing to see); a format with
 * `stream_start` waits in IMC_STREAM_HEADER_READY for the caller's scale (`stream_header_ready` says
 * when), one without decodes as soon as its header is read; `last_bytes_end_input`: bytes appended
 * as the last already end the input (the decoder may then use every byte at once). */
typedef struct {
  int32_t format;
  int32_t (*open)(imc_decoder *decoder, imc_status *status);
  int32_t (*read)(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status);
  int32_t (*validate)(imc_decoder *decoder, imc_status *status);
  void (*close)(imc_decoder *decoder);
  int32_t (*stream_begin)(imc_decoder *decoder, imc_status *status);
  int32_t (*stream_scan)(imc_decoder *decoder, const uint8_t *data, size_t length, imc_status *status);
  int32_t (*stream_pump)(imc_decoder *decoder, imc_status *status);
  int32_t (*stream_start)(imc_decoder *decoder, int32_t scale_eighths, imc_status *status);
  int (*stream_done)(imc_decoder *decoder);
  int (*stream_header_ready)(imc_decoder *decoder);
  int last_bytes_end_input;
} imc_format_ops;

#endif
