/* imc_lcms2.h: imgfetch's colour management, over Little CMS 2 (lcms2) and nothing else.
 *
 * What an ICC profile is (its colour model, class, description, whether it is sRGB), profiles made
 * from a PNG's gAMA/cHRM, and transforms of pixel rows to sRGB. lcms2 is reached through its public
 * API only; its error handler never prints, and everything it allocates for one profile or
 * transform comes out of a fixed budget (IMC_LCMS_MEMORY_BUDGET), so a hostile profile costs at most
 * that. lcms2 is opened with dlopen by the first call that needs it (imc_lcms2_library.h); where it
 * cannot be loaded, a profile is IMC_PROFILE_NO_LCMS2 and a transform is NULL with the reason.
 * Symbols carry the `imc_` prefix.
 */
#ifndef IMC_LCMS2_H
#define IMC_LCMS2_H

#include <stddef.h>
#include <stdint.h>

/* The most lcms2 may allocate for one profile or transform (its context, tags, tables, LUTs). */
#define IMC_LCMS_MEMORY_BUDGET ((size_t)64 << 20)

/* Colour models: of an image's pixels, or of a profile's data colour space. */
enum {
  IMC_MODEL_OTHER = 0,
  IMC_MODEL_GRAY = 1,
  IMC_MODEL_RGB = 2,
  IMC_MODEL_CMYK = 3,
};

/* Why a profile cannot be used for an image (IMC_PROFILE_USABLE: it can). */
enum {
  IMC_PROFILE_USABLE = 0,
  IMC_PROFILE_TRUNCATED = 1,   /* shorter than an ICC header, or than the size its header declares */
  IMC_PROFILE_TOO_LARGE = 2,   /* longer than the caller's limit */
  IMC_PROFILE_MALFORMED = 3,   /* not an ICC profile lcms2 can read (signature, tags, PCS) */
  IMC_PROFILE_WRONG_CLASS = 4, /* a device link, abstract or named-colour profile: not an image's space */
  IMC_PROFILE_WRONG_MODEL = 5, /* its colour model is not the image's (an RGB profile on a gray image) */
  IMC_PROFILE_NO_LCMS2 = 6,    /* lcms2 cannot be loaded: `reason` says why */
};

/* Pixel layouts a transform reads and writes. 16-bit samples are host-endian. CMYK8 is 0 = no ink;
 * CMYK8_INVERTED is 255 = no ink (Adobe's JPEGs). */
enum {
  IMC_PIXELS_GRAY8 = 1,
  IMC_PIXELS_GRAYALPHA8 = 2,
  IMC_PIXELS_RGB8 = 3,
  IMC_PIXELS_RGBA8 = 4,
  IMC_PIXELS_GRAY16 = 5,
  IMC_PIXELS_GRAYALPHA16 = 6,
  IMC_PIXELS_RGB16 = 7,
  IMC_PIXELS_RGBA16 = 8,
  IMC_PIXELS_CMYK8 = 9,
  IMC_PIXELS_CMYK8_INVERTED = 10,
};

/* What a profile says, judged for an image of a given model. */
typedef struct {
  int32_t problem;       /* IMC_PROFILE_* */
  int32_t model;         /* the profile's data colour space (IMC_MODEL_*) */
  int32_t is_srgb;       /* numbers in this profile are sRGB's (colorants and curves within 1/255) */
  uint32_t device_class; /* the ICC class signature ('mntr', 'scnr', 'prtr', 'spac', ...) */
  uint32_t declared_size;
  char description[128]; /* the 'desc' tag (English, ASCII), "" when absent */
  char reason[192];      /* with IMC_PROFILE_NO_LCMS2: why lcms2 cannot be loaded */
} imc_profile_facts;

/* Reads `icc` (at most `max_bytes` of it are accepted) and judges it for an image whose pixels are
 * `image_model` (IMC_MODEL_OTHER: any). Fills every field; never fails otherwise. */
void imc_profile_inspect(const uint8_t *icc, size_t length, size_t max_bytes, int32_t image_model,
                         imc_profile_facts *facts);

/* An ICC profile equivalent to a PNG's gAMA (and cHRM): `model` GRAY or RGB, `file_gamma` the gAMA
 * value (e.g. 0.45455), `chromaticities` white x,y then red, green, blue x,y (NULL: sRGB's). Returns
 * a malloc'd profile in *out (free with imc_lcms_free) and its length, or 0 on failure. */
size_t imc_profile_from_gamma(int32_t model, double file_gamma, const double *chromaticities, uint8_t **out);

/* An RGB profile for a HEIF's nclx box: the primaries (white x, y, then red, green and blue x, y;
 * NULL: sRGB's) and the curve of its ITU-T H.273 transfer characteristic (BT.709's, sRGB's, gamma
 * 2.2 or 2.8, linear; PQ and HLG mapped to SDR, imc_transfer.c). Returns its length and a malloc'd
 * copy in *out (free with imc_lcms_free), or 0 when lcms2 cannot make it. */
size_t imc_profile_from_nclx(int32_t transfer, const double *chromaticities, uint8_t **out);

/* Frees memory this adapter returned. NULL is allowed. */
void imc_lcms_free(void *memory);

typedef struct imc_color_transform imc_color_transform;

/* A transform from the colours of `icc` (or, with `icc` NULL, of sRGB itself) to sRGB (gray outputs:
 * gray with sRGB's tone curve), relative colorimetric with black-point compensation (as libvips),
 * reading `input` pixels and writing `output` ones (IMC_PIXELS_*; alpha, where both have it, is
 * copied). NULL when lcms2 cannot build it; `message` then says why. */
imc_color_transform *imc_transform_create(const uint8_t *icc, size_t length, int32_t input, int32_t output,
                                          char *message, size_t message_size);

/* imc_transform_create, choosing how: between matrix-shaper RGB profiles with the same 8-bit RGB or
 * RGBA layout on both sides, imc_transform_create converts with tables of its own made from the
 * profiles' curves and colorants (imc_matrix_shaper.h: a tenth of lcms2's set-up time, results
 * within one code value of lcms2's), unless `allow_matrix_shaper` is 0 (the tests' oracle: lcms2's
 * own transform). */
imc_color_transform *imc_transform_create_choosing(const uint8_t *icc, size_t length, int32_t input, int32_t output,
                                                   int32_t allow_matrix_shaper, char *message, size_t message_size);

/* 1 when `transform` converts with the matrix-shaper tables rather than an lcms2 transform. */
int32_t imc_transform_is_matrix_shaper(const imc_color_transform *transform);

/* Transforms `rows` rows of `width` pixels. In place (in == out) when both layouts are the same size. */
void imc_transform_rows(imc_color_transform *transform, const uint8_t *in, size_t in_stride, uint8_t *out,
                        size_t out_stride, uint32_t width, uint32_t rows);

/* One row of a CMYK transform, with the signature of CImageCodecs' CMYK row converter (`context` is
 * the transform). Alpha in an RGBA output is set opaque. */
void imc_transform_cmyk_row(void *context, const uint8_t *cmyk, uint8_t *out, uint32_t width);

void imc_transform_destroy(imc_color_transform *transform);

#endif
