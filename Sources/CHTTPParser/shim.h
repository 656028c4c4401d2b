#include <http_parser.h>

// HTTP_PARSER_ERRNO is a macro over a bitfield; give Swift a function.
static inline enum http_errno reshape_http_errno(const http_parser *p) { return HTTP_PARSER_ERRNO(p); }
static inline int reshape_http_is_paused(const http_parser *p) { return HTTP_PARSER_ERRNO(p) == HPE_PAUSED; }
