/* imc_rows.c: a push decode's queue of decoded rows. Bounded (about 1 MiB, at least 16 rows) while
 * bytes arrive, so that decoding waits for the reader; unbounded while finishing. */
#include "imc_core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Rows the queue holds before decoding waits for the reader: about 1 MiB, at least 16 rows. */
#define QUEUE_BYTES ((size_t)1 << 20)
#define QUEUE_MIN_ROWS 16


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

void imc_stream_take_rows(imc_stream *stream, uint8_t *out, size_t stride, size_t max_rows, size_t *copied) {
  size_t take = max_rows < stream->row_count ? max_rows : stream->row_count;
  for (size_t i = 0; i < take; i++)
    memcpy(out + i * stride, stream->rows + (stream->row_head + i) * stream->row_bytes, stream->row_bytes);
  stream->row_head += take;
  stream->row_count -= take;
  if (stream->row_count == 0) stream->row_head = 0;
  *copied = take;
}
