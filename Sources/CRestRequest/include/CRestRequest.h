/* CRestRequest: one HTTP(S) GET of a small document through libcurl's easy API, for the command
 * line's warm hit (the object JSON request), without URLSession. libcurl is not linked: it is
 * loaded with dlopen ("libcurl.so.4") on the first request, so `imgfetch`, which serves the hit
 * itself, loads it only for that request (info, decode and verify never do). No library product
 * uses this target. libcurl's setopt is variadic, which Swift cannot call, hence this C target. */
#ifndef C_REST_REQUEST_H
#define C_REST_REQUEST_H

#include <stddef.h>
#include <stdint.h>

/* The answer to one GET. The body stays on the C side (read it with rest_response_copy_body, free
 * it with rest_response_free), so Swift handles no pointer. */
typedef struct {
  /* The HTTP status, or 0 when no answer arrived. */
  long status;
  /* The body's byte count; the bytes themselves (malloc'd) are private. */
  size_t body_length;
  void *private_body;
  /* libcurl's CURLcode: 0 for a complete transfer. */
  int32_t curl_code;
  /* The Location header of a redirect was present (the request is not followed). */
  int32_t redirected;
} rest_response;

/* Loads libcurl (once; later calls return the first answer). Returns 1 when it is usable, 0 when
 * libcurl.so.4 or one of its entry points is missing. */
int32_t rest_curl_available(void);

/* Sends GET `url` (http or https only, no redirect followed, no proxy beyond libcurl's defaults)
 * with the header lines in `header_lines` ("Name: value", each ended by "\n"; a line holding
 * "\r" or NUL is impossible by construction), the user agent and an idle timeout
 * (connecting, or receiving nothing, for `idle_timeout_ms`). A body longer than `max_body` ends the
 * transfer (curl_code set). rest_cancel() from any thread or a signal handler's reader ends it
 * early. Returns the CURLcode (also in out->curl_code); CURLE_FAILED_INIT when libcurl cannot be
 * loaded. */
int32_t rest_get(const char *url, const char *header_lines, const char *user_agent, int64_t idle_timeout_ms,
                 size_t max_body, rest_response *out);

/* Copies the body's first `capacity` bytes (at most body_length) to `destination`. */
void rest_response_copy_body(const rest_response *response, unsigned char *destination, size_t capacity);

/* Frees a response's body. */
void rest_response_free(rest_response *response);

/* Makes every running and later rest_get return early (CURLE_ABORTED_BY_CALLBACK). */
void rest_cancel(void);

/* Installs SIGINT and SIGTERM handlers for a request made before any thread exists (the warm hit
 * runs on the main thread alone): the first signal cancels (rest_cancel) and is remembered, a
 * second ends the process with status 130 at once. A later sigaction (the command line's
 * InterruptHandler) replaces them. Returns 0 on success. */
int32_t rest_install_interrupt_handlers(void);

/* Whether a signal reached the handlers above. */
int32_t rest_was_interrupted(void);

#endif
