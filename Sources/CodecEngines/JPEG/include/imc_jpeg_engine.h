/* imgfetch's own JPEG decoder for the scaled decodes behind thumbnails and validation.
 *
 * A complete decoder over plain structs: it includes no libjpeg header and calls no library. It
 * decodes a strict subset of JPEG (written down in Sources/CodecEngines/JPEG/README.md) and, for
 * that subset, produces exactly the pixels libjpeg-turbo's public API produces at the same scale
 * (islow inverse DCT, fancy upsampling, libjpeg's colour conversion) and accepts exactly what
 * libjpeg's strict decode accepts. On anything else it gives up, before or during the decode, and
 * the caller decodes the file with libjpeg from its first byte: the engine never decides a verdict
 * against libjpeg, it only ever agrees or steps aside.
 *
 * The caller hands it the file's bytes from the first one, in as many pieces as it likes:
 *
 *   engine = imc_jpeg_engine_create(&request);
 *   for (;;) {
 *     result = imc_jpeg_engine_step(engine, input, length, eof, &position);
 *     ROWS: copy imc_jpeg_engine_rows(); INPUT: keep input[position...], append, call again;
 *     DONE: the image is decoded and its EOI found; GIVE_UP: decode with libjpeg instead.
 *   }
 *
 * Between calls the caller may move the bytes (the engine keeps offsets, never pointers), but it
 * must keep every byte from `position` on. Once `eof` is given, `input` must stay in place until
 * the engine is destroyed.
 */
#ifndef IMC_JPEG_ENGINE_H
#define IMC_JPEG_ENGINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct imc_jpeg_engine imc_jpeg_engine;

/* What a step reached. */
enum {
  IMC_JPEG_ENGINE_ROWS = 0,    /* output rows are ready: imc_jpeg_engine_rows */
  IMC_JPEG_ENGINE_INPUT = 1,   /* more bytes are needed (only while eof is not given) */
  IMC_JPEG_ENGINE_DONE = 2,    /* every row handed out and the image's EOI found: libjpeg accepts it */
  IMC_JPEG_ENGINE_GIVE_UP = 3, /* outside the engine's subset: decode the file with libjpeg */
};

/* Output pixel layouts, as libjpeg's JCS_GRAYSCALE, JCS_RGB and JCS_EXT_RGBA give them. */
enum {
  IMC_JPEG_ENGINE_GRAY = 1,
  IMC_JPEG_ENGINE_RGB = 3,
  IMC_JPEG_ENGINE_RGBA = 4,
};

typedef struct {
  int32_t scale_eighths;  /* 1 (1/8) or 2 (1/4): the output is this many eighths of the stored size */
  int32_t output;         /* IMC_JPEG_ENGINE_GRAY, _RGB or _RGBA */
  int32_t discard_pixels; /* nonzero: the verdict only, no rows (a validation) */
  int32_t max_scans;      /* more scans than this: give up (libjpeg reports the limit) */
  uint64_t max_memory;      /* the most the engine allocates for one image; 0: 1 GiB. Over: give up */
} imc_jpeg_engine_request;

/* The header as the engine read it (valid once a step has returned anything but GIVE_UP after the
 * first scan's header): the caller checks it against libjpeg's reading of the same header. */
typedef struct {
  uint32_t width, height;
  uint32_t output_width, output_height;
  int32_t components;  /* 1 or 3 */
  int32_t color_space; /* 1 grayscale, 3 YCbCr (libjpeg's J_COLOR_SPACE numbers) */
  int32_t progressive;
  int32_t h_sampling[3], v_sampling[3];
} imc_jpeg_engine_facts;

/* NULL when the request is outside the engine (another scale or layout) or memory ran out. */
imc_jpeg_engine *imc_jpeg_engine_create(const imc_jpeg_engine_request *request);

/* Decodes from input[*position, length) as far as the bytes allow (eof: no more will come), and
 * advances *position past what it consumed. Returns IMC_JPEG_ENGINE_*. */
int32_t imc_jpeg_engine_step(imc_jpeg_engine *engine, const uint8_t *input, size_t length, int eof,
                             size_t *position);

/* 1 and the facts once the frame header is read; 0 before. */
int imc_jpeg_engine_facts_of(const imc_jpeg_engine *engine, imc_jpeg_engine_facts *facts);

/* After IMC_JPEG_ENGINE_ROWS: the rows, `stride` bytes apart, each output_width pixels. */
const uint8_t *imc_jpeg_engine_rows(const imc_jpeg_engine *engine, uint32_t *count, size_t *stride);

/* After IMC_JPEG_ENGINE_GIVE_UP: why, in a few words (tests and logs). */
const char *imc_jpeg_engine_reason(const imc_jpeg_engine *engine);

void imc_jpeg_engine_destroy(imc_jpeg_engine *engine);

/* This thread's counts since it started: scans decoded to their end (sequential and progressive),
 * decodes given up, images whose 1x1 components were decoded DC-only. */
typedef struct {
  uint64_t scans, given_up, dc_only;
} imc_jpeg_engine_counts;
void imc_jpeg_engine_counts_of_thread(imc_jpeg_engine_counts *counts);

#endif
