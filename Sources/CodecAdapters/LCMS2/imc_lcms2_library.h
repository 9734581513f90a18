/* lcms2, opened with dlopen on first use (imc_lcms2_library.c): a process that converts no colour
 * never loads it. Private to the lcms2 adapter. */
#ifndef IMC_LCMS2_LIBRARY_H
#define IMC_LCMS2_LIBRARY_H

#include <lcms2.h>
#include <lcms2_plugin.h>
#include <stddef.h>

/* Every lcms2 call the adapter makes. */
#define IMC_LCMS2_CALLS(X)                                                                              \
  X(cmsBuildGamma) X(cmsBuildParametricToneCurve) X(cmsBuildTabulatedToneCurveFloat) X(cmsCloseProfile) X(cmsCreateContext)               \
  X(cmsCreateGrayProfileTHR) X(cmsCreateRGBProfileTHR) X(cmsCreateTransformTHR) X(cmsCreate_sRGBProfileTHR) \
  X(cmsD50_xyY) X(cmsDeleteContext) X(cmsDeleteTransform) X(cmsDoTransform) X(cmsDoTransformLineStride)   \
  X(cmsEvalToneCurveFloat) X(cmsFreeToneCurve) X(cmsGetColorSpace) X(cmsGetContextUserData)              \
  X(cmsGetDeviceClass) X(cmsGetPCS) X(cmsGetProfileInfoASCII) X(cmsIsMatrixShaper)                        \
  X(cmsOpenProfileFromMemTHR) X(cmsReadTag) X(cmsSaveProfileToMem) X(cmsSetLogErrorHandler)               \
  X(cmsSetLogErrorHandlerTHR) X(cmsSetProfileVersion)

/* The calls, as pointers typed from lcms2.h's own declarations: `imc_lcms2.cmsReadTag(profile, tag)`. */
typedef struct {
#define IMC_LCMS2_POINTER(name) __typeof__(&name) name;
  IMC_LCMS2_CALLS(IMC_LCMS2_POINTER)
#undef IMC_LCMS2_POINTER
} imc_lcms2_calls;

/* Filled by the first imc_lcms2_load that succeeds; read only after it has. */
extern imc_lcms2_calls imc_lcms2;

/* Opens liblcms2.so.2 once (thread-safe) and resolves every call; 1 when lcms2 can be used,
 * otherwise 0 with the reason in `reason` ("lcms2 cannot be loaded (...)"). */
int imc_lcms2_load(char *reason, size_t capacity);

#endif
