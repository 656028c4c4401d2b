#include <uv.h>

// libuv's handle types share a common header; C casts between them freely. These keep the
// casts in one visible place instead of scattered pointer rebinding in Swift.
static inline uv_handle_t *reshape_tcp_handle(uv_tcp_t *t) { return (uv_handle_t *)t; }
static inline uv_stream_t *reshape_tcp_stream(uv_tcp_t *t) { return (uv_stream_t *)t; }
static inline uv_handle_t *reshape_timer_handle(uv_timer_t *t) { return (uv_handle_t *)t; }
static inline uv_handle_t *reshape_poll_handle(uv_poll_t *p) { return (uv_handle_t *)p; }
static inline uv_handle_t *reshape_async_handle(uv_async_t *a) { return (uv_handle_t *)a; }
static inline uv_handle_t *reshape_signal_handle(uv_signal_t *s) { return (uv_handle_t *)s; }
static inline uv_handle_t *reshape_fs_event_handle(uv_fs_event_t *e) { return (uv_handle_t *)e; }

// glibc's allocator tuning (malloc.h is not in Swift's Glibc module): a fixed mmap threshold,
// so large per-request buffers are mapped and unmapped instead of kept in the heap, and a trim
// threshold, so the heap keeps the smaller ones' memory between requests.
#include <malloc.h>
static inline int reshape_set_malloc_thresholds(int mmap_bytes, int trim_bytes) {
    return mallopt(M_MMAP_THRESHOLD, mmap_bytes) && mallopt(M_TRIM_THRESHOLD, trim_bytes);
}

// Hands the allocator's free memory back to the system (every arena), once a load has ended.
static inline int reshape_malloc_trim(void) { return malloc_trim(0); }
