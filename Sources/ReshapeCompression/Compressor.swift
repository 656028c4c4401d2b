import CCompression

/// Compresses whole answers in one call per coding. Holds the libdeflate and zstd contexts it
/// reuses across answers, so it is not thread-safe: each worker loop owns one.
public final class Compressor {
    /// libdeflate's level 1..12: level 1 keeps gzip's CPU cost small beside the transform's.
    public static let gzipLevel: Int32 = 1
    /// brotli's quality 0..11: 1 costs what gzip's level 1 costs and still sends fewer bytes;
    /// from 2 up brotli's fuller match search more than doubles the cost for a few percent.
    public static let brotliQuality: Int32 = 1
    /// zstd's level 1..22.
    public static let zstdLevel: Int32 = 1

    private let deflater: OpaquePointer
    private let zstdContext: OpaquePointer

    public init() {
        guard let deflater = libdeflate_alloc_compressor(Self.gzipLevel), let context = ZSTD_createCCtx() else {
            fatalError("out of memory allocating the compressors")
        }
        self.deflater = deflater
        zstdContext = context
    }

    deinit {
        libdeflate_free_compressor(deflater)
        ZSTD_freeCCtx(zstdContext)
    }

    /// `bytes` in `coding`; nil for identity, or when the coding could not make it smaller.
    public func compress(_ bytes: [UInt8], as coding: ContentCoding) -> [UInt8]? {
        let compressed: [UInt8]?
        switch coding {
        case .identity: return nil
        case .gzip: compressed = gzip(bytes)
        case .br: compressed = brotli(bytes)
        case .zstd: compressed = zstd(bytes)
        }
        guard let compressed, compressed.count < bytes.count else { return nil }
        return compressed
    }

    private func gzip(_ bytes: [UInt8]) -> [UInt8]? {
        let bound = libdeflate_gzip_compress_bound(deflater, bytes.count)
        return fill(capacity: bound) { output in
            bytes.withUnsafeBytes { input in
                libdeflate_gzip_compress(deflater, input.baseAddress, input.count, output.baseAddress, output.count)
            }
        }
    }

    private func brotli(_ bytes: [UInt8]) -> [UInt8]? {
        let bound = BrotliEncoderMaxCompressedSize(bytes.count)
        guard bound > 0 else { return nil }
        return fill(capacity: bound) { output in
            var size = output.count
            let ok = bytes.withUnsafeBufferPointer { input in
                BrotliEncoderCompress(
                    Self.brotliQuality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, input.count,
                    input.baseAddress, &size, output.baseAddress)
            }
            return ok == BROTLI_TRUE ? size : 0
        }
    }

    private func zstd(_ bytes: [UInt8]) -> [UInt8]? {
        let bound = ZSTD_compressBound(bytes.count)
        return fill(capacity: bound) { output in
            let size = bytes.withUnsafeBytes { input in
                ZSTD_compressCCtx(
                    zstdContext, output.baseAddress, output.count, input.baseAddress, input.count,
                    Self.zstdLevel)
            }
            return ZSTD_isError(size) != 0 ? 0 : size
        }
    }

    /// An array of `capacity` bytes that `body` writes into, cut to the size it returns (0: failed).
    private func fill(capacity: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> [UInt8]? {
        var written = 0
        let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            written = body(buffer)
            count = written
        }
        return written > 0 ? output : nil
    }
}
