/* process_settings.c: process-wide allocator settings that an executable may choose for itself and a
 * library must not (they change malloc for the whole process). mallopt is declared in <malloc.h>,
 * which Swift's Glibc module does not expose, hence this small C target for the executable. */
#include "CProcessSettings.h"

#include <malloc.h>

int32_t process_limit_malloc_arenas(int32_t count) { return mallopt(M_ARENA_MAX, count) == 1 ? 0 : -1; }
