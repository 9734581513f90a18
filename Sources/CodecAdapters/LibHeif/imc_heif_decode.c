/* imc_heif_decode.c: the HEIC and AVIF entries of the format table, over libheif (loaded on first
 * use, imc_heif_library.h) and the core's whole-file decode (imc_whole.h): libheif reads a HEIF
 * file from all of its bytes, so the header is read once every byte is in, on every path.
 *
 * The image is the primary item, decoded with libheif's strict decoding, its transformations
 * (`clap`, `irot`, `imir`) applied by libheif once: a HEIF's Exif orientation is not applied on top
 * (the HEIF specification says the transformations are the orientation). Sizes are checked against
 * the request's limits, both the stored (`ispe`: what libheif allocates, a grid's whole canvas) and
 * the displayed, before libheif decodes anything, and libheif's own size limit is set to the same.
 * A file whose boxes or item extents run past its end is refused as truncated before libheif reads
 * it (imc_heif_extents.h), so the verdict does not depend on what a libheif version checks.
 * Colour: an ICC profile is handed on as other formats' are; an nclx box's primaries and transfer
 * codes are handed on for the colour conversion (imc_color.has_nclx). Nothing here prints. */
#include "imc_heif_extents.h"
#include "imc_heif_library.h"
#include "imc_libheif.h"
#include "imc_whole.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  struct heif_context *context;
  struct heif_image_handle *primary;
  uint8_t *icc;
  int bits;  /* luma bits per sample: 8 ... 16 */
  int alpha; /* the primary image has an alpha channel */
} heif_state;

/* Whether libheif before 1.18 refused an item reference naming several images: a gain map or an Exif
 * block describing both the primary image and its `tmap` item, as iOS 18 cameras write. The file is
 * valid (ISO/IEC 23008-12 allows it; libheif 1.18 reads it); this libheif cannot read it. */
static int is_shared_reference_before_118(struct heif_error error, const char *line) {
  if (error.code != heif_error_Invalid_input || imc_heif.heif_get_version_number() >= 0x01120000) return 0;
  return strstr(line, "Too many auxiliary image references") != NULL ||
         strstr(line, "Metadata not correctly assigned to image") != NULL;
}

/* libheif's error as imgfetch's status, with its message as the one-line reason (libheif ends some
 * with a line break, and joins parts with them). `what` names the step when it was not the read. */
static int32_t heif_failed(struct heif_error error, const char *what, imc_status *status) {
  int32_t code = IMC_ERR_CORRUPT;
  switch (error.code) {
  case heif_error_Invalid_input: code = error.subcode == heif_suberror_End_of_data ? IMC_ERR_TRUNCATED : IMC_ERR_CORRUPT; break;
  case heif_error_Unsupported_filetype:
  case heif_error_Unsupported_feature: code = IMC_ERR_UNSUPPORTED; break;
  case heif_error_Memory_allocation_error: code = IMC_ERR_NO_MEMORY; break;
  default: code = IMC_ERR_CORRUPT; break;
  }
  if (error.subcode == heif_suberror_Security_limit_exceeded) code = IMC_ERR_LIMIT;
  char line[160];
  snprintf(line, sizeof line, "%s", error.message && *error.message ? error.message : "unknown error");
  size_t n = strlen(line);
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = 0;
  for (size_t i = 0; i < n; i++)
    if (line[i] == '\n' || line[i] == '\r' || line[i] == '\t') line[i] = ' ';
  if (is_shared_reference_before_118(error, line)) {
    char version[32] = "";
    imc_heif_library_version(version, sizeof version);
    imc_status_setf(status, IMC_ERR_UNSUPPORTED,
                    "%s (libheif %s cannot read this layout, which iOS 18 writes; point IMGFETCH_LIBHEIF at libheif "
                    "1.18.1 or later)",
                    line, version);
    return status->code;
  }
  if (what)
    imc_status_setf(status, code, "%s: %s (libheif)", what, line);
  else
    imc_status_setf(status, code, "%s (libheif)", line);
  return status->code;
}

static uint32_t times_100000(float value) { return value <= 0 ? 0 : (uint32_t)((double)value * 100000.0 + 0.5); }

/* The primary image's colour facts: its ICC profile (copied), or its nclx box. */
static int32_t read_color(imc_decoder *decoder, heif_state *state, imc_status *status) {
  imc_color *color = &decoder->color;
  struct heif_image_handle *handle = state->primary;
  size_t size = imc_heif.heif_image_handle_get_raw_color_profile_size(handle);
  if (size > 0) {
    decoder->info.has_icc = 1;
    if (size > decoder->request.max_chunk_bytes) {
      color->icc_state = IMC_ICC_OVER_LIMIT;
      snprintf(color->note, sizeof color->note, "the colr profile is %zu bytes, over the %llu-byte limit", size,
               (unsigned long long)decoder->request.max_chunk_bytes);
    } else {
      state->icc = malloc(size);
      if (!state->icc) {
        imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for the ICC profile");
        return status->code;
      }
      struct heif_error error = imc_heif.heif_image_handle_get_raw_color_profile(handle, state->icc);
      if (error.code != heif_error_Ok) return heif_failed(error, "colour profile", status);
      color->icc = state->icc;
      color->icc_length = size;
      return IMC_OK;
    }
  }
  struct heif_color_profile_nclx *nclx = NULL;
  struct heif_error error = imc_heif.heif_image_handle_get_nclx_color_profile(handle, &nclx);
  if (error.code != heif_error_Ok || !nclx) {
    /* None, or codes libheif does not know (it made the profile before it refused them): sRGB, as
     * for any untagged image. */
    if (nclx) imc_heif.heif_nclx_color_profile_free(nclx);
    return IMC_OK;
  }
  color->nclx_primaries = (uint16_t)nclx->color_primaries;
  color->nclx_transfer = (uint16_t)nclx->transfer_characteristics;
  color->nclx_matrix = (uint16_t)nclx->matrix_coefficients;
  color->nclx_full_range = nclx->full_range_flag;
  color->has_nclx = 1;
  if (nclx->color_primaries != heif_color_primaries_unspecified && nclx->color_primary_white_x > 0) {
    const float xy[8] = {nclx->color_primary_white_x, nclx->color_primary_white_y, nclx->color_primary_red_x,
                         nclx->color_primary_red_y,   nclx->color_primary_green_x, nclx->color_primary_green_y,
                         nclx->color_primary_blue_x,  nclx->color_primary_blue_y};
    for (int i = 0; i < 8; i++) color->chromaticities[i] = times_100000(xy[i]);
    color->has_chromaticities = 1;
  }
  imc_heif.heif_nclx_color_profile_free(nclx);
  return IMC_OK;
}

/* The longest side the request allows. */
static int64_t request_side(const imc_request *request) {
  return request->max_width > request->max_height ? request->max_width : request->max_height;
}

/* libheif refuses a side equal to its limit (1.15: `width >= limit`), so the limit is one more. */
static void set_side_limit(struct heif_context *context, int64_t side) {
  imc_heif.heif_context_set_maximum_image_size_limit(context, side >= INT32_MAX ? INT32_MAX : (int)side + 1);
}

/* libheif 1.15's one limit is per side, and it holds every image libheif itself makes in a decode:
 * grid and overlay canvases and the images it reads sizes of. With the request's side, a 29x100
 * grid whose tile is an overlay naming a 38811x46949 canvas passes it and makes libheif allocate
 * 1.8 GB (FuzzHEIF). Once the primary is known, the limit comes down to the primary's longest
 * side, stored or shown, or 4096 if that is more (a single tile larger than a small grid's
 * output), rounded up to a whole 128 because libheif also holds the coded picture to it, and an
 * encoder pads that to its block size (a 6029-wide camera HEIC codes 6032; AV1's superblocks are
 * 128), so what libheif makes is at most that side squared. (The codec's own picture, sized by
 * its bitstream, is not held by it: libde265 and dav1d allocate what their headers say, and the
 * decode is refused afterwards for the size it came out, as the README says.) */
static void tighten_side_limit(struct heif_context *context, const imc_request *request, int stored_width,
                               int stored_height, int width, int height) {
  int64_t side = 4096;
  int sides[4] = {stored_width, stored_height, width, height};
  for (int i = 0; i < 4; i++)
    if (sides[i] > side) side = sides[i];
  if (side > request_side(request)) side = request_side(request);
  set_side_limit(context, (side + 127) / 128 * 128);
}

/* The primary item's compression as the format it makes the file: AV1 is AVIF; anything else HEIC. */
static int32_t format_of(const uint8_t *bytes, size_t length) {
  int n = length > 4096 ? 4096 : (int)length;
  enum heif_brand brand = imc_heif.heif_main_brand(bytes, n);
  if (brand == heif_avif || brand == heif_avis) return IMC_FORMAT_AVIF;
  if (brand == heif_heic || brand == heif_heix || brand == heif_hevc || brand == heif_hevx) return IMC_FORMAT_HEIC;
  return imc_heif.heif_has_compatible_brand(bytes, n, "avif") == 1 ? IMC_FORMAT_AVIF : IMC_FORMAT_HEIC;
}

/* The image: the primary item (`pitm`) when it is one of the file's top-level images, else the first
 * of those, as heif-convert shows a file whose `pitm` names a thumbnail or nothing. */
static int32_t open_primary(heif_state *state, imc_status *status) {
  heif_item_id id = 0;
  struct heif_error error = imc_heif.heif_context_get_primary_image_ID(state->context, &id);
  if (error.code != heif_error_Ok || !imc_heif.heif_context_is_top_level_image_ID(state->context, id)) {
    if (imc_heif.heif_context_get_list_of_top_level_image_IDs(state->context, &id, 1) < 1) {
      imc_status_set(status, IMC_ERR_CORRUPT, "the file holds no image");
      return status->code;
    }
  }
  error = imc_heif.heif_context_get_image_handle(state->context, id, &state->primary);
  if (error.code != heif_error_Ok) return heif_failed(error, "primary image", status);
  return IMC_OK;
}

static int32_t read_header(imc_decoder *decoder, void **state_pointer, const uint8_t *bytes, size_t length,
                           int complete, int *ready, imc_status *status) {
  *ready = 0;
  if (!complete) return IMC_OK; /* libheif reads a file whole */
  char reason[256];
  if (!imc_heif_load(reason, sizeof reason)) {
    imc_status_set(status, IMC_ERR_UNSUPPORTED, reason);
    return status->code;
  }
  heif_state *state = calloc(1, sizeof *state);
  if (!state) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
    return status->code;
  }
  *state_pointer = state;
  imc_info *info = &decoder->info;
  info->format = format_of(bytes, length);
  const char *name = info->format == IMC_FORMAT_AVIF ? "AVIF" : "HEIF";
  const imc_request *request = &decoder->request;
  /* Cut short by its own account, whatever this libheif checks (imc_heif_extents.h). */
  char cut[160];
  if (imc_heif_cut_short(bytes, length, cut, sizeof cut)) {
    imc_status_set(status, IMC_ERR_TRUNCATED, cut);
    return status->code;
  }
  state->context = imc_heif.heif_context_alloc();
  if (!state->context) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for libheif's context");
    return status->code;
  }
  /* libheif's own limit (its security limit, per side) at the request's: no item over it is read. */
  set_side_limit(state->context, request_side(request));
  struct heif_error error = imc_heif.heif_context_read_from_memory_without_copy(state->context, bytes, length, NULL);
  if (error.code != heif_error_Ok) return heif_failed(error, NULL, status);
  if (open_primary(state, status) != IMC_OK) return status->code;
  struct heif_image_handle *handle = state->primary;
  int stored_width = imc_heif.heif_image_handle_get_ispe_width(handle);
  int stored_height = imc_heif.heif_image_handle_get_ispe_height(handle);
  int width = imc_heif.heif_image_handle_get_width(handle);
  int height = imc_heif.heif_image_handle_get_height(handle);
  if (width <= 0 || height <= 0) {
    imc_status_setf(status, IMC_ERR_CORRUPT, "%s image has no size (%dx%d)", name, width, height);
    return status->code;
  }
  /* What libheif allocates before the crop, then what is shown. */
  if (stored_width > 0 && stored_height > 0 &&
      imc_check_limits(request, (uint32_t)stored_width, (uint32_t)stored_height, status))
    return status->code;
  if (imc_check_limits(request, (uint32_t)width, (uint32_t)height, status)) return status->code;
  tighten_side_limit(state->context, request, stored_width, stored_height, width, height);
  info->width = info->output_width = (uint32_t)width;
  info->height = info->output_height = (uint32_t)height;
  state->alpha = imc_heif.heif_image_handle_has_alpha_channel(handle) != 0;
  state->bits = imc_heif.heif_image_handle_get_luma_bits_per_pixel(handle);
  if (state->bits <= 0) state->bits = 8;
  if (state->bits > 16) {
    imc_status_setf(status, IMC_ERR_UNSUPPORTED, "%s image has %d-bit samples (16 at most)", name, state->bits);
    return status->code;
  }
  info->bit_depth = state->bits;
  /* libheif 1.15 does not say before decoding that an image has no chroma (its hvcC and av1C give
   * a chroma depth either way): a monochrome image is described and decoded as RGB, R = G = B, as
   * heif-convert writes it. */
  info->components = 3 + state->alpha;
  info->color_type = state->alpha ? IMC_PNG_COLOR_RGBA : IMC_PNG_COLOR_RGB;
  info->has_transparency = state->alpha;
  info->orientation = 0; /* applied by libheif's transformations, and only by them */
  int images = imc_heif.heif_context_get_number_of_top_level_images(state->context);
  info->frames = images > 0 ? (uint32_t)images : 1;
  enum heif_compression_format codec = info->format == IMC_FORMAT_AVIF ? heif_compression_AV1 : heif_compression_HEVC;
  if (!imc_heif.heif_have_decoder_for_format(codec)) {
    imc_status_setf(status, IMC_ERR_UNSUPPORTED, "this libheif has no %s decoder",
                    codec == heif_compression_AV1 ? "AV1" : "HEVC");
    return status->code;
  }
  if (read_color(decoder, state, status) != IMC_OK) return status->code;
  *ready = 1;
  return IMC_OK;
}

static int32_t layout_for(int32_t want, const heif_state *state) {
  switch (want) {
  case IMC_WANT_RGBA8: return IMC_LAYOUT_RGBA8;
  case IMC_WANT_RGB8: return IMC_LAYOUT_RGB8;
  case IMC_WANT_GRAY8: return IMC_LAYOUT_GRAY8;
  case IMC_WANT_NATIVE:
    if (state->bits > 8) return state->alpha ? IMC_LAYOUT_RGBA16 : IMC_LAYOUT_RGB16;
    return state->alpha ? IMC_LAYOUT_RGBA8 : IMC_LAYOUT_RGB8;
  default: return state->alpha ? IMC_LAYOUT_RGBA8 : IMC_LAYOUT_RGB8;
  }
}

static int32_t choose_output(imc_decoder *decoder, void *state, int32_t scale_eighths, imc_status *status) {
  imc_info *info = &decoder->info;
  info->output_layout = layout_for(decoder->request.want, state);
  info->output_width = info->width; /* libheif decodes at the stored size only */
  info->output_height = info->height;
  return IMC_OK;
}

/* Rows of libheif's interleaved RGB(A), 8-bit or 16-bit little-endian holding `bits`-bit values, in
 * the output layout; samples of more than 8 bits are rounded to the output's depth. */
static void convert_rows(const heif_state *state, const uint8_t *in, size_t in_stride, uint8_t *out,
                         size_t out_stride, int32_t layout, uint32_t width, uint32_t height);

static int32_t decode(imc_decoder *decoder, void *state_pointer, const uint8_t *bytes, size_t length, uint8_t *out,
                      size_t stride, imc_status *status) {
  heif_state *state = state_pointer;
  const imc_info *info = &decoder->info;
  const char *name = info->format == IMC_FORMAT_AVIF ? "AVIF" : "HEIF";
  int wide = state->bits > 8;
  enum heif_chroma chroma = wide ? (state->alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                                 : (state->alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
  struct heif_decoding_options *options = imc_heif.heif_decoding_options_alloc();
  if (!options) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for libheif's options");
    return status->code;
  }
  options->strict_decoding = 1;
  /* A grid's tiles are decoded in parallel only while no other decode is at work. */
  imc_heif.heif_context_set_max_decoding_threads(state->context, imc_busy_count() > 1 ? 1 : 4);
  struct heif_image *image = NULL;
  struct heif_error error = imc_heif.heif_decode_image(state->primary, &image, heif_colorspace_RGB, chroma, options);
  imc_heif.heif_decoding_options_free(options);
  if (error.code != heif_error_Ok) return heif_failed(error, NULL, status);
  int plane_stride = 0;
  const uint8_t *plane = imc_heif.heif_image_get_plane_readonly(image, heif_channel_interleaved, &plane_stride);
  int32_t code = IMC_OK;
  if (!plane || imc_heif.heif_image_get_width(image, heif_channel_interleaved) != (int)info->width ||
      imc_heif.heif_image_get_height(image, heif_channel_interleaved) != (int)info->height) {
    code = IMC_ERR_CORRUPT;
    imc_status_setf(status, code, "%s image decoded to another size than its header says", name);
  } else if (out) {
    convert_rows(state, plane, (size_t)plane_stride, out, stride, info->output_layout, info->width, info->height);
  }
  imc_heif.heif_image_release(image);
  return code;
}

static void convert_rows(const heif_state *state, const uint8_t *in, size_t in_stride, uint8_t *out,
                         size_t out_stride, int32_t layout, uint32_t width, uint32_t height) {
  const int in_channels = state->alpha ? 4 : 3;
  const int wide = state->bits > 8;
  const uint32_t max = wide ? (1u << state->bits) - 1 : 255u;
  const int out_wide = layout >= IMC_LAYOUT_GRAY16;
  const uint32_t out_max = out_wide ? 65535u : 255u;
  const int gray = layout == IMC_LAYOUT_GRAY8; /* the layouts layout_for chooses */
  const int out_alpha = layout == IMC_LAYOUT_RGBA8 || layout == IMC_LAYOUT_RGBA16;
  if (!wide && !out_wide && !gray && out_alpha == state->alpha) {
    /* The common case, 8-bit RGB(A) into the same layout: the rows as they are (a sixth of a 20 MP
     * AVIF thumbnail's time went to the loop below). */
    for (uint32_t y = 0; y < height; y++)
      memcpy(out + (size_t)y * out_stride, in + (size_t)y * in_stride, (size_t)width * (size_t)in_channels);
    return;
  }
  for (uint32_t y = 0; y < height; y++) {
    const uint8_t *row = in + (size_t)y * in_stride;
    uint8_t *to8 = out + (size_t)y * out_stride;
    uint16_t *to16 = (uint16_t *)(void *)to8;
    for (uint32_t x = 0; x < width; x++) {
      uint32_t sample[4];
      for (int c = 0; c < in_channels; c++) {
        uint32_t v = wide ? (uint32_t)row[((size_t)x * in_channels + c) * 2] |
                                (uint32_t)row[((size_t)x * in_channels + c) * 2 + 1] << 8
                          : row[(size_t)x * in_channels + c];
        if (v > max) v = max;
        /* Rounded, not truncated: v * out_max / max to the nearest. */
        sample[c] = max == out_max ? v : (v * out_max + max / 2) / max;
      }
      uint32_t a = in_channels == 4 ? sample[3] : out_max;
      int n = 0;
      uint32_t values[4];
      if (gray) {
        /* Rec. 601's luma, as the other formats' gray output (R = G = B stays itself). */
        values[n++] = (sample[0] * 19595u + sample[1] * 38470u + sample[2] * 7471u + 32768u) >> 16;
      } else {
        values[n++] = sample[0];
        values[n++] = sample[1];
        values[n++] = sample[2];
      }
      if (out_alpha) values[n++] = a;
      for (int c = 0; c < n; c++) {
        if (out_wide)
          to16[(size_t)x * n + c] = (uint16_t)values[c];
        else
          to8[(size_t)x * n + c] = (uint8_t)values[c];
      }
    }
  }
}

static void release(void *state_pointer) {
  heif_state *state = state_pointer;
  if (!state) return;
  if (state->primary) imc_heif.heif_image_handle_release(state->primary);
  if (state->context) imc_heif.heif_context_free(state->context);
  free(state->icc);
  free(state);
}

static const imc_whole_format heic_whole = {IMC_FORMAT_HEIC, read_header, choose_output, decode, release};
static const imc_whole_format avif_whole = {IMC_FORMAT_AVIF, read_header, choose_output, decode, release};

static int32_t heic_open(imc_decoder *decoder, imc_status *status) { return imc_whole_open(decoder, &heic_whole, status); }
static int32_t avif_open(imc_decoder *decoder, imc_status *status) { return imc_whole_open(decoder, &avif_whole, status); }
static int32_t heic_begin(imc_decoder *decoder, imc_status *status) {
  return imc_whole_stream_begin(decoder, &heic_whole, status);
}
static int32_t avif_begin(imc_decoder *decoder, imc_status *status) {
  return imc_whole_stream_begin(decoder, &avif_whole, status);
}

const imc_format_ops imc_heic_format = IMC_WHOLE_FORMAT_OPS(IMC_FORMAT_HEIC, heic_open, heic_begin);
const imc_format_ops imc_avif_format = IMC_WHOLE_FORMAT_OPS(IMC_FORMAT_AVIF, avif_open, avif_begin);
