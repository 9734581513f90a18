/* CImageCodecs: the C boundary of imgfetch.
 *
 * Every libpng and libjpeg session, every setjmp/longjmp and every library callback lives behind
 * this header. Swift sees plain structs, status codes and byte buffers: it allocates the pixel
 * buffer, C fills it. Nothing here prints, exits or aborts. All symbols carry the `imc_` prefix.
 */
#ifndef IMC_CODECS_H
#define IMC_CODECS_H

#include <stddef.h>
#include <stdint.h>

/* Container formats, found from the magic bytes. */
enum {
  IMC_FORMAT_UNKNOWN = 0,
  IMC_FORMAT_PNG = 1,
  IMC_FORMAT_JPEG = 2,
};

/* Outcome of a call. IMC_OK is zero; everything else is a reason to stop. */
enum {
  IMC_OK = 0,
  IMC_ERR_NOT_IMAGE = 1,   /* magic bytes are neither PNG nor JPEG, or the file is empty */
  IMC_ERR_CORRUPT = 2,     /* damaged data: CRC, zlib, Huffman, markers, missing pixel data */
  IMC_ERR_TRUNCATED = 3,   /* the data ends before the image does */
  IMC_ERR_UNSUPPORTED = 4, /* a valid file using a feature we do not decode (12-bit, lossless JPEG) */
  IMC_ERR_LIMIT = 5,       /* larger than the caller's limits (pixels, dimensions, scans) */
  IMC_ERR_NO_MEMORY = 6,   /* an allocation inside the libraries failed */
  IMC_ERR_IO = 7,          /* the file could not be opened or read */
  IMC_ERR_ARGUMENT = 8,    /* the caller passed something unusable (buffer too small, bad layout) */
};

/* Pixel layouts; the numbers are shared with the Swift `PixelFormat`. 16-bit samples are host-endian. */
enum {
  IMC_LAYOUT_NONE = 0,
  IMC_LAYOUT_GRAY8 = 1,
  IMC_LAYOUT_GRAYALPHA8 = 2,
  IMC_LAYOUT_RGB8 = 3,
  IMC_LAYOUT_RGBA8 = 4,
  IMC_LAYOUT_GRAY16 = 5,
  IMC_LAYOUT_GRAYALPHA16 = 6,
  IMC_LAYOUT_RGB16 = 7,
  IMC_LAYOUT_RGBA16 = 8,
};

/* What the caller wants the decoder to produce. */
enum {
  IMC_WANT_SOURCE = 0, /* the source's channels, 8-bit */
  IMC_WANT_NATIVE = 1, /* the source's channels and depth (16-bit kept) */
  IMC_WANT_RGBA8 = 2,
  IMC_WANT_RGB8 = 3,
  IMC_WANT_GRAY8 = 4,
};

/* imc_info.color_type values, shared with the Swift `ImageHeader.ColorType` mapping. The C files
 * assert at compile time that they equal libpng's PNG_COLOR_TYPE_* and libjpeg's J_COLOR_SPACE. */
enum {
  IMC_PNG_COLOR_GRAY = 0,
  IMC_PNG_COLOR_RGB = 2,
  IMC_PNG_COLOR_PALETTE = 3,
  IMC_PNG_COLOR_GRAY_ALPHA = 4,
  IMC_PNG_COLOR_RGBA = 6,
};
enum {
  IMC_JPEG_COLOR_GRAY = 1,
  IMC_JPEG_COLOR_RGB = 2,
  IMC_JPEG_COLOR_YCBCR = 3,
  IMC_JPEG_COLOR_CMYK = 4,
  IMC_JPEG_COLOR_YCCK = 5,
};

/* The result of a call: a code and a message (from the library when it has one). */
typedef struct {
  int32_t code;
  char message[200];
} imc_status;

/* Decoding request and limits. Zero means "use the default" for the limits. */
typedef struct {
  int32_t want;          /* IMC_WANT_* */
  int32_t scale_eighths; /* JPEG DCT scaling: output is scale_eighths/8 of the source (1...16), 0 = 8 */
  int32_t lenient;       /* nonzero: warnings that mean lost data do not fail the decode */
  int32_t max_scans;     /* JPEG progressive scan limit */
  uint32_t max_width;
  uint32_t max_height;
  uint64_t max_pixels;
  uint64_t max_chunk_bytes; /* PNG: largest ancillary chunk (decompressed) libpng may allocate */
  int32_t libjpeg_only;     /* nonzero: libjpeg decodes every JPEG scan, also where the 1/8-scale
                               fast path or the progressive decoder would (tests compare them) */
  int32_t always_split;     /* nonzero: the 1/8-scale fast path splits a large scan between two
                               threads even while other decodes run (tests) */
  int32_t libpng_only;      /* nonzero: libpng reads every PNG row itself, also where imgfetch's
                               own image-data path would (tests compare the two) */
} imc_request;

/* What the header says, and what the decoder will produce. */
typedef struct {
  int32_t format;
  uint32_t width;  /* stored size, before orientation */
  uint32_t height;
  uint32_t output_width; /* after DCT scaling */
  uint32_t output_height;
  int32_t output_layout; /* IMC_LAYOUT_* */
  int32_t color_type;    /* PNG: IHDR colour type; JPEG: J_COLOR_SPACE of the stream */
  int32_t bit_depth;     /* PNG: bits per sample; JPEG: data precision */
  int32_t components;    /* channels in the stream */
  int32_t interlaced;    /* PNG: Adam7; JPEG: progressive */
  int32_t arithmetic;    /* JPEG: arithmetic entropy coding */
  int32_t h_sampling[4]; /* JPEG: sampling factors per component */
  int32_t v_sampling[4];
  int32_t has_transparency; /* PNG: alpha channel or tRNS chunk */
  int32_t has_icc;
  int32_t orientation; /* EXIF orientation 1...8; 0 when absent or undefined */
} imc_info;

typedef struct imc_decoder imc_decoder;

/* Opens a decoder over bytes in memory (which must outlive it) or over a file. Reads the header and
 * applies the limits, allocating no pixel memory. Returns NULL and fills `status` on failure. */
imc_decoder *imc_decoder_open_memory(const uint8_t *data, size_t length, const imc_request *request,
                                     imc_info *info, imc_status *status);
imc_decoder *imc_decoder_open_file(const char *path, const imc_request *request, imc_info *info,
                                   imc_status *status);
/* As imc_decoder_open_file, over a descriptor opened for reading (by Swift's SystemFiles, which
 * checked it is a regular file). The decoder owns `fd` from this call on, also when it fails. */
imc_decoder *imc_decoder_open_descriptor(int fd, const imc_request *request, imc_info *info,
                                         imc_status *status);

/* What a file says about its colours, read with the header. Pointers stay valid while the decoder
 * (or stream) lives. Nothing here is applied to the pixels, except a CMYK row converter (below). */
enum {
  IMC_ICC_KEPT = 0,       /* no profile, or the profile in `icc` */
  IMC_ICC_OVER_LIMIT = 1, /* JPEG: the APP2 segments add up to more than max_chunk_bytes (dropped) */
  IMC_ICC_INCOMPLETE = 2, /* JPEG: segments missing, repeated, or numbered inconsistently (dropped) */
  IMC_ICC_REFUSED = 3,    /* PNG: libpng refused the iCCP chunk (`note` says why) */
};
typedef struct {
  const uint8_t *icc; /* the ICC profile: JPEG APP2 ICC_PROFILE segments joined in sequence order,
                         PNG iCCP inflated; NULL when none was kept */
  size_t icc_length;
  int32_t icc_state;     /* IMC_ICC_* */
  int32_t srgb_intent;   /* PNG sRGB chunk: its rendering intent 0...3; -1 when absent */
  uint32_t gamma;        /* PNG gAMA times 100000; 0 when absent */
  int32_t has_chromaticities;
  uint32_t chromaticities[8]; /* PNG cHRM times 100000: white x, y, red x, y, green x, y, blue x, y */
  int32_t adobe_transform;    /* JPEG APP14 "Adobe" transform 0...2; -1 without that marker */
  char note[120];             /* the library's words for a dropped profile, or "" */
} imc_color;

/* The colour facts of an open decoder (after a successful open) or stream (from
 * IMC_STREAM_HEADER_READY on). */
void imc_decoder_color(const imc_decoder *decoder, imc_color *color);

/* Converts one row of `width` CMYK pixels, as libjpeg returns them (Adobe's inverted values when the
 * file has an Adobe marker), to the decoder's output layout. `context` is the converter's own. */
typedef void (*imc_cmyk_row_converter)(void *context, const uint8_t *cmyk, uint8_t *out, uint32_t width);

/* A CMYK JPEG's rows through `convert` (an ICC transform) instead of the plain formula R = C*K/255
 * (on inverted values). `layout` (IMC_LAYOUT_*) is what the converter writes: it is used only when
 * that is the decoder's output layout (the formula otherwise, never a row of another size). Set
 * after the open and before the first row; `context` must outlive the decoding. NULL restores the
 * formula. */
void imc_decoder_set_cmyk_converter(imc_decoder *decoder, imc_cmyk_row_converter convert, void *context,
                                    int32_t layout);

/* Decodes every pixel into `pixels` (row_bytes apart, `capacity` bytes in all), in the layout the
 * open call reported. Returns IMC_OK or the status code. A decoder reads once. */
int32_t imc_decoder_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, size_t capacity,
                         imc_status *status);

/* Decodes every pixel, row by row, into one scratch row the decoder owns, and keeps none: the same
 * checks and verdict as imc_decoder_read, with memory that grows with the width, not the area.
 * (An interlaced PNG's passes overwrite the same row: the pixels are wrong, the verdict is not.) */
int32_t imc_decoder_validate(imc_decoder *decoder, imc_status *status);

/* Releases the decoder and closes its file. NULL is allowed. */
void imc_decoder_close(imc_decoder *decoder);

/* Push decoding: bytes are appended as they arrive and rows come out as they are decoded, with the
 * pull decoder's verdict on the same bytes. Memory: the bytes not yet consumed, a queue of rows
 * (a bounded capacity, which finishing may exceed), and the library's own state (a progressive
 * JPEG's coefficients; an interlaced PNG's whole image, handed out when its last pass is done). */
/* On the calling thread: the PNG images imgfetch's own image-data path (imc_png_fast.c) decoded to
 * their end, and those it gave up on, handing them to libpng (tests see which path ran). */
void imc_png_rows_counts(uint64_t *finished, uint64_t *given_up);
/* Tests and fuzzing of imgfetch's own raw DEFLATE decoder (imc_inflate.c, the PNG path's inflater)
 * beside zlib's raw inflate (imc_inflate_check.c). imc_inflate_check: `input` in pieces (`pieces` 0:
 * all at once, 1: a byte at a time, else a seed of random sizes), into output rooms of `room` bytes,
 * at most `capacity` in all; 0 accepted (the stream ended), 3 gave up, -1 past the capacity; *used:
 * input bytes up to the stream's end. imc_inflate_zlib: the same with zlib, 1 accepted, 0 refused,
 * -1 past the capacity. imc_inflate_differential: both; 1 when the inflater accepted what zlib did
 * not, or with other bytes or another end; *outcome 0 both accepted, 1 both refused, 2 the inflater
 * gave up on what zlib accepted, 3 past the capacity. */
int32_t imc_inflate_check(const uint8_t *input, size_t length, uint64_t pieces, size_t room, uint8_t *out,
                          size_t capacity, size_t *out_length, size_t *used);
int32_t imc_inflate_zlib(const uint8_t *input, size_t length, uint8_t *out, size_t capacity, size_t *out_length,
                         size_t *used);
int32_t imc_inflate_differential(const uint8_t *input, size_t length, uint64_t pieces, size_t room, size_t capacity,
                                 int32_t *outcome);
/* This thread's counts of imgfetch's progressive JPEG decoder (imc_jpeg_progressive.c) since the
 * thread started: scans it decoded, decodes it gave up on (libjpeg decoded them again), and images
 * whose output it made from DC coefficients alone (1/8 scale, libjpeg's buffers unused). */
void imc_jpeg_progressive_counts(uint64_t *scans, uint64_t *given_up, uint64_t *dc_only);

typedef struct imc_stream imc_stream;

enum {
  IMC_STREAM_STARTING = 0,     /* waiting for the header */
  IMC_STREAM_HEADER_READY = 1, /* JPEG: the header is known; call imc_stream_start with the scale */
  IMC_STREAM_DECODING = 2,     /* the header and output are known (imc_stream_info); rows come */
  IMC_STREAM_DONE = 3,         /* the whole image was decoded and its end seen */
  IMC_STREAM_FAILED = 4,
};

imc_stream *imc_stream_create(const imc_request *request);
/* Before the first byte: the bytes to come are the file at `path`, which can be read again. A JPEG
 * decoded by the 1/8-scale fast path or the progressive decoder then keeps none of them: should
 * libjpeg have to decode the stream from its start after all, it reads the file. IMC_OK, or
 * IMC_ERR_NO_MEMORY. */
int32_t imc_stream_set_source_file(imc_stream *stream, const char *path);
/* Appends bytes and decodes what they allow. Returns IMC_OK or the error (which sticks). */
int32_t imc_stream_append(imc_stream *stream, const uint8_t *data, size_t length, imc_status *status);
/* As imc_stream_append, for the last bytes: decoding knows no more follow (a large JPEG scan can
 * then be split between two threads). imc_stream_finish must still be called. */
int32_t imc_stream_append_last(imc_stream *stream, const uint8_t *data, size_t length, imc_status *status);
/* JPEG in IMC_STREAM_HEADER_READY: decode at scale_eighths/8 (checked against the limits), then go on. */
int32_t imc_stream_start(imc_stream *stream, int32_t scale_eighths, imc_status *status);
int32_t imc_stream_state(const imc_stream *stream);
/* The header and output facts (complete from IMC_STREAM_HEADER_READY on; the output from DECODING). */
void imc_stream_info(const imc_stream *stream, imc_info *info);
/* The colour facts (imc_decoder_color) and a CMYK row converter (imc_decoder_set_cmyk_converter,
 * set in IMC_STREAM_HEADER_READY, before imc_stream_start) of a stream. */
void imc_stream_color(const imc_stream *stream, imc_color *color);
void imc_stream_set_cmyk_converter(imc_stream *stream, imc_cmyk_row_converter convert, void *context,
                                   int32_t layout);
size_t imc_stream_rows_available(const imc_stream *stream);
/* Copies up to max_rows queued rows (decoding more as the queue empties) to out, `stride` apart. */
int32_t imc_stream_read_rows(imc_stream *stream, uint8_t *out, size_t stride, size_t max_rows, size_t *copied,
                             imc_status *status);
/* No more bytes: decodes the rest (the queue may grow) and checks the end, as the pull decoder does. */
int32_t imc_stream_finish(imc_stream *stream, imc_status *status);
void imc_stream_destroy(imc_stream *stream);

/* Bytes per pixel of a layout, 0 for an unknown one. */
size_t imc_layout_bytes_per_pixel(int32_t layout);

/* The format named by the first bytes: IMC_FORMAT_PNG, IMC_FORMAT_JPEG or IMC_FORMAT_UNKNOWN. */
int32_t imc_sniff(const uint8_t *data, size_t length);

/* EXIF orientation (1...8) from a TIFF structure (what follows "Exif\0\0"); 0 if absent or invalid. */
int32_t imc_exif_orientation(const uint8_t *tiff, size_t length);

/* Encoding. The result is a malloc'd buffer the caller releases with imc_buffer_free. */
typedef struct {
  uint8_t *data;
  size_t length;
} imc_buffer;

typedef struct {
  int32_t quality;     /* 1...100 */
  int32_t progressive; /* nonzero: progressive scans */
  int32_t optimize;    /* nonzero: optimized Huffman tables */
  int32_t luma_h_sampling; /* colour images: luma sampling factors 1...2 (chroma 1); 0: 2x2 */
  int32_t luma_v_sampling;
  int32_t restart_interval; /* MCUs between restart markers; 0: none */
} imc_jpeg_options;

/* Encodes gray8, rgb8 or rgba8/grayAlpha8 (alpha ignored) pixels as JPEG. A non-NULL `comment`
 * (NUL-terminated, at most 65533 bytes) is stored as a COM segment right after the JFIF header, a
 * non-NULL `icc` profile as APP2 ICC_PROFILE segments after it (libjpeg's jpeg_write_icc_profile). */
int32_t imc_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                        int32_t layout, const imc_jpeg_options *options, const char *comment,
                        const uint8_t *icc, size_t icc_length, imc_buffer *out, imc_status *status);

/* Encodes pixels of any IMC_LAYOUT_* as PNG with zlib `level` (0...9). A non-NULL `comment`
 * (NUL-terminated, under 1 MB) is stored before the image data as an uncompressed text chunk with
 * keyword "Comment": tEXt when it is ASCII, iTXt (UTF-8) otherwise. A non-NULL `icc` profile is
 * stored as an iCCP chunk (left out, with no error, when libpng judges the profile unfit). */
int32_t imc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t row_bytes,
                       int32_t layout, int32_t level, const char *comment, const uint8_t *icc,
                       size_t icc_length, imc_buffer *out, imc_status *status);

void imc_buffer_free(imc_buffer *buffer);

#endif
