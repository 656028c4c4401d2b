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

// The state carried from one block to the next lives in json_index_scanner (the header);
// a path copies it into locals for its loop and back when it returns.
typedef json_index_scanner scan_state;

typedef struct { uint64_t escaped, escape; } escapes;

// Backslashes that start an escape, and the bytes they escape (simdjson's escape scanner:
// a subtraction tells even from odd runs of backslashes, carried across blocks). No early
// return for a block without backslashes: with one, clang turned the AVX2 path's block loop
// into byte-by-byte vector inserts.
static inline __attribute__((always_inline)) escapes find_escapes(scan_state *s, uint64_t backslash) {
    escapes r;
    uint64_t potential = backslash & ~s->next_is_escaped;
    uint64_t code = (((potential << 1) | ODD_BITS) - potential) ^ ODD_BITS;
    r.escaped = code ^ (backslash | s->next_is_escaped);
    r.escape = code & backslash;
    s->next_is_escaped = r.escape >> 63;
    return r;
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

// True when the text before `end` stops inside a multi-byte sequence.
static inline __attribute__((always_inline)) int utf8_unfinished(const uint8_t *bytes, size_t end) {
    return (end >= 1 && bytes[end - 1] >= 0xC0) || (end >= 2 && bytes[end - 2] >= 0xE0)
        || (end >= 3 && bytes[end - 3] >= 0xF0);
}

// Only the non-ASCII bytes of a block are visited (their mask says where); each lead byte is
// checked with its continuation bytes, which may run into the next block.
static void check_utf8(scan_state *s, const uint8_t *bytes, size_t length, size_t start, uint64_t nonascii) {
    if (s->utf8_resume > start) {
        size_t skip = s->utf8_resume - start;
        nonascii = skip >= 64 ? 0 : nonascii & ~((1ULL << skip) - 1);
    }
    while (nonascii) {
        size_t i = start + (size_t)__builtin_ctzll(nonascii);
        size_t n = utf8_sequence(bytes, length, i);
        if (n == 0) { s->utf8_invalid = 1; return; }
        size_t next = i + n - start;
        s->utf8_resume = i + n;
        nonascii = next >= 64 ? 0 : nonascii & ~((1ULL << next) - 1);
    }
}

// The UTF-8 step of the portable and SSE paths: the non-ASCII bytes of a block, one by one.
#define UTF8_SCALAR(block, nonascii)                                                          \
    if (nonascii) check_utf8(&s, bytes, length, offset, nonascii)

// Writes the offsets of the set bits, eight at a time (simdjson's flatten): fewer mispredicted
// branches than one per bit, at the price of writing up to 63 entries past the last.
static inline __attribute__((always_inline)) void flatten(uint32_t *out, uint32_t base, uint64_t bits) {
    if (!bits) return;
    int count = __builtin_popcountll(bits);
#define FLATTEN_ONE(i)                                                                             \
    out[i] = base + (uint32_t)__builtin_ctzll(bits | 0x8000000000000000ULL);                       \
    bits &= bits - 1;
#define FLATTEN_EIGHT(i)                                                                           \
    FLATTEN_ONE(i) FLATTEN_ONE(i + 1) FLATTEN_ONE(i + 2) FLATTEN_ONE(i + 3) FLATTEN_ONE(i + 4)    \
    FLATTEN_ONE(i + 5) FLATTEN_ONE(i + 6) FLATTEN_ONE(i + 7)
    FLATTEN_EIGHT(0)
    if (count > 8) { FLATTEN_EIGHT(8) }
    if (count > 16) {
        for (int i = 16; i < count; i++) { FLATTEN_ONE(i) }
    }
#undef FLATTEN_EIGHT
#undef FLATTEN_ONE
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
#define INDEX_BLOCK(masks, PREFIX_XOR, UTF8)                                                  \
    do {                                                                                      \
        escapes esc = find_escapes(&s, masks.backslash);                                      \
        uint64_t escaped = esc.escaped, escape = esc.escape;                                  \
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
        if (!s.utf8_invalid) UTF8(block, masks.nonascii);                                     \
        flatten(positions + count, (uint32_t)offset, bits);                                   \
        count += (size_t)__builtin_popcountll(bits);                                          \
    } while (0)

// The block loop of one path: from the scanner's offset up to `limit` (a multiple of 64, or
// the end), full blocks straight from the input, the last one padded with spaces.
#define INDEX_LOOP(CLASSIFY, PREFIX_XOR, UTF8)                                                \
    scan_state s = *scanner;                                                                  \
    const uint8_t *bytes = s.bytes;                                                           \
    const size_t length = s.length;                                                           \
    size_t count = 0;                                                                         \
    size_t offset = s.offset;                                                                 \
    size_t stop = limit < length ? limit : length;                                            \
    for (; offset + 64 <= stop; offset += 64) {                                               \
        const size_t valid = 64;                                                              \
        const uint8_t *block = bytes + offset;                                                \
        block_masks masks;                                                                    \
        CLASSIFY(block, &masks);                                                              \
        INDEX_BLOCK(masks, PREFIX_XOR, UTF8);                                                 \
    }                                                                                         \
    if (offset < stop) {                                                                      \
        const size_t valid = stop - offset;                                                   \
        uint8_t tail[64];                                                                     \
        memset(tail, ' ', sizeof tail);                                                       \
        memcpy(tail, bytes + offset, valid);                                                  \
        const uint8_t *block = tail;                                                          \
        block_masks masks;                                                                    \
        CLASSIFY(block, &masks);                                                              \
        INDEX_BLOCK(masks, PREFIX_XOR, UTF8);                                                 \
        offset = stop;                                                                        \
    }                                                                                         \
    s.offset = offset;                                                                        \
    *scanner = s;                                                                             \
    return count;

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

static size_t next_portable(json_index_scanner *scanner, uint32_t *positions, size_t limit) {
    INDEX_LOOP(classify_portable, prefix_xor_portable, UTF8_SCALAR)
}

// MARK: - x86-64

#if defined(__x86_64__)

// POPCNT and BMI named too: without them clang expands the flatten's popcount into vector code.
#define SSE_TARGET __attribute__((target("sse4.2,pclmul,popcnt")))
#define AVX2_TARGET __attribute__((target("avx2,pclmul,popcnt,bmi,bmi2")))

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

static SSE_TARGET size_t next_sse(json_index_scanner *scanner, uint32_t *positions, size_t limit) {
    INDEX_LOOP(classify_sse, prefix_xor_clmul, UTF8_SCALAR)
}

static inline __attribute__((always_inline)) AVX2_TARGET uint64_t mask64(__m256i lo, __m256i hi) {
    uint64_t l = (uint32_t)_mm256_movemask_epi8(lo);
    uint64_t h = (uint32_t)_mm256_movemask_epi8(hi);
    return l | (h << 32);
}
static inline __attribute__((always_inline)) AVX2_TARGET void classify_avx2(const uint8_t *p, block_masks *m) {
    __m256i x0 = _mm256_loadu_si256((const __m256i *)p);
    __m256i x1 = _mm256_loadu_si256((const __m256i *)(p + 32));
#define EQ(x, c) _mm256_cmpeq_epi8(x, _mm256_set1_epi8(c))
#define WS(x) _mm256_or_si256(_mm256_or_si256(EQ(x, ' '), EQ(x, '\t')), _mm256_or_si256(EQ(x, '\n'), EQ(x, '\r')))
#define LOWER(x) _mm256_or_si256(x, _mm256_set1_epi8(0x20))
#define OPS(x) \
    _mm256_or_si256(_mm256_or_si256(EQ(LOWER(x), '{'), EQ(LOWER(x), '}')), _mm256_or_si256(EQ(x, ':'), EQ(x, ',')))
#define CTL(x) _mm256_cmpeq_epi8(_mm256_max_epu8(x, _mm256_set1_epi8(0x1F)), _mm256_set1_epi8(0x1F))
    m->quote = mask64(EQ(x0, '"'), EQ(x1, '"'));
    m->backslash = mask64(EQ(x0, '\\'), EQ(x1, '\\'));
    m->space = mask64(WS(x0), WS(x1));
    m->op = mask64(OPS(x0), OPS(x1));
    m->control = mask64(CTL(x0), CTL(x1));
    m->nonascii = mask64(x0, x1);
#undef EQ
#undef WS
#undef OPS
#undef LOWER
#undef CTL
}

// UTF-8 by table lookups, 32 bytes at a time (Keiser and Lemire, "Validating UTF-8 in less
// than one instruction per byte", as simdjson does it): three 16-entry tables, indexed by the
// high and low nibble of each byte's predecessor and the high nibble of the byte, say which
// errors the pair of bytes may be; a bit left set in all three is one. What a pair cannot
// tell (a third or fourth byte a lead expects, or a continuation too many) is whether the
// byte two or three back is a 3- or 4-byte lead.
#define TOO_SHORT (1 << 0)      // a lead not followed by a continuation
#define TOO_LONG (1 << 1)       // an ASCII byte followed by a continuation
#define OVERLONG_3 (1 << 2)     // E0 followed by 80-9F
#define TOO_LARGE (1 << 3)      // F4 followed by 90-BF, or F5-FF
#define SURROGATE (1 << 4)      // ED followed by A0-BF
#define OVERLONG_2 (1 << 5)     // C0 or C1
#define TOO_LARGE_1000 (1 << 6) // F5-FF followed by 80-8F
#define OVERLONG_4 (1 << 6)     // F0 followed by 80-8F
#define TWO_CONTS (1 << 7)      // two continuations in a row
#define CARRY (TOO_SHORT | TOO_LONG | TWO_CONTS)

static const uint8_t utf8_byte1_high[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
};
static const uint8_t utf8_byte1_low[16] = {
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
};
static const uint8_t utf8_byte2_high[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};

static inline __attribute__((always_inline)) AVX2_TARGET __m256i utf8_table(const uint8_t *table) {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table));
}

// The bytes of `input` moved N later, the last N of `previous` in front (simdjson's prev<N>).
#define UTF8_PREVIOUS(input, previous, N) \
    _mm256_alignr_epi8(input, _mm256_permute2x128_si256(previous, input, 0x21), 16 - (N))

// Nonzero where the 32 bytes of `input`, after the 32 of `previous`, are not UTF-8.
static inline __attribute__((always_inline)) AVX2_TARGET __m256i utf8_errors(__m256i input, __m256i previous) {
    const __m256i low_nibble = _mm256_set1_epi8(0x0F);
    __m256i prev1 = UTF8_PREVIOUS(input, previous, 1);
    __m256i byte1_high = _mm256_shuffle_epi8(
        utf8_table(utf8_byte1_high), _mm256_and_si256(_mm256_srli_epi16(prev1, 4), low_nibble));
    __m256i byte1_low = _mm256_shuffle_epi8(utf8_table(utf8_byte1_low), _mm256_and_si256(prev1, low_nibble));
    __m256i byte2_high = _mm256_shuffle_epi8(
        utf8_table(utf8_byte2_high), _mm256_and_si256(_mm256_srli_epi16(input, 4), low_nibble));
    __m256i special = _mm256_and_si256(_mm256_and_si256(byte1_high, byte1_low), byte2_high);
    // 0x80 where the byte two back is a 3- or 4-byte lead or the byte three back a 4-byte
    // lead: exactly where a continuation after a continuation (TWO_CONTS) is right.
    __m256i third = _mm256_subs_epu8(UTF8_PREVIOUS(input, previous, 2), _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(UTF8_PREVIOUS(input, previous, 3), _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i expected = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    return _mm256_xor_si256(expected, special);
}

// The block's 64 bytes at `block` (the input, or its padded copy for the last block), checked
// with the 32 bytes before them in the input; an ASCII block only when the one before it
// stopped inside a sequence.
static inline __attribute__((always_inline)) AVX2_TARGET void check_utf8_avx2(
    scan_state *s, const uint8_t *block, const uint8_t *bytes, size_t offset, uint64_t nonascii) {
    if (!nonascii && !(offset > 0 && utf8_unfinished(bytes, offset))) return;
    __m256i previous =
        offset >= 32 ? _mm256_loadu_si256((const __m256i *)(bytes + offset - 32)) : _mm256_setzero_si256();
    __m256i x0 = _mm256_loadu_si256((const __m256i *)block);
    __m256i x1 = _mm256_loadu_si256((const __m256i *)(block + 32));
    __m256i errors = _mm256_or_si256(utf8_errors(x0, previous), utf8_errors(x1, x0));
    if (!_mm256_testz_si256(errors, errors)) s->utf8_invalid = 1;
}

#define UTF8_AVX2(block, nonascii) check_utf8_avx2(&s, block, bytes, offset, nonascii)

static AVX2_TARGET size_t next_avx2(json_index_scanner *scanner, uint32_t *positions, size_t limit) {
    INDEX_LOOP(classify_avx2, prefix_xor_clmul, UTF8_AVX2)
}

#endif

json_index_path json_index_resolve(json_index_path path) {
#if defined(__x86_64__)
    if (path == JSON_INDEX_PATH_PORTABLE) return path;
    __builtin_cpu_init();
    int sse = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("sse4.2");
    if ((path == JSON_INDEX_PATH_AUTO || path == JSON_INDEX_PATH_AVX2) && sse && __builtin_cpu_supports("avx2")
        && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2"))
        return JSON_INDEX_PATH_AVX2;
    if (sse) return JSON_INDEX_PATH_SSE42;
#endif
    (void)path;
    return JSON_INDEX_PATH_PORTABLE;
}

void json_index_begin(json_index_scanner *scanner, const uint8_t *bytes, size_t length, json_index_path path) {
    memset(scanner, 0, sizeof *scanner);
    scanner->bytes = bytes;
    scanner->length = length;
    scanner->path = json_index_resolve(path);
}

size_t json_index_next(json_index_scanner *scanner, uint32_t *positions, size_t max_bytes) {
    size_t limit = scanner->offset + (max_bytes & ~(size_t)63);
    switch (scanner->path) {
#if defined(__x86_64__)
    case JSON_INDEX_PATH_AVX2: return next_avx2(scanner, positions, limit);
    case JSON_INDEX_PATH_SSE42: return next_sse(scanner, positions, limit);
#endif
    default: return next_portable(scanner, positions, limit);
    }
}

uint32_t json_index_flags(const json_index_scanner *scanner) {
    // Once the whole text is read, a sequence it stops inside is invalid. The vector check sees
    // such a sequence only from the block after it: a padded last block's spaces are one, but
    // a text whose length is a multiple of 64 has none (the scalar check reads past blocks).
    int done = scanner->offset >= scanner->length;
    int invalid = scanner->utf8_invalid || (done && utf8_unfinished(scanner->bytes, scanner->length));
    return (invalid ? JSON_INDEX_INVALID_UTF8 : 0)
        | (scanner->control_in_string ? JSON_INDEX_CONTROL_IN_STRING : 0)
        | (done && scanner->in_string ? JSON_INDEX_UNTERMINATED_STRING : 0);
}

size_t json_index_build(
    const uint8_t *bytes, size_t length, uint32_t *positions, uint32_t *flags, json_index_path path) {
    json_index_scanner scanner;
    json_index_begin(&scanner, bytes, length, path);
    size_t count = json_index_next(&scanner, positions, length + 64);
    *flags = json_index_flags(&scanner);
    return count;
}
