/* The WebP decoder's state, shared by the adapter's files (private to CLibWebPAdapter).
 *
 * One decode, pull or push, is the same steps over the same bytes: they are gathered (or borrowed:
 * a pull decode of memory) as they come; the header is read from them (WebPGetFeatures, the RIFF
 * chunks) and checked against the limits before anything is allocated; a still image goes through
 * WebPIDecoder as bytes arrive, an animation through WebPAnimDecoder once all are there. The verdict
 * is libwebp's (as dwebp's), plus the one check WebPDecode makes that the incremental decoder cannot:
 * the file is as long as its RIFF header says. */
#ifndef IMC_WEBP_SESSION_H
#define IMC_WEBP_SESSION_H

#include "imc_core.h"

#include <webp/decode.h>

/* The VP8X flags imgfetch reads (the container specification's bits). */
#define IMC_WEBP_FLAG_ANIMATION 0x02u
#define IMC_WEBP_FLAG_EXIF 0x08u
#define IMC_WEBP_FLAG_ALPHA 0x10u

/* What the top-level RIFF chunks say, walked incrementally as bytes arrive (imc_webp_chunks.c). */
typedef struct {
  uint64_t riff_end;  /* 8 + the RIFF header's size: where the file ends; 0 before 12 bytes */
  uint64_t next;      /* the next chunk header's offset */
  int vp8x;           /* the extended format */
  uint32_t flags;     /* VP8X flags */
  uint64_t icc_offset, icc_length; /* the first ICCP chunk before the image data: its payload */
  int has_icc;
  uint64_t exif_offset, exif_length; /* the first EXIF chunk's payload */
  int has_exif;
  int exif_complete;  /* its payload has arrived */
  uint32_t frames;    /* ANMF chunks walked */
  int has_image;      /* a top-level VP8 or VP8L chunk was walked (a still image's bitstream) */
  uint64_t image_offset; /* its payload */
  int ended;          /* every chunk header up to riff_end walked */
} imc_webp_chunks;

/* Walks the chunk headers in data[0, length) from where the last walk stopped. */
void imc_webp_walk(imc_webp_chunks *chunks, const uint8_t *data, size_t length);

struct imc_webp_session {
  imc_decoder *decoder;
  /* The bytes so far: gathered (owned) or the pull decode's memory (borrowed). */
  uint8_t *gathered;
  size_t capacity;
  const uint8_t *bytes;
  size_t length;
  int eof; /* no more bytes will come */
  /* The header. */
  int header_known;  /* features read, limits checked, info and colour filled */
  int header_ready;  /* and the orientation known (the EXIF chunk follows the image data) */
  int animated;
  WebPBitstreamFeatures features;
  imc_webp_chunks chunks;
  uint8_t *icc; /* a copy of the ICCP payload (the gathered bytes move as they grow) */
  /* The output: rows of `layout` into `out` (the caller's pixels, the stream's whole-image rows,
   * or `own` when validating). A gray output is decoded to RGB in `scratch` first. */
  int started;
  uint8_t *out;
  size_t out_stride;
  uint8_t *own;
  uint8_t *scratch;
  WebPDecoderConfig config;
  WebPIDecoder *idec;
  size_t fed;      /* the bytes the incremental decoder was last given (a multiple of the step, or all) */
  int deferred;    /* the incremental decoder refused the bytes so far: decode again once all are in */
  int image_done;  /* the (first) image decoded */
  int done;        /* every frame decoded and the file complete */
};

/* Every byte of the file is there: the input ended, or the RIFF size's worth arrived. */
static inline int imc_webp_all_bytes(const struct imc_webp_session *session) {
  return session->eof || (session->chunks.riff_end > 0 && session->length >= session->chunks.riff_end);
}

/* Reads the header from the bytes so far: IMC_OK (header_ready may still be 0: more bytes are
 * needed) or the error. */
int32_t imc_webp_read_header(struct imc_webp_session *session, imc_status *status);

/* The output's layout and size for the request's pixels and the scale (checked against the limits),
 * into decoder->info. */
int32_t imc_webp_choose_output(struct imc_webp_session *session, int32_t scale_eighths, imc_status *status);

/* Starts the output into `out` (`stride` apart; NULL: a buffer of the session's own). */
int32_t imc_webp_start_output(struct imc_webp_session *session, uint8_t *out, size_t stride, imc_status *status);

/* Decodes what the bytes so far allow; `done` is set once all is decoded and checked. */
int32_t imc_webp_decode_still(struct imc_webp_session *session, imc_status *status);
int32_t imc_webp_decode_frames(struct imc_webp_session *session, imc_status *status);

/* Copies rows of RGB(A) pixels in libwebp's output mode into the output layout. */
void imc_webp_convert_rows(const uint8_t *in, size_t in_stride, int in_channels, uint8_t *out, size_t out_stride,
                           int32_t layout, uint32_t width, uint32_t height);

/* libwebp's status as imgfetch's, with a one-line reason. */
int32_t imc_webp_fail(VP8StatusCode code, const char *what, imc_status *status);

/* The bytes ended before `what` did: the file is shorter than its RIFF header says (the reason names
 * both sizes), or the RIFF is complete and `what` is cut inside it. */
int32_t imc_webp_truncated(const struct imc_webp_session *session, const char *what, imc_status *status);

/* Releases what the session holds (not the session). */
void imc_webp_release(struct imc_webp_session *session);

#endif
