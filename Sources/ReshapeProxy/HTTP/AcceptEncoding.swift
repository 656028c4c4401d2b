import ReshapeCompression

/// Chooses an answer's content coding from the client's `Accept-Encoding` (RFC 9110 §12.5.3):
/// the supported coding with the highest q-value wins, equal q-values go by the server's
/// preference, a coding with `q=0` is never used, and identity is the answer when nothing else
/// is acceptable. Identity never wins a tie with a compressing coding, and an unlisted identity
/// ranks below every listed coding: a client that names a coding wants it.
package enum AcceptEncoding {
    /// The coding for a client that sent `header` (all its `Accept-Encoding` lines joined by ",";
    /// nil when it sent none, which gets identity: no client is assumed to decode anything).
    package static func choose(_ header: String?, supported: [ContentCoding] = ContentCoding.serverPreference)
        -> ContentCoding
    {
        guard let header else { return .identity }
        let weights = parse(header)
        var best = ContentCoding.identity
        var bestWeight = weights.identity ?? 0
        for coding in supported where coding != .identity {
            let weight = weights[coding] ?? weights.wildcard ?? 0
            // Strictly greater: an earlier (preferred) coding keeps a tie; identity loses it.
            if weight > 0, weight > bestWeight || (best == .identity && weight == bestWeight) {
                best = coding
                bestWeight = weight
            }
        }
        return best
    }

    /// q-values in thousandths, so that "0.5" and "0.500" compare equal without floating point.
    struct Weights {
        var gzip: Int?
        var br: Int?
        var zstd: Int?
        var identity: Int?
        var wildcard: Int?

        subscript(coding: ContentCoding) -> Int? {
            switch coding {
            case .gzip: gzip
            case .br: br
            case .zstd: zstd
            case .identity: identity
            }
        }
    }

    /// Read byte by byte, without allocating: it runs for every request that sends the header.
    static func parse(_ header: String) -> Weights {
        var weights = Weights()
        var header = header
        header.withUTF8 { bytes in
            for element in parts(bytes[...], separatedBy: ",") { self.element(element, into: &weights) }
        }
        return weights
    }

    /// One `coding;q=value` element.
    private static func element(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, into weights: inout Weights) {
        var name: Slice<UnsafeBufferPointer<UInt8>>?
        var weight = 1000
        for part in parts(bytes, separatedBy: ";") {
            guard name != nil else {
                name = trim(part)
                continue
            }
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = trim(part[..<equals])
            guard key.count == 1, key.first! | 0x20 == UInt8(ascii: "q") else { continue }
            // An element whose weight cannot be read is ignored rather than guessed at.
            guard let q = qvalue(bytes: trim(part[(equals + 1)...])) else { return }
            weight = q
        }
        guard let name, !name.isEmpty else { return }
        if equalsIgnoringCase(name, "*") {
            weights.wildcard = weight
        } else if equalsIgnoringCase(name, "identity") {
            weights.identity = weight
        } else if equalsIgnoringCase(name, "gzip") || equalsIgnoringCase(name, "x-gzip") {
            weights.gzip = weight  // §8.4.1.3: x-gzip is gzip
        } else if equalsIgnoringCase(name, "br") {
            weights.br = weight
        } else if equalsIgnoringCase(name, "zstd") {
            weights.zstd = weight
        }
    }

    /// The pieces of `bytes` between `separator`s, empty ones included, as a lazy sequence.
    private static func parts(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, separatedBy separator: Unicode.Scalar)
        -> UnfoldSequence<Slice<UnsafeBufferPointer<UInt8>>, Int>
    {
        let mark = UInt8(ascii: separator)
        return sequence(state: bytes.startIndex) { start in
            guard start <= bytes.endIndex else { return nil }
            var end = start
            while end < bytes.endIndex && bytes[end] != mark { end += 1 }
            defer { start = end + 1 }
            return bytes[start..<end]
        }
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
    static func qvalue(_ text: Substring) -> Int? {
        var text = String(text)
        return text.withUTF8 { qvalue(bytes: $0[...]) }
    }

    static func qvalue(bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var value = Int(first - UInt8(ascii: "0")) * 1000
        guard bytes.count > 1 else { return value }
        let dot = bytes.index(after: bytes.startIndex)
        guard bytes[dot] == UInt8(ascii: "."), bytes.count <= 5 else { return nil }
        var scale = 100
        for digit in bytes[bytes.index(after: dot)...] {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }

    private static func trim(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var bytes = bytes
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            bytes = bytes.dropFirst()
        }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            bytes = bytes.dropLast()
        }
        return bytes
    }

    /// ASCII case-insensitive; `lowercase` is written in lower case.
    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: StaticString)
        -> Bool
    {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        var other = lowercase.utf8Start
        for byte in bytes {
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if folded != other.pointee { return false }
            other += 1
        }
        return true
    }
}
