/* imc_color.c: a decode's colour facts before the header is read. */
#include "imc_core.h"

#include <string.h>

void imc_color_reset(imc_color *color) {
  memset(color, 0, sizeof *color);
  color->srgb_intent = -1;
  color->adobe_transform = -1;
}
