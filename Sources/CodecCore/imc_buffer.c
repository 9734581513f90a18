/* imc_buffer.c: the buffers encoders return. */
#include "imc_core.h"

#include <stdlib.h>

void imc_buffer_free(imc_buffer *buffer) {
  if (!buffer) return;
  free(buffer->data);
  buffer->data = NULL;
  buffer->length = 0;
}
