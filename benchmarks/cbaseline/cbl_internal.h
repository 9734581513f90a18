/* Shared between the baseline's .c files. */
#ifndef CBL_INTERNAL_H
#define CBL_INTERNAL_H

#include "BenchBaseline.h"

/* Makes room for `bytes` pixels (keeping the buffer when it is big enough). Returns 0 or -1. */
int cbl_output_reserve(cbl_output *output, size_t bytes);

#define CBL_MESSAGE_SIZE 200

#endif
