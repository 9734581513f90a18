/* imc_busy.c: the count of decodes at work in the process (see imc_busy_enter). */
#include "imc_core.h"

#include <stdatomic.h>

static atomic_int busy_decoders;

void imc_busy_enter(int *busy) {
  if (*busy) return;
  *busy = 1;
  atomic_fetch_add(&busy_decoders, 1);
}

void imc_busy_leave(int *busy) {
  if (!*busy) return;
  *busy = 0;
  atomic_fetch_sub(&busy_decoders, 1);
}

int imc_busy_count(void) { return atomic_load(&busy_decoders); }

