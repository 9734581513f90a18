/* imc_gif_pixels.c: the first frame's palette indices as the output layout. Its colours are looked
 * up in a 256-entry table: the frame's palette (its own, else the screen's), with black (opaque)
 * for an index past the palette's end and a gray ramp (index i: gray i) for a frame with no palette
 * at all, both as Pillow reads them; the transparent index keeps its colour with alpha 0 (Pillow's
 * RGBA). Gray is Rec. 601 luma in 16-bit fixed point, as the other decoders' gray conversion. */
#include "imc_gif_walk.h"

#include <string.h>

void imc_gif_frame_colors(imc_gif_frame *frame, const ColorMapObject *palette) {
  int count = palette ? palette->ColorCount : 0;
  for (int index = 0; index < 256; index++) {
    uint8_t *color = frame->colors[index];
    if (!palette) {
      color[0] = color[1] = color[2] = (uint8_t)index;
    } else if (index < count) {
      color[0] = palette->Colors[index].Red;
      color[1] = palette->Colors[index].Green;
      color[2] = palette->Colors[index].Blue;
    } else {
      color[0] = color[1] = color[2] = 0;
    }
    color[3] = index == frame->transparent ? 0 : 255;
  }
}

static uint8_t luma(const uint8_t *rgb) {
  return (uint8_t)(((uint32_t)rgb[0] * 19595u + (uint32_t)rgb[1] * 38470u + (uint32_t)rgb[2] * 7471u + 32768u) >> 16);
}

void imc_gif_put_line(const imc_gif_walk *walk, uint32_t row, const uint8_t *indices) {
  const imc_gif_frame *first = &walk->first;
  int32_t layout = walk->decoder->info.output_layout;
  size_t channels = imc_layout_bytes_per_pixel(layout);
  uint8_t *to = walk->out + (size_t)(first->top + row) * walk->stride + (size_t)first->left * channels;
  for (uint32_t x = 0; x < first->width; x++, to += channels) {
    const uint8_t *color = first->colors[indices[x]];
    if (layout == IMC_LAYOUT_GRAY8) {
      to[0] = luma(color);
    } else {
      memcpy(to, color, channels); /* RGBA8 or RGB8 (choose_output offers no other) */
    }
  }
}

void imc_gif_clear_outside(const imc_gif_walk *walk) {
  const imc_gif_frame *first = &walk->first;
  size_t channels = imc_layout_bytes_per_pixel(walk->decoder->info.output_layout);
  size_t row_bytes = (size_t)walk->width * channels;
  for (uint32_t y = 0; y < walk->height; y++) {
    uint8_t *row = walk->out + (size_t)y * walk->stride;
    if (y < first->top || y >= first->top + first->height) {
      memset(row, 0, row_bytes);
      continue;
    }
    memset(row, 0, (size_t)first->left * channels);
    size_t right = (size_t)(first->left + first->width) * channels;
    memset(row + right, 0, row_bytes - right);
  }
}
