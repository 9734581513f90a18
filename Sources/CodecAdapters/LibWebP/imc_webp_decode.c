/* imc_webp_decode.c: the WebP entry of the format table. Pull and push decoding are the same
 * session (imc_webp_session.h) fed differently: a pull decode borrows the caller's memory or reads
 * its file 64 KiB at a time, only as far as each step needs (the header: up to the image data, or
 * to the EXIF chunk after it, or an animation's end); a push decode gathers the stream's bytes. A
 * still image is handed out whole when decoded (libwebp decodes into one image buffer anyway), as
 * an interlaced PNG is. Nothing here prints. */
#include "imc_libwebp.h"
#include "imc_webp_session.h"

#include <stdlib.h>
#include <string.h>

#define PULL_PIECE ((size_t)64 << 10)

static struct imc_webp_session *session_of(const imc_decoder *decoder) { return decoder->session; }

static int32_t create_session(imc_decoder *decoder, imc_status *status) {
  struct imc_webp_session *session = calloc(1, sizeof *session);
  if (!session) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  session->decoder = decoder;
  decoder->session = session;
  return IMC_OK;
}

/* Room for `more` bytes after the gathered ones. */
static int32_t reserve(struct imc_webp_session *session, size_t more, imc_status *status) {
  if (session->length + more <= session->capacity) return IMC_OK;
  size_t capacity = session->capacity ? session->capacity : PULL_PIECE;
  while (capacity < session->length + more) {
    if (capacity > SIZE_MAX / 2) {
      imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for the input");
      return status->code;
    }
    capacity *= 2;
  }
  uint8_t *grown = realloc(session->gathered, capacity);
  if (!grown) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for the input");
    return status->code;
  }
  session->gathered = grown;
  session->capacity = capacity;
  session->bytes = grown;
  return IMC_OK;
}

/* Counts `length` new bytes at the end of the gathered ones; none past the RIFF end are kept (they
 * are not the file's; the RIFF size is known from the 12th byte on). */
static void gathered(struct imc_webp_session *session, size_t length) {
  session->length += length;
  if (session->chunks.riff_end == 0) imc_webp_walk(&session->chunks, session->bytes, session->length);
  if (session->chunks.riff_end > 0 && session->length > session->chunks.riff_end)
    session->length = (size_t)session->chunks.riff_end;
}

/* Push: appends the stream's bytes. */
static int32_t gather(struct imc_webp_session *session, const uint8_t *data, size_t length, imc_status *status) {
  uint64_t end = session->chunks.riff_end;
  if (end > 0) {
    if (session->length >= end) return IMC_OK;
    if (length > end - session->length) length = (size_t)(end - session->length);
  }
  if (length == 0) return IMC_OK;
  if (reserve(session, length, status) != IMC_OK) return status->code;
  memcpy(session->gathered + session->length, data, length);
  gathered(session, length);
  return IMC_OK;
}

/* Pull: the next piece of the file (a memory source is borrowed whole at the open). */
static int32_t pull_more(struct imc_webp_session *session, imc_status *status) {
  imc_source *source = &session->decoder->source;
  if (session->eof || imc_webp_all_bytes(session)) return IMC_OK;
  size_t wanted = PULL_PIECE;
  uint64_t end = session->chunks.riff_end;
  if (end > 0 && wanted > end - session->length) wanted = (size_t)(end - session->length);
  if (reserve(session, wanted, status) != IMC_OK) return status->code;
  size_t got = imc_source_read(source, session->gathered + session->length, wanted);
  if (source->file && ferror(source->file)) {
    imc_status_set(status, IMC_ERR_IO, "cannot read the file");
    return status->code;
  }
  if (got < wanted) session->eof = 1;
  gathered(session, got);
  return IMC_OK;
}

static int32_t decode_step(struct imc_webp_session *session, imc_status *status) {
  return session->animated ? imc_webp_decode_frames(session, status) : imc_webp_decode_still(session, status);
}

static int32_t imc_webp_open(imc_decoder *decoder, imc_status *status) {
  if (create_session(decoder, status) != IMC_OK) return status->code;
  struct imc_webp_session *session = session_of(decoder);
  if (!decoder->source.file) {
    session->bytes = decoder->source.data;
    session->length = decoder->source.length;
    session->eof = 1;
  }
  for (;;) {
    if (imc_webp_read_header(session, status) != IMC_OK) return status->code;
    if (session->header_ready) break;
    if (pull_more(session, status) != IMC_OK) return status->code;
  }
  return imc_webp_choose_output(session, decoder->request.scale_eighths, status);
}

/* Pull: decodes to the end, reading the file as the decoder asks. */
static int32_t pull_decode(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  struct imc_webp_session *session = session_of(decoder);
  if (session->started) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "a decoder reads once");
    return status->code;
  }
  if (imc_webp_start_output(session, pixels, row_bytes, status) != IMC_OK) return status->code;
  for (;;) {
    if (decode_step(session, status) != IMC_OK) return status->code;
    if (session->done) return IMC_OK;
    if (pull_more(session, status) != IMC_OK) return status->code;
  }
}

static int32_t imc_webp_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  return pull_decode(decoder, pixels, row_bytes, status);
}

/* The same decode into a buffer of the session's own: libwebp decodes whole images, so validating
 * takes the image's memory, not a row's. */
static int32_t imc_webp_validate(imc_decoder *decoder, imc_status *status) {
  return pull_decode(decoder, NULL, 0, status);
}

static void imc_webp_close(imc_decoder *decoder) {
  struct imc_webp_session *session = session_of(decoder);
  if (!session) return;
  imc_webp_release(session);
  free(session);
  decoder->session = NULL;
}

void imc_webp_release(struct imc_webp_session *session) {
  if (session->idec) WebPIDelete(session->idec);
  session->idec = NULL;
  free(session->gathered);
  free(session->icc);
  free(session->own);
  free(session->scratch);
  session->gathered = session->icc = session->own = session->scratch = NULL;
  session->decoder->color.icc = NULL;
  session->decoder->color.icc_length = 0;
}

/* ---- Push ---- */

static int32_t imc_webp_stream_begin(imc_decoder *decoder, imc_status *status) {
  return create_session(decoder, status);
}

static int32_t imc_webp_stream_pump(imc_decoder *decoder, imc_status *status) {
  struct imc_webp_session *session = session_of(decoder);
  imc_stream *stream = decoder->stream;
  size_t unconsumed = stream->input_length - stream->input_start;
  if (gather(session, stream->input + stream->input_start, unconsumed, status) != IMC_OK) return status->code;
  stream->input_start = stream->input_length;
  session->eof = stream->eof;
  if (!session->header_ready) return imc_webp_read_header(session, status);
  if (!session->started || session->done) return IMC_OK;
  if (decode_step(session, status) != IMC_OK) return status->code;
  if (session->done) {
    imc_stream_image_complete(stream);
    /* The decoded image is the stream's rows; the gathered bytes are no longer needed. */
    free(session->gathered);
    session->gathered = NULL;
    session->bytes = NULL;
    session->length = session->capacity = 0;
  }
  return IMC_OK;
}

static int32_t imc_webp_stream_start(imc_decoder *decoder, int32_t scale_eighths, imc_status *status) {
  struct imc_webp_session *session = session_of(decoder);
  imc_stream *stream = decoder->stream;
  if (imc_webp_choose_output(session, scale_eighths, status) != IMC_OK) return status->code;
  const imc_info *info = &decoder->info;
  size_t row_bytes = (size_t)info->output_width * imc_layout_bytes_per_pixel(info->output_layout);
  if (imc_stream_prepare_rows(stream, row_bytes, info->output_height) != IMC_OK) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for the pixels");
    return status->code;
  }
  return imc_webp_start_output(session, stream->rows, row_bytes, status);
}

static int imc_webp_stream_done(imc_decoder *decoder) { return session_of(decoder)->done; }

static int imc_webp_stream_header_ready(imc_decoder *decoder) {
  const struct imc_webp_session *session = session_of(decoder);
  return session->header_ready && !session->started;
}

const imc_format_ops imc_webp_format = {
    .format = IMC_FORMAT_WEBP,
    .open = imc_webp_open,
    .read = imc_webp_read,
    .validate = imc_webp_validate,
    .close = imc_webp_close,
    .stream_begin = imc_webp_stream_begin,
    .stream_scan = NULL,
    .stream_pump = imc_webp_stream_pump,
    .stream_start = imc_webp_stream_start,
    .stream_done = imc_webp_stream_done,
    .stream_header_ready = imc_webp_stream_header_ready,
    .last_bytes_end_input = 1,
};
