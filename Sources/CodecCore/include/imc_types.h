/* The codec layer's shared vocabulary: formats, status codes, pixel layouts, the request and the
 * header facts. Every C target of the codec layer and Swift's ImageCodecs speak it; it names no
 * library. All symbols carry the `imc_` prefix. */
#ifndef IMC_TYPES_H
#define IMC_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Container formats, found from the magic bytes. */
enum {
  IMC_FORMAT_UNKNOWN = 0,
  IMC_FORMAT_PNG = 1,
  IMC_FORMAT_JPEG = 2,
  IMC_FORMAT_WEBP = 3,
  IMC_FORMAT_GIF = 4,  /* giflib */
  IMC_FORMAT_HEIC = 5, /* HEIF with HEVC images, and any HEIF (mif1) until its primary image is read */
  IMC_FORMAT_AVIF = 6, /* HEIF with AV1 images */
};

/* Outcome of a call. IMC_OK is zero; everything else is a reason to stop. */
enum {
  IMC_OK = 0,
  IMC_ERR_NOT_IMAGE = 1,   /* magic bytes are no format imgfetch reads, or the file is empty */
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
  int32_t scale_eighths; /* JPEG DCT scaling, WebP's scaled output (an opaque still image): output is
                            scale_eighths/8 of the source (1...16), 0 = 8 */
  int32_t lenient;       /* nonzero: warnings that mean lost data do not fail the decode */
  int32_t max_scans;     /* JPEG progressive scan limit */
  uint32_t max_frames;   /* WebP, GIF: frames of an animation */
  uint32_t max_width;
  uint32_t max_height;
  uint64_t max_pixels;
  uint64_t max_chunk_bytes; /* PNG: largest ancillary chunk (decompressed) libpng may allocate */
  int32_t libjpeg_only;     /* nonzero: libjpeg decodes every JPEG scan, also where imgfetch's own
                               JPEG engine would (tests compare them) */
  int32_t engine_always;    /* nonzero: imgfetch's JPEG engine takes every decode it can, also those
                               it leaves to libjpeg while other decodes run (tests, fuzzing) */
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
  uint32_t frames;     /* WebP, GIF: frames of an animation (1 for a still image); 0 for PNG and JPEG */
  int32_t lossless;    /* WebP: the (first) image is lossless (VP8L) */
} imc_info;

/* What a file says about its colours, read with the header. Pointers stay valid while the decoder
 * (or stream) lives. Nothing here is applied to the pixels, except a CMYK row converter. */
enum {
  IMC_ICC_KEPT = 0,       /* no profile, or the profile in `icc` */
  IMC_ICC_OVER_LIMIT = 1, /* JPEG: the APP2 segments add up to more than max_chunk_bytes, WebP: the
                             ICCP chunk is larger (dropped) */
  IMC_ICC_INCOMPLETE = 2, /* JPEG: segments missing, repeated, or numbered inconsistently (dropped) */
  IMC_ICC_REFUSED = 3,    /* PNG: libpng refused the iCCP chunk (`note` says why) */
};
typedef struct {
  const uint8_t *icc; /* the ICC profile: JPEG APP2 ICC_PROFILE segments joined in sequence order,
                         PNG iCCP inflated, WebP's ICCP chunk; NULL when none was kept */
  size_t icc_length;
  int32_t icc_state;     /* IMC_ICC_* */
  int32_t srgb_intent;   /* PNG sRGB chunk: its rendering intent 0...3; -1 when absent */
  uint32_t gamma;        /* PNG gAMA times 100000; 0 when absent */
  int32_t has_chromaticities;
  uint32_t chromaticities[8]; /* PNG cHRM times 100000: white x, y, red x, y, green x, y, blue x, y */
  int32_t adobe_transform;    /* JPEG APP14 "Adobe" transform 0...2; -1 without that marker */
  char note[120];             /* the library's words for a dropped profile, or "" */
  /* HEIF's nclx box (read when the file has no ICC profile): its ITU-T H.273 codes, with the
   * primaries' coordinates in `chromaticities` (has_chromaticities) when they are specified. */
  int32_t has_nclx;
  uint16_t nclx_primaries, nclx_transfer, nclx_matrix;
  int32_t nclx_full_range;
} imc_color;


/* Converts one row of `width` CMYK pixels, as libjpeg returns them (Adobe's inverted values when the
 * file has an Adobe marker), to the decoder's output layout. `context` is the converter's own. */
typedef void (*imc_cmyk_row_converter)(void *context, const uint8_t *cmyk, uint8_t *out, uint32_t width);

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
  /* With the luma's set: Cb's and Cr's factors 1...4 (0: 1), and luma's up to 4; for tests of
   * every layout libjpeg reads (chroma finer than luma included). */
  int32_t cb_h_sampling, cb_v_sampling, cr_h_sampling, cr_v_sampling;
} imc_jpeg_options;

#endif
