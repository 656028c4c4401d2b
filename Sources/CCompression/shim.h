#ifndef RESHAPE_CCOMPRESSION_SHIM_H
#define RESHAPE_CCOMPRESSION_SHIM_H

// Whole-buffer compressors for answers that are already in one buffer: libdeflate (gzip),
// brotli's encoder and zstd, all from Debian. Only ReshapeCompression imports this module.
#include <libdeflate.h>
#include <brotli/encode.h>
#include <zstd.h>

#endif
