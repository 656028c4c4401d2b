import ReshapeJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `sort: { by: field, order: asc }` — stable sort of an array. `by` is a field name, or a
/// JSON Pointer (starting with `/`) into each element; omitted, the elements themselves are
/// compared. Values of different types order as Firebase orders them: missing and `null` <
/// `false` < `true` < numbers (exact numeric comparison) < strings (by UTF-8 bytes, i.e.
/// code points) < objects < arrays. Objects and arrays tie among themselves. Ties keep the
/// previous order, also with `order: desc`.
package struct SortOperation: TransformOperation {
    package enum Order: String, Sendable, CaseIterable { case asc, desc }

    /// Path to the sort key inside each element; empty for the element itself.
    package let by: JSONPointer
    package let order: Order

    package init(by: JSONPointer, order: Order = .asc) {
        self.by = by
        self.order = order
    }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let by: JSONPointer
        let order: String
        if case .string(let field) = argument.value {
            by = try pointer(field, argument: argument)
            order = "asc"
        } else {
            let object = try argument.object(allowing: ["by", "order"])
            by = try pointer(try argument.option("by", in: object, default: ""), argument: argument, member: "by")
            order = try argument.option("order", in: object, default: "asc", choices: Order.allCases.map(\.rawValue))
        }
        return SortOperation(by: by, order: Order(rawValue: order)!)
    }

    private static func pointer(_ text: String, argument: OperationArgument, member: String? = nil)
        throws(OperationConfigError) -> JSONPointer
    {
        guard text.utf8.first == UInt8(ascii: "/") else { return JSONPointer(tokens: text.isEmpty ? [] : [text]) }
        guard let pointer = JSONPointer(text) else {
            throw argument.error("'\(text)' is not a JSON Pointer", at: member)
        }
        return pointer
    }

    /// The value `by` names in one element; a plain field is looked up without pointer walking.
    @inline(__always)
    private func sortValue(of element: JSON) -> JSON? {
        if by.tokens.isEmpty { return element }
        if by.tokens.count == 1, case .object(let record) = element { return record[by.tokens[0]] }
        return element[by]
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        guard case .array(var elements) = value else {
            throw PipelineError(
                code: "not-an-array", message: "sort expects an array, found \(value.kindName)", pointer: "")
        }
        value = .null
        guard elements.count > 1 else {
            value = .array(elements)
            return
        }
        // Extract each key once; the sort compares keys, then moves elements in one pass.
        var keys = SortKeys(capacity: elements.count)
        for element in elements { keys.append(sortValue(of: element)) }
        var order = Array(elements.indices)
        // Swift's sort is stable, so equal keys keep their previous order in both directions.
        if self.order == .desc {
            order.sort { keys.precedes($1, $0) }
        } else {
            order.sort { keys.precedes($0, $1) }
        }
        var sorted: [JSON] = []
        sorted.reserveCapacity(elements.count)
        for i in order {
            sorted.append(elements[i])
            elements[i] = .null
        }
        value = .array(sorted)
    }
}

/// Sort keys reduced to what Firebase's ordering needs, in parallel arrays so a comparison
/// touches two small structs and only falls back to text or exact decimals on a tie.
struct SortKeys {
    struct Key {
        /// 0 missing/null, 1 false, 2 true, 3 number, 4 string, 5 object, 6 array.
        var rank: UInt8
        /// Numbers: the value when `isExact`. Strings: UTF-8 bytes 0–7, big-endian,
        /// zero-padded, so unequal prefixes order like the strings.
        var fast: UInt64
        /// Strings: UTF-8 bytes 8–15, the same way (push IDs share their first 8 bytes).
        var fast2: UInt64
        /// Numbers: `fast` holds the whole value as Int64. Strings: the text is ≤ 16 bytes
        /// without NUL bytes, so equal `fast` and `fast2` mean equal strings.
        var isExact: Bool
    }
    private(set) var keys: [Key] = []
    /// Texts of string keys, numbers that did not fit; empty for the rest.
    private var texts: [String] = []
    private var numbers: [JSONNumber?] = []

    init(capacity: Int) {
        keys.reserveCapacity(capacity)
        texts.reserveCapacity(capacity)
        numbers.reserveCapacity(capacity)
    }

    mutating func append(_ value: JSON?) {
        let (key, text, number) = Self.key(of: value)
        keys.append(key)
        texts.append(text)
        numbers.append(number)
    }

    /// Appends a key that orders its value alone (`isExact`, or a rank without a value).
    mutating func append(exact key: Key) {
        keys.append(key)
        texts.append("")
        numbers.append(nil)
    }

    /// A value's key, and its text or number when the key alone cannot order it.
    @inline(__always)
    static func key(of value: JSON?) -> (Key, String, JSONNumber?) {
        var key = Key(rank: 0, fast: 0, fast2: 0, isExact: true)
        var text = ""
        var number: JSONNumber? = nil
        switch value {
        case nil, .null?: break
        case .bool(let flag)?: key.rank = flag ? 2 : 1
        case .number(let n)?:
            key.rank = 3
            if let exact = SortKeys.plainInteger(n.text) {
                key.fast = UInt64(bitPattern: exact)
            } else {
                key.isExact = false
                number = n
            }
        case .string(let s)?:
            key.rank = 4
            var count = 0
            var hasNul = false
            for byte in s.utf8 {
                if count < 8 {
                    key.fast |= UInt64(byte) << (56 - 8 * count)
                } else if count < 16 {
                    key.fast2 |= UInt64(byte) << (56 - 8 * (count - 8))
                }
                if byte == 0 { hasNul = true }
                count += 1
                if count > 16 { break }
            }
            key.isExact = count <= 16 && !hasNul
            if !key.isExact { text = s }
        case .object?: key.rank = 5
        case .array?: key.rank = 6
        }
        return (key, text, number)
    }

    @inline(__always)
    func precedes(_ a: Int, _ b: Int) -> Bool {
        let x = keys[a]
        let y = keys[b]
        if x.rank != y.rank { return x.rank < y.rank }
        // Texts and numbers only when the keys cannot tell: reading them costs reference counting.
        switch x.rank {
        case 3:
            if x.isExact && y.isExact { return Int64(bitPattern: x.fast) < Int64(bitPattern: y.fast) }
        case 4:
            if x.fast != y.fast { return x.fast < y.fast }
            if x.fast2 != y.fast2 { return x.fast2 < y.fast2 }
            if x.isExact || y.isExact { return x.isExact && !y.isExact }
        default:
            return false
        }
        return Self.precedes(x, texts[a], numbers[a], y, texts[b], numbers[b])
    }

    /// Whether the value of key `x` (with its text or number) orders before that of `y`.
    @inline(__always)
    static func precedes(
        _ x: Key, _ xText: String, _ xNumber: JSONNumber?, _ y: Key, _ yText: String, _ yNumber: JSONNumber?
    ) -> Bool {
        if x.rank != y.rank { return x.rank < y.rank }
        switch x.rank {
        case 3:
            if x.isExact && y.isExact { return Int64(bitPattern: x.fast) < Int64(bitPattern: y.fast) }
            return number(xNumber, x) < number(yNumber, y)
        case 4:
            if x.fast != y.fast { return x.fast < y.fast }
            if x.fast2 != y.fast2 { return x.fast2 < y.fast2 }
            if x.isExact || y.isExact { return x.isExact && !y.isExact }  // equal prefix: the shorter one first
            return bytesPrecede(xText, yText)
        default:
            return false
        }
    }

    /// Whether `a`'s UTF-8 bytes order before `b`'s: `memcmp` on the strings' contiguous bytes.
    @inline(__always)
    static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                    let order = memcmp(p, q, common)
                    if order != 0 { return order < 0 }
                }
                return x.count < y.count
            }
        }
    }

    private static func number(_ number: JSONNumber?, _ key: Key) -> JSONNumber {
        number ?? JSONNumber(uncheckedText: String(Int64(bitPattern: key.fast)))
    }

    /// `-?[0-9]{1,18}` without a fraction or exponent: parsed directly, no rounding possible.
    static func plainInteger(_ text: String) -> Int64? {
        let utf8 = text.utf8
        guard utf8.count <= 19, !utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
        else { return nil }
        return Int64(text)
    }
}

extension SortKeys {
    /// -1, 0 or 1: how `a` orders against `b` in the mixed-type order above (nil: missing).
    /// The one meaning of "before" that `sort`, `order: query` and client views share.
    static func compare(_ a: JSON?, _ b: JSON?) -> Int {
        let (x, xText, xNumber) = key(of: a)
        let (y, yText, yNumber) = key(of: b)
        if precedes(x, xText, xNumber, y, yText, yNumber) { return -1 }
        return precedes(y, yText, yNumber, x, xText, xNumber) ? 1 : 0
    }
}
