// The libjpeg-turbo headers, found through pkg-config (`libjpeg`, Debian package libjpeg62-turbo-dev).
// jpeglib.h needs size_t and FILE declared before it.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
