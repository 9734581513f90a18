/* imc_stream.c: push decoding. Bytes are appended as they arrive; the format back end (libpng's
 * progressive reader, libjpeg with a suspending source) decodes what they allow into a queue of rows.
 * Every libpng/libjpeg call stays in the back ends, each entry point under its own setjmp. */
#include "imc_internal.h"

#include <stdlib.h>
#include <string.h>

/* Rows the queue holds before decoding waits for the reader: about 1 MiB, at least 16 rows. */
#define QUEUE_BYTES ((size_t)1 << 20)
#define QUEUE_MIN_ROWS 16

static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
static const uint8_t jpeg_magic[3] = {0xff, 0xd8, 0xff};

imc_stream *imc_stream_create(const imc_request *request) {
  imc_stream *stream = calloc(1, sizeof *stream);
  if (!stream) return NULL;
  stream->decoder.stream = stream;
  stream->decoder.request = *request;
  imc_request_normalize(&stream->decoder.request);
  imc_color_reset(&stream->decoder.color);
  imc_busy_enter(&stream->decoder.busy);
  return stream;
}

static int32_t fail(imc_stream *stream, imc_status *status) {
  stream->state = IMC_STREAM_FAILED;
  imc_busy_leave(&stream->decoder.busy);
  stream->failure = *status;
  return status->code;
}

static int32_t failed(imc_stream *stream, imc_status *status) {
  *status = stream->failure;
  return status->code;
}

/* Keeps `length` more bytes after the unconsumed ones, dropping what a skip already passed over. */
static int32_t keep_input(imc_stream *stream, const uint8_t *data, size_t length, imc_status *status) {
  if (stream->skip_pending > 0) {
    /* Bytes dropped: the kept ones no longer start at the first byte, so no fast path. */
    if (stream->retain) stream->retain_overflow = 1;
    stream->retain = 0;
    size_t drop = stream->skip_pending < length ? (size_t)stream->skip_pending : length;
    stream->skip_pending -= drop;
    data += drop;
    length -= drop;
  }
  if (stream->retain && stream->input_length + length > IMC_STREAM_RETAIN_LIMIT) stream->retain_overflow = 1;
  size_t unconsumed = stream->input_length - stream->input_start;
  if (stream->input_start > 0 && !stream->retain) {
    memmove(stream->input, stream->input + stream->input_start, unconsumed);
    stream->input_start = 0;
    stream->input_length = unconsumed;
  }
  if (stream->input_length + length > stream->input_capacity) {
    size_t capacity = stream->input_capacity ? stream->input_capacity : 65536;
    while (capacity < stream->input_length + length) capacity *= 2;
    uint8_t *grown = realloc(stream->input, capacity);
    if (!grown) {
      imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for the input");
      return status->code;
    }
    stream->input = grown;
    stream->input_capacity = capacity;
  }
  if (length) memcpy(stream->input + stream->input_length, data, length);
  stream->input_length += length;
  return IMC_OK;
}

static int32_t pump(imc_stream *stream, imc_status *status) {
  imc_decoder *decoder = &stream->decoder;
  int32_t code = IMC_OK;
  switch (decoder->format) {
  case IMC_FORMAT_PNG:
    code = imc_png_stream_pump(decoder, status);
    if (code == IMC_OK && imc_png_stream_done(decoder)) stream->state = IMC_STREAM_DONE;
    else if (code == IMC_OK && decoder->info.output_layout != IMC_LAYOUT_NONE) stream->state = IMC_STREAM_DECODING;
    break;
  case IMC_FORMAT_JPEG:
    if (stream->state == IMC_STREAM_HEADER_READY) return IMC_OK; /* waits for imc_stream_start */
    code = imc_jpeg_stream_pump(decoder, status);
    if (code == IMC_OK && imc_jpeg_stream_done(decoder)) stream->state = IMC_STREAM_DONE;
    else if (code == IMC_OK && stream->state == IMC_STREAM_STARTING && imc_jpeg_stream_header_ready(decoder))
      stream->state = IMC_STREAM_HEADER_READY;
    break;
  default: break;
  }
  if (code == IMC_OK && stream->state == IMC_STREAM_DONE) {
    /* Bytes after the end are ignored: none of the kept ones are needed any more. */
    imc_busy_leave(&stream->decoder.busy);
    free(stream->input);
    stream->input = NULL;
    stream->input_start = stream->input_length = stream->input_capacity = 0;
  }
  return code == IMC_OK ? IMC_OK : fail(stream, status);
}

/* Finds the format from the first bytes; returns IMC_OK (maybe still undecided) or NOT_IMAGE. */
static int32_t sniff(imc_stream *stream, const uint8_t *data, size_t length, size_t *used, imc_status *status) {
  size_t take = sizeof stream->magic - stream->magic_length;
  if (take > length) take = length;
  if (take > 0) memcpy(stream->magic + stream->magic_length, data, take); /* data may be NULL when empty */
  stream->magic_length += take;
  *used = take;
  size_t n = stream->magic_length;
  int png_possible = memcmp(stream->magic, png_magic, n < 8 ? n : 8) == 0;
  int jpeg_possible = memcmp(stream->magic, jpeg_magic, n < 3 ? n : 3) == 0;
  int32_t format = imc_sniff(stream->magic, n);
  if (format == IMC_FORMAT_UNKNOWN && (png_possible || jpeg_possible) && !stream->eof) return IMC_OK;
  if (format == IMC_FORMAT_UNKNOWN) {
    imc_status_set(status, IMC_ERR_NOT_IMAGE,
                   n == 0 ? "file is empty" : "not a PNG or JPEG file (unrecognised signature)");
    return status->code;
  }
  imc_decoder *decoder = &stream->decoder;
  decoder->format = format;
  decoder->info.format = format;
  int32_t code = format == IMC_FORMAT_PNG ? imc_png_stream_begin(decoder, status) : imc_jpeg_stream_begin(decoder, status);
  if (code != IMC_OK) return code;
  /* The magic bytes are the stream's first bytes: the back end sees them like any others. */
  if (keep_input(stream, stream->magic, n, status) != IMC_OK) return status->code;
  if (format == IMC_FORMAT_PNG) imc_png_stream_scan(decoder, stream->magic, n, status);
  return IMC_OK;
}

static int32_t append(imc_stream *stream, const uint8_t *data, size_t length, int last, imc_status *status) {
  memset(status, 0, sizeof *status);
  if (stream->state == IMC_STREAM_FAILED) return failed(stream, status);
  if (stream->eof) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "bytes appended after finish");
    return status->code;
  }
  if (stream->decoder.format == IMC_FORMAT_UNKNOWN) {
    size_t used = 0;
    if (sniff(stream, data, length, &used, status) != IMC_OK) return fail(stream, status);
    data += used;
    length -= used;
    if (stream->decoder.format == IMC_FORMAT_UNKNOWN) return IMC_OK;
  }
  if (stream->state == IMC_STREAM_DONE) return IMC_OK; /* bytes after the end are ignored, as when pulling */
  /* A JPEG's decoding may know now that no bytes follow (the row queue stays bounded until finish). */
  if (last && stream->decoder.format == IMC_FORMAT_JPEG) stream->eof = 1;
  if (keep_input(stream, data, length, status) != IMC_OK) return fail(stream, status);
  if (stream->decoder.format == IMC_FORMAT_PNG) imc_png_stream_scan(&stream->decoder, data, length, status);
  return pump(stream, status);
}

int32_t imc_stream_append(imc_stream *stream, const uint8_t *data, size_t length, imc_status *status) {
  return append(stream, data, length, 0, status);
}

int32_t imc_stream_append_last(imc_stream *stream, const uint8_t *data, size_t length, imc_status *status) {
  return append(stream, data, length, 1, status);
}

int32_t imc_stream_start(imc_stream *stream, int32_t scale_eighths, imc_status *status) {
  memset(status, 0, sizeof *status);
  if (stream->state == IMC_STREAM_FAILED) return failed(stream, status);
  if (stream->state != IMC_STREAM_HEADER_READY) return IMC_OK;
  if (imc_jpeg_stream_start(&stream->decoder, scale_eighths, status) != IMC_OK) return fail(stream, status);
  stream->state = IMC_STREAM_DECODING;
  return pump(stream, status);
}

int32_t imc_stream_set_source_file(imc_stream *stream, const char *path) {
  free(stream->source_file);
  stream->source_file = path ? strdup(path) : NULL;
  return path && !stream->source_file ? IMC_ERR_NO_MEMORY : IMC_OK;
}

int32_t imc_stream_state(const imc_stream *stream) { return stream->state; }

void imc_stream_info(const imc_stream *stream, imc_info *info) { *info = stream->decoder.info; }

void imc_stream_color(const imc_stream *stream, imc_color *color) { imc_decoder_color(&stream->decoder, color); }

void imc_stream_set_cmyk_converter(imc_stream *stream, imc_cmyk_row_converter convert, void *context,
                                   int32_t layout) {
  imc_decoder_set_cmyk_converter(&stream->decoder, convert, context, layout);
}

size_t imc_stream_rows_available(const imc_stream *stream) { return stream->row_count; }

int32_t imc_stream_read_rows(imc_stream *stream, uint8_t *out, size_t stride, size_t max_rows, size_t *copied,
                             imc_status *status) {
  memset(status, 0, sizeof *status);
  *copied = 0;
  while (*copied < max_rows) {
    if (stream->row_count == 0) {
      if (stream->state == IMC_STREAM_FAILED) return failed(stream, status);
      if (stream->state != IMC_STREAM_DECODING) break;
      size_t before = stream->input_length - stream->input_start;
      uint64_t produced = stream->rows_produced;
      if (pump(stream, status) != IMC_OK) return status->code;
      if (stream->row_count == 0 && stream->rows_produced == produced &&
          stream->input_length - stream->input_start == before)
        break; /* needs more bytes */
      continue;
    }
    size_t take = max_rows - *copied < stream->row_count ? max_rows - *copied : stream->row_count;
    for (size_t i = 0; i < take; i++)
      memcpy(out + (*copied + i) * stride, stream->rows + (stream->row_head + i) * stream->row_bytes, stream->row_bytes);
    stream->row_head += take;
    stream->row_count -= take;
    if (stream->row_count == 0) stream->row_head = 0;
    *copied += take;
  }
  return IMC_OK;
}

int32_t imc_stream_finish(imc_stream *stream, imc_status *status) {
  memset(status, 0, sizeof *status);
  if (stream->state == IMC_STREAM_FAILED) return failed(stream, status);
  stream->eof = 1;
  stream->unbounded = 1;
  if (stream->decoder.format == IMC_FORMAT_UNKNOWN) {
    size_t used = 0;
    if (sniff(stream, NULL, 0, &used, status) != IMC_OK) return fail(stream, status);
  }
  if (stream->state == IMC_STREAM_HEADER_READY) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "finish before imc_stream_start");
    return status->code;
  }
  if (stream->state == IMC_STREAM_DONE) return IMC_OK;
  if (pump(stream, status) != IMC_OK) return status->code;
  if (stream->state == IMC_STREAM_HEADER_READY) return IMC_OK; /* the caller starts, then finishes again */
  if (stream->state != IMC_STREAM_DONE) {
    imc_status_set(status, IMC_ERR_TRUNCATED, "Unexpected end of data");
    return fail(stream, status);
  }
  return IMC_OK;
}

void imc_stream_destroy(imc_stream *stream) {
  if (!stream) return;
  if (stream->decoder.png) imc_png_close(&stream->decoder);
  if (stream->decoder.jpeg) imc_jpeg_close(&stream->decoder);
  imc_busy_leave(&stream->decoder.busy);
  free(stream->input);
  free(stream->rows);
  free(stream->source_file);
  free(stream);
}

/* ---- the row queue ---- */

int32_t imc_stream_prepare_rows(imc_stream *stream, size_t row_bytes, uint32_t whole_height) {
  stream->row_bytes = row_bytes;
  size_t rows;
  if (whole_height > 0) {
    rows = whole_height;
    stream->whole_image = 1;
  } else {
    rows = row_bytes ? QUEUE_BYTES / row_bytes : QUEUE_MIN_ROWS;
    if (rows < QUEUE_MIN_ROWS) rows = QUEUE_MIN_ROWS;
    uint32_t height = stream->decoder.info.output_height;
    if (height > 0 && rows > height) rows = height;
  }
  if (rows > SIZE_MAX / (row_bytes ? row_bytes : 1)) return IMC_ERR_NO_MEMORY;
  stream->rows = whole_height > 0 ? calloc(rows, row_bytes) : malloc(rows * row_bytes);
  if (!stream->rows) return IMC_ERR_NO_MEMORY;
  stream->row_capacity = stream->row_allocated = rows;
  return IMC_OK;
}

int imc_stream_rows_full(const imc_stream *stream) {
  if (stream->unbounded || stream->whole_image || stream->row_capacity == 0) return 0;
  return stream->row_head + stream->row_count >= stream->row_capacity;
}

/* Makes room for `more` rows after the queued ones: moves them to the front, then grows if needed. */
static int make_room(imc_stream *stream, size_t more) {
  if (stream->row_head > 0 && stream->row_head + stream->row_count + more > stream->row_allocated) {
    memmove(stream->rows, stream->rows + stream->row_head * stream->row_bytes, stream->row_count * stream->row_bytes);
    stream->row_head = 0;
  }
  size_t needed = stream->row_head + stream->row_count + more;
  if (needed <= stream->row_allocated) return 1;
  size_t rows = stream->row_allocated * 2;
  if (rows < needed) rows = needed;
  if (rows > SIZE_MAX / stream->row_bytes) return 0;
  uint8_t *grown = realloc(stream->rows, rows * stream->row_bytes);
  if (!grown) return 0;
  stream->rows = grown;
  stream->row_allocated = rows;
  return 1;
}

size_t imc_stream_free_rows(imc_stream *stream) {
  if (stream->unbounded) {
    if (!make_room(stream, QUEUE_MIN_ROWS)) return 0;
    return stream->row_allocated - stream->row_head - stream->row_count;
  }
  if (stream->row_head > 0) make_room(stream, 0);
  size_t used = stream->row_head + stream->row_count;
  if (used >= stream->row_capacity) {
    if (stream->row_head == 0) return 0;
    memmove(stream->rows, stream->rows + stream->row_head * stream->row_bytes, stream->row_count * stream->row_bytes);
    stream->row_head = 0;
    used = stream->row_count;
  }
  return stream->row_capacity - used;
}

uint8_t *imc_stream_slot(imc_stream *stream, size_t index) {
  return stream->rows + (stream->row_head + stream->row_count + index) * stream->row_bytes;
}

void imc_stream_commit_rows(imc_stream *stream, size_t count) {
  stream->row_count += count;
  stream->rows_produced += count;
}

uint8_t *imc_stream_push_row(imc_stream *stream) {
  if (!make_room(stream, 1)) return NULL;
  uint8_t *slot = imc_stream_slot(stream, 0);
  imc_stream_commit_rows(stream, 1);
  return slot;
}

uint8_t *imc_stream_image_row(imc_stream *stream, uint32_t y) { return stream->rows + (size_t)y * stream->row_bytes; }

void imc_stream_image_complete(imc_stream *stream) {
  stream->row_head = 0;
  stream->row_count = stream->row_allocated;
  stream->rows_produced = stream->row_allocated;
}
