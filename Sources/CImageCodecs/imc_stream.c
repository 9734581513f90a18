/* imc_stream.c: push decoding. Bytes are appended as they arrive; the format's adapter (libpng's
 * progressive reader, libjpeg with a suspending source, or one of imgfetch's engines) decodes what
 * they allow into the queue of rows (imc_rows.c). Every libpng/libjpeg call stays in the adapters,
 * each entry point under its own setjmp. */
#include "CImageCodecs.h"
#include "imc_formats.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

imc_stream *imc_stream_create(const imc_request *request) {
  imc_stream *stream = calloc(1, sizeof *stream);
  if (!stream) return NULL;
  stream->decoder.stream = stream;
  stream->source_fd = -1;
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
  const imc_format_ops *ops = imc_format_for(decoder->format);
  if (!ops) return IMC_OK;
  if (stream->state == IMC_STREAM_HEADER_READY) return IMC_OK; /* waits for imc_stream_start */
  int32_t code = ops->stream_pump(decoder, status);
  if (code == IMC_OK && ops->stream_done(decoder)) {
    stream->state = IMC_STREAM_DONE;
  } else if (code == IMC_OK && ops->stream_start) {
    if (stream->state == IMC_STREAM_STARTING && ops->stream_header_ready(decoder)) stream->state = IMC_STREAM_HEADER_READY;
  } else if (code == IMC_OK && decoder->info.output_layout != IMC_LAYOUT_NONE) {
    stream->state = IMC_STREAM_DECODING;
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
  int32_t format = imc_sniff(stream->magic, n);
  if (format == IMC_FORMAT_UNKNOWN && imc_format_possible(stream->magic, n) && !stream->eof) return IMC_OK;
  if (format == IMC_FORMAT_UNKNOWN) {
    imc_status_set(status, IMC_ERR_NOT_IMAGE,
                   n == 0 ? "file is empty" : IMC_NOT_AN_IMAGE_MESSAGE);
    return status->code;
  }
  imc_decoder *decoder = &stream->decoder;
  decoder->format = format;
  decoder->info.format = format;
  const imc_format_ops *ops = imc_format_for(format);
  int32_t code = ops->stream_begin(decoder, status);
  if (code != IMC_OK) return code;
  /* The magic bytes are the stream's first bytes: the adapter sees them like any others. */
  if (keep_input(stream, stream->magic, n, status) != IMC_OK) return status->code;
  if (ops->stream_scan) ops->stream_scan(decoder, stream->magic, n, status);
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
  /* The decoding may know now that no bytes follow (the row queue stays bounded until finish). */
  const imc_format_ops *ops = imc_format_for(stream->decoder.format);
  if (last && ops->last_bytes_end_input) stream->eof = 1;
  if (keep_input(stream, data, length, status) != IMC_OK) return fail(stream, status);
  if (ops->stream_scan) ops->stream_scan(&stream->decoder, data, length, status);
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
  const imc_format_ops *ops = imc_format_for(stream->decoder.format);
  if (ops->stream_start(&stream->decoder, scale_eighths, status) != IMC_OK) return fail(stream, status);
  stream->state = IMC_STREAM_DECODING;
  return pump(stream, status);
}

int32_t imc_stream_set_source_file(imc_stream *stream, int32_t descriptor) {
  if (stream->source_fd >= 0) close(stream->source_fd);
  stream->source_fd = -1;
  if (descriptor < 0) return IMC_OK;
  /* Our own descriptor of the same open file: the caller may close theirs; read with pread only. */
  stream->source_fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0);
  return stream->source_fd >= 0 ? IMC_OK : IMC_ERR_IO;
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
    size_t taken = 0;
    imc_stream_take_rows(stream, out + *copied * stride, stride, max_rows - *copied, &taken);
    *copied += taken;
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
  const imc_format_ops *ops = imc_format_for(stream->decoder.format);
  if (ops && stream->decoder.session) ops->close(&stream->decoder);
  imc_busy_leave(&stream->decoder.busy);
  free(stream->input);
  free(stream->rows);
  if (stream->source_fd >= 0) close(stream->source_fd);
  free(stream);
}

