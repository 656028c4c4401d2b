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

static inline void *reshape_redis_get_data(const redisAsyncContext *context) { return context->data; }
static inline void reshape_redis_set_data(redisAsyncContext *context, void *data) { context->data = data; }
static inline int reshape_redis_has_error(const redisAsyncContext *context) { return context->err != 0; }
static inline const char *reshape_redis_error(const redisAsyncContext *context) { return context->errstr; }

#endif
