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
 * as dwebp does. */
#include "imc_core.h"
#include "imc_webp_session.h"

#include <webp/decode.h>

/* The incremental decoder is given the bytes in steps of this many, whatever pieces they arrived in:
 * libwebp's verdict (and pixels) on a damaged bitstream can depend on how much it had at each call
 * (FuzzWebP: a lossy image accepted in 1-byte pieces and `truncated` in one), so every path, from
 * memory, from a file and streamed, makes the same calls on the same lengths. */
#define STEP ((size_t)16 << 10)

/* Feeds the next step; returns libwebp's status for it and whether it was the last (every byte). */
static VP8StatusCode feed(struct imc_webp_session *session, size_t available, int *last) {
  size_t target = session->fed + STEP;
  if (target > available) target = available;
  *last = target == available && imc_webp_all_bytes(session);
  session->fed = target;
  return WebPIUpdate(session->idec, session->bytes, target);
}

int32_t imc_webp_decode_still(struct imc_webp_session *session, imc_status *status) {
  size_t available = session->length;
  if (available > session->chunks.riff_end) available = (size_t)session->chunks.riff_end;
  while (!session->image_done) {
    if (session->deferred) {
      if (!imc_webp_all_bytes(session)) return IMC_OK;
      session->deferred = 0;
      session->fed = 0;
      session->idec = WebPIDecode(NULL, 0, &session->config);
      if (!session->idec) {
        imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for libwebp's decoder");
        return status->code;
      }
      /* One call with every byte, as dwebp's WebPDecode. */
      session->fed = available;
      VP8StatusCode code = WebPIUpdate(session->idec, session->bytes, available);
      if (code == VP8_STATUS_SUSPENDED) return imc_webp_truncated(session, "WebP image data", status);
      if (code != VP8_STATUS_OK) return imc_webp_fail(code, "WebP image data", status);
      break;
    }
    /* The next step is fed once it has all arrived (or the bytes have ended). */
    if (session->fed + STEP > available && !imc_webp_all_bytes(session)) return IMC_OK;
    int last = 0;
    VP8StatusCode code = feed(session, available, &last);
    if (code == VP8_STATUS_OK) break;
    if (code == VP8_STATUS_SUSPENDED) {
      if (!last) continue;
      return imc_webp_truncated(session, "WebP image data", status);
    }
    if (!last) {
      WebPIDelete(session->idec);
      session->idec = NULL;
      session->deferred = 1;
      continue;
    }
    return imc_webp_fail(code, "WebP image data", status);
  }
  if (!session->image_done) {
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
