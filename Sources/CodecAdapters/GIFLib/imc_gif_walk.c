/* imc_gif_walk.c: the records of a GIF file in order, through giflib's public reader API (see
 * imc_gif_walk.h). Semantics (Fixtures/formats/gif/README.md says which fixture shows each):
 * - The image is the first frame on the logical screen. A first frame reaching past the screen
 *   grows the image to hold it (as browsers and Pillow do: a screen of 0x0 is common in old
 *   writers); a later frame past the screen is decoded and checked, and clipped (it is not drawn).
 * - Pixels of the image outside the first frame are transparent black, as browsers draw them (the
 *   background colour index is not drawn: GIF89a leaves it to the viewer).
 * - A frame of zero width or height, a file with no frame, or one that ends before its trailer
 *   (0x3B) is refused: every frame's every line must decode. */
#include "imc_gif_walk.h"

#include <stdlib.h>
#include <string.h>

static int read_input(GifFileType *gif, GifByteType *out, int wanted) {
  imc_gif_input *input = gif->UserData;
  size_t take = wanted > 0 ? (size_t)wanted : 0;
  size_t left = input->length - input->offset;
  if (take > left) {
    take = left;
    input->hit_end = 1;
  }
  if (take > 0) memcpy(out, input->bytes + input->offset, take);
  input->offset += take;
  return (int)take;
}

/* The graphics control extension's transparent index (or -1), from its first data block. */
static int transparent_index(const GifByteType *block) {
  GraphicsControlBlock control;
  if (!block || DGifExtensionToGCB(block[0], block + 1, &control) != GIF_OK) return -1;
  return control.TransparentColor;
}

static int32_t read_extension(GifFileType *gif, const imc_gif_input *input, imc_gif_walk *walk,
                              int *transparent, imc_status *status) {
  int code = 0;
  GifByteType *block = NULL;
  char where[64];
  snprintf(where, sizeof where, "an extension after frame %u", walk->frames);
  if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return imc_gif_fail(input, gif->Error, where, status);
  /* The last control extension before the first frame is the first frame's. */
  if (code == GRAPHICS_EXT_FUNC_CODE && walk->frames == 0) *transparent = transparent_index(block);
  while (block) {
    if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return imc_gif_fail(input, gif->Error, where, status);
  }
  return IMC_OK;
}

/* The first frame's rectangle and colours; the image's size and transparency. */
static int32_t place_first(GifFileType *gif, imc_gif_walk *walk, int transparent, imc_status *status) {
  const GifImageDesc *image = &gif->Image;
  imc_gif_frame *first = &walk->first;
  first->left = (uint32_t)image->Left;
  first->top = (uint32_t)image->Top;
  first->width = (uint32_t)image->Width;
  first->height = (uint32_t)image->Height;
  first->interlaced = image->Interlace != 0;
  first->transparent = transparent;
  uint32_t right = first->left + first->width, bottom = first->top + first->height;
  walk->width = (uint32_t)gif->SWidth > right ? (uint32_t)gif->SWidth : right;
  walk->height = (uint32_t)gif->SHeight > bottom ? (uint32_t)gif->SHeight : bottom;
  if (imc_check_limits_of(&walk->decoder->request, "the image (the screen holding the first frame)", walk->width,
                          walk->height, status))
    return status->code;
  /* The decode walk draws into rows sized by the header walk's answer (the same bytes give it). */
  const imc_info *info = &walk->decoder->info;
  if (walk->out && (walk->width != info->output_width || walk->height != info->output_height)) {
    imc_status_set(status, IMC_ERR_ARGUMENT, "the GIF's size differs from its header's");
    return status->code;
  }
  int covers = first->left == 0 && first->top == 0 && right == walk->width && bottom == walk->height;
  walk->has_transparency = transparent >= 0 || !covers;
  imc_gif_frame_colors(first, image->ColorMap ? image->ColorMap : gif->SColorMap);
  return IMC_OK;
}

/* Row `index` of a frame `height` rows tall, stored in GIF's four interlace passes. */
static uint32_t interlaced_row(uint32_t index, uint32_t height) {
  uint32_t pass1 = (height + 7) / 8, pass2 = (height + 3) / 8, pass3 = (height + 1) / 4;
  if (index < pass1) return index * 8;
  index -= pass1;
  if (index < pass2) return index * 8 + 4;
  index -= pass2;
  if (index < pass3) return index * 4 + 2;
  return (index - pass3) * 2 + 1;
}

static int32_t decode_lines(GifFileType *gif, const imc_gif_input *input, imc_gif_walk *walk, const char *where,
                            imc_status *status) {
  uint32_t width = (uint32_t)gif->Image.Width, height = (uint32_t)gif->Image.Height;
  if (width > walk->line_capacity) {
    uint8_t *line = realloc(walk->line, width);
    if (!line) {
      imc_status_set(status, IMC_ERR_NO_MEMORY, "out of memory for a GIF line");
      return status->code;
    }
    walk->line = line;
    walk->line_capacity = width;
  }
  int drawn = walk->frames == 1 && walk->out;
  for (uint32_t index = 0; index < height; index++) {
    if (DGifGetLine(gif, walk->line, (int)width) == GIF_ERROR) return imc_gif_fail(input, gif->Error, where, status);
    if (drawn) imc_gif_put_line(walk, walk->first.interlaced ? interlaced_row(index, height) : index, walk->line);
  }
  return IMC_OK;
}

/* The LZW data unread: its blocks are skipped to the frame's block terminator. */
static int32_t skip_lines(GifFileType *gif, const imc_gif_input *input, const char *where, imc_status *status) {
  int code_size = 0;
  GifByteType *block = NULL;
  if (DGifGetCode(gif, &code_size, &block) == GIF_ERROR) return imc_gif_fail(input, gif->Error, where, status);
  while (block) {
    if (DGifGetCodeNext(gif, &block) == GIF_ERROR) return imc_gif_fail(input, gif->Error, where, status);
  }
  return IMC_OK;
}

static int32_t read_frame(GifFileType *gif, const imc_gif_input *input, imc_gif_walk *walk, int transparent,
                          imc_status *status) {
  const imc_decoder *decoder = walk->decoder;
  char where[40];
  snprintf(where, sizeof where, "frame %u", walk->frames + 1);
  if (DGifGetImageDesc(gif) == GIF_ERROR) {
    /* giflib reads the descriptor's size first, then the palette and the LZW code size: a failure
     * that is not a truncation comes after the size, which the limits judge first. */
    if (!input->hit_end &&
        imc_check_limits_of(&decoder->request, where, (uint32_t)gif->Image.Width, (uint32_t)gif->Image.Height,
                            status))
      return status->code;
    return imc_gif_fail(input, gif->Error, where, status);
  }
  walk->frames++;
  if (walk->frames > decoder->request.max_frames) {
    imc_status_setf(status, IMC_ERR_LIMIT, "animation has more frames than the %u-frame limit",
                    decoder->request.max_frames);
    return status->code;
  }
  if (imc_check_limits_of(&decoder->request, where, (uint32_t)gif->Image.Width, (uint32_t)gif->Image.Height, status))
    return status->code;
  if (walk->frames == 1 && place_first(gif, walk, transparent, status) != IMC_OK) return status->code;
  if (walk->frames == 1 && walk->out) imc_gif_clear_outside(walk);
  return walk->decode ? decode_lines(gif, input, walk, where, status) : skip_lines(gif, input, where, status);
}

static int32_t walk_records(GifFileType *gif, const imc_gif_input *input, imc_gif_walk *walk, imc_status *status) {
  if (gif->SWidth > 0 && gif->SHeight > 0 &&
      imc_check_limits_of(&walk->decoder->request, "the logical screen", (uint32_t)gif->SWidth,
                          (uint32_t)gif->SHeight, status))
    return status->code;
  int transparent = -1;
  for (;;) {
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    char where[64];
    snprintf(where, sizeof where, "the block after frame %u", walk->frames);
    if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
      if (!input->hit_end) return imc_gif_fail(input, gif->Error, where, status);
      imc_status_setf(status, IMC_ERR_TRUNCATED, "the file ends before its trailer (after frame %u)", walk->frames);
      return status->code;
    }
    int32_t code = IMC_OK;
    switch (record) {
    case IMAGE_DESC_RECORD_TYPE: code = read_frame(gif, input, walk, transparent, status); break;
    case EXTENSION_RECORD_TYPE: code = read_extension(gif, input, walk, &transparent, status); break;
    case TERMINATE_RECORD_TYPE:
      if (walk->frames > 0) return IMC_OK;
      imc_status_set(status, IMC_ERR_CORRUPT, "the GIF has no image (its trailer comes before any frame)");
      return status->code;
    default: return imc_gif_fail(input, D_GIF_ERR_WRONG_RECORD, where, status);
    }
    if (code != IMC_OK) return code;
  }
}

int32_t imc_gif_walk_file(imc_gif_walk *walk, const uint8_t *data, size_t length, imc_status *status) {
  imc_gif_input input = {.bytes = data, .length = length};
  int error = 0;
  walk->frames = 0;
  GifFileType *gif = DGifOpen(&input, read_input, &error);
  if (!gif) return imc_gif_fail(&input, error, "its header", status);
  int32_t code = walk_records(gif, &input, walk, status);
  DGifCloseFile(gif, &error); /* (a reader's close fails only on a file descriptor's close) */
  return code;
}
