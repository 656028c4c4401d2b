import ReshapeJSON

/// One compiled (sub)schema. Nodes form a graph (refs may be cyclic), are built once by
/// `SchemaCompiler` and never mutated afterwards, which is why sharing them is safe.
final class SchemaNode: @unchecked Sendable {
    /// Where this schema is, for violations: a JSON Pointer in the root document, or
    /// `uri#pointer` for schemas loaded from elsewhere.
    let location: String
    /// The schema resource (`$id` scope) the node belongs to, for `$dynamicRef`'s dynamic scope.
    let resource: Int
    /// Set for boolean schemas (`true` / `false`); then `keywords` is empty.
    var constant: Bool?
    /// Checked in order; `unevaluated*` keywords always come last.
    var keywords: [KeywordCheck] = [] {
        didSet {
            unretainedKeywords.deallocate()
            unretainedKeywords = .allocate(capacity: keywords.count)
            _ = unretainedKeywords.initialize(from: keywords.map { Unmanaged.passUnretained($0) })
            let type = keywords.first { $0 is TypeKeyword } as? TypeKeyword
            tapeType = type.map { $0.mask.rawValue | Self.hasType } ?? 0
            tapeKeywords.deallocate()
            var others = keywords.filter { $0 !== type }
            if let properties = others.first(where: { $0 is PropertiesKeyword }) as? PropertiesKeyword,
                let fused = RequiredPropertiesKeyword(
                    properties, others.first { $0 is RequiredKeyword } as? RequiredKeyword,
                    fusesAdditional
                        ? others.first { $0 is AdditionalPropertiesKeyword } as? AdditionalPropertiesKeyword : nil)
            {
                let replaced = fused.fused
                others = others.filter { keyword in !replaced.contains { $0 === keyword } } + [fused]
                tapeOnlyKeywords = [fused]
            }
            tapeKeywords = .allocate(capacity: others.count)
            _ = tapeKeywords.initialize(from: others.map { Unmanaged.passUnretained($0) })
            tapeLeafType = others.isEmpty ? tapeType : 0
        }
    }
    /// The same keywords without reference counting (not even on the buffer), for the
    /// per-instance loop; `keywords` keeps them alive for the node's lifetime.
    private(set) var unretainedKeywords = UnsafeMutableBufferPointer<Unmanaged<KeywordCheck>>.allocate(capacity: 0)
    /// For tape validation: `type`'s mask with `hasType` set (0 without `type`), and the other
    /// keywords. Quiet mode needs only the conjunction of pure checks, so `type` goes first,
    /// inline, without a virtual call: most leaf schemas are just a type.
    private(set) var tapeType: UInt8 = 0
    private(set) var tapeKeywords = UnsafeMutableBufferPointer<Unmanaged<KeywordCheck>>.allocate(capacity: 0)
    /// Keeps alive the keywords only `tapeKeywords` holds (`RequiredPropertiesKeyword`).
    private var tapeOnlyKeywords: [KeywordCheck] = []
    /// `tapeType` when `type` is the only keyword (checked without a call), else 0.
    private(set) var tapeLeafType: UInt8 = 0
    static let hasType: UInt8 = 0x80

    deinit {
        unretainedKeywords.deallocate()
        tapeKeywords.deallocate()
    }
    /// Whether `additionalProperties` joins the fused object keyword on the tape (set before
    /// `keywords`; off only to compare with the separate keywords in tests).
    var fusesAdditional = true
    /// True when the node has `unevaluatedProperties`/`unevaluatedItems`, so its other keywords
    /// must report which properties/items they evaluated.
    var tracksEvaluated = false

    init(location: String, resource: Int) {
        self.location = location
        self.resource = resource
    }
}

/// A numeric bound with an integer fast path: most instances and bounds are small integers,
/// which compare without decoding decimal text.
struct NumberBound {
    let number: JSONNumber
    let integer: Int64?

    init(_ number: JSONNumber) {
        self.number = number
        integer = NumberBound.smallInteger(number.text)
    }

    /// The value of plain integer text of at most 18 digits (no fraction or exponent), else nil.
    @inline(__always)
    static func smallInteger(_ text: String) -> Int64? {
        let result = text.utf8.withContiguousStorageIfAvailable { smallInteger($0) }
        return result ?? nil
    }

    /// `smallInteger` on the number's text as bytes (a tape's).
    @inline(__always)
    static func smallInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            i = 1
        }
        guard bytes.count - i <= 18, i < bytes.count else { return nil }
        var value: Int64 = 0
        while i < bytes.count {
            let digit = bytes[i] &- 0x30
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            i += 1
        }
        return negative ? -value : value
    }

    /// `JSONNumber.isInteger` with a fast path for text without fraction or exponent.
    @inline(__always)
    static func isInteger(_ number: JSONNumber) -> Bool {
        let plain = number.text.utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
        }
        return plain == true || number.isInteger
    }

    /// -1, 0 or 1 as `value` is below, equal to or above the bound.
    @inline(__always)
    func compare(_ value: JSONNumber) -> Int {
        if let integer, let v = NumberBound.smallInteger(value.text) {
            return v < integer ? -1 : (v == integer ? 0 : 1)
        }
        return value < number ? -1 : (value == number ? 0 : 1)
    }
}

/// Bits of JSON Schema's `type` keyword.
struct TypeMask: OptionSet {
    let rawValue: UInt8
    static let null = TypeMask(rawValue: 1)
    static let boolean = TypeMask(rawValue: 2)
    static let integer = TypeMask(rawValue: 4)
    static let number = TypeMask(rawValue: 8)
    static let string = TypeMask(rawValue: 16)
    static let array = TypeMask(rawValue: 32)
    static let object = TypeMask(rawValue: 64)

    static func named(_ name: String) -> TypeMask? {
        switch name {
        case "null": return .null
        case "boolean": return .boolean
        case "integer": return .integer
        case "number": return .number
        case "string": return .string
        case "array": return .array
        case "object": return .object
        default: return nil
        }
    }

    var names: [String] {
        let all: [(TypeMask, String)] = [
            (.null, "null"), (.boolean, "boolean"), (.integer, "integer"),
            (.number, "number"), (.string, "string"), (.array, "array"),
            (.object, "object"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}

/// What one compilation produced beyond the root node: every node (the owner that keeps
/// them alive, since `$ref` edges are unowned so recursive schemas form no reference cycles)
/// and the `$dynamicAnchor`s per resource for `$dynamicRef`'s runtime lookup.
final class DynamicAnchorTable: @unchecked Sendable {
    var nodes: [SchemaNode] = []
    var anchors: [[String: SchemaNode]] = []
    /// False when no `$dynamicRef` was compiled: validation then skips scope tracking.
    var isUsed = false
}
