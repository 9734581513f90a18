// giflib's header (Debian package libgif-dev, which ships no pkg-config file: the header is in the
// compiler's default search path, /usr/include/gif_lib.h).
#include <gif_lib.h>
