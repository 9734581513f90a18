// Little CMS 2 headers, found through pkg-config (`lcms2`, Debian package liblcms2-dev). The plugin
// header is public too: the adapter uses its memory-handler plugin to bound what lcms2 allocates.
#include <lcms2.h>
#include <lcms2_plugin.h>
