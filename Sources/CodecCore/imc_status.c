/* imc_status.c: status codes with their messages, and the request's limits. */
#include "imc_core.h"

#include <stdarg.h>

void imc_status_set(imc_status *status, int32_t code, const char *message) {
  status->code = code;
  snprintf(status->message, sizeof status->message, "%s", message);
}

void imc_status_setf(imc_status *status, int32_t code, const char *format, ...) {
  va_list args;
  va_start(args, format);
  status->code = code;
  vsnprintf(status->message, sizeof status->message, format, args);
  va_end(args);
}

void imc_request_normalize(imc_request *request) {
  if (request->max_pixels == 0) request->max_pixels = IMC_DEFAULT_MAX_PIXELS;
  if (request->max_width == 0) request->max_width = IMC_DEFAULT_MAX_DIMENSION;
  if (request->max_height == 0) request->max_height = IMC_DEFAULT_MAX_DIMENSION;
  if (request->max_scans <= 0) request->max_scans = IMC_DEFAULT_MAX_SCANS;
  if (request->max_frames == 0) request->max_frames = IMC_DEFAULT_MAX_FRAMES;
  if (request->max_chunk_bytes == 0) request->max_chunk_bytes = IMC_DEFAULT_MAX_CHUNK_BYTES;
  if (request->scale_eighths <= 0) request->scale_eighths = 8;
}

int imc_check_limits(const imc_request *request, uint32_t width, uint32_t height, imc_status *status) {
  return imc_check_limits_of(request, "image", width, height, status);
}

int imc_check_limits_of(const imc_request *request, const char *what, uint32_t width, uint32_t height,
                        imc_status *status) {
  if (width == 0 || height == 0) {
    imc_status_setf(status, IMC_ERR_CORRUPT, "%s has a zero dimension (%ux%u)", what, width, height);
    return 1;
  }
  if (width > request->max_width || height > request->max_height) {
    imc_status_setf(status, IMC_ERR_LIMIT, "%s is %ux%u, larger than the %ux%u limit", what, width, height,
                    request->max_width, request->max_height);
    return 1;
  }
  uint64_t pixels = (uint64_t)width * (uint64_t)height; /* cannot overflow: both are 32-bit */
  if (pixels > request->max_pixels) {
    /* In the unit the limit is given in (--max-pixels 1000: "over the 1000-pixel limit"). */
    imc_status_setf(status, IMC_ERR_LIMIT, "%s is %ux%u (%llu pixels), over the %llu-pixel limit", what, width,
                    height, (unsigned long long)pixels, (unsigned long long)request->max_pixels);
    return 1;
  }
  return 0;
}

