// Stage 1 of the JSON parser (see include/json_index.h and docs/benchmarks.md): bitmasks of
// one 64-byte block at a time, then the positions of their set bits. Only the classification
// of bytes into masks and the prefix xor differ between paths; the bit logic is shared, so
// every path writes the same output.

#include "json_index.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define ODD_BITS 0xAAAAAAAAAAAAAAAAULL

typedef struct {
    uint64_t quote, backslash, space, op, control, nonascii;
} block_masks;

typedef struct {
    uint64_t next_is_escaped;  // 1 when the last block ended in an escaping backslash
    uint64_t in_string;        // all ones when the last block ended inside a string
    uint64_t prev_scalar;      // 1 when the last block ended in a scalar's byte
    uint64_t control_in_string;
    size_t utf8_resume;        // first byte the UTF-8 check has not passed yet
    int utf8_invalid;
    size_t count;
} scan_state;

// Backslashes that start an escape, and the bytes they escape (simdjson's escape scanner:
// a subtraction tells even from odd runs of backslashes, carried across blocks).
static inline __attribute__((always_inline)) uint64_t find_escapes(scan_state *s, uint64_t backslash, uint64_t *escaped) {
    if (!backslash) {
        *escaped = s->next_is_escaped;
        s->next_is_escaped = 0;
        return 0;
    }
    uint64_t potential = backslash & ~s->next_is_escaped;
    uint64_t code = (((potential << 1) | ODD_BITS) - potential) ^ ODD_BITS;
    *escaped = code ^ (backslash | s->next_is_escaped);
    uint64_t escape = code & backslash;
    s->next_is_escaped = escape >> 63;
    return escape;
}

// Length of the valid UTF-8 sequence at `i` (RFC 3629: no overlongs, surrogates or values
// above U+10FFFF), or 0.
static size_t utf8_sequence(const uint8_t *bytes, size_t length, size_t i) {
    uint8_t lead = bytes[i];
    size_t n;
    uint8_t low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) n = 2;
    else if (lead == 0xE0) { n = 3; low = 0xA0; }
    else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) n = 3;
    else if (lead == 0xED) { n = 3; high = 0x9F; }
    else if (lead == 0xF0) { n = 4; low = 0x90; }
    else if (lead >= 0xF1 && lead <= 0xF3) n = 4;
    else if (lead == 0xF4) { n = 4; high = 0x8F; }
    else return 0;
    if (i + n > length) return 0;
    if (bytes[i + 1] < low || bytes[i + 1] > high) return 0;
    for (size_t k = 2; k < n; k++)
        if ((bytes[i + k] & 0xC0) != 0x80) return 0;
    return n;
}

// A block with non-ASCII bytes is checked byte by byte; a sequence may run into the next block.
static void check_utf8(scan_state *s, const uint8_t *bytes, size_t length, size_t start, size_t end) {
    size_t i = s->utf8_resume > start ? s->utf8_resume : start;
    while (i < end) {
        if (bytes[i] < 0x80) { i++; continue; }
        size_t n = utf8_sequence(bytes, length, i);
        if (n == 0) { s->utf8_invalid = 1; return; }
        i += n;
    }
    s->utf8_resume = i;
}

static inline __attribute__((always_inline)) uint64_t prefix_xor_portable(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

// The shared bit logic of one block whose first byte is at `offset` and whose first `valid`
// bytes are input (the rest is space padding).
#define INDEX_BLOCK(masks, PREFIX_XOR)                                                        \
    do {                                                                                      \
        uint64_t escaped;                                                                     \
        uint64_t escape = find_escapes(&s, masks.backslash, &escaped);                        \
        uint64_t quote = masks.quote & ~escaped;                                              \
        uint64_t in_string = PREFIX_XOR(quote) ^ s.in_string;                                 \
        s.in_string = (uint64_t)((int64_t)in_string >> 63);                                   \
        uint64_t outside = ~(in_string | quote);                                              \
        uint64_t scalar = outside & ~(masks.space | masks.op);                                \
        uint64_t starts = scalar & ~((scalar << 1) | s.prev_scalar);                          \
        s.prev_scalar = scalar >> 63;                                                         \
        s.control_in_string |= masks.control & in_string;                                     \
        uint64_t bits = (masks.op & outside) | quote | starts | (escape & in_string);         \
        if (valid < 64) bits &= (1ULL << valid) - 1;                                          \
        if (masks.nonascii && !s.utf8_invalid) check_utf8(&s, bytes, length, offset, offset + valid); \
        uint32_t base = (uint32_t)offset;                                                     \
        while (bits) {                                                                        \
            positions[s.count++] = base + (uint32_t)__builtin_ctzll(bits);                    \
            bits &= bits - 1;                                                                 \
        }                                                                                     \
    } while (0)

// The block loop of one path: full blocks straight from the input, the last one padded.
#define INDEX_LOOP(CLASSIFY, PREFIX_XOR)                                                      \
    scan_state s;                                                                             \
    memset(&s, 0, sizeof s);                                                                  \
    size_t offset = 0;                                                                        \
    for (; offset + 64 <= length; offset += 64) {                                             \
        const size_t valid = 64;                                                              \
        block_masks masks;                                                                    \
        CLASSIFY(bytes + offset, &masks);                                                     \
        INDEX_BLOCK(masks, PREFIX_XOR);                                                       \
    }                                                                                         \
    if (offset < length) {                                                                    \
        const size_t valid = length - offset;                                                 \
        uint8_t tail[64];                                                                     \
        memset(tail, ' ', sizeof tail);                                                       \
        memcpy(tail, bytes + offset, valid);                                                  \
        block_masks masks;                                                                    \
        CLASSIFY(tail, &masks);                                                               \
        INDEX_BLOCK(masks, PREFIX_XOR);                                                       \
    }                                                                                         \
    *flags = (s.utf8_invalid ? JSON_INDEX_INVALID_UTF8 : 0)                                   \
        | (s.control_in_string ? JSON_INDEX_CONTROL_IN_STRING : 0)                           \
        | (s.in_string ? JSON_INDEX_UNTERMINATED_STRING : 0);                                 \
    return s.count;

// MARK: - Portable

static inline __attribute__((always_inline)) void classify_portable(const uint8_t *p, block_masks *m) {
    uint64_t quote = 0, backslash = 0, space = 0, op = 0, control = 0, nonascii = 0;
    for (int i = 0; i < 64; i++) {
        uint8_t c = p[i];
        uint64_t bit = 1ULL << i;
        if (c == '"') quote |= bit;
        else if (c == '\\') backslash |= bit;
        else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') space |= bit;
        else if (c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',') op |= bit;
        if (c < 0x20) control |= bit;
        if (c >= 0x80) nonascii |= bit;
    }
    m->quote = quote;
    m->backslash = backslash;
    m->space = space;
    m->op = op;
    m->control = control;
    m->nonascii = nonascii;
}

static size_t build_portable(const uint8_t *bytes, size_t length, uint32_t *positions, uint32_t *flags) {
    INDEX_LOOP(classify_portable, prefix_xor_portable)
}

// MARK: - x86-64

#if defined(__x86_64__)

#define SSE_TARGET __attribute__((target("sse4.2,pclmul")))
#define AVX2_TARGET __attribute__((target("avx2,pclmul")))

static inline __attribute__((always_inline)) SSE_TARGET uint64_t prefix_xor_clmul(uint64_t x) {
    __m128i product = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(product);
}

static inline __attribute__((always_inline)) SSE_TARGET void classify_sse(const uint8_t *p, block_masks *m) {
    uint64_t quote = 0, backslash = 0, space = 0, op = 0, control = 0, nonascii = 0;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
        __m128i ws = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\t'))),
            _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\r'))));
        __m128i ops = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(lower, _mm_set1_epi8('{')), _mm_cmpeq_epi8(lower, _mm_set1_epi8('}'))),
            _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(':')), _mm_cmpeq_epi8(x, _mm_set1_epi8(','))));
        __m128i ctl = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F));
        int shift = 16 * k;
        quote |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('"'))) << shift;
        backslash |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))) << shift;
        space |= (uint64_t)(uint16_t)_mm_movemask_epi8(ws) << shift;
        op |= (uint64_t)(uint16_t)_mm_movemask_epi8(ops) << shift;
        control |= (uint64_t)(uint16_t)_mm_movemask_epi8(ctl) << shift;
        nonascii |= (uint64_t)(uint16_t)_mm_movemask_epi8(x) << shift;
    }
    m->quote = quote;
    m->backslash = backslash;
    m->space = space;
    m->op = op;
    m->control = control;
    m->nonascii = nonascii;
}

static SSE_TARGET size_t build_sse(const uint8_t *bytes, size_t length, uint32_t *positions, uint32_t *flags) {
    INDEX_LOOP(classify_sse, prefix_xor_clmul)
}

static inline __attribute__((always_inline)) AVX2_TARGET void classify_avx2(const uint8_t *p, block_masks *m) {
    uint64_t quote = 0, backslash = 0, space = 0, op = 0, control = 0, nonascii = 0;
    for (int k = 0; k < 2; k++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(p + 32 * k));
        __m256i lower = _mm256_or_si256(x, _mm256_set1_epi8(0x20));
        __m256i ws = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(' ')), _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\t'))),
            _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('\n')), _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\r'))));
        __m256i ops = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_cmpeq_epi8(lower, _mm256_set1_epi8('{')), _mm256_cmpeq_epi8(lower, _mm256_set1_epi8('}'))),
            _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(':')), _mm256_cmpeq_epi8(x, _mm256_set1_epi8(','))));
        __m256i ctl = _mm256_cmpeq_epi8(_mm256_max_epu8(x, _mm256_set1_epi8(0x1F)), _mm256_set1_epi8(0x1F));
        int shift = 32 * k;
        quote |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('"'))) << shift;
        backslash |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('\\'))) << shift;
        space |= (uint64_t)(uint32_t)_mm256_movemask_epi8(ws) << shift;
        op |= (uint64_t)(uint32_t)_mm256_movemask_epi8(ops) << shift;
        control |= (uint64_t)(uint32_t)_mm256_movemask_epi8(ctl) << shift;
        nonascii |= (uint64_t)(uint32_t)_mm256_movemask_epi8(x) << shift;
    }
    m->quote = quote;
    m->backslash = backslash;
    m->space = space;
    m->op = op;
    m->control = control;
    m->nonascii = nonascii;
}

static AVX2_TARGET size_t build_avx2(const uint8_t *bytes, size_t length, uint32_t *positions, uint32_t *flags) {
    INDEX_LOOP(classify_avx2, prefix_xor_clmul)
}

#endif

json_index_path json_index_resolve(json_index_path path) {
#if defined(__x86_64__)
    if (path == JSON_INDEX_PATH_PORTABLE) return path;
    __builtin_cpu_init();
    int pclmul = __builtin_cpu_supports("pclmul");
    if ((path == JSON_INDEX_PATH_AUTO || path == JSON_INDEX_PATH_AVX2) && pclmul && __builtin_cpu_supports("avx2"))
        return JSON_INDEX_PATH_AVX2;
    if (pclmul && __builtin_cpu_supports("sse4.2")) return JSON_INDEX_PATH_SSE42;
#endif
    (void)path;
    return JSON_INDEX_PATH_PORTABLE;
}

size_t json_index_build(
    const uint8_t *bytes, size_t length, uint32_t *positions, uint32_t *flags, json_index_path path) {
    switch (json_index_resolve(path)) {
#if defined(__x86_64__)
    case JSON_INDEX_PATH_AVX2: return build_avx2(bytes, length, positions, flags);
    case JSON_INDEX_PATH_SSE42: return build_sse(bytes, length, positions, flags);
#endif
    default: return build_portable(bytes, length, positions, flags);
    }
}
