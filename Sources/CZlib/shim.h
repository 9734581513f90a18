// zlib's header, found through pkg-config (`zlib`, Debian package zlib1g-dev, which libpng-dev
// depends on): CImageCodecs inflates a plain PNG's image data itself (imc_png_fast.c).
#include <zlib.h>
