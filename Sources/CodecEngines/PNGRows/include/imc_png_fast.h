/* The PNG rows engine (imc_png_fast.c): a PNG's image data without libpng's row reader. It includes
 * no library header; its caller is the libpng adapter (imc_png_decode.c), after libpng has read the
 * chunks up to the first IDAT. */
#ifndef IMC_PNG_FAST_H
#define IMC_PNG_FAST_H

#include <stddef.h>
#include <stdint.h>

typedef struct imc_png_fast imc_png_fast;

/* What a step reached. */
enum {
  IMC_PNG_FAST_ROW = 0,    /* a row is decoded (into the caller's row, when it gave one) */
  IMC_PNG_FAST_INPUT = 1,  /* more bytes are needed (only when the caller said more may come) */
  IMC_PNG_FAST_DONE = 2,   /* every row decoded, the image data ended cleanly, IEND is sound */
  IMC_PNG_FAST_GIVE_UP = 3 /* anything this path does not judge: libpng decodes from the first byte */
};

/* The image as libpng read it up to the first IDAT, and the layout the caller wants. */
typedef struct {
  uint32_t width, height;
  int bit_depth, color_type; /* the IHDR's */
  int interlaced;            /* Adam7 */
  int32_t layout;            /* IMC_LAYOUT_* of the output rows */
  size_t stride;             /* an interlaced image's output rows are this many bytes apart */
  const uint8_t *palette;    /* PLTE as RGB triples (palette images) */
  int palette_entries;
  const uint8_t *alpha;      /* tRNS of a palette image, and its entry count; NULL/0 when none */
  int alpha_entries;
  int has_other_transparency; /* tRNS of a gray or RGB image */
  uint32_t first_length;     /* the first IDAT's length (its header has been read) */
} imc_png_fast_image;

/* The fast path for this image, or NULL when it is not one it decodes exactly as libpng (under 8
 * bits, a tRNS colour key, a 16-bit or RGB-to-gray output, ...) or memory ran out. */
imc_png_fast *imc_png_fast_create(const imc_png_fast_image *image);

/* Decodes from input[0, length) until a row is complete (written to `row` unless it is NULL), the
 * bytes run short (`eof` zero: more may come; call again with the bytes from *used on), or the end.
 * *used is how many bytes it consumed. An interlaced image's rows are only complete at the end:
 * `row` is then the whole image's first row (the others `stride` bytes apart, the same buffer on
 * every call, which may move between calls with its contents), each pass's pixels are put in their
 * places as they are decoded, and no step returns IMC_PNG_FAST_ROW. */
int imc_png_fast_step(imc_png_fast *fast, const uint8_t *input, size_t length, int eof, size_t *used, uint8_t *row);

void imc_png_fast_destroy(imc_png_fast *fast);

/* On the calling thread: the PNG images the engine decoded to their end, and those it gave up on,
 * handing them to libpng (tests see which path ran). */
void imc_png_rows_counts(uint64_t *finished, uint64_t *given_up);

#endif
