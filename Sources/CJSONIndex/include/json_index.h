// Stage 1 of ReshapeJSON's parser: a structural index of a JSON text, after Langdale and
// Lemire, "Parsing Gigabytes of JSON per Second" (simdjson). See docs/benchmarks.md.
#ifndef RESHAPE_JSON_INDEX_H
#define RESHAPE_JSON_INDEX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Which code classifies the bytes. Every path writes the same positions and flags.
typedef enum {
    JSON_INDEX_PATH_AUTO = 0,      ///< the best one this CPU supports
    JSON_INDEX_PATH_PORTABLE = 1,  ///< plain C with 64-bit words, on every architecture
    JSON_INDEX_PATH_SSE42 = 2,     ///< x86-64 with SSE4.2 and PCLMULQDQ (else portable)
    JSON_INDEX_PATH_AVX2 = 3,      ///< x86-64 with AVX2 and PCLMULQDQ (else SSE4.2 or portable)
} json_index_path;

/// Flags of `json_index_build`: any of them means the text is not valid JSON.
enum {
    JSON_INDEX_INVALID_UTF8 = 1,        ///< the text is not valid UTF-8 (RFC 3629)
    JSON_INDEX_CONTROL_IN_STRING = 2,   ///< an unescaped byte below 0x20 inside a string
    JSON_INDEX_UNTERMINATED_STRING = 4, ///< the text ends inside a string
};

/// Stage 1 over a text a window at a time: what one call carries to the next. The fields
/// are json_index.c's; callers only allocate it.
typedef struct {
    const uint8_t *bytes;
    size_t length;
    size_t offset;             // where the next window starts (a multiple of 64, or length)
    uint64_t next_is_escaped;  // 1 when the last block ended in an escaping backslash
    uint64_t in_string;        // all ones when the last block ended inside a string
    uint64_t prev_scalar;      // 1 when the last block ended in a scalar's byte
    uint64_t control_in_string;
    size_t utf8_resume;        // first byte the UTF-8 check has not passed yet
    int utf8_invalid;
    json_index_path path;
} json_index_scanner;

/// Starts indexing `bytes` (`length` below 2^32).
void json_index_begin(json_index_scanner *scanner, const uint8_t *bytes, size_t length, json_index_path path);

/// Indexes the next window of at most `max_bytes` (rounded down to a multiple of 64, at least
/// 64) and writes to `positions`, in increasing order, the offset of every structural
/// character outside strings (`{` `}` `[` `]` `:` `,`), every unescaped quote (opening and
/// closing), every backslash that starts an escape inside a string, and the first byte of
/// every run of other non-whitespace bytes outside strings (numbers, literals, anything else).
/// Bytes between two positions that are none of these are whitespace, except after such a
/// run. `positions` must have room for `max_bytes + 64` entries (entries past the count
/// returned are scratch). Returns the number written; the text is done when
/// `scanner->offset == length`.
size_t json_index_next(json_index_scanner *scanner, uint32_t *positions, size_t max_bytes);

/// JSON_INDEX_ flags of what has been indexed so far (unterminated only once done). A path
/// may judge a window's last three bytes only with the next window; once done, the flags
/// cover the whole text, and they read its last bytes: the text must still be alive.
uint32_t json_index_flags(const json_index_scanner *scanner);

/// The whole text at once: `positions` must have room for `length + 64` entries.
size_t json_index_build(
    const uint8_t *bytes, size_t length, uint32_t *positions, uint32_t *flags, json_index_path path);

/// The path `JSON_INDEX_PATH_AUTO` (or a forced path) resolves to on this CPU.
json_index_path json_index_resolve(json_index_path path);

#ifdef __cplusplus
}
#endif

#endif
