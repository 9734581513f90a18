// libwebp's demultiplexer (pkg-config `libwebpdemux`, Debian package libwebp-dev): the extended
// container's frames, and WebPAnimDecoder, which decodes an animation frame by frame.
#include <webp/demux.h>
