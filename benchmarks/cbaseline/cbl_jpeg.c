/* cbl_jpeg.c: the libjpeg-turbo ceiling. One decompress object lives for the whole run (creating it
 * allocates libjpeg's memory manager); each decode reads the header from memory, picks RGB (gray
 * for one-component files), keeps JDCT_ISLOW and fancy upsampling, and reads up to 16 scanlines per
 * call straight into the output rows. Any warning counts as a failure, as a strict decode would. */
#include "cbl_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>

struct cbl_jpeg {
  struct jpeg_decompress_struct cinfo;
  struct jpeg_error_mgr errors;
  jmp_buf jump;
  int warnings;
};

static void on_error_exit(j_common_ptr cinfo) {
  struct cbl_jpeg *jpeg = (struct cbl_jpeg *)cinfo->client_data;
  longjmp(jpeg->jump, 1);
}

static void on_emit_message(j_common_ptr cinfo, int level) {
  if (level < 0) ((struct cbl_jpeg *)cinfo->client_data)->warnings++;
}

cbl_jpeg *cbl_jpeg_create(void) {
  struct cbl_jpeg *jpeg = calloc(1, sizeof *jpeg);
  if (!jpeg) return NULL;
  jpeg->cinfo.err = jpeg_std_error(&jpeg->errors);
  jpeg->errors.error_exit = on_error_exit;
  jpeg->errors.emit_message = on_emit_message;
  if (setjmp(jpeg->jump)) {
    free(jpeg);
    return NULL;
  }
  jpeg_create_decompress(&jpeg->cinfo);
  jpeg->cinfo.client_data = jpeg;
  return jpeg;
}

void cbl_jpeg_destroy(cbl_jpeg *jpeg) {
  if (!jpeg) return;
  jpeg_destroy_decompress(&jpeg->cinfo);
  free(jpeg);
}

int cbl_jpeg_decode(cbl_jpeg *jpeg, const uint8_t *data, size_t length, int scale_denom, cbl_output *output,
                    char *message) {
  struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
  jpeg->warnings = 0;
  if (setjmp(jpeg->jump)) {
    cinfo->err->format_message((j_common_ptr)cinfo, message);
    jpeg_abort_decompress(cinfo);
    return -1;
  }
  jpeg_mem_src(cinfo, data, (unsigned long)length);
  jpeg_read_header(cinfo, TRUE);
  cinfo->out_color_space = cinfo->num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  cinfo->dct_method = JDCT_ISLOW;
  cinfo->scale_num = 1;
  cinfo->scale_denom = (unsigned)scale_denom;
  jpeg_start_decompress(cinfo);
  size_t stride = (size_t)cinfo->output_width * (size_t)cinfo->output_components;
  size_t bytes = stride * cinfo->output_height;
  if (cbl_output_reserve(output, bytes) != 0) {
    snprintf(message, CBL_MESSAGE_SIZE, "out of memory");
    jpeg_abort_decompress(cinfo);
    return -1;
  }
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW rows[16];
    JDIMENSION first = cinfo->output_scanline, count = cinfo->output_height - first;
    if (count > 16) count = 16;
    for (JDIMENSION i = 0; i < count; i++) rows[i] = output->pixels + (size_t)(first + i) * stride;
    jpeg_read_scanlines(cinfo, rows, count);
  }
  jpeg_finish_decompress(cinfo);
  output->byte_count = bytes;
  output->width = cinfo->output_width;
  output->height = cinfo->output_height;
  output->channels = (uint32_t)cinfo->output_components;
  if (jpeg->warnings > 0) {
    snprintf(message, CBL_MESSAGE_SIZE, "libjpeg raised %d warning(s)", jpeg->warnings);
    return -1;
  }
  return 0;
}
