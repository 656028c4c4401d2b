// libcurl, loaded when first asked for (see include/CCurl.h for why): the functions this
// project calls are looked up once, and each wrapper calls through its pointer.
#define CURL_DISABLE_TYPECHECK  // curl.h's type-checking macros would take the calls below for theirs
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define RESHAPE_CURL_FUNCTIONS(X) \
    X(curl_global_init)           \
    X(curl_easy_init)             \
    X(curl_easy_cleanup)          \
    X(curl_easy_reset)            \
    X(curl_easy_strerror)         \
    X(curl_easy_header)           \
    X(curl_easy_setopt)           \
    X(curl_easy_getinfo)          \
    X(curl_easy_pause)            \
    X(curl_multi_init)            \
    X(curl_multi_cleanup)         \
    X(curl_multi_add_handle)      \
    X(curl_multi_remove_handle)   \
    X(curl_multi_socket_action)   \
    X(curl_multi_info_read)       \
    X(curl_multi_setopt)          \
    X(curl_slist_append)          \
    X(curl_slist_free_all)        \
    X(curl_free)                  \
    X(curl_url)                   \
    X(curl_url_cleanup)           \
    X(curl_url_set)               \
    X(curl_url_get)

static struct {
#define RESHAPE_CURL_FIELD(name) __typeof__(name) *name;
    RESHAPE_CURL_FUNCTIONS(RESHAPE_CURL_FIELD)
#undef RESHAPE_CURL_FIELD
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[512];

static void load(void) {
    // RTLD_LOCAL: curl's symbols stay its own; only the pointers below reach them.
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *error = dlerror();
        snprintf(failure, sizeof failure, "%s", error ? error : "libcurl.so.4 could not be loaded");
        return;
    }
#define RESHAPE_CURL_LOOKUP(name)                                                              \
    api.name = (__typeof__(name) *)dlsym(library, #name);                                      \
    if (!api.name) {                                                                           \
        snprintf(failure, sizeof failure, "libcurl.so.4 has no %s (libcurl 7.84 or later is needed)", #name); \
        return;                                                                                \
    }
    RESHAPE_CURL_FUNCTIONS(RESHAPE_CURL_LOOKUP)
#undef RESHAPE_CURL_LOOKUP
    // Once per process, before any other call, as curl asks; pthread_once keeps it so.
    CURLcode initialized = api.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (initialized != CURLE_OK) {
        snprintf(failure, sizeof failure, "curl_global_init failed: %s", api.curl_easy_strerror(initialized));
        return;
    }
    // Released after every pointer: a thread that reads it set reads them all set.
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

const char *reshape_curl_open(void) {
    pthread_once(&once, load);
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE) ? NULL : failure;
}

// Every wrapper: a server checks `reshape_curl_open` before its first call, so reaching here
// without libcurl is a mistake in this program, said plainly rather than as a null call.
static inline void ready(void) {
    if (__builtin_expect(__atomic_load_n(&loaded, __ATOMIC_ACQUIRE), 1)) return;
    if (reshape_curl_open() != NULL) {
        fprintf(stderr, "reshape: libcurl is needed here and could not be loaded: %s\n", failure);
        abort();
    }
}

CURL *reshape_curl_easy_init(void) { ready(); return api.curl_easy_init(); }
void reshape_curl_easy_cleanup(CURL *h) { ready(); api.curl_easy_cleanup(h); }
void reshape_curl_easy_reset(CURL *h) { ready(); api.curl_easy_reset(h); }
const char *reshape_curl_easy_strerror(CURLcode code) { ready(); return api.curl_easy_strerror(code); }
CURLHcode reshape_curl_easy_header(CURL *h, const char *name, size_t index, unsigned int origin, int request,
                                   struct curl_header **header) {
    ready();
    return api.curl_easy_header(h, name, index, origin, request, header);
}
CURLM *reshape_curl_multi_init(void) { ready(); return api.curl_multi_init(); }
CURLMcode reshape_curl_multi_cleanup(CURLM *m) { ready(); return api.curl_multi_cleanup(m); }
CURLMcode reshape_curl_multi_add_handle(CURLM *m, CURL *h) { ready(); return api.curl_multi_add_handle(m, h); }
CURLMcode reshape_curl_multi_remove_handle(CURLM *m, CURL *h) { ready(); return api.curl_multi_remove_handle(m, h); }
CURLMcode reshape_curl_multi_socket_action(CURLM *m, curl_socket_t s, int mask, int *running) {
    ready();
    return api.curl_multi_socket_action(m, s, mask, running);
}
CURLMsg *reshape_curl_multi_info_read(CURLM *m, int *queued) { ready(); return api.curl_multi_info_read(m, queued); }
struct curl_slist *reshape_curl_slist_append(struct curl_slist *list, const char *line) {
    ready();
    return api.curl_slist_append(list, line);
}
void reshape_curl_slist_free_all(struct curl_slist *list) { ready(); api.curl_slist_free_all(list); }
void reshape_curl_free(void *p) { ready(); api.curl_free(p); }
CURLU *reshape_curl_url(void) { ready(); return api.curl_url(); }
void reshape_curl_url_cleanup(CURLU *u) { ready(); api.curl_url_cleanup(u); }
CURLUcode reshape_curl_url_set(CURLU *u, CURLUPart part, const char *content, unsigned int flags) {
    ready();
    return api.curl_url_set(u, part, content, flags);
}
CURLUcode reshape_curl_url_get(CURLU *u, CURLUPart part, char **content, unsigned int flags) {
    ready();
    return api.curl_url_get(u, part, content, flags);
}

CURLcode reshape_easy_setopt_long(CURL *h, CURLoption o, long v) { ready(); return api.curl_easy_setopt(h, o, v); }
CURLcode reshape_easy_setopt_string(CURL *h, CURLoption o, const char *v) { ready(); return api.curl_easy_setopt(h, o, v); }
CURLcode reshape_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { ready(); return api.curl_easy_setopt(h, o, v); }
CURLcode reshape_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { ready(); return api.curl_easy_setopt(h, o, v); }
CURLcode reshape_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { ready(); return api.curl_easy_setopt(h, o, v); }
CURLcode reshape_easy_setopt_write_function(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) {
    ready();
    return api.curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
}
CURLcode reshape_easy_setopt_closesocket_function(CURL *h, int (*f)(void *, curl_socket_t)) {
    ready();
    return api.curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, f);
}
CURLcode reshape_easy_setopt_opensocket_function(CURL *h, curl_socket_t (*f)(void *, curlsocktype, struct curl_sockaddr *)) {
    ready();
    return api.curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f);
}
CURLcode reshape_easy_setopt_header_function(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) {
    ready();
    return api.curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f);
}
CURLcode reshape_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { ready(); return api.curl_easy_getinfo(h, i, v); }
CURLcode reshape_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { ready(); return api.curl_easy_getinfo(h, i, v); }
CURLcode reshape_easy_getinfo_double(CURL *h, CURLINFO i, double *v) { ready(); return api.curl_easy_getinfo(h, i, v); }
CURLcode reshape_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { ready(); return api.curl_easy_getinfo(h, i, v); }

CURLMcode reshape_multi_setopt_long(CURLM *m, CURLMoption o, long v) { ready(); return api.curl_multi_setopt(m, o, v); }
CURLMcode reshape_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v) { ready(); return api.curl_multi_setopt(m, o, v); }
CURLMcode reshape_multi_setopt_socket_function(CURLM *m, int (*f)(CURL *, curl_socket_t, int, void *, void *)) {
    ready();
    return api.curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, f);
}
CURLMcode reshape_multi_setopt_timer_function(CURLM *m, int (*f)(CURLM *, long, void *)) {
    ready();
    return api.curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, f);
}

CURLcode reshape_easy_unpause(CURL *h) { ready(); return api.curl_easy_pause(h, CURLPAUSE_CONT); }
