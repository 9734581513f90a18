/* rest_request.c: see CRestRequest.h. */
#include "CRestRequest.h"

#include <curl/curl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int rest_cancelled;
static atomic_int rest_signals;

void rest_cancel(void) { atomic_store(&rest_cancelled, 1); }

/* Async-signal-safe: atomics and _exit only. */
static void rest_on_signal(int number) {
  (void)number;
  if (atomic_fetch_add(&rest_signals, 1) > 0) _exit(130);
  atomic_store(&rest_cancelled, 1);
}

int32_t rest_install_interrupt_handlers(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = rest_on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(SIGINT, &action, NULL) != 0 || sigaction(SIGTERM, &action, NULL) != 0) return -1;
  return 0;
}

int32_t rest_was_interrupted(void) { return atomic_load(&rest_signals) > 0; }

typedef struct {
  rest_response *out;
  size_t capacity;
  size_t max_body;
} body_sink;

static size_t rest_write(char *data, size_t size, size_t count, void *context) {
  body_sink *sink = context;
  size_t length = size * count;
  rest_response *out = sink->out;
  if (length > sink->max_body - out->body_length) return 0; /* over the limit: CURLE_WRITE_ERROR */
  if (out->body_length + length > sink->capacity) {
    size_t capacity = sink->capacity ? sink->capacity : 4096;
    while (capacity < out->body_length + length) capacity *= 2;
    unsigned char *grown = realloc(out->private_body, capacity);
    if (!grown) return 0;
    out->private_body = grown;
    sink->capacity = capacity;
  }
  memcpy((unsigned char *)out->private_body + out->body_length, data, length);
  out->body_length += length;
  return length;
}

static int rest_progress(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
  (void)context, (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
  return atomic_load(&rest_cancelled) ? 1 : 0;
}

int32_t rest_get(const char *url, const char *header_lines, const char *user_agent, int64_t idle_timeout_ms,
                 size_t max_body, rest_response *out) {
  memset(out, 0, sizeof *out);
  if (atomic_load(&rest_cancelled)) return out->curl_code = CURLE_ABORTED_BY_CALLBACK;
  CURL *curl = curl_easy_init();
  if (!curl) return out->curl_code = CURLE_FAILED_INIT;
  struct curl_slist *list = NULL;
  CURLcode code = CURLE_OK;
  for (const char *line = header_lines; *line;) {
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    char *copy = strndup(line, length);
    struct curl_slist *longer = copy ? curl_slist_append(list, copy) : NULL;
    free(copy);
    if (!longer) {
      code = CURLE_OUT_OF_MEMORY;
      goto done;
    }
    list = longer;
    line += length + (end ? 1 : 0);
  }
  body_sink sink = {out, 0, max_body};
  /* The idle timeout: connecting within it, then never a whole second-rounded stretch of it
   * without a byte (libcurl's low-speed check counts in whole seconds). */
  long idle_seconds = (long)((idle_timeout_ms + 999) / 1000);
  if (idle_seconds < 1) idle_seconds = 1;
  if ((code = curl_easy_setopt(curl, CURLOPT_URL, url)) ||
      (code = curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https")) ||
      (code = curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L)) ||
      (code = curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L)) ||
      (code = curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list)) ||
      (code = curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent)) ||
      (code = curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, (long)idle_timeout_ms)) ||
      (code = curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L)) ||
      (code = curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, idle_seconds)) ||
      (code = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, rest_write)) ||
      (code = curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink)) ||
      (code = curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, rest_progress)) ||
      (code = curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L)))
    goto done;
  code = curl_easy_perform(curl);
  long status = 0;
  if (curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK) out->status = status;
  char *location = NULL;
  if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) out->redirected = 1;
done:
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  return out->curl_code = (int32_t)code;
}

void rest_response_copy_body(const rest_response *response, unsigned char *destination, size_t capacity) {
  size_t count = capacity < response->body_length ? capacity : response->body_length;
  if (count) memcpy(destination, response->private_body, count);
}

void rest_response_free(rest_response *response) {
  free(response->private_body);
  response->private_body = NULL;
  response->body_length = 0;
}
