// libwebp's headers, found through pkg-config (`libwebp`, Debian package libwebp-dev, which also
// ships the container library libwebpmux linked beside it for ICC profiles and comments).
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>
