// The libcurl headers, found through pkg-config (`libcurl`, Debian package libcurl4-openssl-dev).
#include <curl/curl.h>
