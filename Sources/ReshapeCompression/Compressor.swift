import CCompression

/// Compresses whole answers in one call per coding. Holds the igzip work buffer and the zstd
/// context it reuses across answers, so it is not thread-safe: each worker loop owns one.
public final class Compressor {
    /// ISA-L igzip's level 1: gzip at about twice the speed of libdeflate's fastest level (and
    /// four times zlib's), for a few percent more bytes, so an uncached answer's gzip costs little
    /// beside its transform.
    public static let gzipLevel: Int32 = 1
    /// brotli's quality 0..11: 1 costs what gzip's level 1 costs and still sends fewer bytes;
    /// from 2 up brotli's fuller match search more than doubles the cost for a few percent.
    public static let brotliQuality: Int32 = 1
    /// zstd's level 1..22.
    public static let zstdLevel: Int32 = 1

    private let gzipBuffer: UnsafeMutableBufferPointer<UInt8>
    /// The largest room `fill` keeps between answers.
    static let scratchLimit = 1 << 20
    /// Where every coding writes before its output is copied out at its size (`fill`).
    private var scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 0)
    private let zstdContext: OpaquePointer

    public init() {
        guard let context = ZSTD_createCCtx() else { fatalError("out of memory allocating the compressors") }
        gzipBuffer = .allocate(capacity: Int(reshape_igzip_level1_buffer_size()))
        zstdContext = context
    }

    deinit {
        gzipBuffer.deallocate()
        scratch.deallocate()
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
        // Output no smaller than the input is not kept anyway (`compress`), so room for the
        // input's size is enough: a body that does not fit is one not worth compressing.
        fill(capacity: bytes.count) { output in
            bytes.withUnsafeBufferPointer { input in
                reshape_igzip_level1(
                    input.baseAddress, input.count, output.baseAddress, output.count, gzipBuffer.baseAddress,
                    UInt32(gzipBuffer.count))
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

    /// What `body` writes into room for `capacity` bytes (0: it failed), as an array of just
    /// that size. The room is this compressor's scratch buffer, kept between answers: a fresh
    /// array the size of the bound would be faulted in for every answer, though the compressed
    /// bytes need a fraction of it.
    private func fill(capacity: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> [UInt8]? {
        // A large answer's room is its own, given back at once: kept, it would stay with the worker.
        guard capacity <= Self.scratchLimit else {
            var written = 0
            let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                written = body(buffer)
                count = written
            }
            return written > 0 ? output : nil
        }
        if scratch.count < capacity {
            scratch.deallocate()
            scratch = .allocate(capacity: capacity)
        }
        let written = body(UnsafeMutableBufferPointer(rebasing: scratch[..<capacity]))
        guard written > 0 else { return nil }
        return Array(UnsafeBufferPointer(rebasing: scratch[..<written]))
    }
}
