/* colorgen: makes the colour-managed test photos (Fixtures/color/README.md) with lcms2.
 *
 *   colorgen profiles DIR                 writes the profiles (*.icc) into DIR
 *   colorgen photo SOURCE.jpg WIDTH DIR   SOURCE (sRGB) box-shrunk to WIDTH (0: full size), written
 *                                         as DIR/reference.png and converted into every space below,
 *                                         as JPEG (APP2 ICC_PROFILE) and PNG (iCCP; CMYK: JPEG only)
 *
 * Spaces: Display P3 (sRGB's curve, P3 primaries, D65), Adobe RGB (1998) (gamma 563/256), ProPhoto
 * (ROMM: gamma 1.8, D50), gray with gamma 1.8, and CMYK through an ink model of our own (below:
 * subtractive mixing in a linear, narrower-than-sRGB press RGB, dot gain, full grey replacement),
 * written as Adobe does (inverted values, APP14 marker). Also PNGs that say Adobe RGB and gray 1.8
 * with gAMA/cHRM chunks instead of a profile. Every profile is made here from published primaries
 * and curves: no third-party profile is used. Built and run by make-color-fixtures.py.
 */
#include <lcms2.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

typedef struct { int width, height, channels; unsigned char *pixels; } picture;

static void die(const char *what) { fprintf(stderr, "colorgen: %s\n", what); exit(1); }

static picture read_jpeg(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open the source");
  struct jpeg_decompress_struct d; struct jpeg_error_mgr e;
  d.err = jpeg_std_error(&e);
  jpeg_create_decompress(&d);
  jpeg_stdio_src(&d, f);
  jpeg_read_header(&d, TRUE);
  d.out_color_space = JCS_RGB;
  jpeg_start_decompress(&d);
  picture p = {(int)d.output_width, (int)d.output_height, 3, malloc((size_t)d.output_width * d.output_height * 3)};
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = p.pixels + (size_t)d.output_scanline * p.width * 3;
    jpeg_read_scanlines(&d, &row, 1);
  }
  jpeg_finish_decompress(&d);
  jpeg_destroy_decompress(&d);
  fclose(f);
  return p;
}

/* Area-average shrink to `width` (in the stored values, as a viewer's own resize would). */
static picture shrink(picture in, int width) {
  if (width <= 0 || width >= in.width) return in;
  int height = (int)((double)in.height * width / in.width + 0.5);
  picture out = {width, height, 3, malloc((size_t)width * height * 3)};
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      int x0 = x * in.width / width, x1 = (x + 1) * in.width / width;
      int y0 = y * in.height / height, y1 = (y + 1) * in.height / height;
      double sum[3] = {0, 0, 0};
      for (int yy = y0; yy < y1; yy++)
        for (int xx = x0; xx < x1; xx++)
          for (int c = 0; c < 3; c++) sum[c] += in.pixels[((size_t)yy * in.width + xx) * 3 + c];
      double n = (double)(x1 - x0) * (y1 - y0);
      for (int c = 0; c < 3; c++) out.pixels[((size_t)y * width + x) * 3 + c] = (unsigned char)(sum[c] / n + 0.5);
    }
  return out;
}

static void write_jpeg(const char *path, picture p, int cmyk, const cmsUInt8Number *icc, cmsUInt32Number icc_length) {
  FILE *f = fopen(path, "wb");
  if (!f) die("cannot write a JPEG");
  struct jpeg_compress_struct c; struct jpeg_error_mgr e;
  c.err = jpeg_std_error(&e);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = (JDIMENSION)p.width;
  c.image_height = (JDIMENSION)p.height;
  c.input_components = p.channels;
  c.in_color_space = p.channels == 1 ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&c);
  if (cmyk) jpeg_set_colorspace(&c, JCS_CMYK); /* writes the Adobe marker */
  jpeg_set_quality(&c, 95, TRUE);
  c.optimize_coding = TRUE;
  jpeg_start_compress(&c, TRUE);
  if (icc) jpeg_write_icc_profile(&c, icc, icc_length);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = p.pixels + (size_t)c.next_scanline * p.width * p.channels;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  fclose(f);
}

/* gamma: file gamma for gAMA (0: none); chromaticities: 8 values for cHRM (NULL: none). */
static void write_png(const char *path, picture p, const cmsUInt8Number *icc, cmsUInt32Number icc_length,
                      double gamma, const double *chromaticities) {
  FILE *f = fopen(path, "wb");
  if (!f) die("cannot write a PNG");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) die("libpng failed");
  png_init_io(png, f);
  png_set_compression_level(png, p.width > 1000 ? 6 : 9); /* the fixtures small, the benchmark's photos quick */
  png_set_IHDR(png, info, (png_uint_32)p.width, (png_uint_32)p.height, 8,
               p.channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (icc) png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, icc_length);
  if (gamma > 0) png_set_gAMA(png, info, gamma);
  if (chromaticities)
    png_set_cHRM(png, info, chromaticities[0], chromaticities[1], chromaticities[2], chromaticities[3],
                 chromaticities[4], chromaticities[5], chromaticities[6], chromaticities[7]);
  png_write_info(png, info);
  for (int y = 0; y < p.height; y++) png_write_row(png, p.pixels + (size_t)y * p.width * p.channels);
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  fclose(f);
}

static void describe(cmsHPROFILE profile, const char *text) {
  cmsMLU *mlu = cmsMLUalloc(NULL, 1);
  cmsMLUsetASCII(mlu, "en", "US", text);
  cmsWriteTag(profile, cmsSigProfileDescriptionTag, mlu);
  cmsMLU *copyright = cmsMLUalloc(NULL, 1);
  cmsMLUsetASCII(copyright, "en", "US", "No copyright, use freely (imgfetch test fixture)");
  cmsWriteTag(profile, cmsSigCopyrightTag, copyright);
  cmsMLUfree(mlu);
  cmsMLUfree(copyright);
}

static cmsHPROFILE rgb_profile(const char *name, double wx, double wy, const double primaries[6], cmsToneCurve *curve) {
  cmsCIExyY white = {wx, wy, 1};
  cmsCIExyYTRIPLE p = {{primaries[0], primaries[1], 1}, {primaries[2], primaries[3], 1}, {primaries[4], primaries[5], 1}};
  cmsToneCurve *curves[3] = {curve, curve, curve};
  cmsHPROFILE profile = cmsCreateRGBProfile(&white, &p, curves);
  describe(profile, name);
  return profile;
}

static cmsToneCurve *srgb_curve(void) {
  const cmsFloat64Number parameters[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
  return cmsBuildParametricToneCurve(NULL, 4, parameters);
}

/* ---- The CMYK ink model: subtractive mixing in a linear "press" RGB with a 15% dot gain ---- */

static cmsHTRANSFORM press_to_lab, lab_to_press;

static double gain(double ink) { return 1.0 - pow(1.0 - ink, 1.35); }         /* coverage as printed */
static double ungain(double printed) { return 1.0 - pow(1.0 - printed, 1.0 / 1.35); }

static int ink_to_lab(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
  (void)cargo;
  double c = gain(in[0] / 65535.0), m = gain(in[1] / 65535.0), y = gain(in[2] / 65535.0), k = gain(in[3] / 65535.0);
  double rgb[3] = {(1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)};
  cmsCIELab lab;
  cmsDoTransform(press_to_lab, rgb, &lab, 1);
  cmsFloat2LabEncoded(out, &lab);
  return 1;
}

static int lab_to_ink(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
  (void)cargo;
  cmsCIELab lab;
  cmsLabEncoded2Float(&lab, in);
  double rgb[3];
  cmsDoTransform(lab_to_press, &lab, rgb, 1);
  for (int i = 0; i < 3; i++) rgb[i] = rgb[i] < 0 ? 0 : rgb[i] > 1 ? 1 : rgb[i];
  double top = fmax(rgb[0], fmax(rgb[1], rgb[2]));
  double k = 1 - top; /* full grey replacement */
  double ink[4] = {0, 0, 0, k};
  for (int i = 0; i < 3; i++) ink[i] = top > 0 ? 1 - rgb[i] / top : 0;
  for (int i = 0; i < 4; i++) out[i] = (cmsUInt16Number)(ungain(ink[i]) * 65535.0 + 0.5);
  return 1;
}

static cmsHPROFILE cmyk_profile(void) {
  const double primaries[6] = {0.62, 0.33, 0.28, 0.58, 0.16, 0.09};
  cmsToneCurve *linear = cmsBuildGamma(NULL, 1.0);
  cmsHPROFILE press = rgb_profile("press", 0.3457, 0.3585, primaries, linear);
  cmsFreeToneCurve(linear);
  cmsHPROFILE lab = cmsCreateLab4Profile(NULL);
  press_to_lab = cmsCreateTransform(press, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE);
  lab_to_press = cmsCreateTransform(lab, TYPE_Lab_DBL, press, TYPE_RGB_DBL, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE);
  cmsHPROFILE profile = cmsCreateProfilePlaceholder(NULL);
  cmsSetProfileVersion(profile, 4.3);
  cmsSetDeviceClass(profile, cmsSigOutputClass);
  cmsSetColorSpace(profile, cmsSigCmykData);
  cmsSetPCS(profile, cmsSigLabData);
  cmsWriteTag(profile, cmsSigMediaWhitePointTag, cmsD50_XYZ());
  cmsPipeline *forward = cmsPipelineAlloc(NULL, 4, 3);
  cmsStage *grid = cmsStageAllocCLut16bit(NULL, 9, 4, 3, NULL);
  cmsStageSampleCLut16bit(grid, ink_to_lab, NULL, 0);
  /* mAB and mBA want curves around the grid: identity ones. */
  cmsPipelineInsertStage(forward, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL));
  cmsPipelineInsertStage(forward, cmsAT_END, grid);
  cmsPipelineInsertStage(forward, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
  cmsPipeline *backward = cmsPipelineAlloc(NULL, 3, 4);
  cmsStage *inverse = cmsStageAllocCLut16bit(NULL, 17, 3, 4, NULL);
  cmsStageSampleCLut16bit(inverse, lab_to_ink, NULL, 0);
  cmsPipelineInsertStage(backward, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
  cmsPipelineInsertStage(backward, cmsAT_END, inverse);
  cmsPipelineInsertStage(backward, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL));
  cmsWriteTag(profile, cmsSigAToB0Tag, forward);
  cmsWriteTag(profile, cmsSigBToA0Tag, backward);
  describe(profile, "imgfetch test CMYK (ink model with dot gain)");
  cmsPipelineFree(forward);
  cmsPipelineFree(backward);
  cmsCloseProfile(press);
  cmsCloseProfile(lab);
  return profile;
}

/* ---- The spaces ---- */

static const double P3[6] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060};
static const double ADOBE[6] = {0.640, 0.330, 0.210, 0.710, 0.150, 0.060};
static const double PROPHOTO[6] = {0.7347, 0.2653, 0.1596, 0.8404, 0.0366, 0.0001};

typedef struct { const char *name; cmsHPROFILE profile; int channels; int cmyk; } space;

static int make_spaces(space *out) {
  cmsToneCurve *srgb = srgb_curve(), *adobe = cmsBuildGamma(NULL, 563.0 / 256.0), *g18 = cmsBuildGamma(NULL, 1.8);
  int n = 0;
  out[n++] = (space){"display-p3", rgb_profile("Display P3 (imgfetch test)", 0.3127, 0.3290, P3, srgb), 3, 0};
  out[n++] = (space){"adobe-rgb", rgb_profile("Adobe RGB (1998) compatible (imgfetch test)", 0.3127, 0.3290, ADOBE, adobe), 3, 0};
  out[n++] = (space){"prophoto", rgb_profile("ProPhoto RGB compatible (imgfetch test)", 0.3457, 0.3585, PROPHOTO, g18), 3, 0};
  cmsHPROFILE gray = cmsCreateGrayProfile(cmsD50_xyY(), g18);
  describe(gray, "Gray Gamma 1.8 (imgfetch test)");
  out[n++] = (space){"gray-gamma18", gray, 1, 0};
  out[n++] = (space){"cmyk", cmyk_profile(), 4, 1};
  cmsFreeToneCurve(srgb);
  cmsFreeToneCurve(adobe);
  cmsFreeToneCurve(g18);
  return n;
}

static cmsUInt8Number *save(cmsHPROFILE profile, cmsUInt32Number *length) {
  cmsSaveProfileToMem(profile, NULL, length);
  cmsUInt8Number *bytes = malloc(*length);
  cmsSaveProfileToMem(profile, bytes, length);
  return bytes;
}

static void write_file(const char *path, const void *bytes, size_t length) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, length, f) != length) die("cannot write a profile");
  fclose(f);
}

int main(int argc, char **argv) {
  char path[4096];
  if (argc == 3 && strcmp(argv[1], "profiles") == 0) {
    space spaces[8];
    int n = make_spaces(spaces);
    for (int i = 0; i < n; i++) {
      cmsUInt32Number length;
      cmsUInt8Number *bytes = save(spaces[i].profile, &length);
      snprintf(path, sizeof path, "%s/%s.icc", argv[2], spaces[i].name);
      write_file(path, bytes, length);
      free(bytes);
    }
    /* An abstract (Lab to Lab) profile: not an image's colour space. */
    cmsHPROFILE abstract = cmsCreateLab4Profile(NULL);
    describe(abstract, "Lab identity (abstract)");
    cmsUInt32Number length;
    cmsUInt8Number *bytes = save(abstract, &length);
    snprintf(path, sizeof path, "%s/abstract-lab.icc", argv[2]);
    write_file(path, bytes, length);
    return 0;
  }
  if (argc != 5 || strcmp(argv[1], "photo") != 0) die("usage: colorgen profiles DIR | colorgen photo SOURCE.jpg WIDTH DIR");
  picture source = shrink(read_jpeg(argv[2]), atoi(argv[3]));
  const char *dir = argv[4];
  snprintf(path, sizeof path, "%s/reference.png", dir);
  write_png(path, source, NULL, 0, 0, NULL);
  cmsHPROFILE srgb = cmsCreate_sRGBProfile();
  space spaces[8];
  int n = make_spaces(spaces);
  size_t count = (size_t)source.width * source.height;
  for (int i = 0; i < n; i++) {
    cmsUInt32Number format = spaces[i].cmyk ? TYPE_CMYK_8_REV : spaces[i].channels == 1 ? TYPE_GRAY_8 : TYPE_RGB_8;
    cmsHTRANSFORM to = cmsCreateTransform(srgb, TYPE_RGB_8, spaces[i].profile, format, INTENT_RELATIVE_COLORIMETRIC, 0);
    picture converted = {source.width, source.height, spaces[i].channels, malloc(count * (size_t)spaces[i].channels)};
    cmsDoTransform(to, source.pixels, converted.pixels, (cmsUInt32Number)count);
    cmsDeleteTransform(to);
    cmsUInt32Number length;
    cmsUInt8Number *icc = save(spaces[i].profile, &length);
    snprintf(path, sizeof path, "%s/%s.jpg", dir, spaces[i].name);
    write_jpeg(path, converted, spaces[i].cmyk, icc, length);
    if (spaces[i].cmyk) {
      snprintf(path, sizeof path, "%s/%s-no-profile.jpg", dir, spaces[i].name);
      write_jpeg(path, converted, 1, NULL, 0);
    } else {
      snprintf(path, sizeof path, "%s/%s.png", dir, spaces[i].name);
      write_png(path, converted, icc, length, 0, NULL);
    }
    /* The same numbers described by gAMA (and cHRM) instead of a profile. */
    if (strcmp(spaces[i].name, "adobe-rgb") == 0) {
      const double chromaticities[8] = {0.3127, 0.3290, ADOBE[0], ADOBE[1], ADOBE[2], ADOBE[3], ADOBE[4], ADOBE[5]};
      snprintf(path, sizeof path, "%s/%s-gama-chrm.png", dir, spaces[i].name);
      write_png(path, converted, NULL, 0, 256.0 / 563.0, chromaticities);
    }
    if (strcmp(spaces[i].name, "gray-gamma18") == 0) {
      snprintf(path, sizeof path, "%s/%s-gama.png", dir, spaces[i].name);
      write_png(path, converted, NULL, 0, 1.0 / 1.8, NULL);
    }
    free(icc);
    free(converted.pixels);
  }
  return 0;
}
