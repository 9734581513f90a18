/* imc_png_decode.c: libpng decoding behind imc_decoder.
 *
 * Why a shim: libpng reports errors through a function that must not return (it would abort the
 * process), so errors longjmp to a setjmp in the C function that called libpng. Warnings are
 * neither printed nor counted. Limits are checked on the bytes as they pass to libpng (see
 * imc_png_framer): a 65535x65535 IHDR or a chunk header claiming 2 GB costs microseconds, not
 * memory, and libpng's own chunk malloc limit defuses zTXt/iCCP decompression bombs. Ancillary
 * chunks imgfetch never uses (everything but tRNS, iCCP, sRGB, gAMA, cHRM and eXIf) are skipped
 * unread. The colour chunks are read through libpng's getters into imc_color and never applied:
 * libpng's gamma is pinned at 1.0 (no gamma-correct gray conversion) and its gray weights at the
 * defaults, so the pixels are what they were when the chunks were skipped.
 * The kind of an error comes from state we keep (our own limit checks, a failed allocation, the
 * end of the data), never from libpng's message text.
 */
#include "imc_libpng.h"
#include "imc_png_fast.h"
#include "imc_png_framer.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The colour types imc_info.color_type carries (and Swift maps) are the IHDR's own. */
_Static_assert(IMC_PNG_COLOR_GRAY == PNG_COLOR_TYPE_GRAY && IMC_PNG_COLOR_RGB == PNG_COLOR_TYPE_RGB &&
                   IMC_PNG_COLOR_PALETTE == PNG_COLOR_TYPE_PALETTE &&
                   IMC_PNG_COLOR_GRAY_ALPHA == PNG_COLOR_TYPE_GRAY_ALPHA && IMC_PNG_COLOR_RGBA == PNG_COLOR_TYPE_RGBA,
               "IMC_PNG_COLOR_* must equal PNG_COLOR_TYPE_*");
_Static_assert(sizeof(png_color) == 3, "a PLTE is read as RGB triples");

struct imc_png_session;
static struct imc_png_session *session_of_decoder(const imc_decoder *decoder) { return decoder->session; }

struct imc_png_session {
  png_structp png;
  png_infop info;
  imc_status *status;
  imc_source *source;
  const imc_request *request;
  imc_png_framer framer;
  int32_t code_on_error; /* our own reason (a read error), when we stop libpng ourselves */
  int allocation_failed; /* an allocation failed and libpng has not (yet) survived it with a warning */
  char icc_note[120];     /* libpng's warning about an iCCP chunk it dropped, if any */
  int passes;            /* 7 for Adam7 with interlace handling, else 1 */
  int owns_row;          /* rows[0] is our scratch row (validation), freed at close */
  imc_decoder *decoder;
  /* Push mode. */
  int pushing;
  int ended;                /* libpng reached IEND */
  int limit_pending;        /* the framer refused a chunk starting at limit_at */
  uint64_t limit_at;
  uint64_t fed;             /* bytes given to libpng */
  uint64_t received;        /* bytes appended */
  imc_png_framer feed;      /* follows the bytes given to libpng: the chunk it is reading */
  imc_status held;          /* an error inside a chunk not complete yet: reported at its end, */
  uint64_t held_until;      /* or `truncated` if the data ends first */
  imc_status limit_status;
  png_bytep *rows;
  /* Push mode's own path on the image data (imc_png_fast.c), from the first IDAT on. */
  imc_png_fast *fast;
  int started_over;       /* it gave up: libpng reads the kept bytes again from the first */
  int has_info;           /* push_info ran for this libpng session */
  /* PLTE and tRNS as read, before png_read_update_info rewrites the info for the output. */
  uint8_t palette[256 * 3];
  int palette_entries;
  uint8_t alpha[256];
  int alpha_entries;
  int key_transparency; /* a tRNS colour key (gray or RGB image) */
  uint64_t rows_to_drop;  /* the rows it queued before, which libpng's first rows repeat */
};

/* The kind of a libpng error, from what we know of the session's state. */
static int32_t code_from_state(struct imc_png_session *session) {
  if (session->code_on_error != IMC_OK) return session->code_on_error;
  if (session->allocation_failed) return IMC_ERR_NO_MEMORY;
  if (session->source->hit_end) return IMC_ERR_TRUNCATED;
  /* An error inside a chunk the data does not complete: the file is cut short (the push reader,
   * which waits for whole chunks, reaches the same verdict in imc_png_stream_pump). */
  if (!session->pushing && imc_png_framer_cut(&session->framer, session->source->size)) return IMC_ERR_TRUNCATED;
  return IMC_ERR_CORRUPT;
}

static void on_error(png_structp png, png_const_charp message) {
  struct imc_png_session *session = png_get_error_ptr(png);
  /* A status already set is our own stop (a limit from the framer): keep it. */
  if (session->status->code == IMC_OK) {
    int32_t code = code_from_state(session);
    imc_status_set(session->status, code, code == IMC_ERR_TRUNCATED ? "Unexpected end of data" : message);
  }
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
  /* libpng turned whatever failed into a warning and carries on (an ancillary chunk is dropped): an
   * allocation that failed before it is survived, not a reason to call a later error out-of-memory. */
  struct imc_png_session *session = png_get_error_ptr(png);
  session->allocation_failed = 0;
  /* libpng drops an iCCP chunk it judges broken with a warning that names it: kept as the reason. */
  if (strncmp(message, "iCCP: ", 6) == 0 && !session->icc_note[0])
    snprintf(session->icc_note, sizeof session->icc_note, "%s", message + 6);
  /* The progressive reader only warns about damaged image data while rows are still missing (the
   * sequential reader fails): those pixels are lost, so it is the same corrupt verdict. */
  if (session->pushing && png_get_io_chunk_type(png) == 0x49444154u) {
    /* With interlace handling on, the row number counts image rows in every pass (0...height). */
    png_uint_32 pass = png_get_current_pass_number(png);
    if (pass <= 6 && png_get_current_row_number(png) < session->decoder->info.height) png_error(png, message);
  }
}

static png_voidp on_malloc(png_structp png, png_alloc_size_t size) {
  struct imc_png_session *session = png_get_mem_ptr(png);
  void *pointer = malloc(size);
  if (!pointer && session) session->allocation_failed = 1;
  return pointer;
}

static void on_free(png_structp png, png_voidp pointer) {
  (void)png;
  free(pointer);
}

static void on_read(png_structp png, png_bytep out, size_t count) {
  struct imc_png_session *session = png_get_io_ptr(png);
  size_t got = imc_source_read(session->source, out, count);
  if (imc_png_framer_scan(&session->framer, out, got, session->request, session->status) != IMC_OK)
    png_error(png, session->status->message);
  if (session->framer.exif_without_ihdr) png_error(png, "eXIf: missing IHDR");
  if (got != count) {
    int failed = session->source->file && ferror(session->source->file);
    if (failed) session->code_on_error = IMC_ERR_IO;
    png_error(png, failed ? "Read error" : "Unexpected end of data");
  }
}

/* The ancillary chunks libpng knows and imgfetch never uses: skipped unread, like unknown ones.
 * Kept: tRNS (pixels), iCCP, sRGB, gAMA and cHRM (the colour description), eXIf (orientation). */
static const png_byte unused_chunks[] = {
    'b', 'K', 'G', 'D', '\0', 'h', 'I', 'S', 'T', '\0', 'i', 'T', 'X', 't', '\0', 'o', 'F', 'F', 's', '\0',
    'p', 'C', 'A', 'L', '\0', 'p', 'H', 'Y', 's', '\0', 's', 'B', 'I', 'T', '\0', 's', 'C', 'A', 'L', '\0',
    's', 'P', 'L', 'T', '\0', 's', 'T', 'E', 'R', '\0', 't', 'E', 'X', 't', '\0', 't', 'I', 'M', 'E', '\0',
    'z', 'T', 'X', 't', '\0',
};

/* The chunk whose orientation imgfetch reads (configure, exif_orientation). */
static const png_byte exif_chunk[] = {'e', 'X', 'I', 'f', '\0'};

/* The orientation of the first eXIf chunk before the image data (0 without one). libpng's
 * own eXIf handler ignores one whose byte order is neither "MM" nor "II", as imc_exif_orientation does. */
static int32_t exif_orientation(png_structp png, png_infop info) {
  png_unknown_chunkp chunks = NULL;
  int count = png_get_unknown_chunks(png, info, &chunks);
  for (int i = 0; i < count; i++)
    if (memcmp(chunks[i].name, "eXIf", 4) == 0 && !(chunks[i].location & PNG_AFTER_IDAT))
      return chunks[i].data ? imc_exif_orientation(chunks[i].data, chunks[i].size) : 0;
  return 0;
}

/* The colour chunks, through libpng's getters (before set_transforms pins the gamma). */
static void read_color(struct imc_png_session *session, imc_color *color) {
  png_structp png = session->png;
  png_infop info = session->info;
  png_charp name = NULL;
  int compression = 0;
  png_bytep profile = NULL;
  png_uint_32 profile_length = 0;
  if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_length) && profile && profile_length > 0) {
    color->icc = profile;
    color->icc_length = profile_length;
  } else if (session->icc_note[0]) {
    color->icc_state = IMC_ICC_REFUSED;
    memcpy(color->note, session->icc_note, sizeof color->note);
  }
  int intent = 0;
  if (png_get_valid(png, info, PNG_INFO_sRGB) && png_get_sRGB(png, info, &intent)) color->srgb_intent = intent;
  png_fixed_point gamma = 0;
  if (png_get_valid(png, info, PNG_INFO_gAMA) && png_get_gAMA_fixed(png, info, &gamma) && gamma > 0)
    color->gamma = (uint32_t)gamma;
  png_fixed_point c[8];
  if (png_get_valid(png, info, PNG_INFO_cHRM) &&
      png_get_cHRM_fixed(png, info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7])) {
    color->has_chromaticities = 1;
    for (int i = 0; i < 8; i++) color->chromaticities[i] = c[i] > 0 ? (uint32_t)c[i] : 0;
  }
}

/* The layout a request produces from this header. */
static int32_t choose_layout(int32_t want, int color_type, int bit_depth, int has_trns) {
  int is_gray = !(color_type & PNG_COLOR_MASK_COLOR);
  int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) || has_trns;
  int wide = bit_depth == 16 && want == IMC_WANT_NATIVE;
  switch (want) {
  case IMC_WANT_RGBA8: return IMC_LAYOUT_RGBA8;
  case IMC_WANT_RGB8: return IMC_LAYOUT_RGB8;
  case IMC_WANT_GRAY8: return IMC_LAYOUT_GRAY8;
  default:
    if (is_gray) return has_alpha ? (wide ? IMC_LAYOUT_GRAYALPHA16 : IMC_LAYOUT_GRAYALPHA8)
                                  : (wide ? IMC_LAYOUT_GRAY16 : IMC_LAYOUT_GRAY8);
    return has_alpha ? (wide ? IMC_LAYOUT_RGBA16 : IMC_LAYOUT_RGBA8) : (wide ? IMC_LAYOUT_RGB16 : IMC_LAYOUT_RGB8);
  }
}

static int layout_has_alpha(int32_t layout) {
  return layout == IMC_LAYOUT_GRAYALPHA8 || layout == IMC_LAYOUT_RGBA8 || layout == IMC_LAYOUT_GRAYALPHA16 ||
         layout == IMC_LAYOUT_RGBA16;
}

static int layout_is_gray(int32_t layout) {
  return layout == IMC_LAYOUT_GRAY8 || layout == IMC_LAYOUT_GRAYALPHA8 || layout == IMC_LAYOUT_GRAY16 ||
         layout == IMC_LAYOUT_GRAYALPHA16;
}

static int layout_is_wide(int32_t layout) { return layout >= IMC_LAYOUT_GRAY16; }

/* Asks libpng for the transformations that turn this stream into `layout`. No gamma, no sBIT. */
static void set_transforms(png_structp png, int32_t layout, int color_type, int bit_depth, int has_trns) {
  int want_alpha = layout_has_alpha(layout);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (has_trns && want_alpha) png_set_tRNS_to_alpha(png);
  if (bit_depth == 16) {
    if (layout_is_wide(layout)) png_set_swap(png); /* big-endian in the file, host order for us */
    else png_set_strip_16(png);                    /* high byte: v >> 8 */
  }
  int source_gray = !(color_type & PNG_COLOR_MASK_COLOR);
  if (source_gray && !layout_is_gray(layout)) png_set_gray_to_rgb(png);
  if (!source_gray && layout_is_gray(layout)) {
    /* libpng's default weights (6968 and 23434 of 32768) named outright, so a cHRM chunk does not
     * change them, and gamma pinned at 1.0, so a gAMA chunk does not make it convert in linear light. */
    png_set_rgb_to_gray_fixed(png, PNG_ERROR_ACTION_NONE, 21265, 71515);
    png_set_gamma_fixed(png, PNG_FP_1, PNG_FP_1);
  }
  int source_alpha = (color_type & PNG_COLOR_MASK_ALPHA) || (has_trns && want_alpha);
  if (want_alpha && !source_alpha) png_set_add_alpha(png, layout_is_wide(layout) ? 0xffff : 0xff, PNG_FILLER_AFTER);
  if (!want_alpha && (color_type & PNG_COLOR_MASK_ALPHA)) png_set_strip_alpha(png);
}

/* libpng's read and info structs, with our error, warning and memory functions. */
static int32_t create_library_session(struct imc_png_session *session, imc_status *status) {
  session->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, session, on_error, on_warning, session, on_malloc,
                                          on_free);
  if (!session->png) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  session->info = png_create_info_struct(session->png);
  if (!session->info) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  return IMC_OK;
}

/* Creates the session (libpng's with ours), for the limits and chunk policy `configure` applies. */
static int32_t create_session(imc_decoder *decoder, imc_status *status) {
  struct imc_png_session *session = calloc(1, sizeof *session);
  if (!session) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  decoder->session = session;
  session->status = status;
  session->source = &decoder->source;
  session->request = &decoder->request;
  session->decoder = decoder;
  return create_library_session(session, status);
}

/* Largest piece of IDAT data zlib gets at once, in both readers (the sequential reader's
 * IDAT_read_size, the push reader's pieces): zlib then sees the same input in the same pieces
 * whatever the chunking of the bytes, so damage after the last row is reached in the call that
 * ends the image (an error) or after it (a warning) alike. What one push call inflates is bounded
 * by it (deflate's ratio is at most ~1032:1): the row queue overshoots its capacity by ~8 MiB at most. */
#define PIECE 8192

/* Applies the limits and the chunk policy. Called under the entry point's setjmp. */
static void configure(png_structp png, const imc_request *request) {
  /* Our framer checks the size limits first; libpng's own would only warn, then fail as corrupt. */
  png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);
  png_set_chunk_cache_max(png, 1000);
  png_set_chunk_malloc_max(png, (png_alloc_size_t)request->max_chunk_bytes);
  png_set_compression_buffer_size(png, PIECE); /* sequential: IDAT read in PIECE-byte pieces */
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, unused_chunks, (int)(sizeof unused_chunks / 5));
  /* eXIf (the orientation) is kept as an unknown chunk: libpng 1.6.39's push reader does not know
   * eXIf and skipped it, so a streamed PNG lost its orientation; kept this way, every reader of every
   * libpng stores it alike (exif_orientation below). */
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, exif_chunk, 1);
}

/* After the chunks before the first IDAT: fills decoder->info, checks the limits, sets the
 * transformations for the requested layout. Called under the entry point's setjmp. */
static int32_t describe(imc_decoder *decoder, imc_status *status) {
  struct imc_png_session *session = session_of_decoder(decoder);
  png_structp png = session->png;
  png_infop info = session->info;
  const imc_request *request = &decoder->request;
  png_uint_32 width, height;
  int bit_depth, color_type, interlace;
  png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
  int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  imc_info *out = &decoder->info;
  out->format = IMC_FORMAT_PNG;
  out->width = out->output_width = width;
  out->height = out->output_height = height;
  out->color_type = color_type;
  out->bit_depth = bit_depth;
  out->components = png_get_channels(png, info);
  out->interlaced = interlace != PNG_INTERLACE_NONE;
  out->has_transparency = (color_type & PNG_COLOR_MASK_ALPHA) || has_trns;
  out->has_icc = png_get_valid(png, info, PNG_INFO_iCCP) != 0;
  read_color(session, &decoder->color);
  out->orientation = exif_orientation(png, info);
  if (imc_check_limits(request, width, height, status)) return status->code;
  out->output_layout = choose_layout(request->want, color_type, bit_depth, has_trns);
  png_colorp palette = NULL;
  int entries = 0;
  if (png_get_PLTE(png, info, &palette, &entries) && palette && entries > 0 && entries <= 256) {
    memcpy(session->palette, palette, (size_t)entries * 3);
    session->palette_entries = entries;
  }
  png_bytep alpha = NULL;
  int alpha_entries = 0;
  png_color_16p key = NULL;
  if (has_trns && png_get_tRNS(png, info, &alpha, &alpha_entries, &key)) {
    if (color_type == PNG_COLOR_TYPE_PALETTE && alpha && alpha_entries > 0 && alpha_entries <= 256) {
      memcpy(session->alpha, alpha, (size_t)alpha_entries);
      session->alpha_entries = alpha_entries;
    } else if (color_type != PNG_COLOR_TYPE_PALETTE) {
      session->key_transparency = 1;
    }
  }
  set_transforms(png, out->output_layout, color_type, bit_depth, has_trns);
  session->passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  size_t expected = (size_t)width * imc_layout_bytes_per_pixel(out->output_layout);
  if (png_get_rowbytes(png, info) != expected) {
    imc_status_set(status, IMC_ERR_UNSUPPORTED, "PNG transform produced an unexpected row size");
    return status->code;
  }
  return IMC_OK;
}

static int32_t imc_png_open(imc_decoder *decoder, imc_status *status) {
  if (create_session(decoder, status) != IMC_OK) return status->code;
  struct imc_png_session *session = session_of_decoder(decoder);
  png_structp png = session->png;
  if (setjmp(png_jmpbuf(png))) return status->code;
  png_set_read_fn(png, session, on_read);
  configure(png, &decoder->request);
  png_read_info(png, session->info);
  return describe(decoder, status);
}

/* The fast path on this image's data (imc_png_fast.c), or NULL when it does not take the image.
 * libpng has read everything before the first IDAT, whose header is the last thing it read; the
 * image's facts are the ones `describe` kept from before libpng rewrote them for the output. */
static imc_png_fast *start_fast(struct imc_png_session *session, uint32_t first_length, size_t stride) {
  const imc_info *info = &session->decoder->info;
  imc_png_fast_image image = {0};
  image.width = info->width;
  image.height = info->height;
  image.bit_depth = info->bit_depth;
  image.color_type = info->color_type;
  image.interlaced = info->interlaced;
  image.layout = info->output_layout;
  image.stride = stride;
  image.first_length = first_length;
  image.palette = session->palette;
  image.palette_entries = session->palette_entries;
  image.alpha = session->alpha;
  image.alpha_entries = session->alpha_entries;
  image.has_other_transparency = session->key_transparency;
  return imc_png_fast_create(&image);
}

/* ---- Push mode (imc_stream): libpng's progressive reader, fed as bytes arrive. ----
 * The framer sees the bytes on append; libpng is fed only up to the start of a chunk the framer
 * refused, so the verdict is the one the pull reader reaches on the same bytes. Rows go into the
 * stream's queue; an interlaced image is combined in a full-size buffer and handed out at the end. */

static void push_info(png_structp png, png_infop info) {
  (void)info;
  struct imc_png_session *session = png_get_progressive_ptr(png);
  imc_decoder *decoder = session->decoder;
  /* libpng's progressive reader calls this again at an IDAT that follows another chunk after the
   * image data, once it has said "Too many IDATs found" (a benign error, which its sequential reader
   * also only warns about): the image was set up at the first IDAT, and this one is skipped. */
  if (session->has_info) return;
  session->has_info = 1;
  if (describe(decoder, session->status) != IMC_OK) png_error(png, session->status->message);
  const imc_info *out = &decoder->info;
  if (session->started_over) return; /* the queue is the one the fast path filled */
  size_t row_bytes = (size_t)out->output_width * imc_layout_bytes_per_pixel(out->output_layout);
  if (imc_stream_prepare_rows(decoder->stream, row_bytes, out->interlaced ? out->output_height : 0) != IMC_OK) {
    session->allocation_failed = 1;
    png_error(png, "out of memory for the rows");
  }
  imc_stream *stream = decoder->stream;
  /* A file the kept bytes could not hold: libpng reads it from the start, rather than the fast
   * path running until the bytes overflow and libpng starting over then. */
  struct stat facts;
  if (stream->source_fd >= 0 && fstat(stream->source_fd, &facts) == 0 && (uint64_t)facts.st_size > IMC_STREAM_RETAIN_LIMIT)
    stream->retain = 0;
  if (stream->retain && !stream->retain_overflow) {
    /* The IDAT's header is the last thing fed (pieces never span chunks): the feed framer holds it. */
    uint64_t length = session->feed.next_chunk - session->feed.chunk_start - 12;
    if (session->feed.chunk_start == session->fed && length <= 0x7fffffffu)
      session->fast = start_fast(session, (uint32_t)length, stream->row_bytes);
  }
  if (!session->fast) stream->retain = 0;
}

static void push_row(png_structp png, png_bytep row, png_uint_32 row_number, int pass) {
  (void)pass;
  struct imc_png_session *session = png_get_progressive_ptr(png);
  imc_decoder *decoder = session->decoder;
  if (!row || row_number >= decoder->info.output_height) return;
  if (session->rows_to_drop > 0) { /* queued already, by the fast path before it gave up */
    session->rows_to_drop--;
    return;
  }
  if (decoder->info.interlaced) {
    png_progressive_combine_row(png, imc_stream_image_row(decoder->stream, row_number), row);
    return;
  }
  uint8_t *slot = imc_stream_push_row(decoder->stream);
  if (!slot) {
    session->allocation_failed = 1;
    png_error(png, "out of memory for the rows");
  }
  memcpy(slot, row, decoder->stream->row_bytes);
}

static void push_end(png_structp png, png_infop info) {
  (void)info;
  struct imc_png_session *session = png_get_progressive_ptr(png);
  /* IEND with rows still missing (the zlib stream ended early): the sequential reader's error. */
  if (png_get_current_pass_number(png) <= 6 && png_get_current_row_number(png) < session->decoder->info.height)
    png_error(png, "Not enough image data");
  if (session->decoder->info.interlaced) imc_stream_image_complete(session->decoder->stream);
  session->ended = 1;
}

/* Sets up libpng's progressive reader on a created session. */
static int32_t begin_pushing(struct imc_png_session *session, imc_status *status) {
  png_structp png = session->png;
  session->has_info = 0;
  if (setjmp(png_jmpbuf(png))) return status->code;
  png_set_progressive_read_fn(png, session, push_info, push_row, push_end);
  configure(png, session->request);
  return IMC_OK;
}

static int32_t imc_png_stream_begin(imc_decoder *decoder, imc_status *status) {
  if (create_session(decoder, status) != IMC_OK) return status->code;
  struct imc_png_session *session = session_of_decoder(decoder);
  session->pushing = 1;
  /* Every byte is kept from the first until the fast path is known not to run, or is done: if it
   * gives up, libpng reads them all again (up to RETAIN_LIMIT; past it libpng starts over at once). */
  decoder->stream->retain = !decoder->request.libpng_only;
  return begin_pushing(session, status);
}

/* The fast path gave up, or the bytes kept for it grew too many: libpng decodes the stream again
 * from its first byte (all kept), skipping the rows the fast path already queued. */
static int32_t start_over(struct imc_png_session *session, imc_status *status) {
  imc_stream *stream = session->decoder->stream;
  imc_png_fast_destroy(session->fast);
  session->fast = NULL;
  session->rows_to_drop = stream->rows_produced;
  session->started_over = 1;
  png_destroy_read_struct(&session->png, session->info ? &session->info : NULL, NULL);
  session->info = NULL;
  session->fed = 0;
  memset(&session->feed, 0, sizeof session->feed);
  stream->input_start = 0;
  stream->retain = 0;
  if (create_library_session(session, status) != IMC_OK) return status->code;
  return begin_pushing(session, status);
}

/* Runs the fast path: queues its rows, decodes more as bytes allow. Returns 0 to wait (for bytes or
 * for room in the queue), 1 when libpng was started over and should go on, or an error code. */
static int32_t pump_fast(imc_decoder *decoder, imc_status *status) {
  struct imc_png_session *session = session_of_decoder(decoder);
  imc_stream *stream = decoder->stream;
  for (;;) {
    if (stream->retain_overflow) return start_over(session, status) == IMC_OK ? 1 : status->code;
    /* An interlaced image goes into the whole-image buffer (imc_stream_prepare_rows), handed out at
     * the end: no room to wait for, and asking for room would grow that buffer past the image. */
    int whole_image = decoder->info.interlaced;
    if (!whole_image && imc_stream_free_rows(stream) == 0) {
      if (!stream->unbounded) return 0;
      session->allocation_failed = 1;
      imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for the rows");
      return status->code;
    }
    size_t used = 0;
    int result = imc_png_fast_step(session->fast, stream->input + stream->input_start,
                                   stream->input_length - stream->input_start, stream->eof, &used,
                                   whole_image ? imc_stream_image_row(stream, 0) : imc_stream_slot(stream, 0));
    stream->input_start += used;
    switch (result) {
    case IMC_PNG_FAST_ROW: imc_stream_commit_rows(stream, 1); continue;
    case IMC_PNG_FAST_INPUT: return 0;
    case IMC_PNG_FAST_DONE:
      imc_png_fast_destroy(session->fast);
      session->fast = NULL;
      if (whole_image) imc_stream_image_complete(stream);
      stream->retain = 0;
      session->ended = 1;
      return 0;
    default: return start_over(session, status) == IMC_OK ? 1 : status->code;
    }
  }
}


static int32_t imc_png_stream_scan(imc_decoder *decoder, const uint8_t *data, size_t length, imc_status *status) {
  struct imc_png_session *session = session_of_decoder(decoder);
  session->received += length;
  if (session->limit_pending) return IMC_OK;
  imc_status found = {0};
  if (imc_png_framer_scan(&session->framer, data, length, &decoder->request, &found) != IMC_OK) {
    session->limit_pending = 1;
    session->limit_at = session->framer.chunk_start;
    session->limit_status = found;
  }
  (void)status;
  return IMC_OK;
}

/* An error held for a chunk not complete yet: the error once the chunk's end has arrived, `truncated`
 * if the data ends before it, nothing yet otherwise. */
static int32_t held_verdict(struct imc_png_session *session, const imc_stream *stream, imc_status *status) {
  if (session->received >= session->held_until) {
    *status = session->held;
    return status->code;
  }
  if (stream->eof) {
    imc_status_set(status, IMC_ERR_TRUNCATED, "Unexpected end of data");
    return status->code;
  }
  return IMC_OK;
}

/* An error in the chunk the feed framer is in: inside a chunk whose end has not arrived, the verdict
 * waits for it (as in the sequential reader, where such an error is `truncated`). */
static int32_t verdict_in_chunk(struct imc_png_session *session, const imc_stream *stream, imc_status *status) {
  if (status->code == IMC_ERR_CORRUPT && imc_png_framer_cut(&session->feed, session->received)) {
    session->held = *status;
    session->held_until = imc_png_framer_chunk_end(&session->feed);
    memset(status, 0, sizeof *status);
    return held_verdict(session, stream, status);
  }
  return status->code;
}

static int32_t imc_png_stream_pump(imc_decoder *decoder, imc_status *status) {
  struct imc_png_session *session = session_of_decoder(decoder);
  imc_stream *stream = decoder->stream;
  session->status = status;
  if (session->held.code != IMC_OK) return held_verdict(session, stream, status);
  if (session->fast) {
    int32_t outcome = pump_fast(decoder, status);
    if (outcome == 0) return IMC_OK;
    if (outcome != 1) return outcome;
  }
  png_structp png = session->png;
  /* libpng is spent. */
  if (setjmp(png_jmpbuf(png))) return verdict_in_chunk(session, stream, status);
  while (!session->ended && !imc_stream_rows_full(stream)) {
    size_t available = stream->input_length - stream->input_start;
    if (session->limit_pending) {
      uint64_t allowed = session->limit_at > session->fed ? session->limit_at - session->fed : 0;
      if (allowed < available) available = (size_t)allowed;
    }
    if (available == 0) break;
    /* A piece never spans two chunks, so an error is always in the chunk the feed framer is in; and
     * it is always the whole rest of the chunk or PIECE bytes, however the bytes arrived (a shorter
     * one waits for more bytes, unless there are no more), so zlib sees the sequential reader's pieces. */
    size_t piece = PIECE;
    uint64_t span = imc_png_framer_span(&session->feed);
    if (span > 0 && span < piece) piece = (size_t)span;
    if (available < piece) {
      if (!stream->eof) break;
      piece = available;
    }
    imc_status ignored = {0}; /* limits are the append framer's business */
    imc_png_framer_scan(&session->feed, stream->input + stream->input_start, piece, &decoder->request, &ignored);
    png_process_data(png, session->info, stream->input + stream->input_start, piece);
    stream->input_start += piece;
    session->fed += piece;
    /* After the image data the push reader takes the next chunk header without checking it; the
     * sequential reader refuses an impossible one. */
    if (session->feed.impossible && !session->ended) {
      imc_status_set(status, IMC_ERR_CORRUPT, "PNG chunk header is invalid");
      return status->code;
    }
    if (session->feed.exif_without_ihdr) {
      imc_status_set(status, IMC_ERR_CORRUPT, "eXIf: missing IHDR");
      return verdict_in_chunk(session, stream, status);
    }
    /* libpng reached the first IDAT and the fast path took the image data. */
    if (session->fast) return imc_png_stream_pump(decoder, status);
  }
  if (session->ended) return IMC_OK;
  if (session->limit_pending && session->fed >= session->limit_at) {
    *status = session->limit_status;
    return status->code;
  }
  if (stream->eof && stream->input_start == stream->input_length) {
    imc_status_set(status, IMC_ERR_TRUNCATED, "Unexpected end of data");
    return status->code;
  }
  return IMC_OK;
}

static int imc_png_stream_done(imc_decoder *decoder) { return session_of_decoder(decoder)->ended; }

/* ---- The fast path in pull mode: after png_read_info, on the bytes that follow in the source ---- */

/* Bytes read from a file source at a time. */
#define FAST_PULL_BUFFER ((size_t)256 << 10)

/* libpng reads the source again from its first byte: the fast path gave up. */
static int32_t start_over_pull(imc_decoder *decoder, imc_status *status) {
  struct imc_png_session *session = session_of_decoder(decoder);
  imc_source *source = &decoder->source;
  png_destroy_read_struct(&session->png, session->info ? &session->info : NULL, NULL);
  session->info = NULL;
  memset(&session->framer, 0, sizeof session->framer);
  session->code_on_error = IMC_OK;
  session->allocation_failed = 0;
  source->hit_end = 0;
  if (source->file) {
    clearerr(source->file);
    if (fseek(source->file, 0, SEEK_SET) != 0) {
      imc_status_set(status, IMC_ERR_IO, "cannot read the file again");
      return status->code;
    }
  } else {
    source->offset = 0;
  }
  if (create_library_session(session, status) != IMC_OK) return status->code;
  png_structp png = session->png;
  if (setjmp(png_jmpbuf(png))) return status->code;
  png_set_read_fn(png, session, on_read);
  configure(png, &decoder->request);
  png_read_info(png, session->info);
  return describe(decoder, status);
}

/* Decodes the image data with the fast path when it takes the image: rows into `pixels` (NULL:
 * only the verdict). Returns 1 when it decoded the whole image, 0 when libpng is to read the rows
 * (the path did not take the image, or gave up and libpng was started over), -1 on an error. */
static int fast_pull(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  struct imc_png_session *session = session_of_decoder(decoder);
  const imc_png_framer *framer = &session->framer;
  if (decoder->request.libpng_only || png_get_io_chunk_type(session->png) != 0x49444154u) return 0;
  /* png_read_info stops right after the first IDAT's header: the framer saw it last. */
  if (framer->fill != 0 || framer->position != framer->chunk_start + 8) return 0;
  uint64_t length = framer->next_chunk - framer->chunk_start - 12;
  if (length > 0x7fffffffu) return 0;
  imc_png_fast *fast = start_fast(session, (uint32_t)length, row_bytes);
  if (!fast) return 0;
  imc_source *source = &decoder->source;
  uint8_t *buffer = NULL;
  const uint8_t *input = source->data + source->offset;
  size_t have = source->length - source->offset;
  int eof = 1;
  if (source->file) {
    buffer = malloc(FAST_PULL_BUFFER);
    if (!buffer) {
      imc_png_fast_destroy(fast);
      return 0;
    }
    input = buffer;
    have = 0;
    eof = 0;
  }
  uint32_t y = 0;
  int result;
  for (;;) {
    if (buffer && !eof && have < FAST_PULL_BUFFER) {
      size_t wanted = FAST_PULL_BUFFER - have;
      size_t got = fread(buffer + have, 1, wanted, source->file);
      have += got;
      if (got < wanted) eof = 1; /* the end, or a read error libpng will report if it matters */
    }
    size_t used = 0;
    result = imc_png_fast_step(fast, input, have, eof, &used, pixels ? pixels + (size_t)y * row_bytes : NULL);
    if (buffer) {
      memmove(buffer, buffer + used, have - used);
    } else {
      input += used;
    }
    have -= used;
    if (result == IMC_PNG_FAST_ROW) {
      y++;
      continue;
    }
    if (result == IMC_PNG_FAST_INPUT) continue;
    break;
  }
  imc_png_fast_destroy(fast);
  free(buffer);
  if (result == IMC_PNG_FAST_DONE) return 1;
  return start_over_pull(decoder, status) == IMC_OK ? 0 : -1;
}

static int32_t imc_png_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  struct imc_png_session *session = session_of_decoder(decoder);
  session->status = status;
  int fast = fast_pull(decoder, pixels, row_bytes, status);
  if (fast != 0) return fast > 0 ? IMC_OK : status->code;
  png_structp png = session->png;
  uint32_t height = decoder->info.output_height;
  session->rows = malloc(sizeof(png_bytep) * height);
  if (!session->rows) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  for (uint32_t y = 0; y < height; y++) session->rows[y] = pixels + (size_t)y * row_bytes;
  if (setjmp(png_jmpbuf(png))) return status->code;
  png_read_image(png, session->rows);
  /* The chunks after the image data, up to IEND, judged as libpng's full read judges them: with
   * the info structure, an unknown critical chunk, a second PLTE or IHDR is an error, as in libpng's
   * progressive reader (the streamed path); with NULL, png_read_end would only check their CRCs.
   * Nothing after IEND is read. */
  png_read_end(png, session->info);
  return IMC_OK;
}

static int32_t imc_png_validate(imc_decoder *decoder, imc_status *status) {
  struct imc_png_session *session = session_of_decoder(decoder);
  session->status = status;
  int fast = fast_pull(decoder, NULL, 0, status);
  if (fast != 0) return fast > 0 ? IMC_OK : status->code;
  png_structp png = session->png;
  uint32_t height = decoder->info.output_height;
  /* One row, kept in the session (freed at close) so that a longjmp cannot leak it. */
  session->rows = malloc(sizeof(png_bytep));
  if (session->rows) session->rows[0] = malloc(png_get_rowbytes(png, session->info));
  if (!session->rows || !session->rows[0]) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  session->owns_row = 1;
  if (setjmp(png_jmpbuf(png))) return status->code;
  for (int pass = 0; pass < session->passes; pass++)
    for (uint32_t y = 0; y < height; y++) png_read_row(png, session->rows[0], NULL);
  png_read_end(png, session->info); /* as in imc_png_read */
  return IMC_OK;
}

static void imc_png_close(imc_decoder *decoder) {
  struct imc_png_session *session = session_of_decoder(decoder);
  imc_png_fast_destroy(session->fast);
  if (session->png) png_destroy_read_struct(&session->png, session->info ? &session->info : NULL, NULL);
  if (session->owns_row && session->rows) free(session->rows[0]);
  free(session->rows);
  free(session);
  decoder->session = NULL;
}

const imc_format_ops imc_png_format = {
    .format = IMC_FORMAT_PNG,
    .open = imc_png_open,
    .read = imc_png_read,
    .validate = imc_png_validate,
    .close = imc_png_close,
    .stream_begin = imc_png_stream_begin,
    .stream_scan = imc_png_stream_scan,
    .stream_pump = imc_png_stream_pump,
    .stream_start = NULL,
    .stream_done = imc_png_stream_done,
    .stream_header_ready = NULL,
    .last_bytes_end_input = 0,
};
