#ifndef RESHAPE_CPCRE2_SHIM_H
#define RESHAPE_CPCRE2_SHIM_H

// PCRE2 for ECMA-262 patterns: 8-bit code units (UTF-8), the compile options that give
// ECMA meaning, and a per-thread scratch area so that a match allocates nothing.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

// UTF: match by code point. No UCP: \d \w \b stay ASCII, as in ECMA-262. DOLLAR_ENDONLY: $ is
// the end of the subject only (ECMA's $ does not match before a final newline). ALT_BSUX (with
// its extra option): \xHH, \uHHHH and \u{H...} as ECMA spells them. NEVER_UCP and
// NEVER_BACKSLASH_C: a pattern cannot switch these back on.
static const uint32_t reshape_pcre2_options =
    PCRE2_UTF | PCRE2_ALT_BSUX | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_UCP | PCRE2_NEVER_BACKSLASH_C;
static const uint32_t reshape_pcre2_extra_options = PCRE2_EXTRA_ALT_BSUX;

/// Compiles `pattern` and JIT-compiles it when the platform allows (`*jit` says whether).
/// Returns NULL with `*error_code` and `*error_offset` set when the pattern does not compile.
static inline pcre2_code *reshape_pcre2_compile(const uint8_t *pattern, size_t length, int *error_code,
                                                size_t *error_offset, int *jit) {
    *jit = 0;
    pcre2_compile_context *context = pcre2_compile_context_create(NULL);
    if (context == NULL) { *error_code = PCRE2_ERROR_NOMEMORY; *error_offset = 0; return NULL; }
    pcre2_set_compile_extra_options(context, reshape_pcre2_extra_options);
    PCRE2_SIZE offset = 0;
    pcre2_code *code = pcre2_compile(pattern, length, reshape_pcre2_options, error_code, &offset, context);
    pcre2_compile_context_free(context);
    *error_offset = offset;
    if (code != NULL) *jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
    return code;
}

static inline void reshape_pcre2_free(pcre2_code *code) { pcre2_code_free(code); }

/// The message for a compile or match error code.
static inline int reshape_pcre2_error_message(int code, uint8_t *buffer, size_t size) {
    return pcre2_get_error_message(code, buffer, size);
}

// Per-thread scratch: match data with room for one pair (only the verdict is used), and a
// match context carrying a JIT stack that may grow to 8 MB (the default is 32 kB of machine
// stack). Made on a thread's first match; freed when the thread exits.
typedef struct {
    pcre2_match_data *data;
    pcre2_match_context *context;
    pcre2_jit_stack *stack;
} reshape_pcre2_scratch;

static inline void reshape_pcre2_scratch_free(void *pointer) {
    reshape_pcre2_scratch *scratch = pointer;
    pcre2_match_data_free(scratch->data);
    pcre2_match_context_free(scratch->context);
    pcre2_jit_stack_free(scratch->stack);
    free(scratch);
}

// Statics live inside functions: Swift's importer emits the inline functions a module calls,
// not file-level static variables.
static inline pthread_key_t *reshape_pcre2_scratch_key(void) {
    static pthread_key_t key;
    return &key;
}
static inline void reshape_pcre2_make_scratch_key(void) {
    pthread_key_create(reshape_pcre2_scratch_key(), reshape_pcre2_scratch_free);
}
static inline void reshape_pcre2_register_scratch(reshape_pcre2_scratch *scratch) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, reshape_pcre2_make_scratch_key);
    pthread_setspecific(*reshape_pcre2_scratch_key(), scratch);
}

static inline reshape_pcre2_scratch *reshape_pcre2_thread_scratch(void) {
    static __thread reshape_pcre2_scratch *current;
    if (current != NULL) return current;
    reshape_pcre2_scratch *scratch = calloc(1, sizeof *scratch);
    if (scratch == NULL) return NULL;
    scratch->data = pcre2_match_data_create(1, NULL);
    scratch->context = pcre2_match_context_create(NULL);
    scratch->stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, NULL);
    if (scratch->data == NULL || scratch->context == NULL) { reshape_pcre2_scratch_free(scratch); return NULL; }
    // Without its own stack JIT matching still works, on the small default one.
    if (scratch->stack != NULL) pcre2_jit_stack_assign(scratch->context, NULL, scratch->stack);
    reshape_pcre2_register_scratch(scratch);
    current = scratch;
    return scratch;
}

/// 1 when `code` matches somewhere in the UTF-8 `subject` (which must be valid UTF-8: it is not
/// checked), 0 when it does not, a negative PCRE2 error code when matching failed (match or
/// depth limit, JIT stack exhausted, no memory): then the answer is unknown.
static inline int reshape_pcre2_match(const pcre2_code *code, int jit, const uint8_t *subject, size_t length) {
    reshape_pcre2_scratch *scratch = reshape_pcre2_thread_scratch();
    if (scratch == NULL) return PCRE2_ERROR_NOMEMORY;
    static const uint8_t empty[1] = { 0 };
    if (subject == NULL) subject = empty;
    int rc = jit ? pcre2_jit_match(code, subject, length, 0, 0, scratch->data, scratch->context)
                 : pcre2_match(code, subject, length, 0, PCRE2_NO_UTF_CHECK, scratch->data, scratch->context);
    // 0: a match, with more captures than the match data has room for.
    if (rc >= 0) return 1;
    return rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}

#endif
