/* imc_jpeg_decode.c: libjpeg-turbo decoding behind imc_decoder, through libjpeg's public API only
 * (jpeglib.h, jerror.h: no private header, no internal structure or method table).
 *
 * Why a shim: libjpeg reports errors by calling error_exit, which must not return; the only safe
 * way out is a longjmp to a setjmp in C, so every libjpeg call sits in a function here. Warnings
 * are never printed: a truncated or corrupt stream only *warns* in libjpeg, and a strict decode
 * turns the warnings that mean lost pixels into errors. APP1/APP2 markers are read by our own
 * processors so that a file full of markers cannot make libjpeg store them all: APP2 ICC_PROFILE
 * segments are kept up to the request's max_chunk_bytes in all and joined in sequence order once
 * the header is read (imc_color). A CMYK stream's rows go through the caller's row converter (an
 * ICC transform) when one is set, else through the plain formula.
 *
 * Where imgfetch's own engine takes a decode (imc_jpeg_engine_path.c), libjpeg reads the header
 * first and steps in, from where it stopped, whenever the engine gives up.
 */
#include "imc_libjpeg.h"
#include "imc_jpeg_session.h"

#include <jerror.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MARKER_BUFFER_SIZE 65536

/* The colour space codes imc_info.color_type carries (and Swift maps) are libjpeg's own. */
_Static_assert(IMC_JPEG_COLOR_GRAY == JCS_GRAYSCALE && IMC_JPEG_COLOR_RGB == JCS_RGB &&
                   IMC_JPEG_COLOR_YCBCR == JCS_YCbCr && IMC_JPEG_COLOR_CMYK == JCS_CMYK &&
                   IMC_JPEG_COLOR_YCCK == JCS_YCCK,
               "IMC_JPEG_COLOR_* must equal J_COLOR_SPACE");
/* The engine's colour space numbers are libjpeg's too (it names no libjpeg header). */
_Static_assert(JCS_GRAYSCALE == 1 && JCS_YCbCr == 3, "the engine's colour spaces are libjpeg's numbers");

static struct imc_jpeg_session *session_of_decoder(const imc_decoder *decoder) { return decoder->session; }

/* libjpeg-turbo decodes a Huffman MCU on an unchecked fast path whenever its source window holds at
 * least 512 bytes per block (jdhuff.c, BUFSIZE); otherwise on the checked path. The two disagree on
 * damaged data: the fast path silently takes a bad Huffman code as zero (the checked one warns:
 * corrupt), and when it meets FF FF it hands the MCU to the checked path without clearing the
 * coefficients it already wrote (different pixels). Which one runs depended on how many bytes were
 * buffered (memory vs file vs network chunks), so the same bytes got different verdicts. Every
 * source here hands out at most WINDOW bytes at a time, so every MCU takes the checked path: one
 * verdict for the same bytes, however they arrive. */
#define WINDOW 511

enum { PUSH_HEADER = 0, PUSH_WAIT_START, PUSH_START, PUSH_ENGINE, PUSH_ROWS, PUSH_FINISH, PUSH_DONE };

/* Push mode before the end of the data: whether `count` bytes are already here. A marker processor
 * that would need more returns FALSE without consuming anything; libjpeg calls it again later. */
static int push_lacks(j_decompress_ptr cinfo, size_t count) {
  struct imc_jpeg_session *session = cinfo->client_data;
  imc_stream *stream = session->stream;
  if (!stream || stream->eof || session->reading_file) return 0;
  size_t available = (size_t)(stream->input + stream->input_length - cinfo->src->next_input_byte);
  return available < count;
}

static unsigned peek_marker_length(j_decompress_ptr cinfo) {
  const JOCTET *p = cinfo->src->next_input_byte;
  unsigned length = (unsigned)p[0] << 8 | p[1];
  return length >= 2 ? length - 2 : 0;
}

static struct imc_jpeg_session *session_of(j_common_ptr cinfo) { return cinfo->client_data; }

/* Stops the current libjpeg call with `code` and `message`. Never returns. */
static void fail(struct imc_jpeg_session *session, int32_t code, const char *message) {
  if (session->status->code == IMC_OK) imc_status_set(session->status, code, message);
  longjmp(session->jump, 1);
}

static int32_t code_for_error(int msg_code) {
  switch (msg_code) {
  case JERR_BAD_PRECISION:
  case JERR_SOF_UNSUPPORTED:
  case JERR_NOT_COMPILED:
  case JERR_CONVERSION_NOTIMPL:
  case JERR_BAD_IN_COLORSPACE:
  case JERR_NO_ARITH_TABLE:
    return IMC_ERR_UNSUPPORTED;
  case JERR_IMAGE_TOO_BIG:
  case JERR_WIDTH_OVERFLOW:
    return IMC_ERR_LIMIT;
  case JERR_OUT_OF_MEMORY:
    return IMC_ERR_NO_MEMORY;
  case JERR_INPUT_EMPTY:
  case JERR_INPUT_EOF:
    return IMC_ERR_TRUNCATED;
  default:
    return IMC_ERR_CORRUPT;
  }
}

static void on_error_exit(j_common_ptr cinfo) {
  char message[JMSG_LENGTH_MAX];
  cinfo->err->format_message(cinfo, message);
  fail(session_of(cinfo), code_for_error(cinfo->err->msg_code), message);
}

/* Warnings that leave every pixel as the encoder wrote it. Any other warning means lost data. */
static int harmless_warning(int msg_code) {
  return msg_code == JWRN_EXTRANEOUS_DATA || msg_code == JWRN_ADOBE_XFORM || msg_code == JWRN_BOGUS_ICC ||
         msg_code == JWRN_JFIF_MAJOR;
}

static void on_emit_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return; /* trace messages */
  struct imc_jpeg_session *session = session_of(cinfo);
  int msg_code = cinfo->err->msg_code;
  if (harmless_warning(msg_code) || session->lenient) return;
  char message[JMSG_LENGTH_MAX];
  cinfo->err->format_message(cinfo, message);
  int truncated = msg_code == JWRN_JPEG_EOF || msg_code == JWRN_HIT_MARKER;
  fail(session, truncated ? IMC_ERR_TRUNCATED : IMC_ERR_CORRUPT, message);
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; /* never print */ }

static void on_progress(j_common_ptr cinfo) {
  struct imc_jpeg_session *session = session_of(cinfo);
  j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
  if (dinfo->input_scan_number > session->max_scans) {
    char message[96];
    snprintf(message, sizeof message, "JPEG has more than %d scans", session->max_scans);
    fail(session, IMC_ERR_LIMIT, message);
  }
}

/* Marker reading through the source manager (memory and stdio sources never suspend). */
static int next_byte(j_decompress_ptr cinfo) {
  struct jpeg_source_mgr *source = cinfo->src;
  if (source->bytes_in_buffer == 0) source->fill_input_buffer(cinfo);
  source->bytes_in_buffer--;
  return *source->next_input_byte++;
}

static unsigned read_marker_length(j_decompress_ptr cinfo) {
  unsigned high = (unsigned)next_byte(cinfo);
  unsigned length = high << 8 | (unsigned)next_byte(cinfo);
  return length >= 2 ? length - 2 : 0;
}

static size_t read_marker_bytes(j_decompress_ptr cinfo, uint8_t *out, size_t count) {
  struct jpeg_source_mgr *source = cinfo->src;
  size_t done = 0;
  while (done < count) {
    if (source->bytes_in_buffer == 0) source->fill_input_buffer(cinfo);
    size_t take = count - done < source->bytes_in_buffer ? count - done : source->bytes_in_buffer;
    memcpy(out + done, source->next_input_byte, take);
    source->next_input_byte += take;
    source->bytes_in_buffer -= take;
    done += take;
  }
  return done;
}

static void skip_marker_bytes(j_decompress_ptr cinfo, long count) {
  if (count > 0) cinfo->src->skip_input_data(cinfo, count);
}

/* APP1: the first "Exif" segment gives the orientation. */
static boolean on_app1(j_decompress_ptr cinfo) {
  struct imc_jpeg_session *session = session_of((j_common_ptr)cinfo);
  if (push_lacks(cinfo, 2)) return FALSE;
  if (session->stream && !session->stream->eof && !session->reading_file) {
    unsigned wanted = peek_marker_length(cinfo);
    if (!session->exif_seen && wanted >= 14 && push_lacks(cinfo, 2 + (size_t)wanted)) return FALSE;
  }
  unsigned length = read_marker_length(cinfo);
  if (session->exif_seen || length < 14) {
    skip_marker_bytes(cinfo, length);
    return TRUE;
  }
  if (!session->marker_buffer) session->marker_buffer = malloc(MARKER_BUFFER_SIZE);
  if (!session->marker_buffer) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  read_marker_bytes(cinfo, session->marker_buffer, length);
  if (memcmp(session->marker_buffer, "Exif\0\0", 6) == 0) {
    session->exif_seen = 1;
    session->info->orientation = imc_exif_orientation(session->marker_buffer + 6, length - 6);
  }
  return TRUE;
}

static void drop_icc_parts(struct imc_jpeg_session *session) {
  for (int i = 0; i < 256; i++) {
    free(session->icc_parts[i]);
    session->icc_parts[i] = NULL;
    session->icc_part_length[i] = 0;
  }
  session->icc_total = 0;
}

/* One ICC_PROFILE segment's data (`length` bytes after its sequence number and count): kept while
 * the segments are consistent and add up to at most max_chunk_bytes; otherwise every part is dropped
 * and the profile marked as such. */
static void keep_icc_part(struct imc_jpeg_session *session, j_decompress_ptr cinfo, unsigned sequence, unsigned count,
                          size_t length) {
  if (session->icc_joined || session->icc_state != IMC_ICC_KEPT) {
    skip_marker_bytes(cinfo, (long)length);
    return;
  }
  int consistent = count > 0 && sequence > 0 && sequence <= count &&
                   (session->icc_count == 0 || (int)count == session->icc_count) && !session->icc_parts[sequence];
  if (!consistent || length > session->decoder->request.max_chunk_bytes - session->icc_total) {
    session->icc_state = consistent ? IMC_ICC_OVER_LIMIT : IMC_ICC_INCOMPLETE;
    drop_icc_parts(session);
    skip_marker_bytes(cinfo, (long)length);
    return;
  }
  uint8_t *part = malloc(length > 0 ? length : 1);
  if (!part) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  session->icc_parts[sequence] = part;
  session->icc_part_length[sequence] = length;
  session->icc_count = (int)count;
  session->icc_total += length;
  read_marker_bytes(cinfo, part, length);
}

/* After the header: the segments joined in sequence order, when every one of them came. */
static void join_icc(imc_decoder *decoder) {
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  if (session->icc_joined) return;
  session->icc_joined = 1;
  decoder->color.icc_state = session->icc_state;
  if (session->icc_state != IMC_ICC_KEPT || session->icc_count == 0) return;
  for (int i = 1; i <= session->icc_count; i++) {
    if (!session->icc_parts[i]) {
      decoder->color.icc_state = IMC_ICC_INCOMPLETE;
      drop_icc_parts(session);
      return;
    }
  }
  session->icc = malloc(session->icc_total > 0 ? session->icc_total : 1);
  if (!session->icc) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  size_t at = 0;
  for (int i = 1; i <= session->icc_count; i++) {
    memcpy(session->icc + at, session->icc_parts[i], session->icc_part_length[i]);
    at += session->icc_part_length[i];
  }
  drop_icc_parts(session);
  decoder->color.icc = session->icc;
  decoder->color.icc_length = at;
}

/* APP2: ICC_PROFILE segments are kept (keep_icc_part); anything else is skipped. */
static boolean on_app2(j_decompress_ptr cinfo) {
  struct imc_jpeg_session *session = session_of((j_common_ptr)cinfo);
  if (push_lacks(cinfo, 2)) return FALSE;
  if (session->stream && !session->stream->eof && !session->reading_file) {
    unsigned wanted = peek_marker_length(cinfo);
    if (push_lacks(cinfo, 2 + (size_t)wanted)) return FALSE; /* the whole segment, as for Exif */
  }
  unsigned length = read_marker_length(cinfo);
  uint8_t head[14];
  size_t take = length < sizeof head ? length : sizeof head;
  read_marker_bytes(cinfo, head, take);
  if (take == sizeof head && memcmp(head, "ICC_PROFILE\0", 12) == 0) {
    session->info->has_icc = 1;
    keep_icc_part(session, cinfo, head[12], head[13], length - take);
    return TRUE;
  }
  skip_marker_bytes(cinfo, (long)(length - take));
  return TRUE;
}

/* Picks the output layout and libjpeg colour space for the request. */
static int32_t choose_output(struct imc_jpeg_session *session, int32_t want, imc_status *status) {
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  int gray = cinfo->jpeg_color_space == JCS_GRAYSCALE && cinfo->num_components == 1;
  int cmyk = (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) &&
             cinfo->num_components == 4;
  int color = cinfo->num_components == 3;
  if (!gray && !cmyk && !color) {
    imc_status_setf(status, IMC_ERR_UNSUPPORTED, "unsupported JPEG colour space (%d components)",
                    cinfo->num_components);
    return IMC_LAYOUT_NONE;
  }
  int32_t layout;
  switch (want) {
  case IMC_WANT_RGBA8: layout = IMC_LAYOUT_RGBA8; break;
  case IMC_WANT_RGB8: layout = IMC_LAYOUT_RGB8; break;
  case IMC_WANT_GRAY8: layout = IMC_LAYOUT_GRAY8; break;
  default: layout = gray ? IMC_LAYOUT_GRAY8 : IMC_LAYOUT_RGB8; break;
  }
  if (cmyk) {
    cinfo->out_color_space = JCS_CMYK;
    session->cmyk_to_layout = 1;
  } else if (layout == IMC_LAYOUT_GRAY8) {
    cinfo->out_color_space = JCS_GRAYSCALE;
  } else {
    cinfo->out_color_space = layout == IMC_LAYOUT_RGBA8 ? JCS_EXT_RGBA : JCS_RGB;
  }
  return layout;
}

/* Creates the session and the decompressor (under the caller's setjmp). */
static int32_t create_session(imc_decoder *decoder, imc_status *status) {
  struct imc_jpeg_session *session = calloc(1, sizeof *session);
  if (!session) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  decoder->session = session;
  session->reread_fd = -1;
  session->status = status;
  session->info = &decoder->info;
  session->decoder = decoder;
  session->stream = decoder->stream;
  session->lenient = decoder->request.lenient;
  session->max_scans = decoder->request.max_scans;
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  cinfo->err = jpeg_std_error(&session->errors);
  session->errors.error_exit = on_error_exit;
  session->errors.emit_message = on_emit_message;
  session->errors.output_message = on_output_message;
  return IMC_OK;
}

static void configure(struct imc_jpeg_session *session) {
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  cinfo->client_data = session;
  session->progress.progress_monitor = on_progress;
  cinfo->progress = &session->progress;
  jpeg_set_marker_processor(cinfo, JPEG_APP0 + 1, on_app1);
  jpeg_set_marker_processor(cinfo, JPEG_APP0 + 2, on_app2);
}

/* After jpeg_read_header: the header facts and the header's limits. */
static int32_t describe(imc_decoder *decoder, imc_status *status) {
  struct jpeg_decompress_struct *cinfo = &session_of_decoder(decoder)->cinfo;
  imc_info *info = &decoder->info;
  info->format = IMC_FORMAT_JPEG;
  info->width = cinfo->image_width;
  info->height = cinfo->image_height;
  info->color_type = cinfo->jpeg_color_space;
  info->bit_depth = cinfo->data_precision;
  info->components = cinfo->num_components;
  info->interlaced = cinfo->progressive_mode ? 1 : 0;
  info->arithmetic = cinfo->arith_code ? 1 : 0;
  for (int i = 0; i < cinfo->num_components && i < 4; i++) {
    info->h_sampling[i] = cinfo->comp_info[i].h_samp_factor;
    info->v_sampling[i] = cinfo->comp_info[i].v_samp_factor;
  }
  decoder->color.adobe_transform = cinfo->saw_Adobe_marker ? cinfo->Adobe_transform : -1;
  join_icc(decoder);
  if (imc_check_limits(&decoder->request, info->width, info->height, status)) return status->code;
  return IMC_OK;
}

/* The output layout, DCT scale and output size, checked against the limits. */
static int32_t choose_scaled_output(imc_decoder *decoder, int32_t scale_eighths, imc_status *status) {
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  imc_info *info = &decoder->info;
  info->output_layout = choose_output(session, decoder->request.want, status);
  if (info->output_layout == IMC_LAYOUT_NONE) return status->code;
  cinfo->dct_method = JDCT_ISLOW;
  cinfo->scale_num = (unsigned)(scale_eighths > 0 ? scale_eighths : 8);
  cinfo->scale_denom = 8;
  jpeg_calc_output_dimensions(cinfo);
  info->output_width = cinfo->output_width;
  info->output_height = cinfo->output_height;
  /* Scales above 8/8 enlarge: the output, not only the stored size, must be within the limits. */
  if (imc_check_limits(&decoder->request, info->output_width, info->output_height, status)) return status->code;
  return IMC_OK;
}

/* ---- Pull mode's source: the bytes in memory, or the file read 64 KiB at a time, in windows. ---- */

#define FILE_BUFFER_SIZE 65536

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

/* The next buffer of the file: pull mode's stream, or (a stream handed back by the engine) the
 * descriptor the stream was given, read with pread at our own offset. */
static void refill_from_file(struct imc_jpeg_session *session) {
  if (session->reread_fd >= 0) {
    ssize_t got = session->reread_ended ? 0
                                        : pread(session->reread_fd, session->file_buffer, FILE_BUFFER_SIZE,
                                                (off_t)session->reread_offset);
    if (got <= 0) {
      session->reread_ended = 1; /* an error reads as the end: libjpeg's verdict on what it had */
      got = 0;
    }
    session->reread_offset += (uint64_t)got;
    session->length = (size_t)got;
  } else {
    session->length = fread(session->file_buffer, 1, FILE_BUFFER_SIZE, session->file);
  }
  session->bytes = session->file_buffer;
  session->offset = 0;
}

/* Whether the file has nothing more to give (or there is no file). */
static int file_ended(const struct imc_jpeg_session *session) {
  if (session->reread_fd >= 0) return session->reread_ended;
  return !session->file || feof(session->file) || ferror(session->file);
}

static boolean pull_fill(j_decompress_ptr cinfo) {
  struct imc_jpeg_session *session = cinfo->client_data;
  if (session->offset >= session->length && (session->file || session->reread_fd >= 0)) refill_from_file(session);
  if (session->offset >= session->length) {
    /* The end of the data, met as jpeg_mem_src and jpeg_stdio_src meet it: a warning, a fake EOI. */
    WARNMS(cinfo, JWRN_JPEG_EOF);
    cinfo->src->next_input_byte = fake_eoi;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
  }
  size_t take = session->length - session->offset < WINDOW ? session->length - session->offset : WINDOW;
  cinfo->src->next_input_byte = session->bytes + session->offset;
  cinfo->src->bytes_in_buffer = take;
  session->offset += take;
  return TRUE;
}

/* Past the end, jpeg_mem_src's skip takes fake EOIs (a warning each) two bytes at a time until the
 * count is used up. The same end state at once: a 65,533-byte skip past the end of a lenient decode
 * costs one warning, not 32,767 (the strict decode fails at the first). `past` > 0 bytes to skip. */
static void skip_past_end(j_decompress_ptr cinfo, uint64_t past) {
  WARNMS(cinfo, JWRN_JPEG_EOF);
  size_t used = (size_t)((past - 1) % 2 + 1); /* of the last fake EOI: 1 or 2 bytes */
  cinfo->src->next_input_byte = fake_eoi + used;
  cinfo->src->bytes_in_buffer = 2 - used;
}

static void pull_skip(j_decompress_ptr cinfo, long count) {
  struct jpeg_source_mgr *source = cinfo->src;
  struct imc_jpeg_session *session = cinfo->client_data;
  if (count <= 0) return;
  while ((size_t)count > source->bytes_in_buffer) {
    count -= (long)source->bytes_in_buffer;
    source->bytes_in_buffer = 0;
    if (session->offset >= session->length && file_ended(session)) {
      skip_past_end(cinfo, (uint64_t)count);
      return;
    }
    pull_fill(cinfo);
  }
  source->next_input_byte += count;
  source->bytes_in_buffer -= (size_t)count;
}

static void use_source(struct imc_jpeg_session *session, boolean (*fill)(j_decompress_ptr),
                       void (*skip)(j_decompress_ptr, long)) {
  session->source.init_source = source_init;
  session->source.fill_input_buffer = fill;
  session->source.skip_input_data = skip;
  session->source.resync_to_restart = jpeg_resync_to_restart;
  session->source.term_source = source_term;
  session->source.next_input_byte = NULL;
  session->source.bytes_in_buffer = 0;
  session->cinfo.src = &session->source;
}

static int32_t jpeg_open(imc_decoder *decoder, imc_status *status) {
  if (create_session(decoder, status) != IMC_OK) return status->code;
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  if (setjmp(session->jump)) return status->code;
  jpeg_create_decompress(cinfo);
  session->created = 1;
  configure(session);
  if (decoder->source.file) {
    session->file = decoder->source.file;
    session->file_buffer = malloc(FILE_BUFFER_SIZE);
    if (!session->file_buffer) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  } else {
    session->bytes = decoder->source.data;
    session->length = decoder->source.length;
  }
  use_source(session, pull_fill, pull_skip);
  jpeg_read_header(cinfo, TRUE);
  if (describe(decoder, status) != IMC_OK) return status->code;
  return choose_scaled_output(decoder, decoder->request.scale_eighths, status);
}

/* A fresh decompressor, as imc_jpeg_open made the first (under the caller's setjmp). */
static void recreate(struct imc_jpeg_session *session) {
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  jpeg_destroy_decompress(cinfo);
  session->created = 0;
  jpeg_create_decompress(cinfo);
  session->created = 1;
  configure(session);
  session->exif_seen = 0;
  session->cmyk_to_layout = 0;
}

/* Adobe-inverted CMYK (as libjpeg returns it) to the output layout: R = C*K/255, rounded. This is
 * what a CMYK JPEG without an ICC profile gets (and one whose profile is not used): the naive
 * conversion browsers and Pillow apply, with no ink model. */
static void convert_cmyk_row(const uint8_t *cmyk, uint8_t *out, uint32_t width, int32_t layout) {
  for (uint32_t x = 0; x < width; x++, cmyk += 4) {
    unsigned k = cmyk[3];
    uint8_t r = (uint8_t)((cmyk[0] * k + 127) / 255);
    uint8_t g = (uint8_t)((cmyk[1] * k + 127) / 255);
    uint8_t b = (uint8_t)((cmyk[2] * k + 127) / 255);
    switch (layout) {
    case IMC_LAYOUT_GRAY8: *out++ = (uint8_t)((r * 19595u + g * 38470u + b * 7471u + 32768u) >> 16); break;
    case IMC_LAYOUT_RGBA8: *out++ = r; *out++ = g; *out++ = b; *out++ = 255; break;
    default: *out++ = r; *out++ = g; *out++ = b; break;
    }
  }
}

/* One CMYK row to the output: through the caller's converter (an ICC transform) when set. */
static void convert_cmyk(imc_decoder *decoder, const uint8_t *cmyk, uint8_t *out, uint32_t width) {
  if (decoder->cmyk_rows && decoder->cmyk_layout == decoder->info.output_layout)
    decoder->cmyk_rows(decoder->cmyk_context, cmyk, out, width);
  else convert_cmyk_row(cmyk, out, width, decoder->info.output_layout);
}

/* ---- Pull mode ---- */

/* Every row from libjpeg, after the header it read (the engine left its session untouched). */
static int32_t read_with_libjpeg(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  session->status = status;
  if (setjmp(session->jump)) return status->code;
  jpeg_start_decompress(cinfo);
  uint32_t width = cinfo->output_width;
  if (session->cmyk_to_layout) {
    session->scratch = malloc((size_t)width * 4);
    if (!session->scratch) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
    while (cinfo->output_scanline < cinfo->output_height) {
      uint8_t *out = pixels + (size_t)cinfo->output_scanline * row_bytes;
      JSAMPROW row = session->scratch;
      jpeg_read_scanlines(cinfo, &row, 1);
      convert_cmyk(decoder, session->scratch, out, width);
    }
  } else {
    JSAMPROW rows[16];
    while (cinfo->output_scanline < cinfo->output_height) {
      unsigned first = cinfo->output_scanline, count = cinfo->output_height - first;
      if (count > 16) count = 16;
      for (unsigned i = 0; i < count; i++) rows[i] = pixels + (size_t)(first + i) * row_bytes;
      jpeg_read_scanlines(cinfo, rows, count);
    }
  }
  jpeg_finish_decompress(cinfo);
  return IMC_OK;
}

static int32_t jpeg_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  imc_jpeg_engine_request request;
  if (imc_jpeg_engine_wanted(session, decoder, decoder->request.scale_eighths, 0, &request) &&
      imc_jpeg_engine_pull(session, decoder, pixels, row_bytes, &request))
    return IMC_OK;
  return read_with_libjpeg(decoder, pixels, row_bytes, status);
}

static int32_t jpeg_validate(imc_decoder *decoder, imc_status *status) {
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  imc_jpeg_engine_request request;
  if (imc_jpeg_engine_wanted(session, decoder, decoder->request.scale_eighths, 1, &request) &&
      imc_jpeg_engine_pull(session, decoder, NULL, 0, &request))
    return IMC_OK;
  session->status = status;
  if (setjmp(session->jump)) return status->code;
  jpeg_start_decompress(cinfo);
  /* One row in libjpeg's own pool: released with the decompressor, also after a longjmp. */
  JSAMPARRAY row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                cinfo->output_width * (JDIMENSION)cinfo->output_components, 1);
  while (cinfo->output_scanline < cinfo->output_height) jpeg_read_scanlines(cinfo, row, 1);
  jpeg_finish_decompress(cinfo);
  return IMC_OK;
}

/* ---- Push mode (imc_stream): libjpeg with a suspending source over the stream's unconsumed bytes. ----
 * The bytes are handed out in windows (WINDOW) like the pull sources'. When the bytes run out before
 * the end of the data, the source suspends libjpeg: it backs up to its last sync point (where it
 * stored its position in the source), which we track, and is called again with more bytes. Once
 * imc_stream_finish has said there are no more, the source behaves exactly as the pull sources at
 * their end (a warning, then a fake EOI), so the verdict is the pull decoder's. */

static void push_window(struct imc_jpeg_session *session, size_t from) {
  imc_stream *stream = session->stream;
  size_t take = stream->input_length - from < WINDOW ? stream->input_length - from : WINDOW;
  session->source.next_input_byte = stream->input + from;
  session->source.bytes_in_buffer = take;
  session->window_start = session->source.next_input_byte;
  session->window_end = from + take;
}

static boolean push_fill(j_decompress_ptr cinfo) {
  struct imc_jpeg_session *session = cinfo->client_data;
  imc_stream *stream = session->stream;
  struct jpeg_source_mgr *source = cinfo->src;
  if (!session->fed_fake_eoi) {
    /* libjpeg stores its position in the source only where it can resume (after a marker, an MCU):
     * a position other than the window we set is such a sync point. Right after a window is set it
     * always reads a byte before it syncs, so an unchanged position means no sync since. */
    if (source->next_input_byte != session->window_start)
      session->restart = (size_t)(source->next_input_byte - stream->input);
    if (session->window_end < stream->input_length) {
      push_window(session, session->window_end);
      return TRUE;
    }
    if (!stream->eof) {
      source->next_input_byte = stream->input + session->restart;
      source->bytes_in_buffer = 0;
      return FALSE;
    }
  }
  session->fed_fake_eoi = 1;
  if (stream->skip_pending > 0) {
    /* A skip that ran past the end: where jpeg_mem_src's skip would leave it (see skip_past_end). */
    uint64_t past = stream->skip_pending;
    stream->skip_pending = 0;
    skip_past_end(cinfo, past);
    if (source->bytes_in_buffer > 0) return TRUE;
  }
  WARNMS(cinfo, JWRN_JPEG_EOF);
  source->next_input_byte = fake_eoi;
  source->bytes_in_buffer = 2;
  return TRUE;
}

static void push_skip(j_decompress_ptr cinfo, long count) {
  struct jpeg_source_mgr *source = cinfo->src;
  struct imc_jpeg_session *session = cinfo->client_data;
  imc_stream *stream = session->stream;
  if (count <= 0) return;
  if ((size_t)count <= source->bytes_in_buffer) {
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
    return;
  }
  if (session->fed_fake_eoi) {
    skip_past_end(cinfo, (uint64_t)count - source->bytes_in_buffer);
    return;
  }
  /* libjpeg synced before skipping: the position after the skip is where it resumes. */
  uint64_t target = (uint64_t)(source->next_input_byte - stream->input) + (uint64_t)count;
  if (target > stream->input_length) {
    stream->skip_pending += target - stream->input_length; /* dropped from bytes still to come */
    target = stream->input_length;
  }
  push_window(session, (size_t)target);
  session->restart = (size_t)target;
}

static int32_t jpeg_stream_begin(imc_decoder *decoder, imc_status *status) {
  if (create_session(decoder, status) != IMC_OK) return status->code;
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  if (setjmp(session->jump)) return status->code;
  jpeg_create_decompress(cinfo);
  session->created = 1;
  configure(session);
  use_source(session, push_fill, push_skip);
  /* Every byte from the first is kept until the engine is known not to run (it starts there). */
  session->stream->retain = !session->lenient && !decoder->request.libjpeg_only;
  return IMC_OK;
}

static int32_t jpeg_stream_start(imc_decoder *decoder, int32_t scale_eighths, imc_status *status) {
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  imc_stream *stream = session->stream;
  session->status = status;
  if (setjmp(session->jump)) return status->code;
  if (choose_scaled_output(decoder, scale_eighths, status) != IMC_OK) return status->code;
  session->scale_eighths = scale_eighths;
  const imc_info *info = &decoder->info;
  size_t row_bytes = (size_t)info->output_width * imc_layout_bytes_per_pixel(info->output_layout);
  if (imc_stream_prepare_rows(stream, row_bytes, 0) != IMC_OK) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  if (session->cmyk_to_layout) {
    session->scratch = malloc((size_t)info->output_width * 4);
    if (!session->scratch) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  }
  /* The engine, when it takes the decode and has every byte from the first. A stream whose bytes
   * are a file libjpeg can read again keeps none of them behind the engine. */
  imc_jpeg_engine_request request;
  if (stream->retain && !stream->retain_overflow && row_bytes == (size_t)info->output_width * (size_t)session->cinfo.out_color_components &&
      imc_jpeg_engine_wanted(session, decoder, scale_eighths, 0, &request)) {
    session->engine = imc_jpeg_engine_create(&request);
    session->engine_position = 0;
    session->engine_next = session->engine_count = 0;
  }
  if (session->engine) {
    session->phase = PUSH_ENGINE;
    if (stream->source_fd >= 0) stream->retain = 0;
  } else {
    session->phase = PUSH_START;
    stream->retain = 0;
  }
  return IMC_OK;
}

/* The engine handed the stream back: libjpeg goes on from the header it read (every byte since is
 * kept), or, when the bytes were not kept, decodes the stream's source file from its first byte.
 * Either way it skips the rows the engine already queued. */
static void hand_back_to_libjpeg(struct imc_jpeg_session *session) {
  imc_stream *stream = session->stream;
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  session->rows_to_drop = stream->rows_produced;
  session->drop_row = malloc((size_t)cinfo->output_width * (size_t)cinfo->out_color_components + 64);
  if (!session->drop_row) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  if (stream->retain) {
    /* Its place is where the header pump left the stream's kept bytes. */
    stream->retain = 0;
    session->phase = PUSH_START;
    return;
  }
  session->first_info = session->stream->decoder.info;
  recreate(session);
  /* The file the stream was opened on, by its descriptor: the path may name another file by now
   * (renamed over, a FIFO put in its place), and the rows and verdict must be of this one. */
  session->reread_fd = stream->source_fd;
  session->reread_offset = 0;
  session->reread_ended = 0;
  session->file_buffer = malloc(FILE_BUFFER_SIZE);
  if (!session->file_buffer) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  session->reading_file = 1;
  session->bytes = session->file_buffer;
  session->length = session->offset = 0;
  use_source(session, pull_fill, pull_skip);
  session->phase = PUSH_HEADER;
  session->started_over = 1;
  session->fed_fake_eoi = 0;
  stream->skip_pending = 0;
}

static int32_t jpeg_stream_pump(imc_decoder *decoder, imc_status *status) {
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  imc_stream *stream = session->stream;
  session->status = status;
  struct jpeg_source_mgr *source = &session->source;
  int32_t code = IMC_OK;
  if (setjmp(session->jump)) {
    code = status->code;
    goto consumed;
  }
  if (session->phase == PUSH_ENGINE) {
    int outcome = imc_jpeg_engine_pump(session, stream);
    if (outcome == ENGINE_WAIT) return IMC_OK;
    if (outcome == ENGINE_DONE) {
      session->phase = PUSH_DONE;
      stream->retain = 0;
      return IMC_OK;
    }
    hand_back_to_libjpeg(session);
  }
  if (!session->reading_file) {
    session->restart = stream->input_start;
    push_window(session, stream->input_start);
  }
  if (session->phase == PUSH_HEADER) {
    if (jpeg_read_header(cinfo, TRUE) == JPEG_SUSPENDED) goto consumed;
    if (describe(decoder, status) != IMC_OK) {
      code = status->code;
      goto consumed;
    }
    session->phase = PUSH_WAIT_START;
    if (!session->started_over) goto consumed;
    /* Started over from the file: the scale was chosen and the rows prepared before. */
    if (choose_scaled_output(decoder, session->scale_eighths, status) != IMC_OK) {
      code = status->code;
      goto consumed;
    }
    /* The queue and the rows to drop were sized by the first reading of the header: a file
     * written over in place since (same descriptor, other bytes) must not decode into them. */
    const imc_info *now = &decoder->info, *then = &session->first_info;
    if (now->width != then->width || now->height != then->height || now->components != then->components ||
        now->output_width != then->output_width || now->output_height != then->output_height ||
        now->output_layout != then->output_layout) {
      imc_status_set(status, IMC_ERR_IO, "the file changed while it was decoded");
      code = status->code;
      goto consumed;
    }
    session->phase = PUSH_START;
  }
  /* libjpeg's arithmetic decoder cannot suspend: an arithmetic-coded file waits for its last byte. */
  if (cinfo->arith_code && !stream->eof && !session->reading_file) goto consumed;
  if (session->phase == PUSH_START) {
    if (!jpeg_start_decompress(cinfo)) goto consumed;
    session->phase = PUSH_ROWS;
  }
  while (session->phase == PUSH_ROWS) {
    if (cinfo->output_scanline >= cinfo->output_height) {
      session->phase = PUSH_FINISH;
      break;
    }
    if (session->rows_to_drop > 0) {
      JSAMPROW row = session->drop_row;
      if (jpeg_read_scanlines(cinfo, &row, 1) == 0) goto consumed;
      session->rows_to_drop--;
      continue;
    }
    size_t room = imc_stream_free_rows(stream);
    if (room == 0) {
      if (stream->unbounded) fail(session, IMC_ERR_NO_MEMORY, "out of memory for the rows");
      goto consumed;
    }
    JDIMENSION got;
    if (session->cmyk_to_layout) {
      JSAMPROW row = session->scratch;
      got = jpeg_read_scanlines(cinfo, &row, 1);
      if (got == 1) convert_cmyk(decoder, session->scratch, imc_stream_slot(stream, 0), cinfo->output_width);
    } else {
      JSAMPROW rows[16];
      size_t count = room < 16 ? room : 16;
      for (size_t i = 0; i < count; i++) rows[i] = imc_stream_slot(stream, i);
      got = jpeg_read_scanlines(cinfo, rows, (JDIMENSION)count);
    }
    if (got == 0) goto consumed; /* suspended */
    imc_stream_commit_rows(stream, got);
  }
  if (session->phase == PUSH_FINISH) {
    if (!jpeg_finish_decompress(cinfo)) goto consumed;
    session->phase = PUSH_DONE;
  }
consumed:
  if (session->reading_file) stream->input_start = stream->input_length; /* libjpeg reads the file */
  else if (session->fed_fake_eoi) stream->input_start = stream->input_length;
  else stream->input_start = (size_t)(source->next_input_byte - stream->input);
  return code;
}

static int jpeg_stream_done(imc_decoder *decoder) { return session_of_decoder(decoder)->phase == PUSH_DONE; }
static int jpeg_stream_header_ready(imc_decoder *decoder) {
  return session_of_decoder(decoder)->phase == PUSH_WAIT_START;
}

static void jpeg_close(imc_decoder *decoder) {
  struct imc_jpeg_session *session = session_of_decoder(decoder);
  if (!session) return;
  if (session->created) jpeg_destroy_decompress(&session->cinfo);
  free(session->marker_buffer);
  drop_icc_parts(session);
  free(session->icc);
  free(session->scratch);
  free(session->file_buffer);
  free(session->drop_row);
  imc_jpeg_engine_destroy(session->engine);
  free(session);
  decoder->session = NULL;
}

const imc_format_ops imc_jpeg_format = {
    .format = IMC_FORMAT_JPEG,
    .open = jpeg_open,
    .read = jpeg_read,
    .validate = jpeg_validate,
    .close = jpeg_close,
    .stream_begin = jpeg_stream_begin,
    .stream_scan = NULL,
    .stream_pump = jpeg_stream_pump,
    .stream_start = jpeg_stream_start,
    .stream_done = jpeg_stream_done,
    .stream_header_ready = jpeg_stream_header_ready,
    .last_bytes_end_input = 1,
};
