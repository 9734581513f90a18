/* imc_webp_still.c: a still WebP image through libwebp's incremental decoder, WebPIDecoder, on
 * every path: a pull decode of memory gives it all the bytes at once, a file or a stream as they
 * arrive, so all have the one decoder's verdict. Bytes past the RIFF end are not given to it
 * (WebPDecode ignores them too). When the image is decoded the file must still be as long as its
 * RIFF header says: WebPDecode refuses a shorter one (libwebp's NOT_ENOUGH_DATA), the incremental
 * decoder cannot know.
 *
 * The incremental decoder can refuse on part of the bytes what it accepts on all of them: a lossless
 * bitstream longer than its chunk says is read on into the bytes after it when they are there, and
 * refused when they have not arrived yet (FuzzWebP). So a refusal before the last byte is not a
 * verdict: the decoder is dropped, and once every byte is in, a new one decodes them in one call,
 * exactly as the decode of the file in memory does. */
#include "imc_core.h"
#include "imc_webp_session.h"

#include <webp/decode.h>

int32_t imc_webp_decode_still(struct imc_webp_session *session, imc_status *status) {
  if (!session->image_done) {
    if (session->deferred) {
      if (!imc_webp_all_bytes(session)) return IMC_OK;
      session->deferred = 0;
      session->idec = WebPIDecode(NULL, 0, &session->config);
      if (!session->idec) {
        imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for libwebp's decoder");
        return status->code;
      }
    }
    size_t length = session->length;
    if (length > session->chunks.riff_end) length = (size_t)session->chunks.riff_end;
    VP8StatusCode code = WebPIUpdate(session->idec, session->bytes, length);
    if (code != VP8_STATUS_OK && code != VP8_STATUS_SUSPENDED && !imc_webp_all_bytes(session)) {
      WebPIDelete(session->idec);
      session->idec = NULL;
      session->deferred = 1;
      return IMC_OK;
    }
    if (code == VP8_STATUS_SUSPENDED) {
      if (!imc_webp_all_bytes(session)) return IMC_OK;
      return imc_webp_truncated(session, "WebP image data", status);
    }
    if (code != VP8_STATUS_OK) return imc_webp_fail(code, "WebP image data", status);
    session->image_done = 1;
    WebPIDelete(session->idec);
    session->idec = NULL;
    const imc_info *info = &session->decoder->info;
    if (session->scratch)
      imc_webp_convert_rows(session->scratch, (size_t)info->output_width * 3, 3, session->out, session->out_stride,
                            info->output_layout, info->output_width, info->output_height);
  }
  if (session->length < session->chunks.riff_end) {
    if (!session->eof) return IMC_OK;
    return imc_webp_truncated(session, "WebP file", status);
  }
  session->done = 1;
  return IMC_OK;
}
