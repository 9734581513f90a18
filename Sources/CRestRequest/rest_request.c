/* rest_request.c: see CRestRequest.h. */
#include "CRestRequest.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libcurl's entry points, resolved by dlopen on the first request: the executables link no
 * libcurl for this (only curl's headers are needed to build), so a command that makes no request
 * never loads it and its 25 libraries. */
static struct {
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_perform)(CURL *);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  void (*easy_cleanup)(CURL *);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  int loaded;
} curl_api;
static pthread_once_t curl_api_once = PTHREAD_ONCE_INIT;

static void rest_load_curl(void) {
  /* Lazy binding, as when a program links libcurl: its libraries that are not BIND_NOW (Kerberos,
   * SASL) then resolve only what the request calls, about 1,800 fewer relocations. */
  void *library = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
  if (!library) return;
  *(void **)&curl_api.easy_init = dlsym(library, "curl_easy_init");
  *(void **)&curl_api.easy_setopt = dlsym(library, "curl_easy_setopt");
  *(void **)&curl_api.easy_perform = dlsym(library, "curl_easy_perform");
  *(void **)&curl_api.easy_getinfo = dlsym(library, "curl_easy_getinfo");
  *(void **)&curl_api.easy_cleanup = dlsym(library, "curl_easy_cleanup");
  *(void **)&curl_api.slist_append = dlsym(library, "curl_slist_append");
  *(void **)&curl_api.slist_free_all = dlsym(library, "curl_slist_free_all");
  curl_api.loaded = curl_api.easy_init && curl_api.easy_setopt && curl_api.easy_perform && curl_api.easy_getinfo &&
                    curl_api.easy_cleanup && curl_api.slist_append && curl_api.slist_free_all;
}

int32_t rest_curl_available(void) {
  pthread_once(&curl_api_once, rest_load_curl);
  return curl_api.loaded;
}

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
  if (!rest_curl_available()) return out->curl_code = CURLE_FAILED_INIT;
  CURL *curl = curl_api.easy_init();
  if (!curl) return out->curl_code = CURLE_FAILED_INIT;
  struct curl_slist *list = NULL;
  CURLcode code = CURLE_OK;
  for (const char *line = header_lines; *line;) {
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    char *copy = strndup(line, length);
    struct curl_slist *longer = copy ? curl_api.slist_append(list, copy) : NULL;
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
  if ((code = curl_api.easy_setopt(curl, CURLOPT_URL, url)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https")) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_HTTPHEADER, list)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_USERAGENT, user_agent)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, (long)idle_timeout_ms)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, idle_seconds)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_WRITEFUNCTION, rest_write)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_WRITEDATA, &sink)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, rest_progress)) ||
      (code = curl_api.easy_setopt(curl, CURLOPT_NOPROGRESS, 0L)))
    goto done;
  code = curl_api.easy_perform(curl);
  long status = 0;
  if (curl_api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK) out->status = status;
  char *location = NULL;
  if (curl_api.easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) out->redirected = 1;
done:
  curl_api.slist_free_all(list);
  curl_api.easy_cleanup(curl);
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
