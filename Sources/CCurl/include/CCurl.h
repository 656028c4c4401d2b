#include <curl/curl.h>

// libcurl is loaded with dlopen when a server starts (`reshape_curl_open`), not linked: the
// offline verbs (`reshape apply`, `check`, ...) then start without loading it and the ~25
// libraries it brings (TLS, LDAP, Kerberos...), whose loading and initializers cost more than
// the rest of such a run's start-up. Every curl function this project calls goes through
// the wrappers below; curl's own names are declared by curl.h but not linked, so a direct
// call fails to link.

/// Loads libcurl.so.4 and runs its global init, once; NULL when that worked, else why not.
const char *reshape_curl_open(void);

CURL *reshape_curl_easy_init(void);
void reshape_curl_easy_cleanup(CURL *h);
void reshape_curl_easy_reset(CURL *h);
const char *reshape_curl_easy_strerror(CURLcode code);
CURLHcode reshape_curl_easy_header(CURL *h, const char *name, size_t index, unsigned int origin, int request,
                                   struct curl_header **header);
CURLM *reshape_curl_multi_init(void);
CURLMcode reshape_curl_multi_cleanup(CURLM *m);
CURLMcode reshape_curl_multi_add_handle(CURLM *m, CURL *h);
CURLMcode reshape_curl_multi_remove_handle(CURLM *m, CURL *h);
CURLMcode reshape_curl_multi_socket_action(CURLM *m, curl_socket_t s, int mask, int *running);
CURLMsg *reshape_curl_multi_info_read(CURLM *m, int *queued);
struct curl_slist *reshape_curl_slist_append(struct curl_slist *list, const char *line);
void reshape_curl_slist_free_all(struct curl_slist *list);
void reshape_curl_free(void *p);
CURLU *reshape_curl_url(void);
void reshape_curl_url_cleanup(CURLU *u);
CURLUcode reshape_curl_url_set(CURLU *u, CURLUPart part, const char *content, unsigned int flags);
CURLUcode reshape_curl_url_get(CURLU *u, CURLUPart part, char **content, unsigned int flags);

// curl's setopt/getinfo are C variadics, which Swift cannot call: one typed wrapper per
// argument kind.
CURLcode reshape_easy_setopt_long(CURL *h, CURLoption o, long v);
CURLcode reshape_easy_setopt_string(CURL *h, CURLoption o, const char *v);
CURLcode reshape_easy_setopt_pointer(CURL *h, CURLoption o, void *v);
CURLcode reshape_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v);
CURLcode reshape_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v);
CURLcode reshape_easy_setopt_write_function(CURL *h, size_t (*f)(char *, size_t, size_t, void *));
CURLcode reshape_easy_setopt_closesocket_function(CURL *h, int (*f)(void *, curl_socket_t));
CURLcode reshape_easy_setopt_opensocket_function(CURL *h, curl_socket_t (*f)(void *, curlsocktype, struct curl_sockaddr *));
CURLcode reshape_easy_setopt_header_function(CURL *h, size_t (*f)(char *, size_t, size_t, void *));
CURLcode reshape_easy_getinfo_long(CURL *h, CURLINFO i, long *v);
CURLcode reshape_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v);
CURLcode reshape_easy_getinfo_double(CURL *h, CURLINFO i, double *v);
CURLcode reshape_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v);

CURLMcode reshape_multi_setopt_long(CURLM *m, CURLMoption o, long v);
CURLMcode reshape_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v);
CURLMcode reshape_multi_setopt_socket_function(CURLM *m, int (*f)(CURL *, curl_socket_t, int, void *, void *));
CURLMcode reshape_multi_setopt_timer_function(CURLM *m, int (*f)(CURLM *, long, void *));

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
CURLcode reshape_easy_unpause(CURL *h);
