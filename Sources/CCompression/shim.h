#ifndef RESHAPE_CCOMPRESSION_SHIM_H
#define RESHAPE_CCOMPRESSION_SHIM_H

// Whole-buffer compressors for answers that are already in one buffer: ISA-L's igzip (gzip),
// brotli's encoder and zstd, all from Debian. Only ReshapeCompression imports this module.
#include <isa-l/igzip_lib.h>
#include <brotli/encode.h>
#include <zstd.h>

/// The size of the work buffer igzip's level 1 wants, allocated once per compressor.
static inline uint32_t reshape_igzip_level1_buffer_size(void) { return ISAL_DEF_LVL1_DEFAULT; }

/// `input` as one gzip member (RFC 1952) at igzip's level 1, into `output`: its length, or 0 when
/// it did not fit in `capacity`. The stream's fields are set here rather than from Swift, which
/// sees the struct only as a bag of imported fields.
static inline size_t reshape_igzip_level1(const uint8_t *input, size_t length, uint8_t *output, size_t capacity,
                                          uint8_t *level_buffer, uint32_t level_buffer_size) {
    if (length > UINT32_MAX || capacity > UINT32_MAX) return 0;
    struct isal_zstream stream;
    isal_deflate_stateless_init(&stream);
    stream.level = 1;
    stream.level_buf = level_buffer;
    stream.level_buf_size = level_buffer_size;
    stream.gzip_flag = IGZIP_GZIP;
    stream.next_in = (uint8_t *)input;
    stream.avail_in = (uint32_t)length;
    stream.next_out = output;
    stream.avail_out = (uint32_t)capacity;
    stream.end_of_stream = 1;
    stream.flush = NO_FLUSH;
    return isal_deflate_stateless(&stream) == COMP_OK ? stream.total_out : 0;
}

#endif
