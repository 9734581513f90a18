/* ccurl.c: see CCurl.h. libcurl is opened with dlopen on the first request and reached only through
 * the function pointers below, so nothing links libcurl (only its headers are needed to build). */
#define CURL_DISABLE_DEPRECATION 1 /* the CURLOPT_PROTOCOLS fallback below, for libcurl before 7.85 */
#include "CCurl.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
  CURLcode (*global_init)(long);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  void (*easy_cleanup)(CURL *);
  const char *(*easy_strerror)(CURLcode);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  CURLM *(*multi_init)(void);
  CURLMcode (*multi_add_handle)(CURLM *, CURL *);
  CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
  CURLMcode (*multi_perform)(CURLM *, int *);
  CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
  CURLMcode (*multi_wakeup)(CURLM *);
  CURLMsg *(*multi_info_read)(CURLM *, int *);
  int loaded;
  char reason[512];
} api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

#define RESOLVE(field, symbol)                                                                         \
  do {                                                                                                 \
    *(void **)&api.field = dlsym(library, symbol);                                                     \
    if (!api.field) {                                                                                  \
      snprintf(api.reason, sizeof api.reason, "libcurl.so.4 has no %s (libcurl 7.68 or later is needed)", \
               symbol);                                                                                \
      return;                                                                                          \
    }                                                                                                  \
  } while (0)

static void load_api(void) {
  /* Lazy binding, as for a program that links libcurl: its libraries that are not BIND_NOW resolve only
   * what the requests call. */
  void *library = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    snprintf(api.reason, sizeof api.reason, "libcurl cannot be loaded (%s); install libcurl 7.68 or later "
             "(Debian: libcurl4)", why ? why : "libcurl.so.4 not found");
    return;
  }
  RESOLVE(global_init, "curl_global_init");
  RESOLVE(easy_init, "curl_easy_init");
  RESOLVE(easy_setopt, "curl_easy_setopt");
  RESOLVE(easy_getinfo, "curl_easy_getinfo");
  RESOLVE(easy_cleanup, "curl_easy_cleanup");
  RESOLVE(easy_strerror, "curl_easy_strerror");
  RESOLVE(slist_append, "curl_slist_append");
  RESOLVE(slist_free_all, "curl_slist_free_all");
  RESOLVE(multi_init, "curl_multi_init");
  RESOLVE(multi_add_handle, "curl_multi_add_handle");
  RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
  RESOLVE(multi_perform, "curl_multi_perform");
  RESOLVE(multi_poll, "curl_multi_poll");
  RESOLVE(multi_wakeup, "curl_multi_wakeup");
  RESOLVE(multi_info_read, "curl_multi_info_read");
  if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    snprintf(api.reason, sizeof api.reason, "libcurl could not be initialised (curl_global_init)");
    return;
  }
  api.loaded = 1;
}

int32_t ccurl_load(char *reason, size_t capacity) {
  pthread_once(&api_once, load_api);
  if (!api.loaded && reason && capacity) snprintf(reason, capacity, "%s", api.reason);
  return api.loaded;
}

struct ccurl_transfer {
  CURL *easy;
  struct curl_slist *headers;
  ccurl_multi *multi; /* the multi handle it is in, or NULL */
  ccurl_bytes_fn on_header, on_body;
  void *context;
  CURLcode result;
  char error[CURL_ERROR_SIZE];
};

struct ccurl_multi {
  CURLM *handle;
};

static size_t receive_header(char *data, size_t size, size_t count, void *userdata) {
  ccurl_transfer *transfer = userdata;
  size_t length = size * count;
  return transfer->on_header(transfer->context, (const unsigned char *)data, length) ? length : 0;
}

static size_t receive_body(char *data, size_t size, size_t count, void *userdata) {
  ccurl_transfer *transfer = userdata;
  size_t length = size * count;
  return transfer->on_body(transfer->context, (const unsigned char *)data, length) ? length : 0;
}

/* Appends each "\n"-ended line of `lines` to `list`; NULL when out of memory (the list is freed). */
static struct curl_slist *append_lines(struct curl_slist *list, const char *lines) {
  for (const char *line = lines; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    char *copy = strndup(line, length);
    struct curl_slist *longer = copy ? api.slist_append(list, copy) : NULL;
    free(copy);
    if (!longer) {
      api.slist_free_all(list);
      return NULL;
    }
    list = longer;
    line += length + (end ? 1 : 0);
  }
  return list;
}

ccurl_transfer *ccurl_transfer_new(const char *url, const char *header_lines, const char *user_agent,
                                   int32_t decode_content, ccurl_bytes_fn on_header, ccurl_bytes_fn on_body,
                                   void *context) {
  if (!api.loaded) return NULL;
  ccurl_transfer *transfer = calloc(1, sizeof *transfer);
  if (!transfer) return NULL;
  transfer->on_header = on_header;
  transfer->on_body = on_body;
  transfer->context = context;
  transfer->easy = api.easy_init();
  if (!transfer->easy) goto fail;
  if (header_lines && *header_lines) {
    transfer->headers = append_lines(NULL, header_lines);
    if (!transfer->headers) goto fail;
  }
  CURL *easy = transfer->easy;
  /* Only http and https, before and (were libcurl to follow one) after a redirect. */
  /* CURLOPT_PROTOCOLS_STR since 7.85; the older bit mask where the running libcurl does not know it. */
  CURLcode protocols = CURLE_UNKNOWN_OPTION;
#if LIBCURL_VERSION_NUM >= 0x075500
  protocols = api.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
  if (protocols == CURLE_UNKNOWN_OPTION)
    protocols = api.easy_setopt(easy, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  if (protocols != CURLE_OK) goto fail;
  if (api.easy_setopt(easy, CURLOPT_URL, url) != CURLE_OK ||
      api.easy_setopt(easy, CURLOPT_PRIVATE, (void *)transfer) != CURLE_OK ||
      api.easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer->error) != CURLE_OK ||
      /* Redirects are the caller's: credentials must not follow one to another origin. */
      api.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK ||
      /* No SIGALRM for name resolution timeouts: the process has threads (and its own handlers). */
      api.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
      /* A proxy's CONNECT answer is not the server's. */
      api.easy_setopt(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L) != CURLE_OK ||
      api.easy_setopt(easy, CURLOPT_USERAGENT, user_agent) != CURLE_OK ||
      (transfer->headers && api.easy_setopt(easy, CURLOPT_HTTPHEADER, transfer->headers) != CURLE_OK) ||
      (decode_content && api.easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "") != CURLE_OK) ||
      api.easy_setopt(easy, CURLOPT_HEADERFUNCTION, receive_header) != CURLE_OK ||
      api.easy_setopt(easy, CURLOPT_HEADERDATA, (void *)transfer) != CURLE_OK ||
      api.easy_setopt(easy, CURLOPT_WRITEFUNCTION, receive_body) != CURLE_OK ||
      api.easy_setopt(easy, CURLOPT_WRITEDATA, (void *)transfer) != CURLE_OK)
    goto fail;
  return transfer;
fail:
  ccurl_transfer_free(transfer);
  return NULL;
}

void ccurl_transfer_free(ccurl_transfer *transfer) {
  if (!transfer) return;
  if (transfer->multi) ccurl_multi_remove(transfer->multi, transfer);
  if (transfer->easy) api.easy_cleanup(transfer->easy);
  if (transfer->headers) api.slist_free_all(transfer->headers);
  free(transfer);
}

long ccurl_transfer_status(const ccurl_transfer *transfer) {
  long status = 0;
  if (api.easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK) return 0;
  return status;
}

static ccurl_outcome sort_result(CURLcode code) {
  switch (code) {
  case CURLE_OK: return CCURL_DONE;
  case CURLE_WRITE_ERROR:
  case CURLE_ABORTED_BY_CALLBACK: return CCURL_STOPPED;
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY: return CCURL_CANNOT_RESOLVE;
  case CURLE_COULDNT_CONNECT: return CCURL_CANNOT_CONNECT;
  case CURLE_OPERATION_TIMEDOUT: return CCURL_TIMED_OUT;
  case CURLE_PARTIAL_FILE:
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
  case CURLE_GOT_NOTHING: return CCURL_CONNECTION_LOST;
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CIPHER:
  case CURLE_SSL_CACERT_BADFILE:
  case CURLE_SSL_ISSUER_ERROR:
  case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
  case CURLE_SSL_INVALIDCERTSTATUS:
  case CURLE_SSL_ENGINE_NOTFOUND:
  case CURLE_SSL_ENGINE_SETFAILED:
  case CURLE_SSL_ENGINE_INITFAILED:
  case CURLE_SSL_SHUTDOWN_FAILED:
  case CURLE_SSL_CRL_BADFILE:
  case CURLE_SSL_CLIENTCERT:
  case CURLE_USE_SSL_FAILED: return CCURL_TLS;
  case CURLE_UNSUPPORTED_PROTOCOL:
  case CURLE_URL_MALFORMAT: return CCURL_BAD_URL;
  case CURLE_WEIRD_SERVER_REPLY:
  case CURLE_BAD_CONTENT_ENCODING:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
  case CURLE_RANGE_ERROR: return CCURL_BAD_CONTENT;
  case CURLE_OUT_OF_MEMORY: return CCURL_OUT_OF_MEMORY;
  default: return CCURL_OTHER;
  }
}

ccurl_outcome ccurl_transfer_outcome(const ccurl_transfer *transfer, char *message, size_t capacity) {
  if (message && capacity) {
    const char *text = transfer->error[0] ? transfer->error : api.easy_strerror(transfer->result);
    snprintf(message, capacity, "%s", text ? text : "unknown libcurl error");
  }
  return sort_result(transfer->result);
}

ccurl_multi *ccurl_multi_new(void) {
  if (!api.loaded) return NULL;
  ccurl_multi *multi = calloc(1, sizeof *multi);
  if (!multi) return NULL;
  multi->handle = api.multi_init();
  if (!multi->handle) {
    free(multi);
    return NULL;
  }
  return multi;
}

int32_t ccurl_multi_add(ccurl_multi *multi, ccurl_transfer *transfer) {
  if (transfer->multi) return -1;
  if (api.multi_add_handle(multi->handle, transfer->easy) != CURLM_OK) return -1;
  transfer->multi = multi;
  return 0;
}

void ccurl_multi_remove(ccurl_multi *multi, ccurl_transfer *transfer) {
  if (transfer->multi != multi) return;
  api.multi_remove_handle(multi->handle, transfer->easy);
  transfer->multi = NULL;
}

int32_t ccurl_multi_perform(ccurl_multi *multi) {
  int running = 0;
  return api.multi_perform(multi->handle, &running) == CURLM_OK ? 0 : -1;
}

ccurl_transfer *ccurl_multi_next_done(ccurl_multi *multi) {
  int queued = 0;
  CURLMsg *message;
  while ((message = api.multi_info_read(multi->handle, &queued))) {
    if (message->msg != CURLMSG_DONE) continue;
    ccurl_transfer *transfer = NULL;
    if (api.easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&transfer) != CURLE_OK || !transfer)
      continue;
    transfer->result = message->data.result;
    return transfer;
  }
  return NULL;
}

int32_t ccurl_multi_poll(ccurl_multi *multi, int32_t timeout_ms) {
  int ready = 0;
  return api.multi_poll(multi->handle, NULL, 0, timeout_ms, &ready) == CURLM_OK ? 0 : -1;
}

void ccurl_multi_wakeup(ccurl_multi *multi) { api.multi_wakeup(multi->handle); }
