/* imc_whole.c: a whole-file format's decode, pull and push (see include/imc_whole.h).
 *
 * The bytes are gathered in one buffer (a pull decode of memory borrows the caller's). A pull
 * decode reads its file 64 KiB at a time until the adapter has its header, then the rest when the
 * pixels are asked for; a push decode keeps the stream's bytes as they come, reads the header as
 * soon as the adapter can, and decodes once the input has ended. The adapter's decode sees every
 * byte of the file, on every path. */
#include "imc_whole.h"

#include <stdlib.h>
#include <string.h>

#define PULL_PIECE ((size_t)64 << 10)

typedef struct {
  const imc_whole_format *format;
  void *state; /* the adapter's */
  uint8_t *gathered; /* owned bytes (NULL while borrowing) */
  size_t capacity;
  const uint8_t *bytes;
  size_t length;
  int eof;          /* every byte is in */
  int header_ready; /* the adapter has read the header */
  int started;      /* push: the output is prepared */
  int done;         /* decoded */
} whole_session;

static whole_session *session_of(const imc_decoder *decoder) { return decoder->session; }

static int32_t create_session(imc_decoder *decoder, const imc_whole_format *format, imc_status *status) {
  whole_session *session = calloc(1, sizeof *session);
  if (!session) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  session->format = format;
  decoder->session = session;
  return IMC_OK;
}

static int32_t over_input_limit(imc_status *status) {
  imc_status_setf(status, IMC_ERR_LIMIT, "file is over the %llu-byte input limit",
                  (unsigned long long)IMC_WHOLE_MAX_INPUT);
  return status->code;
}

/* Room for `more` bytes after the gathered ones. */
static int32_t reserve(whole_session *session, size_t more, imc_status *status) {
  if ((uint64_t)session->length + more > IMC_WHOLE_MAX_INPUT) return over_input_limit(status);
  if (session->length + more <= session->capacity) return IMC_OK;
  size_t capacity = session->capacity ? session->capacity : PULL_PIECE;
  while (capacity < session->length + more) capacity *= 2;
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

/* Pull: the next piece of the file (`all`: every remaining piece). */
static int32_t pull_more(imc_decoder *decoder, int all, imc_status *status) {
  whole_session *session = session_of(decoder);
  imc_source *source = &decoder->source;
  if (source->size > IMC_WHOLE_MAX_INPUT) return over_input_limit(status);
  do {
    if (session->eof) return IMC_OK;
    /* The whole file at once when its size is known (a pipe's is not). */
    size_t wanted = PULL_PIECE;
    if (all && source->size > session->length && source->size - session->length > wanted)
      wanted = (size_t)(source->size - session->length) + 1;
    if (reserve(session, wanted, status) != IMC_OK) return status->code;
    size_t got = imc_source_read(source, session->gathered + session->length, wanted);
    if (source->file && ferror(source->file)) {
      imc_status_set(status, IMC_ERR_IO, "cannot read the file");
      return status->code;
    }
    session->length += got;
    if (got < wanted) session->eof = 1;
  } while (all);
  return IMC_OK;
}

static int32_t read_header(imc_decoder *decoder, imc_status *status) {
  whole_session *session = session_of(decoder);
  int ready = 0;
  int32_t code = session->format->read_header(decoder, &session->state, session->bytes, session->length,
                                              session->eof, &ready, status);
  if (code != IMC_OK) return code;
  if (!ready && session->eof) {
    imc_status_set(status, IMC_ERR_TRUNCATED, "the file ends inside its header");
    return status->code;
  }
  session->header_ready = ready;
  return IMC_OK;
}

int32_t imc_whole_open(imc_decoder *decoder, const imc_whole_format *format, imc_status *status) {
  if (create_session(decoder, format, status) != IMC_OK) return status->code;
  whole_session *session = session_of(decoder);
  if (!decoder->source.file) {
    if (decoder->source.length > IMC_WHOLE_MAX_INPUT) return over_input_limit(status);
    session->bytes = decoder->source.data;
    session->length = decoder->source.length;
    session->eof = 1;
  }
  for (;;) {
    if (read_header(decoder, status) != IMC_OK) return status->code;
    if (session->header_ready) break;
    if (pull_more(decoder, 0, status) != IMC_OK) return status->code;
  }
  return format->choose_output(decoder, session->state, decoder->request.scale_eighths, status);
}

static int32_t pull_decode(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  whole_session *session = session_of(decoder);
  if (session->done) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "a decoder reads once");
    return status->code;
  }
  session->done = 1;
  if (pull_more(decoder, 1, status) != IMC_OK) return status->code;
  return session->format->decode(decoder, session->state, session->bytes, session->length, pixels, row_bytes,
                                 status);
}

int32_t imc_whole_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  return pull_decode(decoder, pixels, row_bytes, status);
}

int32_t imc_whole_validate(imc_decoder *decoder, imc_status *status) { return pull_decode(decoder, NULL, 0, status); }

void imc_whole_close(imc_decoder *decoder) {
  whole_session *session = session_of(decoder);
  if (!session) return;
  if (session->format->release) session->format->release(session->state);
  free(session->gathered);
  free(session);
  decoder->session = NULL;
  decoder->color.icc = NULL;
  decoder->color.icc_length = 0;
}

/* ---- Push ---- */

int32_t imc_whole_stream_begin(imc_decoder *decoder, const imc_whole_format *format, imc_status *status) {
  return create_session(decoder, format, status);
}

int32_t imc_whole_stream_pump(imc_decoder *decoder, imc_status *status) {
  whole_session *session = session_of(decoder);
  imc_stream *stream = decoder->stream;
  size_t unconsumed = stream->input_length - stream->input_start;
  if (unconsumed > 0 && !session->done) {
    if (reserve(session, unconsumed, status) != IMC_OK) return status->code;
    memcpy(session->gathered + session->length, stream->input + stream->input_start, unconsumed);
    session->length += unconsumed;
  }
  stream->input_start = stream->input_length;
  session->eof = stream->eof;
  if (!session->header_ready) return read_header(decoder, status);
  if (!session->started || session->done || !session->eof) return IMC_OK;
  session->done = 1;
  int32_t code = session->format->decode(decoder, session->state, session->bytes, session->length, stream->rows,
                                         stream->row_bytes, status);
  if (code != IMC_OK) return code;
  imc_stream_image_complete(stream);
  free(session->gathered);
  session->gathered = NULL;
  session->bytes = NULL;
  session->length = session->capacity = 0;
  return IMC_OK;
}

int32_t imc_whole_stream_start(imc_decoder *decoder, int32_t scale_eighths, imc_status *status) {
  whole_session *session = session_of(decoder);
  imc_stream *stream = decoder->stream;
  if (session->format->choose_output(decoder, session->state, scale_eighths, status) != IMC_OK) return status->code;
  const imc_info *info = &decoder->info;
  size_t row_bytes = (size_t)info->output_width * imc_layout_bytes_per_pixel(info->output_layout);
  if (imc_stream_prepare_rows(stream, row_bytes, info->output_height) != IMC_OK) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for the pixels");
    return status->code;
  }
  session->started = 1;
  return IMC_OK;
}

int imc_whole_stream_done(imc_decoder *decoder) { return session_of(decoder)->done; }

int imc_whole_stream_header_ready(imc_decoder *decoder) {
  const whole_session *session = session_of(decoder);
  return session->header_ready && !session->started;
}
