/* CCurl: libcurl's C API for imgfetch's one HTTP client (ParseFetch's HTTPClient), loaded with dlopen
 * on the first request, so that a process that makes none (imgfetch info, decode, verify) never loads
 * libcurl and its two dozen libraries. Only curl's headers are needed to build (Debian:
 * libcurl4-openssl-dev); at run time libcurl.so.4 (Debian: libcurl4).
 *
 * Why C: libcurl's setopt and getinfo are variadic, which Swift cannot call, and its options are
 * policy (protocols, redirects, proxies, TLS, decoding) that belongs in one place: ccurl_transfer_new.
 * Swift sees opaque transfers and a multi handle, and two callbacks that receive bytes. libcurl never
 * longjmps (no signals: CURLOPT_NOSIGNAL), so a callback may be Swift. */
#ifndef C_CURL_H
#define C_CURL_H

#include <stddef.h>
#include <stdint.h>

/* Receives bytes of a transfer (one header line with its CRLF, or a piece of the decoded body), on the
 * thread that drives the transfer. Returns 1 to go on, 0 to stop the transfer. */
typedef int32_t (*ccurl_bytes_fn)(void *context, const unsigned char *bytes, size_t count);

/* Loads libcurl (once; later calls give the first answer) and initialises it. Returns 1 when it is
 * usable; 0 when libcurl.so.4 or one of the entry points used here is missing, with the reason in
 * `reason` (at most `capacity` bytes, NUL-terminated). */
int32_t ccurl_load(char *reason, size_t capacity);

/* One HTTP GET, not yet started. */
typedef struct ccurl_transfer ccurl_transfer;

/* Makes a GET of `url` (http or https only) with the header lines in `header_lines` ("Name: value", each
 * ended by "\n"), the user agent, and libcurl's content decoding when `decode_content` is 1 (any encoding
 * it supports is asked for and decoded; 0 sends no Accept-Encoding of its own). No redirect is followed
 * (the caller follows a Location itself, so that credentials stay on their origin); proxies come from the environment (http_proxy,
 * https_proxy, no_proxy), TLS peers are verified against the system's CA certificates, HTTP/2 is used
 * over TLS when the server offers it. Header lines and body pieces go to the callbacks with `context`.
 * Returns NULL when libcurl is not loaded or out of memory. */
ccurl_transfer *ccurl_transfer_new(const char *url, const char *header_lines, const char *user_agent,
                                   int32_t decode_content, ccurl_bytes_fn on_header, ccurl_bytes_fn on_body,
                                   void *context);

/* Frees a transfer (removed from its multi handle first, if it is in one). */
void ccurl_transfer_free(ccurl_transfer *transfer);

/* The HTTP status of the last response, 0 before one arrived. */
long ccurl_transfer_status(const ccurl_transfer *transfer);

/* What ended a transfer, sorted for the caller's errors and retries. */
typedef enum {
  CCURL_DONE = 0,                 /* the whole response arrived */
  CCURL_STOPPED = 1,              /* a callback returned 0 */
  CCURL_CANNOT_RESOLVE = 2,       /* the host (or proxy) name did not resolve */
  CCURL_CANNOT_CONNECT = 3,       /* no connection to the host or proxy */
  CCURL_CONNECTION_LOST = 4,      /* the connection failed or closed mid-answer (a body short of its length too) */
  CCURL_TLS = 5,                  /* TLS failed: handshake, certificate, or a server that does not speak it */
  CCURL_TIMED_OUT = 6,            /* libcurl's own timeout */
  CCURL_BAD_URL = 7,              /* a URL libcurl cannot use (syntax, scheme) */
  CCURL_BAD_CONTENT = 8,          /* the answer could not be read: bad framing, content encoding, HTTP/2 error */
  CCURL_OUT_OF_MEMORY = 9,
  CCURL_OTHER = 10
} ccurl_outcome;

/* The transfer's outcome once it is done (libcurl's result sorted), and in `message` libcurl's
 * detailed text (its error buffer, or its text for the code), at most `capacity` bytes. */
ccurl_outcome ccurl_transfer_outcome(const ccurl_transfer *transfer, char *message, size_t capacity);

/* A set of transfers driven together by one thread (libcurl's multi interface), which share
 * connections. Every call but ccurl_multi_wakeup must come from that one thread. */
typedef struct ccurl_multi ccurl_multi;

/* Makes a multi handle, or NULL when libcurl is not loaded or out of memory. */
ccurl_multi *ccurl_multi_new(void);

/* Adds a transfer (it starts on the next ccurl_multi_perform). Returns 0, or -1. */
int32_t ccurl_multi_add(ccurl_multi *multi, ccurl_transfer *transfer);

/* Removes a transfer (done or not; a running one stops). */
void ccurl_multi_remove(ccurl_multi *multi, ccurl_transfer *transfer);

/* Moves every transfer on as far as it can without waiting; callbacks run here. Returns 0, or -1. */
int32_t ccurl_multi_perform(ccurl_multi *multi);

/* A transfer that is done (its outcome then readable), or NULL when there is none (more). */
ccurl_transfer *ccurl_multi_next_done(ccurl_multi *multi);

/* Waits until a transfer's socket is ready, libcurl's own timer is due, ccurl_multi_wakeup is called,
 * or `timeout_ms` passed. Returns 0, or -1. */
int32_t ccurl_multi_poll(ccurl_multi *multi, int32_t timeout_ms);

/* Ends a ccurl_multi_poll early; callable from any thread. */
void ccurl_multi_wakeup(ccurl_multi *multi);

#endif
