/* imc_gif.c: the GIF entry of the format table, a whole-file format (imc_whole.h): the header is
 * read by walking the records without decoding them, the pixels by walking them again and decoding
 * every line of every frame. A stream's header walk runs again each time its bytes have doubled
 * (and once complete), so a file over a limit is refused early and the walks stay linear in its
 * size; the walk on every byte gives the verdict, the same on every path. No shrink on load: the
 * output is the stored size. */
#include "imc_libgif.h"
#include "imc_gif_walk.h"
#include "imc_whole.h"

#include <stdlib.h>

typedef struct {
  size_t walked; /* bytes the last header walk of a prefix saw */
  imc_gif_walk header;
} gif_state;

static void fill_info(imc_decoder *decoder, const imc_gif_walk *walk) {
  imc_info *info = &decoder->info;
  info->format = IMC_FORMAT_GIF;
  info->width = info->output_width = walk->width;
  info->height = info->output_height = walk->height;
  info->bit_depth = 8;
  info->components = walk->has_transparency ? 4 : 3;
  info->color_type = IMC_PNG_COLOR_PALETTE;
  info->has_transparency = walk->has_transparency;
  info->interlaced = walk->first.interlaced;
  info->frames = walk->frames;
}

static int32_t gif_read_header(imc_decoder *decoder, void **state, const uint8_t *bytes, size_t length,
                               int complete, int *ready, imc_status *status) {
  gif_state *gif = *state;
  if (!gif) {
    gif = calloc(1, sizeof *gif);
    if (!gif) {
      imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory");
      return status->code;
    }
    gif->header.decoder = decoder;
    *state = gif;
  }
  if (!complete && gif->walked > 0 && length < 2 * gif->walked) return IMC_OK;
  imc_status walked = {0};
  int32_t code = imc_gif_walk_file(&gif->header, bytes, length, &walked);
  gif->walked = length;
  if (code == IMC_ERR_TRUNCATED && !complete) return IMC_OK; /* more bytes may come */
  if (code != IMC_OK) {
    *status = walked;
    return code;
  }
  fill_info(decoder, &gif->header);
  *ready = 1;
  return IMC_OK;
}

static int32_t layout_for(int32_t want, int has_transparency) {
  switch (want) {
  case IMC_WANT_RGBA8: return IMC_LAYOUT_RGBA8;
  case IMC_WANT_RGB8: return IMC_LAYOUT_RGB8;
  case IMC_WANT_GRAY8: return IMC_LAYOUT_GRAY8;
  default: return has_transparency ? IMC_LAYOUT_RGBA8 : IMC_LAYOUT_RGB8; /* SOURCE, NATIVE: GIF is 8-bit */
  }
}

static int32_t gif_choose_output(imc_decoder *decoder, void *state, int32_t scale_eighths, imc_status *status) {
  imc_info *info = &decoder->info;
  info->output_layout = layout_for(decoder->request.want, info->has_transparency);
  info->output_width = info->width;
  info->output_height = info->height;
  return IMC_OK;
}

static int32_t gif_decode(imc_decoder *decoder, void *state, const uint8_t *bytes, size_t length, uint8_t *out,
                          size_t stride, imc_status *status) {
  imc_gif_walk walk = {.decoder = decoder, .decode = 1, .out = out, .stride = stride};
  int32_t code = imc_gif_walk_file(&walk, bytes, length, status);
  free(walk.line);
  return code;
}

static void gif_release(void *state) {
  gif_state *gif = state;
  if (gif) free(gif->header.line);
  free(gif);
}

static const imc_whole_format gif_whole = {
    .format = IMC_FORMAT_GIF,
    .read_header = gif_read_header,
    .choose_output = gif_choose_output,
    .decode = gif_decode,
    .release = gif_release,
};

static int32_t gif_open(imc_decoder *decoder, imc_status *status) { return imc_whole_open(decoder, &gif_whole, status); }

static int32_t gif_stream_begin(imc_decoder *decoder, imc_status *status) {
  return imc_whole_stream_begin(decoder, &gif_whole, status);
}

const imc_format_ops imc_gif_format = IMC_WHOLE_FORMAT_OPS(IMC_FORMAT_GIF, gif_open, gif_stream_begin);
