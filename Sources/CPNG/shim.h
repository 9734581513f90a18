// The libpng headers, found through pkg-config (`libpng`, Debian package libpng-dev).
#include <png.h>
