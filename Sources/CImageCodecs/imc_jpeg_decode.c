/* imc_jpeg_decode.c: libjpeg-turbo decoding behind imc_decoder.
 *
 * Why a shim: libjpeg reports errors by calling error_exit, which must not return; the only safe
 * way out is a longjmp to a setjmp in C, so every libjpeg call sits in a function here. Warnings
 * are never printed: a truncated or corrupt stream only *warns* in libjpeg, and a strict decode
 * turns the warnings that mean lost pixels into errors. APP1/APP2 markers are read
 * by our own processors so that a file full of markers cannot make libjpeg store them all: APP2
 * ICC_PROFILE segments are kept up to the request's max_chunk_bytes in all and joined in sequence
 * order once the header is read (imc_color). A CMYK stream's rows go through the caller's row
 * converter (an ICC transform) when one is set, else through the plain formula.
 */
#include "imc_internal.h"
#include "imc_jpeg_eighth.h"
#include "imc_jpeg_progressive.h"

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <jpegint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define MARKER_BUFFER_SIZE 65536

/* The colour space codes imc_info.color_type carries (and Swift maps) are libjpeg's own. */
_Static_assert(IMC_JPEG_COLOR_GRAY == JCS_GRAYSCALE && IMC_JPEG_COLOR_RGB == JCS_RGB &&
                   IMC_JPEG_COLOR_YCBCR == JCS_YCbCr && IMC_JPEG_COLOR_CMYK == JCS_CMYK &&
                   IMC_JPEG_COLOR_YCCK == JCS_YCCK,
               "IMC_JPEG_COLOR_* must equal J_COLOR_SPACE");

struct imc_jpeg_session {
  struct jpeg_decompress_struct cinfo;
  struct jpeg_error_mgr errors;
  struct jpeg_progress_mgr progress;
  jmp_buf jump;
  imc_status *status; /* where the current call reports */
  int32_t lenient;
  int32_t max_scans;
  int created;
  int exif_seen;
  int cmyk_to_layout; /* output needs our CMYK conversion */
  uint8_t *marker_buffer;
  uint8_t *scratch; /* one CMYK row when converting */
  imc_info *info;   /* the decoder's header facts, filled while markers are read */
  imc_decoder *decoder;
  /* APP2 ICC_PROFILE segments by sequence number (1...255) until the header's end joins them. */
  uint8_t *icc_parts[256];
  size_t icc_part_length[256];
  int icc_count;    /* the count the segments declare (0: none seen) */
  int32_t icc_state; /* IMC_ICC_* */
  size_t icc_total;
  int icc_joined;   /* decoder->color has the profile: segments read again (a restart) are skipped */
  uint8_t *icc;     /* the joined profile */
  /* Every source hands libjpeg its bytes in windows of at most WINDOW bytes (see there). */
  struct jpeg_source_mgr source;
  /* Pull mode: the bytes in memory, or a buffer refilled from the file. */
  const uint8_t *bytes;
  size_t length;      /* bytes[0, length) */
  size_t offset;      /* end of the last window handed out */
  FILE *file;
  uint8_t *file_buffer;
  /* Push mode. */
  imc_stream *stream;         /* NULL when pulling from memory or a file */
  const JOCTET *window_start; /* the window we set last: unchanged means libjpeg has not synced since */
  size_t window_end;          /* offset in the stream's input where that window ends */
  size_t restart;             /* where libjpeg resumes after a suspension (its last sync point) */
  int phase;                  /* PUSH_* */
  int fed_fake_eoi;           /* the source is in the fake EOI: every real byte was used */
  /* The 1/8-scale fast path (imc_jpeg_eighth.c) and what starting libjpeg over after it needs. */
  imc_eighth *eighth;
  size_t eighth_position; /* push mode: the fast path's place in the stream's input */
  unsigned eighth_next, eighth_count; /* push mode: its decoded rows not yet queued */
  int32_t scale_eighths;  /* push mode: the scale imc_stream_start chose */
  uint64_t rows_to_drop;  /* push mode: rows the fast path already queued */
  int eighth_finished;    /* push mode: the fast path decoded the whole image */
  int reading_file;       /* push mode: started over from the stream's source file (owns `file`) */
  int started_over;       /* push mode: libjpeg decodes after the fast path gave up (no header
                             hand-shake then, and no fast path again) */
  uint8_t *drop_row;
  /* imgfetch's progressive decoder (imc_jpeg_progressive.c). */
  imc_progressive *progressive;
  int progressive_armed; /* installs itself at the first scan (on_progress) */
  int gave_up;           /* it gave up: libjpeg decodes again from the first byte, alone */
};

/* libjpeg-turbo decodes a Huffman MCU on an unchecked fast path whenever its source window holds at
 * least 512 bytes per block (jdhuff.c, BUFSIZE); otherwise on the checked path. The two disagree on
 * damaged data: the fast path silently takes a bad Huffman code as zero (the checked one warns:
 * corrupt), and when it meets FF FF it hands the MCU to the checked path without clearing the
 * coefficients it already wrote (different pixels). Which one runs depended on how many bytes were
 * buffered (memory vs file vs network chunks), so the same bytes got different verdicts. Every
 * source here hands out at most WINDOW bytes at a time, so every MCU takes the checked path: one
 * verdict for the same bytes, however they arrive. */
#define WINDOW 511

enum { PUSH_HEADER = 0, PUSH_WAIT_START, PUSH_START, PUSH_EIGHTH, PUSH_ROWS, PUSH_FINISH, PUSH_DONE };

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

static void install_progressive(j_decompress_ptr cinfo);

static void on_progress(j_common_ptr cinfo) {
  struct imc_jpeg_session *session = session_of(cinfo);
  j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
  /* jpeg_start_decompress calls this before it absorbs each piece of a multi-scan file's input: the
   * first call is the one moment after libjpeg's modules exist and before the first scan's data. */
  if (session->progressive_armed && dinfo->global_state == DSTATE_PRELOAD) install_progressive(dinfo);
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
  struct imc_jpeg_session *session = decoder->jpeg;
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
  decoder->jpeg = session;
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
  struct jpeg_decompress_struct *cinfo = &decoder->jpeg->cinfo;
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
  struct imc_jpeg_session *session = decoder->jpeg;
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

static boolean pull_fill(j_decompress_ptr cinfo) {
  struct imc_jpeg_session *session = cinfo->client_data;
  if (session->offset >= session->length && session->file) {
    session->length = fread(session->file_buffer, 1, FILE_BUFFER_SIZE, session->file);
    session->bytes = session->file_buffer;
    session->offset = 0;
  }
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
    if (session->offset >= session->length && (!session->file || feof(session->file) || ferror(session->file))) {
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

int32_t imc_jpeg_open(imc_decoder *decoder, imc_status *status) {
  if (create_session(decoder, status) != IMC_OK) return status->code;
  struct imc_jpeg_session *session = decoder->jpeg;
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

/* ---- The 1/8-scale fast path in pull mode ---- */

/* A fresh decompressor, as imc_jpeg_open made the first (under the caller's setjmp). */
static void recreate(struct imc_jpeg_session *session) {
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  jpeg_destroy_decompress(cinfo);
  session->created = 0;
  imc_progressive_destroy(session->progressive);
  session->progressive = NULL;
  session->progressive_armed = 0;
  jpeg_create_decompress(cinfo);
  session->created = 1;
  configure(session);
  session->exif_seen = 0;
  session->cmyk_to_layout = 0;
}

/* After the fast path gave up: libjpeg decodes the file from its first byte, as if alone. */
static void start_over_pull(imc_decoder *decoder, imc_status *status) {
  struct imc_jpeg_session *session = decoder->jpeg;
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  recreate(session);
  if (session->file) {
    if (fseek(session->file, 0, SEEK_SET) != 0) fail(session, IMC_ERR_IO, "cannot read the file again");
    session->length = session->offset = 0;
  } else {
    session->offset = 0;
  }
  use_source(session, pull_fill, pull_skip);
  jpeg_read_header(cinfo, TRUE);
  if (describe(decoder, status) != IMC_OK) longjmp(session->jump, 1);
  if (choose_scaled_output(decoder, decoder->request.scale_eighths, status) != IMC_OK) longjmp(session->jump, 1);
  jpeg_start_decompress(cinfo);
}

/* ---- imgfetch's progressive decoder (imc_jpeg_progressive.c): its access to the bytes ---- */

static void push_window(struct imc_jpeg_session *session, size_t from);

imc_progressive *imc_jpeg_session_progressive(j_decompress_ptr cinfo) {
  return ((struct imc_jpeg_session *)cinfo->client_data)->progressive;
}

/* The bytes from libjpeg's position on: the memory to its end, the stream's bytes so far, or the file
 * buffer (refilled behind the unread bytes when fewer than `wanted` are left). */
static int progressive_span(j_decompress_ptr cinfo, size_t wanted, const uint8_t **start, const uint8_t **end) {
  struct imc_jpeg_session *session = cinfo->client_data;
  const JOCTET *next = cinfo->src->next_input_byte;
  if (session->fed_fake_eoi) {
    /* libjpeg met the end already (a warning: a strict decode has stopped before this). */
    *start = *end = next;
    return 1;
  }
  if (session->stream && !session->reading_file) {
    imc_stream *stream = session->stream;
    *start = next;
    *end = stream->input + stream->input_length;
    return stream->eof;
  }
  if (!next || next < session->bytes || next > session->bytes + session->length) {
    /* Not in our bytes (libjpeg's fake EOI): nothing more. */
    *start = *end = next;
    return 1;
  }
  size_t left = (size_t)(session->bytes + session->length - next);
  if (session->file && left < wanted && !feof(session->file) && !ferror(session->file)) {
    memmove(session->file_buffer, next, left);
    size_t got = fread(session->file_buffer + left, 1, FILE_BUFFER_SIZE - left, session->file);
    session->bytes = session->file_buffer;
    session->length = left + got;
    next = session->file_buffer;
    size_t take = session->length < WINDOW ? session->length : WINDOW;
    cinfo->src->next_input_byte = next;
    cinfo->src->bytes_in_buffer = take;
    session->offset = take;
  }
  *start = next;
  *end = session->bytes + session->length;
  return !session->file || feof(session->file) || ferror(session->file);
}

/* libjpeg reads on from `position` (a point where it may resume: between MCUs or after a scan). */
static void progressive_seek(j_decompress_ptr cinfo, const uint8_t *position) {
  struct imc_jpeg_session *session = cinfo->client_data;
  if (session->stream && !session->reading_file) {
    size_t at = (size_t)(position - session->stream->input);
    push_window(session, at);
    session->restart = at;
    return;
  }
  size_t at = (size_t)(position - session->bytes);
  size_t take = session->length - at < WINDOW ? session->length - at : WINDOW;
  cinfo->src->next_input_byte = position;
  cinfo->src->bytes_in_buffer = take;
  session->offset = at + take;
}

/* Whether libjpeg could still start over from the first byte if the decoder gave up in this scan: a
 * stream keeps every byte (up to its limit: past it, no new scan starts; a scan begun before goes on,
 * its bytes still kept, since only a skip between scans drops any). */
static int progressive_may_start_scan(j_decompress_ptr cinfo) {
  struct imc_jpeg_session *session = cinfo->client_data;
  imc_stream *stream = session->stream;
  if (!stream) return 1;
  if (stream->source_file) return 1;
  return stream->retain && !stream->retain_overflow;
}

static void progressive_give_up(j_decompress_ptr cinfo) {
  struct imc_jpeg_session *session = cinfo->client_data;
  session->gave_up = 1;
  longjmp(session->jump, 1);
}

static const imc_progressive_session progressive_calls = {progressive_span, progressive_seek,
                                                          progressive_may_start_scan, progressive_give_up};

static void install_progressive(j_decompress_ptr cinfo) {
  struct imc_jpeg_session *session = cinfo->client_data;
  session->progressive_armed = 0;
  session->progressive = imc_progressive_install(cinfo, &progressive_calls);
}

/* Before the first jpeg_start_decompress of a strict decode: whether the progressive decoder is to
 * take the scans. */
static void arm_progressive(imc_decoder *decoder) {
  struct imc_jpeg_session *session = decoder->jpeg;
  session->progressive_armed = !session->lenient && !decoder->request.libjpeg_only && !session->started_over &&
                               imc_progressive_eligible(&session->cinfo);
}

/* Bytes a pull-mode fast path reads at a time from a file. */
#define EIGHTH_FILE_BUFFER ((size_t)256 << 10)

/* Decodes the scan with the fast path when it applies (pixels into `pixels`, or none when NULL).
 * Returns 1 when it decoded the whole image (libjpeg would accept it), 0 when libjpeg must decode
 * (it did not apply, or it gave up: then libjpeg was started over from the first byte). */
static int read_eighth(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  struct imc_jpeg_session *session = decoder->jpeg;
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  if (session->lenient || session->cmyk_to_layout || decoder->request.libjpeg_only) return 0;
  /* Where the scan's bytes start: in the memory, or in the file buffer then the rest of the file. */
  const JOCTET *next = cinfo->src->next_input_byte;
  if (!next || next < session->bytes || next > session->bytes + session->length) return 0;
  size_t position = (size_t)(next - session->bytes);
  imc_eighth *eighth = imc_eighth_create(cinfo, pixels == NULL);
  if (!eighth) return 0;
  if (decoder->request.always_split) imc_eighth_always_split(eighth);
  const uint8_t *input = session->bytes;
  size_t length = session->length;
  int eof = session->file == NULL;
  uint8_t *buffer = NULL;
  if (session->file) {
    buffer = malloc(EIGHTH_FILE_BUFFER);
    if (!buffer) {
      imc_eighth_destroy(eighth);
      return 0;
    }
    length -= position;
    memcpy(buffer, session->bytes + position, length);
    position = 0;
    input = buffer;
  }
  size_t output_bytes = (size_t)cinfo->output_width * (size_t)cinfo->out_color_components;
  if (eof) imc_eighth_split(eighth, input, length, position);
  uint32_t y = 0;
  int result;
  for (;;) {
    result = imc_eighth_step(eighth, input, length, eof, &position);
    if (result == IMC_EIGHTH_ROWS) {
      unsigned count = 0;
      uint8_t *rows = imc_eighth_rows(eighth, &count);
      for (unsigned i = 0; i < count && pixels; i++, y++)
        memcpy(pixels + (size_t)y * row_bytes, rows + (size_t)i * imc_eighth_row_bytes(eighth), output_bytes);
      continue;
    }
    if (result != IMC_EIGHTH_INPUT || eof) break;
    /* More of the file: keep what the fast path has not consumed, read after it. */
    memmove(buffer, buffer + position, length - position);
    length -= position;
    position = 0;
    size_t got = fread(buffer + length, 1, EIGHTH_FILE_BUFFER - length, session->file);
    length += got;
    if (got == 0) eof = 1;
  }
  imc_eighth_destroy(eighth);
  free(buffer);
  if (result == IMC_EIGHTH_DONE) return 1;
  start_over_pull(decoder, status);
  return 0;
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

/* `again`: the progressive decoder gave up; libjpeg decodes from the first byte, alone. */
static int32_t read_pixels(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, int again, imc_status *status) {
  struct imc_jpeg_session *session = decoder->jpeg;
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  session->status = status;
  if (setjmp(session->jump)) return status->code;
  if (again) {
    start_over_pull(decoder, status);
  } else {
    arm_progressive(decoder);
    jpeg_start_decompress(cinfo);
  }
  if (read_eighth(decoder, pixels, row_bytes, status)) return IMC_OK;
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

int32_t imc_jpeg_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  int32_t code = read_pixels(decoder, pixels, row_bytes, 0, status);
  if (decoder->jpeg->gave_up) {
    decoder->jpeg->gave_up = 0;
    code = read_pixels(decoder, pixels, row_bytes, 1, status);
  }
  return code;
}

static int32_t validate(imc_decoder *decoder, int again, imc_status *status) {
  struct imc_jpeg_session *session = decoder->jpeg;
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  session->status = status;
  if (setjmp(session->jump)) return status->code;
  if (again) {
    start_over_pull(decoder, status);
  } else {
    arm_progressive(decoder);
    jpeg_start_decompress(cinfo);
  }
  if (read_eighth(decoder, NULL, 0, status)) return IMC_OK;
  /* One row in libjpeg's own pool: released with the decompressor, also after a longjmp. */
  JSAMPARRAY row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                cinfo->output_width * (JDIMENSION)cinfo->output_components, 1);
  while (cinfo->output_scanline < cinfo->output_height) jpeg_read_scanlines(cinfo, row, 1);
  jpeg_finish_decompress(cinfo);
  return IMC_OK;
}

int32_t imc_jpeg_validate(imc_decoder *decoder, imc_status *status) {
  int32_t code = validate(decoder, 0, status);
  if (decoder->jpeg->gave_up) {
    decoder->jpeg->gave_up = 0;
    code = validate(decoder, 1, status);
  }
  return code;
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

int32_t imc_jpeg_stream_begin(imc_decoder *decoder, imc_status *status) {
  if (create_session(decoder, status) != IMC_OK) return status->code;
  struct imc_jpeg_session *session = decoder->jpeg;
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  if (setjmp(session->jump)) return status->code;
  jpeg_create_decompress(cinfo);
  session->created = 1;
  configure(session);
  use_source(session, push_fill, push_skip);
  /* Kept from the first byte until the fast path is known not to run (see imc_stream.retain). */
  session->stream->retain = !session->lenient && !decoder->request.libjpeg_only && !session->stream->source_file;
  return IMC_OK;
}

int32_t imc_jpeg_stream_start(imc_decoder *decoder, int32_t scale_eighths, imc_status *status) {
  struct imc_jpeg_session *session = decoder->jpeg;
  session->status = status;
  if (setjmp(session->jump)) return status->code;
  if (choose_scaled_output(decoder, scale_eighths, status) != IMC_OK) return status->code;
  session->scale_eighths = scale_eighths;
  /* The bytes are kept for a start over while a fast path may run: the 1/8-scale one for a
   * sequential file, the progressive decoder for a progressive one. */
  arm_progressive(decoder);
  if (session->cinfo.progressive_mode ? !session->progressive_armed : scale_eighths != 1) session->stream->retain = 0;
  const imc_info *info = &decoder->info;
  size_t row_bytes = (size_t)info->output_width * imc_layout_bytes_per_pixel(info->output_layout);
  if (imc_stream_prepare_rows(session->stream, row_bytes, 0) != IMC_OK) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  if (session->cmyk_to_layout) {
    session->scratch = malloc((size_t)info->output_width * 4);
    if (!session->scratch) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
  }
  session->phase = PUSH_START;
  return IMC_OK;
}

/* ---- The 1/8-scale fast path in push mode ---- */

/* The fast path gave up, or the bytes kept for it grew too many: libjpeg decodes the stream from
 * its first byte, skipping the rows the fast path already queued. Its bytes are the kept ones, or
 * the stream's source file read again (then libjpeg pulls, as from any file, and never waits). */
static void start_over_push(struct imc_jpeg_session *session) {
  imc_stream *stream = session->stream;
  imc_eighth_destroy(session->eighth);
  session->eighth = NULL;
  session->rows_to_drop = stream->rows_produced;
  session->eighth_next = session->eighth_count = 0;
  recreate(session);
  if (stream->source_file) {
    session->file = fopen(stream->source_file, "rb");
    session->file_buffer = session->file ? malloc(FILE_BUFFER_SIZE) : NULL;
    if (!session->file) fail(session, IMC_ERR_IO, "cannot read the file again");
    if (!session->file_buffer) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
    session->reading_file = 1;
    session->bytes = session->file_buffer;
    session->length = session->offset = 0;
    use_source(session, pull_fill, pull_skip);
  } else {
    use_source(session, push_fill, push_skip);
  }
  session->phase = PUSH_HEADER;
  session->started_over = 1;
  session->fed_fake_eoi = 0;
  stream->skip_pending = 0;
  stream->input_start = 0;
  stream->retain = 0;
}

/* Runs the fast path: queues its rows, decodes more as bytes allow. Returns 0 to wait (for bytes
 * or for room in the queue), 1 when libjpeg was started over and the pump should go on with it. */
static int pump_eighth(imc_decoder *decoder) {
  struct imc_jpeg_session *session = decoder->jpeg;
  imc_stream *stream = session->stream;
  size_t row_bytes = stream->row_bytes;
  /* The fast path left off where the stream's unconsumed bytes start (moved to the front when the
   * stream keeps none of the consumed ones). */
  session->eighth_position = stream->input_start;
  for (;;) {
    while (session->eighth_next < session->eighth_count) {
      size_t room = imc_stream_free_rows(stream);
      if (room == 0) {
        if (stream->unbounded) fail(session, IMC_ERR_NO_MEMORY, "out of memory for the rows");
        return 0;
      }
      unsigned count = 0;
      uint8_t *rows = imc_eighth_rows(session->eighth, &count);
      size_t take = session->eighth_count - session->eighth_next;
      if (take > room) take = room;
      for (size_t i = 0; i < take; i++)
        memcpy(imc_stream_slot(stream, i),
               rows + (size_t)(session->eighth_next + i) * imc_eighth_row_bytes(session->eighth), row_bytes);
      imc_stream_commit_rows(stream, take);
      session->eighth_next += (unsigned)take;
    }
    if (stream->retain_overflow) {
      start_over_push(session);
      return 1;
    }
    if (stream->eof) imc_eighth_split(session->eighth, stream->input, stream->input_length, session->eighth_position);
    int result = imc_eighth_step(session->eighth, stream->input, stream->input_length, stream->eof,
                                 &session->eighth_position);
    switch (result) {
    case IMC_EIGHTH_ROWS: {
      unsigned count = 0;
      imc_eighth_rows(session->eighth, &count);
      session->eighth_next = 0;
      session->eighth_count = count;
      continue;
    }
    case IMC_EIGHTH_INPUT: return 0;
    case IMC_EIGHTH_DONE:
      imc_eighth_destroy(session->eighth);
      session->eighth = NULL;
      stream->retain = 0;
      session->eighth_finished = 1;
      session->phase = PUSH_DONE;
      return 0;
    default:
      start_over_push(session);
      return 1;
    }
  }
}

/* After jpeg_start_decompress: whether the fast path takes the scan. */
static int start_eighth(imc_decoder *decoder) {
  struct imc_jpeg_session *session = decoder->jpeg;
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  imc_stream *stream = session->stream;
  if (!(stream->retain || stream->source_file) || stream->retain_overflow || session->fed_fake_eoi ||
      session->cmyk_to_layout || session->lenient || decoder->request.libjpeg_only || session->started_over)
    return 0;
  if (stream->row_bytes != (size_t)cinfo->output_width * (size_t)cinfo->out_color_components) return 0;
  session->eighth = imc_eighth_create(cinfo, 0);
  if (!session->eighth) return 0;
  if (decoder->request.always_split) imc_eighth_always_split(session->eighth);
  session->eighth_position = (size_t)(session->source.next_input_byte - stream->input);
  session->eighth_next = session->eighth_count = 0;
  return 1;
}

int32_t imc_jpeg_stream_pump(imc_decoder *decoder, imc_status *status) {
  struct imc_jpeg_session *session = decoder->jpeg;
  struct jpeg_decompress_struct *cinfo = &session->cinfo;
  imc_stream *stream = session->stream;
  session->status = status;
  struct jpeg_source_mgr *source = &session->source;
  int32_t code = IMC_OK;
begin:
  if (!session->reading_file) {
    session->restart = stream->input_start;
    push_window(session, stream->input_start);
  }
  if (setjmp(session->jump)) {
    if (session->gave_up) {
      /* The progressive decoder gave up: libjpeg decodes from the first byte, alone (no rows were
       * handed out: a progressive file's come after its last scan). */
      session->gave_up = 0;
      start_over_push(session);
      goto begin;
    }
    code = status->code;
    goto consumed;
  }
  if (session->phase == PUSH_HEADER) {
    if (jpeg_read_header(cinfo, TRUE) == JPEG_SUSPENDED) goto consumed;
    if (describe(decoder, status) != IMC_OK) {
      code = status->code;
      goto consumed;
    }
    session->phase = PUSH_WAIT_START;
    if (!session->started_over) goto consumed;
    /* Started over after the fast path: the scale was chosen and the rows prepared before. */
    if (choose_scaled_output(decoder, session->scale_eighths, status) != IMC_OK) {
      code = status->code;
      goto consumed;
    }
    session->drop_row = malloc((size_t)cinfo->output_width * (size_t)cinfo->output_components + 64);
    if (!session->drop_row) fail(session, IMC_ERR_NO_MEMORY, "out of memory");
    session->phase = PUSH_START;
  }
  if (session->phase == PUSH_EIGHTH) {
    if (pump_eighth(decoder)) goto begin;
    goto consumed;
  }
  /* libjpeg's arithmetic decoder cannot suspend: an arithmetic-coded file waits for its last byte. */
  if (cinfo->arith_code && !stream->eof) goto consumed;
  if (session->phase == PUSH_START) {
    if (!jpeg_start_decompress(cinfo)) goto consumed;
    session->phase = PUSH_ROWS;
    if (start_eighth(decoder)) {
      session->phase = PUSH_EIGHTH;
      if (pump_eighth(decoder)) goto begin;
      goto consumed;
    }
    stream->retain = 0;
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
  else if (session->eighth || session->eighth_finished) stream->input_start = session->eighth_position;
  else if (session->fed_fake_eoi) stream->input_start = stream->input_length;
  else stream->input_start = (size_t)(source->next_input_byte - stream->input);
  return code;
}

int imc_jpeg_stream_done(imc_decoder *decoder) { return decoder->jpeg->phase == PUSH_DONE; }
int imc_jpeg_stream_header_ready(imc_decoder *decoder) { return decoder->jpeg->phase == PUSH_WAIT_START; }

void imc_jpeg_close(imc_decoder *decoder) {
  struct imc_jpeg_session *session = decoder->jpeg;
  if (session->created) jpeg_destroy_decompress(&session->cinfo);
  free(session->marker_buffer);
  drop_icc_parts(session);
  free(session->icc);
  free(session->scratch);
  free(session->file_buffer);
  if (session->reading_file && session->file) fclose(session->file);
  free(session->drop_row);
  imc_eighth_destroy(session->eighth);
  imc_progressive_destroy(session->progressive);
  free(session);
  decoder->jpeg = NULL;
}
