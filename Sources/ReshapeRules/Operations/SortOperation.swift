import ReshapeJSON

/// `sort: { by: field, order: asc }` — stable sort of an array. `by` is a field name, or a
/// JSON Pointer (starting with `/`) into each element; omitted, the elements themselves are
/// compared. Values of different types order as Firebase orders them: missing and `null` <
/// `false` < `true` < numbers (exact numeric comparison) < strings (by UTF-8 bytes, i.e.
/// code points) < objects < arrays. Objects and arrays tie among themselves. Ties keep the
/// previous order, also with `order: desc`.
public struct SortOperation: TransformOperation {
    public enum Order: String, Sendable, CaseIterable { case asc, desc }

    /// Path to the sort key inside each element; empty for the element itself.
    public let by: JSONPointer
    public let order: Order

    public init(by: JSONPointer, order: Order = .asc) {
        self.by = by
        self.order = order
    }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError) -> any TransformOperation {
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

    private static func pointer(_ text: String, argument: OperationArgument, member: String? = nil) throws(OperationConfigError) -> JSONPointer {
        guard text.utf8.first == UInt8(ascii: "/") else { return JSONPointer(tokens: text.isEmpty ? [] : [text]) }
        guard let pointer = JSONPointer(text) else { throw argument.error("'\(text)' is not a JSON Pointer", at: member) }
        return pointer
    }

    public func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        guard case .array(var elements) = value else {
            throw PipelineError(code: "not-an-array", message: "sort expects an array, found \(value.kindName)", pointer: "")
        }
        value = .null
        guard elements.count > 1 else {
            value = .array(elements)
            return
        }
        // Extract each key once; the sort compares keys, then moves elements in one pass.
        let keys: [SortKey] = elements.map { SortKey(by.tokens.isEmpty ? $0 : $0[by]) }
        var order = Array(elements.indices)
        let descending = self.order == .desc
        // Swift's sort is stable, so equal keys keep their previous order in both directions.
        order.sort { a, b in
            descending ? SortKey.precedes(keys[b], keys[a]) : SortKey.precedes(keys[a], keys[b])
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

/// A value reduced to what Firebase's ordering needs.
enum SortKey {
    case null
    case bool(Bool)
    /// Fast path: whole numbers that fit 64 bits.
    case integer(Int64)
    case number(JSONNumber)
    case string(String)
    case object
    case array

    init(_ value: JSON?) {
        switch value {
        case nil, .null?: self = .null
        case .bool(let flag)?: self = .bool(flag)
        case .number(let number)?:
            if let exact = SortKey.plainInteger(number.text) { self = .integer(exact) } else { self = .number(number) }
        case .string(let text)?: self = .string(text)
        case .object?: self = .object
        case .array?: self = .array
        }
    }

    var rank: Int {
        switch self {
        case .null: 0
        case .bool(let flag): flag ? 2 : 1
        case .integer, .number: 3
        case .string: 4
        case .object: 5
        case .array: 6
        }
    }

    @inline(__always)
    static func precedes(_ a: SortKey, _ b: SortKey) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y
        case (.string(let x), .string(let y)): return x.utf8.lexicographicallyPrecedes(y.utf8)
        case (.integer(let x), .number(let y)): return JSONNumber(uncheckedText: String(x)) < y
        case (.number(let x), .integer(let y)): return x < JSONNumber(uncheckedText: String(y))
        case (.number(let x), .number(let y)): return x < y
        default: return a.rank < b.rank
        }
    }

    /// `-?[0-9]{1,18}` without a fraction or exponent: parsed directly, no rounding possible.
    private static func plainInteger(_ text: String) -> Int64? {
        let utf8 = text.utf8
        guard utf8.count <= 19, !utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) else { return nil }
        return Int64(text)
    }
}
