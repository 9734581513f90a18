/* imc_heif_library.c: see imc_heif_library.h. Nothing links libheif (only its headers are needed to
 * build: Debian's libheif-dev). */
#include "imc_heif_library.h"
#include "imc_libheif.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

imc_heif_calls imc_heif;
static int loaded;
static char failure[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
  const char *path = getenv("IMGFETCH_LIBHEIF");
  if (!path || !*path) path = "libheif.so.1";
  void *library = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    snprintf(failure, sizeof failure, "libheif cannot be loaded (%s); install libheif 1.15 or later (Debian: libheif1)",
             why ? why : path);
    return;
  }
#define IMC_HEIF_RESOLVE(name)                                                                           \
  *(void **)&imc_heif.name = dlsym(library, #name);                                                        \
  if (!imc_heif.name) {                                                                                    \
    snprintf(failure, sizeof failure, "libheif cannot be loaded (%s has no %s; libheif 1.15 or later is needed)", \
             path, #name);                                                                               \
    return;                                                                                              \
  }
  IMC_HEIF_CALLS(IMC_HEIF_RESOLVE)
#undef IMC_HEIF_RESOLVE
  loaded = 1;
}

int imc_heif_load(char *reason, size_t capacity) {
  pthread_once(&load_once, load);
  if (!loaded && reason && capacity > 0) snprintf(reason, capacity, "%s", failure);
  return loaded;
}

int imc_heif_library_version(char *out, size_t capacity) {
  if (!imc_heif_load(out, capacity)) return 0;
  /* heif_get_version_number(): 0xHHMMLL00 (major, minor, maintenance). */
  uint32_t number = imc_heif.heif_get_version_number();
  if (capacity > 0)
    snprintf(out, capacity, "%u.%u.%u", (unsigned)(number >> 24 & 0xff), (unsigned)(number >> 16 & 0xff),
             (unsigned)(number >> 8 & 0xff));
  return 1;
}
