/* imc_lcms2_library.c: see imc_lcms2_library.h. Nothing links lcms2 (only its headers are needed to
 * build): a verify or a thumbnail of an image without a colour profile skips loading it, which was
 * about a fifth of a short process's start-up (benchmarks/README.md). */
#include "imc_lcms2_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

imc_lcms2_calls imc_lcms2;
static int loaded;
static char failure[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
  void *library = dlopen("liblcms2.so.2", RTLD_LAZY | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    snprintf(failure, sizeof failure, "lcms2 cannot be loaded (%s); install lcms2 2.8 or later (Debian: liblcms2-2)",
             why ? why : "liblcms2.so.2 not found");
    return;
  }
#define IMC_LCMS2_RESOLVE(name)                                                                          \
  *(void **)&imc_lcms2.name = dlsym(library, #name);                                                         \
  if (!imc_lcms2.name) {                                                                                     \
    snprintf(failure, sizeof failure, "lcms2 cannot be loaded (liblcms2.so.2 has no %s; lcms2 2.8 or later is needed)", \
             #name);                                                                                     \
    return;                                                                                              \
  }
  IMC_LCMS2_CALLS(IMC_LCMS2_RESOLVE)
#undef IMC_LCMS2_RESOLVE
  loaded = 1;
}

int imc_lcms2_load(char *reason, size_t capacity) {
  pthread_once(&load_once, load);
  if (!loaded && reason && capacity > 0) snprintf(reason, capacity, "%s", failure);
  return loaded;
}
