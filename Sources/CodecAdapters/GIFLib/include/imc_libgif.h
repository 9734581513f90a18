/* The giflib adapter: GIF files (87a and 89a, interlaced, transparent, local palettes, animated)
 * through giflib's public reader API (DGifOpen over memory and its record functions), as a
 * whole-file format (imc_whole.h). Nothing here prints. */
#ifndef IMC_LIBGIF_H
#define IMC_LIBGIF_H

#include "imc_core.h"

/* The GIF entry of the front ends' format table. */
extern const imc_format_ops imc_gif_format;

#endif
