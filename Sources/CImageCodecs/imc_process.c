/* imc_process.c: process-wide allocator settings an executable may choose (never a library).
 * mallopt is in <malloc.h>, which Swift's Glibc module does not expose. */
#include "imc_internal.h"

#include <malloc.h>

int32_t imc_limit_malloc_arenas(int32_t count) { return mallopt(M_ARENA_MAX, count) == 1 ? 0 : -1; }
