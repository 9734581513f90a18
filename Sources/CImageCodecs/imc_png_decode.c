/* imc_png_decode.c: libpng decoding behind imc_decoder.
 *
 * Why a shim: libpng reports errors through a function that must not return (it would abort the
 * process), so errors longjmp to a setjmp in the C function that called libpng. Warnings are
 * counted, never printed. User limits and the ancillary-chunk memory limit are set before the
 * header is read, so a 65535x65535 header or a zTXt/iCCP bomb costs milliseconds, not memory.
 * Text chunks are skipped unread: nothing in imgfetch uses them.
 */
#include "imc_internal.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct imc_png_session {
  png_structp png;
  png_infop info;
  imc_status *status;
  imc_source *source;
  int32_t code_on_error; /* our own reason, when we stop libpng ourselves */
  png_bytep *rows;
};

static void on_error(png_structp png, png_const_charp message) {
  struct imc_png_session *session = png_get_error_ptr(png);
  imc_status *status = session->status;
  if (status->code == IMC_OK) {
    int32_t code = session->code_on_error;
    if (code == IMC_OK) {
      if (session->source->hit_end) code = IMC_ERR_TRUNCATED;
      else if (strstr(message, "user limit") || strstr(message, "exceeds") || strstr(message, "too large"))
        code = IMC_ERR_LIMIT;
      else if (strstr(message, "out of memory") || strstr(message, "Out of memory"))
        code = IMC_ERR_NO_MEMORY;
      else
        code = IMC_ERR_CORRUPT;
    }
    imc_status_set(status, code, message);
  }
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
  struct imc_png_session *session = png_get_error_ptr(png);
  session->status->warnings++;
  /* libpng warns "exceeds user limit" and then fails with "Invalid IHDR data": report the limit. */
  if (strstr(message, "user limit") && session->code_on_error == IMC_OK) {
    session->code_on_error = IMC_ERR_LIMIT;
    imc_status_set(session->status, IMC_ERR_LIMIT, message);
  }
}

static void on_read(png_structp png, png_bytep out, size_t count) {
  struct imc_png_session *session = png_get_io_ptr(png);
  if (imc_source_read(session->source, out, count) != count) {
    if (session->source->file && ferror(session->source->file)) session->code_on_error = IMC_ERR_IO;
    png_error(png, session->source->file && ferror(session->source->file) ? "Read error" : "Unexpected end of data");
  }
}

static const png_byte text_chunks[] = {'t', 'E', 'X', 't', '\0', 'z', 'T', 'X', 't', '\0', 'i', 'T', 'X', 't', '\0'};

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
  if (!source_gray && layout_is_gray(layout)) png_set_rgb_to_gray_fixed(png, PNG_ERROR_ACTION_NONE, -1, -1);
  int source_alpha = (color_type & PNG_COLOR_MASK_ALPHA) || (has_trns && want_alpha);
  if (want_alpha && !source_alpha) png_set_add_alpha(png, layout_is_wide(layout) ? 0xffff : 0xff, PNG_FILLER_AFTER);
  if (!want_alpha && (color_type & PNG_COLOR_MASK_ALPHA)) png_set_strip_alpha(png);
  png_set_interlace_handling(png);
}

int32_t imc_png_open(imc_decoder *decoder, imc_status *status) {
  struct imc_png_session *session = calloc(1, sizeof *session);
  if (!session) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  decoder->png = session;
  session->status = status;
  session->source = &decoder->source;
  session->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, session, on_error, on_warning);
  if (!session->png) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  session->info = png_create_info_struct(session->png);
  if (!session->info) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  png_structp png = session->png;
  png_infop info = session->info;
  if (setjmp(png_jmpbuf(png))) return status->code;
  const imc_request *request = &decoder->request;
  png_set_read_fn(png, session, on_read);
  png_set_user_limits(png, request->max_width, request->max_height);
  png_set_chunk_cache_max(png, 1000);
  png_set_chunk_malloc_max(png, (png_alloc_size_t)request->max_chunk_bytes);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, text_chunks, 3);
  png_read_info(png, info);

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
  png_bytep exif = NULL;
  png_uint_32 exif_length = 0;
  if (png_get_eXIf_1(png, info, &exif_length, &exif) && exif) out->orientation = imc_exif_orientation(exif, exif_length);
  if (imc_check_limits(request, width, height, status)) return status->code;
  out->output_layout = choose_layout(request->want, color_type, bit_depth, has_trns);
  set_transforms(png, out->output_layout, color_type, bit_depth, has_trns);
  png_read_update_info(png, info);
  size_t expected = (size_t)width * imc_layout_bytes_per_pixel(out->output_layout);
  if (png_get_rowbytes(png, info) != expected) {
    imc_status_set(status, IMC_ERR_UNSUPPORTED, "PNG transform produced an unexpected row size");
    return status->code;
  }
  return IMC_OK;
}

int32_t imc_png_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status) {
  struct imc_png_session *session = decoder->png;
  png_structp png = session->png;
  session->status = status;
  uint32_t height = decoder->info.output_height;
  session->rows = malloc(sizeof(png_bytep) * height);
  if (!session->rows) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  for (uint32_t y = 0; y < height; y++) session->rows[y] = pixels + (size_t)y * row_bytes;
  if (setjmp(png_jmpbuf(png))) return status->code;
  png_read_image(png, session->rows);
  png_read_end(png, NULL);
  return IMC_OK;
}

void imc_png_close(imc_decoder *decoder) {
  struct imc_png_session *session = decoder->png;
  if (session->png) png_destroy_read_struct(&session->png, session->info ? &session->info : NULL, NULL);
  free(session->rows);
  free(session);
  decoder->png = NULL;
}
