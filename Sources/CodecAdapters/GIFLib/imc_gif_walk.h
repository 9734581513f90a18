/* The GIF adapter's one walk over a file's records, shared by its files (private to
 * CLibGIFAdapter).
 *
 * Reading the header and decoding are the same walk through giflib's record functions over the
 * same bytes: the header walk skips each frame's LZW data (DGifGetCode), the decode walk decodes
 * every line of every frame (DGifGetLine), the first frame's onto the image. Both check the
 * logical screen, every frame and the frame count against the request's limits as each
 * descriptor is read, before anything is allocated for it. */
#ifndef IMC_GIF_WALK_H
#define IMC_GIF_WALK_H

#include "imc_core.h"

#include <gif_lib.h>

/* giflib's bytes: a memory range read through DGifOpen's input function. */
typedef struct {
  const uint8_t *bytes;
  size_t length;
  size_t offset;
  int hit_end; /* giflib asked for a byte past the last: an error then means the file is cut */
} imc_gif_input;

/* The first frame: its rectangle on the logical screen, how its rows are stored, and its colours
 * (256 entries, RGBA: the frame's own palette or the screen's, black past the palette's end, a
 * gray ramp without either; the transparent index's alpha 0). */
typedef struct {
  uint32_t left, top, width, height;
  int interlaced;
  int transparent; /* the graphics control extension's transparent index, or -1 */
  uint8_t colors[256][4];
} imc_gif_frame;

typedef struct {
  imc_decoder *decoder;
  int decode;     /* decode every line (0: skip the LZW data, reading the header) */
  uint8_t *out;   /* decode: the image's rows, `stride` apart, in the output layout; NULL: none */
  size_t stride;
  uint8_t *line;  /* one frame line's palette indices */
  size_t line_capacity;
  /* What the walk found. */
  uint32_t frames;
  uint32_t width, height; /* the image: the logical screen, grown to the first frame's rectangle */
  int has_transparency;   /* a transparent index, or a first frame smaller than the image */
  imc_gif_frame first;
} imc_gif_walk;

/* Walks data[0, length) to the trailer. IMC_OK, or the error (IMC_ERR_TRUNCATED when the bytes end
 * first) with a one-line reason. Releases what it allocated, except walk->line (free it). */
int32_t imc_gif_walk_file(imc_gif_walk *walk, const uint8_t *data, size_t length, imc_status *status);

/* The first frame's colours (frame->colors) from its palette (NULL: none) and its transparent index. */
void imc_gif_frame_colors(imc_gif_frame *frame, const ColorMapObject *palette);

/* Writes line `row` of the first frame (its palette indices) into the image. */
void imc_gif_put_line(const imc_gif_walk *walk, uint32_t row, const uint8_t *indices);

/* Clears the image (transparent black) where the first frame does not cover it. */
void imc_gif_clear_outside(const imc_gif_walk *walk);

/* The status of giflib's `error` code, met `where` ("frame 3", "its header"): a truncation when the
 * bytes ran out, else the library's reason. Returns the status code. */
int32_t imc_gif_fail(const imc_gif_input *input, int error, const char *where, imc_status *status);

#endif
