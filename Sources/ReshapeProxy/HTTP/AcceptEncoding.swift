import ReshapeCompression

/// Chooses an answer's content coding from the client's `Accept-Encoding` (RFC 9110 §12.5.3):
/// the supported coding with the highest q-value wins, equal q-values go by the server's
/// preference, a coding with `q=0` is never used, and identity is the answer when nothing else
/// is acceptable. Identity never wins a tie with a compressing coding, and an unlisted identity
/// ranks below every listed coding: a client that names a coding wants it.
public enum AcceptEncoding {
    /// The coding for a client that sent `header` (all its `Accept-Encoding` lines joined by ",";
    /// nil when it sent none, which gets identity: no client is assumed to decode anything).
    public static func choose(_ header: String?, supported: [ContentCoding] = ContentCoding.serverPreference)
        -> ContentCoding
    {
        guard let header else { return .identity }
        let weights = parse(header)
        var best = ContentCoding.identity
        var bestWeight = weights.identity ?? 0
        for coding in supported where coding != .identity {
            let weight = weights.explicit[coding] ?? weights.wildcard ?? 0
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
        var explicit: [ContentCoding: Int] = [:]
        var identity: Int?
        var wildcard: Int?
    }

    static func parse(_ header: String) -> Weights {
        var weights = Weights()
        for element in header.split(separator: ",") {
            var parameters = element.split(separator: ";").map { trim($0) }
            guard !parameters.isEmpty else { continue }
            let name = parameters.removeFirst().lowercased()
            guard !name.isEmpty else { continue }
            var weight = 1000
            var malformed = false
            for parameter in parameters {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { trim($0) }
                guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
                if let q = qvalue(pair[1]) { weight = q } else { malformed = true }
            }
            // An element whose weight cannot be read is ignored rather than guessed at.
            if malformed { continue }
            switch name {
            case "*": weights.wildcard = weight
            case "identity": weights.identity = weight
            case "x-gzip": weights.explicit[.gzip] = weight  // §8.4.1.3: the same as gzip
            default:
                if let coding = ContentCoding(rawValue: name), coding != .identity { weights.explicit[coding] = weight }
            }
        }
        return weights
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
    static func qvalue(_ text: Substring) -> Int? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var value = Int(first - UInt8(ascii: "0")) * 1000
        guard bytes.count > 1 else { return value }
        guard bytes[1] == UInt8(ascii: "."), bytes.count <= 5 else { return nil }
        var scale = 100
        for digit in bytes[2...] {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }

    private static func trim(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
