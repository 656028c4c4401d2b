#ifndef RESHAPE_CHIREDIS_SHIM_H
#define RESHAPE_CHIREDIS_SHIM_H

// hiredis's asynchronous API on the worker's own libuv loop, through hiredis's libuv adapter.
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libuv.h>

/// Attaches `context` to a libuv loop. The loop comes in untyped so that Swift never sees two
/// `uv_loop_t`s (CLibUV's and this header's).
static inline int reshape_redis_attach(redisAsyncContext *context, void *loop) {
    return redisLibuvAttach(context, (uv_loop_t *)loop);
}

/// The reply's string bytes when it is a bulk or status string, else NULL (nil, an error, ...).
static inline const char *reshape_redis_reply_string(void *reply, size_t *length) {
    redisReply *r = reply;
    if (r == NULL || (r->type != REDIS_REPLY_STRING && r->type != REDIS_REPLY_STATUS)) return NULL;
    *length = r->len;
    return r->str;
}

/// 1 when the reply is an error (or there is none: the connection went away).
static inline int reshape_redis_reply_failed(void *reply) {
    redisReply *r = reply;
    return r == NULL || r->type == REDIS_REPLY_ERROR;
}

/// The reply's integers when it is an array of at most `max` integers: how many, written to
/// `values`; -1 when it is anything else.
static inline long reshape_redis_reply_integers(void *reply, long long *values, size_t max) {
    redisReply *r = reply;
    if (r == NULL || r->type != REDIS_REPLY_ARRAY || r->elements > max) return -1;
    for (size_t i = 0; i < r->elements; i++) {
        if (r->element[i] == NULL || r->element[i]->type != REDIS_REPLY_INTEGER) return -1;
        values[i] = r->element[i]->integer;
    }
    return (long)r->elements;
}

/// 1 when the reply is an error whose text starts with `prefix` (`NOSCRIPT`).
static inline int reshape_redis_reply_error_starts(void *reply, const char *prefix) {
    redisReply *r = reply;
    if (r == NULL || r->type != REDIS_REPLY_ERROR || r->str == NULL) return 0;
    return strncmp(r->str, prefix, strlen(prefix)) == 0;
}

static inline void *reshape_redis_get_data(const redisAsyncContext *context) { return context->data; }
static inline void reshape_redis_set_data(redisAsyncContext *context, void *data) { context->data = data; }
static inline int reshape_redis_has_error(const redisAsyncContext *context) { return context->err != 0; }
static inline const char *reshape_redis_error(const redisAsyncContext *context) { return context->errstr; }

#endif
