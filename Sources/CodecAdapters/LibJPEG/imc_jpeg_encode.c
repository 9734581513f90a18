/* imc_jpeg_encode.c: libjpeg-turbo compression to a memory buffer. Errors longjmp back here;
 * warnings are ignored; nothing is printed. */
#include "imc_libjpeg.h"

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct encode_errors {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  imc_status *status;
  unsigned char *target; /* owned by jpeg_mem_dest while compressing; ours to free */
  unsigned long length;
};

static void on_encode_error(j_common_ptr cinfo) {
  struct encode_errors *errors = (struct encode_errors *)cinfo->err;
  char message[JMSG_LENGTH_MAX];
  cinfo->err->format_message(cinfo, message);
  imc_status_set(errors->status, cinfo->err->msg_code == JERR_OUT_OF_MEMORY ? IMC_ERR_NO_MEMORY : IMC_ERR_ARGUMENT,
                 message);
  longjmp(errors->jump, 1);
}

static void on_encode_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

int32_t imc_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                        int32_t layout, const imc_jpeg_options *options, const char *comment,
                        const uint8_t *icc, size_t icc_length, imc_buffer *out, imc_status *status) {
  memset(status, 0, sizeof *status);
  out->data = NULL;
  out->length = 0;
  J_COLOR_SPACE space;
  int components;
  switch (layout) {
  case IMC_LAYOUT_GRAY8: space = JCS_GRAYSCALE; components = 1; break;
  case IMC_LAYOUT_RGB8: space = JCS_RGB; components = 3; break;
  case IMC_LAYOUT_RGBA8: space = JCS_EXT_RGBX; components = 4; break; /* alpha ignored */
  default:
    imc_status_set(status, IMC_ERR_ARGUMENT, "JPEG encoding needs gray8, rgb8 or rgba8 pixels");
    return status->code;
  }
  if (width == 0 || height == 0 || width > 65500 || height > 65500) {
    imc_status_setf(status, IMC_ERR_ARGUMENT, "JPEG cannot hold a %ux%u image", width, height);
    return status->code;
  }
  size_t comment_length = comment ? strlen(comment) : 0;
  if (comment_length > 65533) {
    imc_status_setf(status, IMC_ERR_ARGUMENT, "a JPEG comment holds at most 65533 bytes, not %zu", comment_length);
    return status->code;
  }
  struct jpeg_compress_struct cinfo;
  struct encode_errors errors;
  volatile int created = 0; /* read after a longjmp */
  errors.status = status;
  errors.target = NULL;
  errors.length = 0;
  cinfo.err = jpeg_std_error(&errors.pub);
  errors.pub.error_exit = on_encode_error;
  errors.pub.emit_message = on_encode_message;
  if (setjmp(errors.jump)) {
    if (created) jpeg_destroy_compress(&cinfo);
    free(errors.target);
    return status->code;
  }
  jpeg_create_compress(&cinfo);
  created = 1;
  jpeg_mem_dest(&cinfo, &errors.target, &errors.length);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = components;
  cinfo.in_color_space = space;
  jpeg_set_defaults(&cinfo);
  int quality = options->quality < 1 ? 1 : (options->quality > 100 ? 100 : options->quality);
  jpeg_set_quality(&cinfo, quality, TRUE);
  cinfo.optimize_coding = options->optimize ? TRUE : FALSE;
  cinfo.dct_method = JDCT_ISLOW;
  if (options->progressive) jpeg_simple_progression(&cinfo);
  if (cinfo.num_components == 3 && options->luma_h_sampling > 0 && options->luma_v_sampling > 0) {
    int chroma = options->cb_h_sampling > 0 || options->cb_v_sampling > 0 || options->cr_h_sampling > 0 ||
                 options->cr_v_sampling > 0;
    int most = chroma ? 4 : 2;
    const int32_t factors[3][2] = {{options->luma_h_sampling, options->luma_v_sampling},
                                   {options->cb_h_sampling, options->cb_v_sampling},
                                   {options->cr_h_sampling, options->cr_v_sampling}};
    for (int c = 0; c < 3; c++) {
      int h = factors[c][0] < 1 ? 1 : factors[c][0] > most ? most : factors[c][0];
      int v = factors[c][1] < 1 ? 1 : factors[c][1] > most ? most : factors[c][1];
      cinfo.comp_info[c].h_samp_factor = h;
      cinfo.comp_info[c].v_samp_factor = v;
    }
  }
  if (options->restart_interval > 0) cinfo.restart_interval = (unsigned)options->restart_interval;
  jpeg_start_compress(&cinfo, TRUE);
  /* Markers written now follow SOI and the JFIF APP0 segment, before the tables and scans. */
  if (comment) jpeg_write_marker(&cinfo, JPEG_COM, (const JOCTET *)comment, (unsigned int)comment_length);
  if (icc && icc_length > 0 && icc_length <= 255u * 65519u)
    jpeg_write_icc_profile(&cinfo, (const JOCTET *)icc, (unsigned int)icc_length);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * row_bytes);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  out->data = errors.target;
  out->length = errors.length;
  jpeg_destroy_compress(&cinfo);
  return IMC_OK;
}
