#include <curl/curl.h>

// curl's setopt/getinfo are C variadics, which Swift cannot call: one typed wrapper per
// argument kind.
static inline CURLcode reshape_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode reshape_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode reshape_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode reshape_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode reshape_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode reshape_easy_setopt_write_function(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
}
static inline CURLcode reshape_easy_setopt_closesocket_function(CURL *h, int (*f)(void *, curl_socket_t)) {
    return curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, f);
}
static inline CURLcode reshape_easy_setopt_opensocket_function(CURL *h, curl_socket_t (*f)(void *, curlsocktype, struct curl_sockaddr *)) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f);
}
static inline CURLcode reshape_easy_setopt_header_function(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f);
}
static inline CURLcode reshape_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode reshape_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode reshape_easy_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode reshape_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

static inline CURLMcode reshape_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode reshape_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode reshape_multi_setopt_socket_function(CURLM *m, int (*f)(CURL *, curl_socket_t, int, void *, void *)) {
    return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, f);
}
static inline CURLMcode reshape_multi_setopt_timer_function(CURLM *m, int (*f)(CURLM *, long, void *)) {
    return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, f);
}

static const curl_socket_t reshape_curl_socket_timeout = CURL_SOCKET_TIMEOUT;
static const int reshape_curl_poll_in = CURL_POLL_IN;
static const int reshape_curl_poll_out = CURL_POLL_OUT;
static const int reshape_curl_poll_inout = CURL_POLL_INOUT;
static const int reshape_curl_poll_remove = CURL_POLL_REMOVE;
static const int reshape_curl_csel_in = CURL_CSELECT_IN;
static const int reshape_curl_csel_out = CURL_CSELECT_OUT;
static const int reshape_curl_csel_err = CURL_CSELECT_ERR;

// Pausing a transfer whose body would pass the memory budget, and letting it go on (the
// macros are expressions Swift does not import).
static const size_t reshape_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static inline CURLcode reshape_easy_unpause(CURL *h) { return curl_easy_pause(h, CURLPAUSE_CONT); }
