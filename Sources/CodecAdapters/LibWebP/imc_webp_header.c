/* imc_webp_header.c: a WebP file's header from the bytes so far: libwebp's features (size, alpha,
 * animation, lossy or lossless), the ICC profile, the EXIF orientation and the frame count, each
 * checked against the request's limits before any pixel memory exists.
 *
 * The container puts the EXIF chunk after the image data: a file whose VP8X flags say it has one
 * is ready only once that chunk has arrived (or the file has ended), so that every path knows the
 * orientation before it plans anything. An animation is ready once all its bytes are there: its
 * frames are counted (and limited) before WebPAnimDecoder sees them. */
#include "imc_core.h"
#include "imc_webp_session.h"

#include <stdlib.h>
#include <string.h>

/* The first EXIF chunk's orientation, when the VP8X flags announce EXIF (a stream waits for that
 * chunk only then: every path reads the same chunk or none). */
static int32_t orientation_of(const struct imc_webp_session *session) {
  const imc_webp_chunks *chunks = &session->chunks;
  if (!chunks->vp8x || !(chunks->flags & IMC_WEBP_FLAG_EXIF)) return 0;
  if (!chunks->has_exif || !chunks->exif_complete) return 0;
  const uint8_t *exif = session->bytes + chunks->exif_offset;
  size_t length = (size_t)chunks->exif_length;
  /* Some writers keep JPEG's APP1 prefix; the specification's payload is the TIFF structure itself. */
  if (length >= 6 && memcmp(exif, "Exif\0\0", 6) == 0) {
    exif += 6;
    length -= 6;
  }
  return imc_exif_orientation(exif, length);
}

/* A copy of the ICCP payload (the profile must precede the image data, so it is there by now). */
static int32_t keep_profile(struct imc_webp_session *session, imc_status *status) {
  const imc_webp_chunks *chunks = &session->chunks;
  imc_decoder *decoder = session->decoder;
  decoder->info.has_icc = chunks->has_icc;
  if (!chunks->has_icc || chunks->icc_offset + chunks->icc_length > session->length) return IMC_OK;
  if (chunks->icc_length > decoder->request.max_chunk_bytes) {
    decoder->color.icc_state = IMC_ICC_OVER_LIMIT;
    snprintf(decoder->color.note, sizeof decoder->color.note, "the ICCP chunk is %llu bytes, over the %llu-byte limit",
             (unsigned long long)chunks->icc_length, (unsigned long long)decoder->request.max_chunk_bytes);
    return IMC_OK;
  }
  if (chunks->icc_length == 0) return IMC_OK;
  session->icc = malloc((size_t)chunks->icc_length);
  if (!session->icc) {
    imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for the ICC profile");
    return status->code;
  }
  memcpy(session->icc, session->bytes + chunks->icc_offset, (size_t)chunks->icc_length);
  decoder->color.icc = session->icc;
  decoder->color.icc_length = (size_t)chunks->icc_length;
  return IMC_OK;
}

/* Bytes of a VP8 or VP8L bitstream's start that hold its frame header (VP8: 10, VP8L: 5), with room. */
#define FRAME_HEADER_BYTES 32u

/* Whether WebPGetFeatures's answer on the bytes so far is the one it gives on the whole file. It is
 * not on every prefix (FuzzWebP): for an extended (VP8X) still image it answers from the VP8X chunk
 * alone while the image's own header has not arrived (a size and alpha the bitstream may
 * contradict), and it refuses some prefixes of a header it accepts whole (bytes that are not a
 * chunk, read as a bitstream). Its answer, yes or no, counts once the first VP8 or VP8L chunk's
 * frame header is there, or an animation's VP8X chunk (all it reads of one), or every byte. A file
 * whose image chunk never comes (damaged chunks) is judged when its last byte has arrived. */
static int features_final(const struct imc_webp_session *session) {
  const imc_webp_chunks *chunks = &session->chunks;
  if (imc_webp_all_bytes(session) || (chunks->vp8x && (chunks->flags & IMC_WEBP_FLAG_ANIMATION))) return 1;
  return chunks->has_image && session->length >= chunks->image_offset + FRAME_HEADER_BYTES;
}

static int32_t read_features(struct imc_webp_session *session, imc_status *status) {
  imc_decoder *decoder = session->decoder;
  if (!features_final(session)) return IMC_OK;
  size_t length = session->length;
  if (session->chunks.riff_end > 0 && length > session->chunks.riff_end) length = (size_t)session->chunks.riff_end;
  /* (libwebp takes no bytes at all as an invalid parameter, not as too few.) */
  VP8StatusCode code =
      length > 0 ? WebPGetFeatures(session->bytes, length, &session->features) : VP8_STATUS_NOT_ENOUGH_DATA;
  if (code == VP8_STATUS_NOT_ENOUGH_DATA && !imc_webp_all_bytes(session)) return IMC_OK;
  if (code == VP8_STATUS_NOT_ENOUGH_DATA) return imc_webp_truncated(session, "WebP header", status);
  if (code != VP8_STATUS_OK) return imc_webp_fail(code, "WebP header", status);
  const WebPBitstreamFeatures *features = &session->features;
  imc_info *info = &decoder->info;
  info->format = IMC_FORMAT_WEBP;
  info->width = info->output_width = (uint32_t)features->width;
  info->height = info->output_height = (uint32_t)features->height;
  info->bit_depth = 8;
  info->components = features->has_alpha ? 4 : 3;
  info->color_type = features->has_alpha ? IMC_PNG_COLOR_RGBA : IMC_PNG_COLOR_RGB;
  info->has_transparency = features->has_alpha != 0;
  info->lossless = features->format == 2;
  session->animated = features->has_animation != 0;
  if (imc_check_limits(&decoder->request, info->width, info->height, status)) return status->code;
  if (keep_profile(session, status) != IMC_OK) return status->code;
  session->header_known = 1;
  return IMC_OK;
}

int32_t imc_webp_read_header(struct imc_webp_session *session, imc_status *status) {
  imc_decoder *decoder = session->decoder;
  imc_webp_walk(&session->chunks, session->bytes, session->length);
  if (!session->header_known) {
    if (read_features(session, status) != IMC_OK) return status->code;
    if (!session->header_known) return IMC_OK;
  }
  /* An animation's frames are counted as their chunks arrive (after its header, on every path):
   * too many is refused before the rest is read, so the reason cannot name the count (a stream
   * knows only that it is over). */
  if (session->animated && session->chunks.frames > decoder->request.max_frames) {
    imc_status_setf(status, IMC_ERR_LIMIT, "animation has more frames than the %u-frame limit",
                    decoder->request.max_frames);
    return status->code;
  }
  if (session->header_ready) return IMC_OK;
  int wants_exif = session->chunks.vp8x && (session->chunks.flags & IMC_WEBP_FLAG_EXIF);
  if (session->animated && !imc_webp_all_bytes(session)) return IMC_OK;
  if (wants_exif && !session->chunks.exif_complete && !imc_webp_all_bytes(session)) return IMC_OK;
  decoder->info.orientation = orientation_of(session);
  decoder->info.frames = session->animated ? session->chunks.frames : 1;
  session->header_ready = 1;
  return IMC_OK;
}
