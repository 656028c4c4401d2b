import ReshapeJSON

// Validation vocabulary keywords that look at one value: type, const, enum, numeric bounds,
// string length, pattern and format.

final class TypeKeyword: KeywordCheck, @unchecked Sendable {
    let mask: TypeMask
    init(_ mask: TypeMask, _ site: KeywordSite) {
        self.mask = mask
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        if mask.contains(TypeMask.of(instance)) { return true }
        if case .number(let n) = instance, mask.contains(.integer), NumberBound.isInteger(n) { return true }
        return fail(&e, path, "expected \(mask.names.joined(separator: " or ")), got \(TypeMask.name(of: instance))")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        Self.matches(mask, e.view, instance)
    }

    @inline(__always)
    static func matches(_ mask: TypeMask, _ view: TapeView, _ instance: Int) -> Bool {
        let kind = view.kind(instance)
        if mask.contains(TypeMask.of(kind)) { return true }
        return kind == .number && mask.contains(.integer) && view.isInteger(instance)
    }
}

final class ConstKeyword: KeywordCheck, @unchecked Sendable {
    let value: JSON
    init(_ value: JSON, _ site: KeywordSite) {
        self.value = value
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        if StrictEquality.equal(instance, value) { return true }
        return fail(&e, path, "\(Self.brief(instance)) is not \(Self.brief(value))")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        e.view.equals(instance, value)
    }
}

final class EnumKeyword: KeywordCheck, @unchecked Sendable {
    let values: [JSON]
    init(_ values: [JSON], _ site: KeywordSite) {
        self.values = values
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        for value in values where StrictEquality.equal(instance, value) { return true }
        return fail(&e, path, "\(Self.brief(instance)) is not one of \(Self.brief(.array(values)))")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        let view = e.view
        return values.contains { view.equals(instance, $0) }
    }
}

/// `minimum`/`exclusiveMinimum` (lower) and `maximum`/`exclusiveMaximum` (upper).
final class BoundKeyword: KeywordCheck, @unchecked Sendable {
    let bound: NumberBound
    let upper: Bool
    let exclusive: Bool
    init(_ bound: NumberBound, upper: Bool, exclusive: Bool, _ site: KeywordSite) {
        self.bound = bound
        self.upper = upper
        self.exclusive = exclusive
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .number(let n) = instance else { return true }
        let order = bound.compare(n) * (upper ? -1 : 1)
        if order > 0 || (order == 0 && !exclusive) { return true }
        return fail(
            &e, path,
            "\(n.text) is \(upper ? "greater" : "less") than \(exclusive ? "or equal to " : "")\(bound.number.text)")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .number else { return true }
        var order: Int
        if let integer = bound.integer, let v = e.view.smallInteger(instance) {
            order = v < integer ? -1 : (v == integer ? 0 : 1)
        } else {
            order = bound.compare(e.view.tape.number(instance))
        }
        if upper { order = -order }
        return order > 0 || (order == 0 && !exclusive)
    }
}

final class MultipleOfKeyword: KeywordCheck, @unchecked Sendable {
    let divisor: JSONNumber
    /// The divisor when it is a small integer (it is never 0): integers then divide exactly.
    let integerDivisor: Int64?
    init(_ divisor: JSONNumber, _ site: KeywordSite) {
        self.divisor = divisor
        integerDivisor = NumberBound.smallInteger(divisor.text)
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .number(let n) = instance else { return true }
        if n.isMultiple(of: divisor) { return true }
        return fail(&e, path, "\(n.text) is not a multiple of \(divisor.text)")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .number else { return true }
        if let integerDivisor, let v = e.view.smallInteger(instance) { return v % integerDivisor == 0 }
        return e.view.tape.number(instance).isMultiple(of: divisor)
    }
}

/// `minLength` / `maxLength`, in Unicode code points.
final class LengthKeyword: KeywordCheck, @unchecked Sendable {
    let limit: Int
    let upper: Bool
    init(_ limit: Int, upper: Bool, _ site: KeywordSite) {
        self.limit = limit
        self.upper = upper
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .string(let s) = instance else { return true }
        let bytes = s.utf8.count
        // A code point is 1 to 4 UTF-8 bytes, so the byte count often decides alone.
        if upper {
            if bytes <= limit { return true }
        } else {
            if bytes / 4 >= limit { return true }
            if bytes < limit { return fail(&e, path, "length \(s.unicodeScalars.count) is less than \(limit)") }
        }
        let length = s.unicodeScalars.count
        if upper ? length <= limit : length >= limit { return true }
        return fail(&e, path, "length \(length) is \(upper ? "greater" : "less") than \(limit)")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .string else { return true }
        let limit = limit
        let upper = upper
        return e.view.withString(instance) { utf8 in
            if upper {
                if utf8.count <= limit { return true }
            } else {
                if utf8.count / 4 >= limit { return true }
                if utf8.count < limit { return false }
            }
            var length = 0
            for byte in utf8 where byte & 0xC0 != 0x80 { length += 1 }
            return upper ? length <= limit : length >= limit
        }
    }
}

final class PatternKeyword: KeywordCheck, @unchecked Sendable {
    let pattern: CompiledPattern
    init(_ pattern: CompiledPattern, _ site: KeywordSite) {
        self.pattern = pattern
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .string(let s) = instance else { return true }
        if pattern.matches(s) { return true }
        return fail(&e, path, "\(Self.brief(instance)) does not match /\(pattern.source)/")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .string else { return true }
        return e.view.withString(instance) { pattern.matches(utf8: $0) }
    }
}

final class FormatKeyword: KeywordCheck, @unchecked Sendable {
    let format: String
    let isValid: FormatCheck
    init(_ format: String, _ isValid: @escaping FormatCheck, _ site: KeywordSite) {
        self.format = format
        self.isValid = isValid
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .string(let s) = instance else { return true }
        if isValid(s) { return true }
        return fail(&e, path, "\(Self.brief(instance)) is not a valid \(format)")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .string else { return true }
        return isValid(e.view.string(instance))
    }
}

extension TypeMask {
    /// By table rather than a switch: member kinds vary, and a mispredicted jump per member
    /// costs more than the rest of a type check.
    @inline(__always)
    static func of(_ kind: JSONTape.Kind) -> TypeMask {
        // Bytes by kind: null, false, true, number, string, array, object.
        let table: UInt64 = 0x40_20_10_08_02_02_01
        return TypeMask(rawValue: UInt8(truncatingIfNeeded: table >> (UInt64(kind.rawValue) &* 8)))
    }

    static func of(_ value: JSON) -> TypeMask {
        switch value {
        case .null: return .null
        case .bool: return .boolean
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }

    static func name(of value: JSON) -> String {
        if case .number(let n) = value, n.isInteger { return "integer" }
        return of(value).names.first ?? "?"
    }
}
