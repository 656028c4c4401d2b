/// A JSON Pointer (RFC 6901): `/users/0/name`; `~1` stands for `/` and `~0` for `~` in a token.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// Unescaped reference tokens; empty for the whole document.
    public var tokens: [String]

    public init(tokens: [String] = []) { self.tokens = tokens }

    /// Parses pointer text; nil unless it is empty or starts with `/` and every `~` is `~0` or `~1`.
    public init?(_ text: String) {
        if text.isEmpty {
            tokens = []
            return
        }
        guard text.utf8.first == UInt8(ascii: "/") else { return nil }
        var tokens: [String] = []
        for raw in text.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard let token = JSONPointer.unescape(Array(raw)) else { return nil }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    /// The pointer as text, each token escaped (`~` as `~0`, `/` as `~1`).
    public var description: String {
        var text = ""
        for token in tokens {
            text += "/"
            text += JSONPointer.escape(token)
        }
        return text
    }

    /// This pointer with one more (unescaped) token.
    public func appending(_ token: String) -> JSONPointer {
        var copy = self
        copy.tokens.append(token)
        return copy
    }

    /// This pointer extended by an object member name.
    public func appending(key: String) -> JSONPointer { appending(key) }

    /// This pointer extended by an array index.
    public func appending(index: Int) -> JSONPointer { appending(String(index)) }

    /// `~` → `~0`, `/` → `~1`.
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        var escaped = ""
        for character in token.unicodeScalars {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// Appends one member name to pointer text without building a `JSONPointer` (error paths).
    public static func appending(key: String, to pointer: String) -> String {
        pointer + "/" + escape(key)
    }

    /// Appends one array index to pointer text.
    public static func appending(index: Int, to pointer: String) -> String {
        pointer + "/" + String(index)
    }

    private static func unescape(_ raw: [UInt8]) -> String? {
        guard raw.contains(UInt8(ascii: "~")) else { return String(decoding: raw, as: UTF8.self) }
        var bytes: [UInt8] = []
        var i = 0
        while i < raw.count {
            if raw[i] == UInt8(ascii: "~") {
                guard i + 1 < raw.count else { return nil }
                switch raw[i + 1] {
                case UInt8(ascii: "0"): bytes.append(UInt8(ascii: "~"))
                case UInt8(ascii: "1"): bytes.append(UInt8(ascii: "/"))
                default: return nil
                }
                i += 2
            } else {
                bytes.append(raw[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension JSON {
    /// The value a pointer refers to, or nil when it does not exist. Array tokens must be
    /// canonical indices (`0`, `12`; not `01`, `-`, or `+1`).
    public subscript(pointer: JSONPointer) -> JSON? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let object):
                guard let next = object[token] else { return nil }
                current = next
            case .array(let elements):
                guard let index = JSON.arrayIndex(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// Parses an RFC 6901 array index: digits, no leading zeros.
    public static func arrayIndex(_ token: String) -> Int? {
        let utf8 = token.utf8
        guard let first = utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        if first == UInt8(ascii: "0") && utf8.count > 1 { return nil }
        guard utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(token)
    }
}

extension JSONTape {
    /// The node a pointer refers to, starting at `node` (`root` for the whole document), or nil
    /// when it does not exist: the walk of `JSON[pointer]`, on the tape, with the same rules.
    public func node(at pointer: JSONPointer, from node: Int) -> Int? {
        var current = node
        for token in pointer.tokens {
            switch kind(current) {
            case .object:
                var name = token
                guard let found = name.withUTF8({ member(current, named: $0) }) else { return nil }
                current = found
            case .array:
                guard let index = JSON.arrayIndex(token), index < count(current) else { return nil }
                var element = current + 1
                for _ in 0..<index { element = next(element) }
                current = element
            default:
                return nil
            }
        }
        return current
    }
}
