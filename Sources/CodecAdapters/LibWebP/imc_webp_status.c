/* imc_webp_status.c: libwebp's status codes as imgfetch's, each with a reason of one line. libwebp
 * keeps its own messages inside the decoder (they are not in its public API): the reason says what
 * failed, and the code which of libwebp's verdicts it was. */
#include "imc_core.h"
#include "imc_webp_session.h"

int32_t imc_webp_fail(VP8StatusCode code, const char *what, imc_status *status) {
  switch (code) {
  case VP8_STATUS_OUT_OF_MEMORY: imc_status_setf(status, IMC_ERR_NO_MEMORY, "out of memory decoding %s", what); break;
  case VP8_STATUS_UNSUPPORTED_FEATURE:
    imc_status_setf(status, IMC_ERR_UNSUPPORTED, "%s uses a feature libwebp does not decode", what);
    break;
  case VP8_STATUS_NOT_ENOUGH_DATA:
  case VP8_STATUS_SUSPENDED: imc_status_setf(status, IMC_ERR_TRUNCATED, "%s ends before the image does", what); break;
  case VP8_STATUS_INVALID_PARAM: imc_status_setf(status, IMC_ERR_CORRUPT, "%s has invalid parameters", what); break;
  case VP8_STATUS_USER_ABORT: imc_status_setf(status, IMC_ERR_CORRUPT, "%s: decoding was stopped", what); break;
  default: imc_status_setf(status, IMC_ERR_CORRUPT, "%s is corrupt (libwebp: bitstream error)", what); break;
  }
  return status->code;
}

int32_t imc_webp_truncated(const struct imc_webp_session *session, const char *what, imc_status *status) {
  if (session->chunks.riff_end > 0 && session->length < session->chunks.riff_end)
    imc_status_setf(status, IMC_ERR_TRUNCATED, "WebP file ends early (%llu of the %llu bytes its RIFF header says)",
                    (unsigned long long)session->length, (unsigned long long)session->chunks.riff_end);
  else
    imc_status_setf(status, IMC_ERR_TRUNCATED, "%s ends before the image does", what);
  return status->code;
}
