/* BenchBaseline: the C ceiling that imgbench compares imgfetch's decoders with.
 *
 * The same libraries, driven the plainest fast way a C program would: compressed bytes already in
 * memory, one libjpeg decompress object kept for the whole run, scanlines written straight into the
 * output buffer, and the same output layouts as imgfetch (JPEG -> RGB8 or gray8 with JDCT_ISLOW and
 * the default fancy upsampling; PNG -> RGBA8). Used only by the benchmark; symbols carry `cbl_`.
 */
#ifndef CBL_BASELINE_H
#define CBL_BASELINE_H

#include <stddef.h>
#include <stdint.h>

/* An output buffer that a decode fills, growing it with malloc when it is too small. Keeping it
 * between decodes is the "reused" case; releasing it after each decode is the "fresh" case. */
typedef struct {
  uint8_t *pixels;
  size_t capacity;
  size_t byte_count; /* bytes written by the last decode */
  uint32_t width;    /* output size of the last decode */
  uint32_t height;
  uint32_t channels;
} cbl_output;

/* Frees the pixels and zeroes the struct, so the next decode allocates anew. */
void cbl_output_release(cbl_output *output);

/* A libjpeg decompress object kept across decodes, as a long-running C decoder would. */
typedef struct cbl_jpeg cbl_jpeg;

cbl_jpeg *cbl_jpeg_create(void);
void cbl_jpeg_destroy(cbl_jpeg *jpeg);

/* Decodes a JPEG in memory at 1/scale_denom of its size (1, 2, 4 or 8) into `output`.
 * Returns 0, or -1 with `message` (at least 200 bytes) set when libjpeg failed or warned. */
int cbl_jpeg_decode(cbl_jpeg *jpeg, const uint8_t *data, size_t length, int scale_denom, cbl_output *output,
                    char *message);

/* Decodes a PNG in memory to RGBA8 (palette and tRNS expanded, 16-bit high byte, gray to RGB,
 * opaque alpha added, Adam7 handled) into `output`. Returns 0, or -1 with `message` set. */
int cbl_png_decode(const uint8_t *data, size_t length, cbl_output *output, char *message);

/* The library versions the baseline was built against, e.g. "libjpeg-turbo 2.1.5, libpng 1.6.39". */
const char *cbl_library_versions(void);

#endif
