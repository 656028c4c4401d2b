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

/// Writes to `positions`, in increasing order, the offset of every structural character
/// outside strings (`{` `}` `[` `]` `:` `,`), every unescaped quote (opening and closing),
/// every backslash that starts an escape inside a string, and the first byte of every run of
/// other non-whitespace bytes outside strings (numbers, literals, anything else). Bytes
/// between two positions that are none of these are whitespace, except after such a run.
/// `positions` must have room for `length` entries. Returns the number written; `*flags`
/// gets the JSON_INDEX_ flags. `length` must be below 2^32.
size_t json_index_build(
    const uint8_t *bytes, size_t length, uint32_t *positions, uint32_t *flags, json_index_path path);

/// The path `JSON_INDEX_PATH_AUTO` (or a forced path) resolves to on this CPU.
json_index_path json_index_resolve(json_index_path path);

#ifdef __cplusplus
}
#endif

#endif
