/* CProcessSettings: settings of the whole process, for the imgfetch executable only. */
#ifndef PROCESS_SETTINGS_H
#define PROCESS_SETTINGS_H

#include <stdint.h>

/* Caps glibc's malloc arenas (mallopt M_ARENA_MAX): each thread that allocates gets an arena that
 * reserves 64 MiB of address space, enough to exhaust `ulimit -v` / `prlimit --as` with reservations
 * the process never touches. Returns 0 on success. */
int32_t process_limit_malloc_arenas(int32_t count);

#endif
