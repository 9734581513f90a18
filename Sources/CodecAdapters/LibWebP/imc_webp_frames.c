/* imc_webp_frames.c: an animated WebP through libwebpdemux's WebPAnimDecoder, once every byte is
 * there. Every frame must decode (each is composed on the canvas as a viewer shows it); the first
 * is the image. The canvas was checked against the pixel limits and the frames counted against the
 * frame limit (imc_webp_header.c) before the decoder allocates its canvas. */
#include "imc_core.h"
#include "imc_webp_session.h"

#include <webp/demux.h>

int32_t imc_webp_decode_frames(struct imc_webp_session *session, imc_status *status) {
  imc_decoder *decoder = session->decoder;
  const imc_info *info = &decoder->info;
  if (!session->eof && session->length < session->chunks.riff_end) return IMC_OK;
  if (session->length < session->chunks.riff_end) return imc_webp_truncated(session, "WebP file", status);
  WebPAnimDecoderOptions options;
  if (!WebPAnimDecoderOptionsInit(&options)) {
    imc_status_set(status, IMC_ERR_UNSUPPORTED, "libwebpdemux's version does not match its headers");
    return status->code;
  }
  options.color_mode = MODE_RGBA;
  options.use_threads = 0;
  WebPData data = {session->bytes, (size_t)session->chunks.riff_end};
  WebPAnimDecoder *animation = WebPAnimDecoderNew(&data, &options);
  if (!animation) {
    imc_status_set(status, IMC_ERR_CORRUPT, "WebP animation's container is invalid (libwebpdemux refused it)");
    return status->code;
  }
  WebPAnimInfo facts;
  int32_t result = IMC_OK;
  if (!WebPAnimDecoderGetInfo(animation, &facts) || facts.canvas_width != info->width ||
      facts.canvas_height != info->height) {
    imc_status_set(status, IMC_ERR_CORRUPT, "WebP animation's canvas does not match its header");
    result = status->code;
  } else if (facts.frame_count == 0) {
    imc_status_set(status, IMC_ERR_CORRUPT, "WebP animation has no frames");
    result = status->code;
  } else if (facts.frame_count > decoder->request.max_frames) {
    imc_status_setf(status, IMC_ERR_LIMIT, "animation has more frames than the %u-frame limit",
                    decoder->request.max_frames);
    result = status->code;
  }
  for (uint32_t frame = 0; result == IMC_OK && frame < facts.frame_count; frame++) {
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(animation, &canvas, &timestamp)) {
      imc_status_setf(status, IMC_ERR_CORRUPT, "WebP animation frame %u of %u does not decode", frame + 1,
                      facts.frame_count);
      result = status->code;
    } else if (frame == 0) {
      imc_webp_convert_rows(canvas, (size_t)info->width * 4, 4, session->out, session->out_stride, info->output_layout,
                            info->output_width, info->output_height);
    }
  }
  WebPAnimDecoderDelete(animation);
  if (result == IMC_OK) session->done = session->image_done = 1;
  return result;
}
