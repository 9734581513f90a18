/* imc_gif_status.c: giflib's error codes as imgfetch's statuses, each with a one-line reason. A
 * read that ran past the last byte is a truncation whatever giflib calls it (it has one code,
 * D_GIF_ERR_READ_FAILED, for a short read and for an LZW code size over 8). */
#include "imc_gif_walk.h"

int32_t imc_gif_fail(const imc_gif_input *input, int error, const char *where, imc_status *status) {
  if (input->hit_end) {
    imc_status_setf(status, IMC_ERR_TRUNCATED, "the file ends inside %s", where);
    return status->code;
  }
  const char *said = GifErrorString(error);
  if (!said) said = "unknown giflib error";
  switch (error) {
  case D_GIF_ERR_NOT_ENOUGH_MEM: imc_status_setf(status, IMC_ERR_NO_MEMORY, "out of memory in giflib (%s)", where); break;
  case D_GIF_ERR_READ_FAILED:
    imc_status_setf(status, IMC_ERR_CORRUPT, "%s: its LZW code size is over 8 bits", where);
    break;
  case D_GIF_ERR_NOT_GIF_FILE: imc_status_setf(status, IMC_ERR_NOT_IMAGE, "not a GIF file (%s)", said); break;
  case D_GIF_ERR_WRONG_RECORD:
    imc_status_setf(status, IMC_ERR_CORRUPT, "%s is not an image, an extension or the trailer", where);
    break;
  default: imc_status_setf(status, IMC_ERR_CORRUPT, "%s does not decode: %s", where, said); break;
  }
  return status->code;
}
