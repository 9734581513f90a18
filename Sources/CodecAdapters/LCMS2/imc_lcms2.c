/* imc_lcms2.c: the lcms2 adapter (see include/imc_lcms2.h).
 *
 * Why a shim: lcms2 reports errors through a handler that prints unless replaced, and allocates
 * from the size fields of the profile it reads (tag counts, curve lengths, LUT grids). Every call
 * here runs in a context of its own whose error handler is silent and whose memory handler (lcms2's
 * public memory plug-in) refuses anything past IMC_LCMS_MEMORY_BUDGET for that context, so a
 * hostile profile is a NULL from lcms2, never a message or a large allocation. Profiles are checked
 * here (size, class, colour model) before lcms2 builds anything from them.
 */
#pragma clang diagnostic warning "-Wall"
#pragma clang diagnostic warning "-Wextra"

#include "imc_lcms2.h"
#include "imc_bytes.h"
#include "imc_lcms2_library.h"
#include "imc_matrix_shaper.h"
#include "imc_transfer.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- A context per profile or transform: silent, with a memory budget ---- */

/* Atomic: a transform may be used from several threads at once (ImageCodecs shares them). */
typedef struct {
  atomic_size_t used;
  size_t limit;
} budget;

/* Every block carries its size and the budget it was charged to (lcms2's first allocation, the
 * context itself, happens before the context's user data is reachable and is not charged). */
typedef struct {
  size_t size;
  budget *charged;
} block_header;

#define HEADER_BYTES ((sizeof(block_header) + 15) & ~(size_t)15)

static void *budget_malloc(cmsContext context, cmsUInt32Number size) {
  budget *account = context ? imc_lcms2.cmsGetContextUserData(context) : NULL;
  if (account) {
    size_t before = atomic_fetch_add(&account->used, (size_t)size);
    if (size > account->limit || before > account->limit - size) {
      atomic_fetch_sub(&account->used, (size_t)size);
      return NULL;
    }
  }
  uint8_t *raw = malloc(HEADER_BYTES + (size_t)size);
  if (!raw) {
    if (account) atomic_fetch_sub(&account->used, (size_t)size);
    return NULL;
  }
  block_header *header = (block_header *)raw;
  header->size = size;
  header->charged = account;
  return raw + HEADER_BYTES;
}

static void budget_free(cmsContext context, void *pointer) {
  (void)context;
  if (!pointer) return;
  uint8_t *raw = (uint8_t *)pointer - HEADER_BYTES;
  block_header *header = (block_header *)raw;
  if (header->charged) atomic_fetch_sub(&header->charged->used, header->size);
  free(raw);
}

static void *budget_realloc(cmsContext context, void *pointer, cmsUInt32Number size) {
  if (!pointer) return budget_malloc(context, size);
  block_header *old = (block_header *)((uint8_t *)pointer - HEADER_BYTES);
  void *fresh = budget_malloc(context, size);
  if (!fresh) return NULL;
  memcpy(fresh, pointer, old->size < size ? old->size : size);
  budget_free(context, pointer);
  return fresh;
}

static cmsPluginMemHandler memory_plugin = {
    {cmsPluginMagicNumber, 2000, cmsPluginMemHandlerSig, NULL}, budget_malloc, budget_free, budget_realloc,
    NULL, NULL, NULL};

static void silent(cmsContext context, cmsUInt32Number code, const char *text) {
  (void)context;
  (void)code;
  (void)text;
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void silence_global(void) { imc_lcms2.cmsSetLogErrorHandler(silent); }

/* A context for one job; `account` must outlive it. */
static cmsContext open_context(budget *account) {
  pthread_once(&global_once, silence_global);
  atomic_init(&account->used, 0);
  account->limit = IMC_LCMS_MEMORY_BUDGET;
  cmsContext context = imc_lcms2.cmsCreateContext(&memory_plugin, account);
  if (context) imc_lcms2.cmsSetLogErrorHandlerTHR(context, silent);
  return context;
}

/* ---- Inspecting a profile ---- */

static int32_t model_of(cmsColorSpaceSignature space) {
  switch (space) {
  case cmsSigGrayData: return IMC_MODEL_GRAY;
  case cmsSigRgbData: return IMC_MODEL_RGB;
  case cmsSigCmykData: return IMC_MODEL_CMYK;
  default: return IMC_MODEL_OTHER;
  }
}

/* sRGB's tone curve (IEC 61966-2-1) as an lcms2 parametric curve of type 4. */
static cmsToneCurve *srgb_curve(cmsContext context) {
  const cmsFloat64Number parameters[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
  return imc_lcms2.cmsBuildParametricToneCurve(context, 4, parameters);
}

/* sRGB's colorants relative to the D50 PCS, as lcms2's cmsCreate_sRGBProfile makes them (Bradford
 * adaptation of the Rec. 709 primaries and D65 white): rows X, Y, Z; columns red, green, blue. */
static const double srgb_colorants[3][3] = {
  {0.43604125161605084, 0.38511291079815568, 0.14304583758579362},
  {0.22248454022947742, 0.71690507860845787, 0.060610381162065304},
  {0.013920187471375375, 0.097067238697124067, 0.71391257383150097},
};

/* sRGB's tone curve (encoded value to linear light) and its inverse. */
static double srgb_to_linear(double x) { return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4); }
static double linear_to_srgb(double y) { return y <= 0.0031308 ? y * 12.92 : 1.055 * pow(y, 1.0 / 2.4) - 0.055; }

static cmsHPROFILE srgb_gray_profile(cmsContext context) {
  cmsToneCurve *curve = srgb_curve(context);
  if (!curve) return NULL;
  cmsHPROFILE profile = imc_lcms2.cmsCreateGrayProfileTHR(context, imc_lcms2.cmsD50_xyY(), curve);
  imc_lcms2.cmsFreeToneCurve(curve);
  return profile;
}

static int curve_is_srgb(cmsToneCurve *curve) {
  if (!curve) return 0;
  for (int i = 0; i <= 32; i++) {
    float x = (float)i / 32.0f;
    if (fabs(imc_lcms2.cmsEvalToneCurveFloat(curve, x) - srgb_to_linear(x)) > 1.0 / 255.0) return 0;
  }
  return 1;
}

static int xyz_close(const cmsCIEXYZ *a, int column) {
  return a && fabs(a->X - srgb_colorants[0][column]) < 0.002 && fabs(a->Y - srgb_colorants[1][column]) < 0.002 &&
         fabs(a->Z - srgb_colorants[2][column]) < 0.002;
}

/* Whether a gray or matrix-shaper RGB profile gives sRGB's numbers (within 1/255 on the curves and
 * 0.002 on the colorants), so converting to sRGB would change nothing worth the work. */
static int profile_is_srgb(cmsHPROFILE profile, int32_t model) {
  if (model == IMC_MODEL_GRAY) return curve_is_srgb(imc_lcms2.cmsReadTag(profile, cmsSigGrayTRCTag));
  if (model != IMC_MODEL_RGB || !imc_lcms2.cmsIsMatrixShaper(profile)) return 0;
  const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
  const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
  for (int i = 0; i < 3; i++)
    if (!xyz_close(imc_lcms2.cmsReadTag(profile, colorants[i]), i) || !curve_is_srgb(imc_lcms2.cmsReadTag(profile, curves[i]))) return 0;
  return 1;
}

void imc_profile_inspect(const uint8_t *icc, size_t length, size_t max_bytes, int32_t image_model,
                         imc_profile_facts *facts) {
  memset(facts, 0, sizeof *facts);
  if (length > max_bytes) {
    facts->problem = IMC_PROFILE_TOO_LARGE;
    return;
  }
  if (!icc || length < 132) {
    facts->problem = IMC_PROFILE_TRUNCATED;
    return;
  }
  facts->declared_size = imc_read_be32(icc);
  if (facts->declared_size > length) {
    facts->problem = IMC_PROFILE_TRUNCATED;
    return;
  }
  if (facts->declared_size < 132 || memcmp(icc + 36, "acsp", 4) != 0) {
    facts->problem = IMC_PROFILE_MALFORMED;
    return;
  }
  if (!imc_lcms2_load(facts->reason, sizeof facts->reason)) {
    facts->problem = IMC_PROFILE_NO_LCMS2;
    return;
  }
  budget account;
  cmsContext context = open_context(&account);
  if (!context) {
    facts->problem = IMC_PROFILE_MALFORMED;
    return;
  }
  cmsHPROFILE profile = imc_lcms2.cmsOpenProfileFromMemTHR(context, icc, facts->declared_size);
  if (!profile) {
    facts->problem = IMC_PROFILE_MALFORMED;
    imc_lcms2.cmsDeleteContext(context);
    return;
  }
  facts->device_class = (uint32_t)imc_lcms2.cmsGetDeviceClass(profile);
  facts->model = model_of(imc_lcms2.cmsGetColorSpace(profile));
  cmsColorSpaceSignature pcs = imc_lcms2.cmsGetPCS(profile);
  imc_lcms2.cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", facts->description, sizeof facts->description);
  facts->description[sizeof facts->description - 1] = 0;
  switch (imc_lcms2.cmsGetDeviceClass(profile)) {
  case cmsSigInputClass:
  case cmsSigDisplayClass:
  case cmsSigOutputClass:
  case cmsSigColorSpaceClass:
    if (pcs != cmsSigXYZData && pcs != cmsSigLabData) facts->problem = IMC_PROFILE_MALFORMED;
    else if (facts->model == IMC_MODEL_OTHER || (image_model != IMC_MODEL_OTHER && facts->model != image_model))
      facts->problem = IMC_PROFILE_WRONG_MODEL;
    break;
  default:
    facts->problem = IMC_PROFILE_WRONG_CLASS;
    break;
  }
  if (facts->problem == IMC_PROFILE_USABLE) facts->is_srgb = profile_is_srgb(profile, facts->model);
  imc_lcms2.cmsCloseProfile(profile);
  imc_lcms2.cmsDeleteContext(context);
}

/* ---- Profiles made from PNG chunks ---- */

/* The profile's bytes, malloc'd into *out; its length, or 0. */
static size_t save_profile(cmsHPROFILE profile, double version, uint8_t **out) {
  size_t length = 0;
  imc_lcms2.cmsSetProfileVersion(profile, version);
  cmsUInt32Number size = 0;
  if (imc_lcms2.cmsSaveProfileToMem(profile, NULL, &size) && size > 0) {
    uint8_t *bytes = malloc(size);
    if (bytes && imc_lcms2.cmsSaveProfileToMem(profile, bytes, &size)) {
      *out = bytes;
      length = size;
    } else {
      free(bytes);
    }
  }
  imc_lcms2.cmsCloseProfile(profile);
  return length;
}

/* sRGB's primaries and D65 white: white x, y, red, green, blue x, y. */
static const double srgb_xy[8] = {0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06};

static cmsHPROFILE rgb_profile(cmsContext context, const double *c, cmsToneCurve *curve) {
  cmsCIExyY white = {c[0], c[1], 1.0};
  cmsCIExyYTRIPLE primaries = {{c[2], c[3], 1.0}, {c[4], c[5], 1.0}, {c[6], c[7], 1.0}};
  cmsToneCurve *curves[3] = {curve, curve, curve};
  return imc_lcms2.cmsCreateRGBProfileTHR(context, &white, &primaries, curves);
}

size_t imc_profile_from_gamma(int32_t model, double file_gamma, const double *chromaticities, uint8_t **out) {
  *out = NULL;
  if (!(file_gamma > 0.01 && file_gamma < 100.0) || !imc_lcms2_load(NULL, 0)) return 0;
  budget account;
  cmsContext context = open_context(&account);
  if (!context) return 0;
  size_t length = 0;
  cmsToneCurve *curve = imc_lcms2.cmsBuildGamma(context, 1.0 / file_gamma);
  cmsHPROFILE profile = NULL;
  if (curve) {
    if (model == IMC_MODEL_GRAY)
      profile = imc_lcms2.cmsCreateGrayProfileTHR(context, imc_lcms2.cmsD50_xyY(), curve);
    else if (model == IMC_MODEL_RGB) /* sRGB's primaries and D65 white unless the file's cHRM says otherwise */
      profile = rgb_profile(context, chromaticities ? chromaticities : srgb_xy, curve);
    imc_lcms2.cmsFreeToneCurve(curve);
  }
  if (profile) length = save_profile(profile, 2.1, out);
  imc_lcms2.cmsDeleteContext(context);
  return length;
}

/* The HDR curves, sampled once per process: PQ's, then HLG's. */
#define HDR_SAMPLES 4096
static cmsFloat32Number hdr_tables[2][HDR_SAMPLES];
static pthread_once_t hdr_once = PTHREAD_ONCE_INIT;
static void fill_hdr_tables(void) {
  for (int i = 0; i < HDR_SAMPLES; i++) {
    double signal = (double)i / (HDR_SAMPLES - 1);
    hdr_tables[0][i] = (cmsFloat32Number)imc_hdr_linear(IMC_CURVE_PQ, signal);
    hdr_tables[1][i] = (cmsFloat32Number)imc_hdr_linear(IMC_CURVE_HLG, signal);
  }
}

/* The curve of an nclx transfer characteristic: parametric where ICC has the form (type 4:
 * Y = (aX + b)^g above d, cX below), sampled for the HDR ones (imc_transfer.c). */
static cmsToneCurve *nclx_curve(cmsContext context, int transfer) {
  imc_curve_kind kind = imc_curve_for_transfer(transfer);
  switch (kind) {
  case IMC_CURVE_BT709: {
    const double p[5] = {1.0 / 0.45, 1.0 / 1.099, 0.099 / 1.099, 1.0 / 4.5, 0.081};
    return imc_lcms2.cmsBuildParametricToneCurve(context, 4, p);
  }
  case IMC_CURVE_LINEAR: return imc_lcms2.cmsBuildGamma(context, 1.0);
  case IMC_CURVE_GAMMA22: return imc_lcms2.cmsBuildGamma(context, 2.2);
  case IMC_CURVE_GAMMA28: return imc_lcms2.cmsBuildGamma(context, 2.8);
  case IMC_CURVE_PQ:
  case IMC_CURVE_HLG:
    pthread_once(&hdr_once, fill_hdr_tables);
    return imc_lcms2.cmsBuildTabulatedToneCurveFloat(context, HDR_SAMPLES, hdr_tables[kind == IMC_CURVE_HLG]);
  default: {
    const double p[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    return imc_lcms2.cmsBuildParametricToneCurve(context, 4, p);
  }
  }
}

size_t imc_profile_from_nclx(int32_t transfer, const double *chromaticities, uint8_t **out) {
  *out = NULL;
  if (!imc_lcms2_load(NULL, 0)) return 0;
  budget account;
  cmsContext context = open_context(&account);
  if (!context) return 0;
  size_t length = 0;
  cmsToneCurve *curve = nclx_curve(context, transfer);
  if (curve) {
    cmsHPROFILE profile = rgb_profile(context, chromaticities ? chromaticities : srgb_xy, curve);
    imc_lcms2.cmsFreeToneCurve(curve);
    if (profile) length = save_profile(profile, 4.3, out);
  }
  imc_lcms2.cmsDeleteContext(context);
  return length;
}

void imc_lcms_free(void *memory) { free(memory); }

/* ---- Transforms to sRGB ---- */

struct imc_color_transform {
  budget account; /* first: the context's user data points here */
  cmsContext context;
  cmsHTRANSFORM transform;
  imc_matrix_shaper *shaper; /* instead of `transform`, between matrix-shaper RGB spaces */
  int32_t output;
};

static cmsUInt32Number lcms_format(int32_t pixels) {
  switch (pixels) {
  case IMC_PIXELS_GRAY8: return TYPE_GRAY_8;
  case IMC_PIXELS_GRAYALPHA8: return TYPE_GRAYA_8;
  case IMC_PIXELS_RGB8: return TYPE_RGB_8;
  case IMC_PIXELS_RGBA8: return TYPE_RGBA_8;
  case IMC_PIXELS_GRAY16: return TYPE_GRAY_16;
  case IMC_PIXELS_GRAYALPHA16: return TYPE_GRAYA_16;
  case IMC_PIXELS_RGB16: return TYPE_RGB_16;
  case IMC_PIXELS_RGBA16: return TYPE_RGBA_16;
  case IMC_PIXELS_CMYK8: return TYPE_CMYK_8;
  case IMC_PIXELS_CMYK8_INVERTED: return TYPE_CMYK_8_REV;
  default: return 0;
  }
}

static int is_gray(int32_t pixels) {
  return pixels == IMC_PIXELS_GRAY8 || pixels == IMC_PIXELS_GRAYALPHA8 || pixels == IMC_PIXELS_GRAY16 ||
         pixels == IMC_PIXELS_GRAYALPHA16;
}

static int has_alpha(int32_t pixels) {
  return pixels == IMC_PIXELS_GRAYALPHA8 || pixels == IMC_PIXELS_RGBA8 || pixels == IMC_PIXELS_GRAYALPHA16 ||
         pixels == IMC_PIXELS_RGBA16;
}

/* The 3x3 matrix of a matrix-shaper profile's colorants (columns: red, green, blue; PCS XYZ). */
static int colorant_matrix(cmsHPROFILE profile, double matrix[3][3]) {
  const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
  for (int column = 0; column < 3; column++) {
    const cmsCIEXYZ *xyz = imc_lcms2.cmsReadTag(profile, tags[column]);
    if (!xyz) return 0;
    matrix[0][column] = xyz->X;
    matrix[1][column] = xyz->Y;
    matrix[2][column] = xyz->Z;
  }
  return 1;
}

static int invert(const double m[3][3], double out[3][3]) {
  double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
               m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  if (!(fabs(det) > 1e-9)) return 0;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      /* The cofactor of m[c][r], divided by the determinant. */
      int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
      out[r][c] = (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det;
    }
  return 1;
}

/* The tables of imc_matrix_shaper.h for 8-bit RGB from `source`, a matrix-shaper RGB profile, to
 * sRGB (lcms2's sRGB: its colorants above, its curve's inverse), relative colorimetric: both ends'
 * colorants are relative to the PCS white, and black-point compensation changes nothing, as both
 * curves start at 0 (checked). NULL when the profile is not of that form, so that lcms2 builds the
 * transform instead. */
static imc_matrix_shaper *matrix_shaper(cmsHPROFILE source) {
  if (imc_lcms2.cmsGetColorSpace(source) != cmsSigRgbData || !imc_lcms2.cmsIsMatrixShaper(source) || imc_lcms2.cmsGetPCS(source) != cmsSigXYZData)
    return NULL;
  double from[3][3], inverse[3][3];
  if (!colorant_matrix(source, from) || !invert(srgb_colorants, inverse)) return NULL;
  const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
  imc_matrix_shaper *shaper = malloc(sizeof *shaper);
  int usable = shaper != NULL;
  for (int channel = 0; channel < 3 && usable; channel++) {
    cmsToneCurve *curve = imc_lcms2.cmsReadTag(source, curves[channel]);
    if (!curve) {
      usable = 0;
      break;
    }
    for (int code = 0; code < 256; code++)
      shaper->linear[channel][code] = imc_lcms2.cmsEvalToneCurveFloat(curve, (cmsFloat32Number)code / 255.0f);
    if (shaper->linear[channel][0] != 0.0f) usable = 0; /* a raised black: lcms2 and black-point compensation */
  }
  for (int step = 0; step <= IMC_ENCODE_STEPS && usable; step++)
    shaper->encode[step] = (float)linear_to_srgb((double)step / IMC_ENCODE_STEPS);
  for (int r = 0; r < 3 && usable; r++)
    for (int c = 0; c < 3; c++)
      shaper->matrix[r][c] = (float)(inverse[r][0] * from[0][c] + inverse[r][1] * from[1][c] + inverse[r][2] * from[2][c]);
  if (!usable) {
    free(shaper);
    return NULL;
  }
  return shaper;
}

imc_color_transform *imc_transform_create(const uint8_t *icc, size_t length, int32_t input, int32_t output,
                                          char *message, size_t message_size) {
  return imc_transform_create_choosing(icc, length, input, output, 1, message, message_size);
}

int32_t imc_transform_is_matrix_shaper(const imc_color_transform *transform) {
  return transform && transform->shaper ? 1 : 0;
}

imc_color_transform *imc_transform_create_choosing(const uint8_t *icc, size_t length, int32_t input, int32_t output,
                                                   int32_t allow_matrix_shaper, char *message, size_t message_size) {
  cmsUInt32Number in_format = lcms_format(input), out_format = lcms_format(output);
  if (message_size > 0) message[0] = 0;
  if (!in_format || !out_format) {
    snprintf(message, message_size, "no such pixel layout");
    return NULL;
  }
  if (!imc_lcms2_load(message, message_size)) return NULL;
  imc_color_transform *made = calloc(1, sizeof *made);
  if (!made) {
    snprintf(message, message_size, "out of memory");
    return NULL;
  }
  made->output = output;
  made->context = open_context(&made->account);
  if (!made->context) {
    free(made);
    snprintf(message, message_size, "out of memory");
    return NULL;
  }
  cmsHPROFILE source = icc ? imc_lcms2.cmsOpenProfileFromMemTHR(made->context, icc, (cmsUInt32Number)length)
                           : imc_lcms2.cmsCreate_sRGBProfileTHR(made->context);
  int same_layout = input == output && (input == IMC_PIXELS_RGB8 || input == IMC_PIXELS_RGBA8);
  if (source && same_layout && allow_matrix_shaper) made->shaper = matrix_shaper(source);
  cmsHPROFILE target = NULL;
  if (source && !made->shaper) {
    target = is_gray(output) ? srgb_gray_profile(made->context) : imc_lcms2.cmsCreate_sRGBProfileTHR(made->context);
    if (target) {
      cmsUInt32Number flags = cmsFLAGS_NOCACHE | cmsFLAGS_BLACKPOINTCOMPENSATION;
      if (has_alpha(input) && has_alpha(output)) flags |= cmsFLAGS_COPY_ALPHA;
      made->transform = imc_lcms2.cmsCreateTransformTHR(made->context, source, in_format, target, out_format,
                                              INTENT_RELATIVE_COLORIMETRIC, flags);
    }
  }
  if (source) imc_lcms2.cmsCloseProfile(source);
  if (target) imc_lcms2.cmsCloseProfile(target);
  if (!made->transform && !made->shaper) {
    snprintf(message, message_size, "%s", !source ? "lcms2 cannot read the profile"
                                                  : "lcms2 cannot build a transform to sRGB from the profile");
    imc_transform_destroy(made);
    return NULL;
  }
  return made;
}

void imc_transform_rows(imc_color_transform *transform, const uint8_t *in, size_t in_stride, uint8_t *out,
                        size_t out_stride, uint32_t width, uint32_t rows) {
  if (!transform || width == 0 || rows == 0) return;
  if (transform->shaper) {
    imc_matrix_shaper_rows(transform->shaper, in, in_stride, out, out_stride, width, rows,
                           transform->output == IMC_PIXELS_RGBA8 ? 4 : 3);
    return;
  }
  imc_lcms2.cmsDoTransformLineStride(transform->transform, in, out, width, rows, (cmsUInt32Number)in_stride,
                           (cmsUInt32Number)out_stride, 0, 0);
}

void imc_transform_cmyk_row(void *context, const uint8_t *cmyk, uint8_t *out, uint32_t width) {
  imc_color_transform *transform = context;
  imc_lcms2.cmsDoTransform(transform->transform, cmyk, out, width);
  if (transform->output == IMC_PIXELS_RGBA8)
    for (uint32_t x = 0; x < width; x++) out[4 * (size_t)x + 3] = 255;
}

void imc_transform_destroy(imc_color_transform *transform) {
  if (!transform) return;
  if (transform->transform) imc_lcms2.cmsDeleteTransform(transform->transform);
  free(transform->shaper);
  if (transform->context) imc_lcms2.cmsDeleteContext(transform->context);
  free(transform);
}
