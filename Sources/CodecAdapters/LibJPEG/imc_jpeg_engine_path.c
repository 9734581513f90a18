/* imc_jpeg_engine_path.c: imgfetch's JPEG engine (Sources/CodecEngines/JPEG) in a decode, and the
 * hand-over to libjpeg when it gives up.
 *
 * Which decodes the engine takes was decided by measurement (benchmarks/README.md, "JPEG paths"):
 *   - progressive Huffman JPEGs at 1/8 and 1/4, faster than libjpeg, which decodes their scans a
 *     byte at a time and (at 1/8) keeps all 64 coefficients of blocks whose output is one sample;
 *   - sequential (baseline) JPEGs at 1/8, where most of the work is skipping AC coefficients that
 *     libjpeg decodes one code at a time on its checked path; except 4:2:0 (chroma made by a 2x2
 *     inverse DCT) while other decodes run: there libjpeg's SIMD inverse DCT is faster, so libjpeg
 *     decodes;
 *   - validations (no pixels) at those scales.
 * Everything else (full size, 1/2, sequential at 1/4, CMYK, arithmetic coding, lenient decodes) is
 * libjpeg's alone. Whatever the engine takes, libjpeg has read the header first (the limits, EXIF,
 * ICC, the output size): the engine starts from the first byte, and its reading of the header must
 * agree with libjpeg's, or libjpeg decodes. When the engine gives up, libjpeg's session goes on
 * from the header it read, as if the engine had never run: the verdict is always libjpeg's.
 */
#include "imc_jpeg_session.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes a pull decode from a file reads at a time (with pread: libjpeg's stdio position is kept). */
#define FILE_PIECE ((size_t)256 << 10)

/* Whether a component the output needs is made by a larger inverse DCT than the luma's at 1/8 (the
 * chroma of 4:2:0: libjpeg scales a component up by its inverse DCT where its sampling allows). */
static int chroma_by_larger_idct(const struct jpeg_decompress_struct *cinfo, int32_t layout) {
  if (cinfo->num_components != 3 || layout == IMC_LAYOUT_GRAY8) return 0;
  int max_h = 1, max_v = 1;
  for (int c = 0; c < 3; c++) {
    if (cinfo->comp_info[c].h_samp_factor > max_h) max_h = cinfo->comp_info[c].h_samp_factor;
    if (cinfo->comp_info[c].v_samp_factor > max_v) max_v = cinfo->comp_info[c].v_samp_factor;
  }
  for (int c = 0; c < 3; c++) {
    int h = cinfo->comp_info[c].h_samp_factor, v = cinfo->comp_info[c].v_samp_factor;
    if (max_h % (h * 2) == 0 && max_v % (v * 2) == 0) return 1;
  }
  return 0;
}

int imc_jpeg_engine_wanted(const struct imc_jpeg_session *session, const imc_decoder *decoder, int32_t scale_eighths,
                           int discard, imc_jpeg_engine_request *request) {
  const struct jpeg_decompress_struct *cinfo = &session->cinfo;
  if (session->lenient || decoder->request.libjpeg_only || session->cmyk_to_layout) return 0;
  if (cinfo->arith_code || cinfo->data_precision != 8) return 0;
  if (cinfo->jpeg_color_space != JCS_GRAYSCALE && cinfo->jpeg_color_space != JCS_YCbCr) return 0;
  int pays = cinfo->progressive_mode ? scale_eighths == 1 || scale_eighths == 2 : scale_eighths == 1;
  if (!pays) return 0;
  if (!cinfo->progressive_mode && !decoder->request.engine_always && imc_busy_count() > 1 &&
      chroma_by_larger_idct(cinfo, decoder->info.output_layout))
    return 0;
  int output;
  switch (decoder->info.output_layout) {
  case IMC_LAYOUT_GRAY8: output = IMC_JPEG_ENGINE_GRAY; break;
  case IMC_LAYOUT_RGB8: output = IMC_JPEG_ENGINE_RGB; break;
  case IMC_LAYOUT_RGBA8: output = IMC_JPEG_ENGINE_RGBA; break;
  default: return 0;
  }
  memset(request, 0, sizeof *request);
  request->scale_eighths = scale_eighths;
  request->output = output;
  request->discard_pixels = discard;
  request->max_scans = session->max_scans;
  return 1;
}

/* Whether the engine read the header as libjpeg did (sizes, components, sampling, colour space). */
static int agrees_with_libjpeg(const struct imc_jpeg_session *session, const imc_jpeg_engine *engine) {
  const struct jpeg_decompress_struct *cinfo = &session->cinfo;
  imc_jpeg_engine_facts facts;
  if (!imc_jpeg_engine_facts_of(engine, &facts)) return 0;
  if (facts.width != cinfo->image_width || facts.height != cinfo->image_height) return 0;
  if (facts.output_width != cinfo->output_width || facts.output_height != cinfo->output_height) return 0;
  if (facts.components != cinfo->num_components || facts.color_space != (int32_t)cinfo->jpeg_color_space) return 0;
  if (facts.progressive != (cinfo->progressive_mode ? 1 : 0)) return 0;
  for (int c = 0; c < facts.components; c++)
    if (facts.h_sampling[c] != cinfo->comp_info[c].h_samp_factor ||
        facts.v_sampling[c] != cinfo->comp_info[c].v_samp_factor)
      return 0;
  return 1;
}

int imc_jpeg_engine_pull(struct imc_jpeg_session *session, imc_decoder *decoder, uint8_t *pixels, size_t row_bytes,
                         const imc_jpeg_engine_request *request) {
  imc_jpeg_engine *engine = imc_jpeg_engine_create(request);
  if (!engine) return 0;
  const uint8_t *input = decoder->source.data;
  size_t length = decoder->source.length, position = 0;
  int eof = 1;
  uint8_t *buffer = NULL;
  uint64_t file_offset = 0;
  int fd = -1;
  if (decoder->source.file) {
    buffer = malloc(FILE_PIECE);
    if (!buffer) {
      imc_jpeg_engine_destroy(engine);
      return 0;
    }
    fd = fileno(decoder->source.file);
    input = buffer;
    length = 0;
    eof = 0;
  }
  uint32_t height = session->cinfo.output_height, y = 0;
  size_t output_bytes = (size_t)session->cinfo.output_width * (size_t)session->cinfo.out_color_components;
  int done = 0, wants_input = 0;
  for (;;) {
    /* Refill below half a window, and whenever the engine asks for more: it asks only when what
     * it has unread cannot go on (a marker segment cut by the window's end). */
    if (fd >= 0 && !eof && (wants_input || length - position < FILE_PIECE / 2)) {
      /* A full window the engine cannot go on with: no progress is possible, libjpeg decodes. */
      if (wants_input && position == 0 && length == FILE_PIECE) break;
      /* Keep what the engine has not consumed, read after it. */
      memmove(buffer, buffer + position, length - position);
      length -= position;
      position = 0;
      ssize_t got = pread(fd, buffer + length, FILE_PIECE - length, (off_t)file_offset);
      if (got <= 0) eof = 1;
      else {
        length += (size_t)got;
        file_offset += (uint64_t)got;
      }
    }
    int32_t result = imc_jpeg_engine_step(engine, input, length, eof, &position);
    wants_input = result == IMC_JPEG_ENGINE_INPUT;
    if (wants_input && fd >= 0 && !eof) continue;
    if (result == IMC_JPEG_ENGINE_ROWS || result == IMC_JPEG_ENGINE_DONE) {
      if (!session->engine_checked) {
        if (!agrees_with_libjpeg(session, engine)) break;
        session->engine_checked = 1;
      }
    }
    if (result == IMC_JPEG_ENGINE_ROWS) {
      uint32_t count = 0;
      size_t stride = 0;
      const uint8_t *rows = imc_jpeg_engine_rows(engine, &count, &stride);
      if (count > height - y) break;
      for (uint32_t i = 0; i < count && pixels; i++)
        memcpy(pixels + (size_t)(y + i) * row_bytes, rows + (size_t)i * stride, output_bytes);
      y += count;
      continue;
    }
    done = result == IMC_JPEG_ENGINE_DONE && (y == height || !pixels);
    break;
  }
  imc_jpeg_engine_destroy(engine);
  free(buffer);
  session->engine_checked = 0;
  return done;
}

/* Queues the engine's rows of its last step, as many as there is room for. 0 when the queue is full. */
static int queue_rows(struct imc_jpeg_session *session, imc_stream *stream) {
  uint32_t count = 0;
  size_t stride = 0;
  const uint8_t *rows = imc_jpeg_engine_rows(session->engine, &count, &stride);
  while (session->engine_next < session->engine_count) {
    size_t room = imc_stream_free_rows(stream);
    if (room == 0) return 0;
    size_t take = session->engine_count - session->engine_next;
    if (take > room) take = room;
    for (size_t i = 0; i < take; i++)
      memcpy(imc_stream_slot(stream, i), rows + (size_t)(session->engine_next + i) * stride, stream->row_bytes);
    imc_stream_commit_rows(stream, take);
    session->engine_next += (uint32_t)take;
  }
  return 1;
}

int imc_jpeg_engine_pump(struct imc_jpeg_session *session, imc_stream *stream) {
  /* The stream kept every byte from the first (or drops those before the engine's place when the
   * bytes are a file libjpeg can read again): the engine's place is where its kept bytes start. */
  if (!stream->retain) session->engine_position = stream->input_start;
  int outcome = ENGINE_HAND_BACK;
  for (;;) {
    if (!queue_rows(session, stream)) {
      if (stream->unbounded) break; /* no memory for the rows: libjpeg reports it */
      outcome = ENGINE_WAIT;
      goto out;
    }
    if (stream->retain_overflow) break; /* more bytes than a stream keeps for a hand-back */
    size_t position = session->engine_position;
    int32_t result = imc_jpeg_engine_step(session->engine, stream->input, stream->input_length, stream->eof, &position);
    session->engine_position = position;
    if ((result == IMC_JPEG_ENGINE_ROWS || result == IMC_JPEG_ENGINE_DONE) && !session->engine_checked) {
      if (!agrees_with_libjpeg(session, session->engine)) break;
      session->engine_checked = 1;
    }
    if (result == IMC_JPEG_ENGINE_ROWS) {
      uint32_t count = 0;
      size_t stride = 0;
      imc_jpeg_engine_rows(session->engine, &count, &stride);
      session->engine_next = 0;
      session->engine_count = count;
      continue;
    }
    if (result == IMC_JPEG_ENGINE_INPUT) {
      outcome = ENGINE_WAIT;
      goto out;
    }
    if (result == IMC_JPEG_ENGINE_DONE) outcome = ENGINE_DONE;
    break;
  }
  imc_jpeg_engine_destroy(session->engine);
  session->engine = NULL;
  session->engine_checked = 0;
out:
  if (!stream->retain) stream->input_start = session->engine_position;
  return outcome;
}
