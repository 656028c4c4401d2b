// Exact numeric meaning of a JSON number's text, computed only when an operation needs it
// (sorting, `minimum`, `multipleOf`, equality). Nothing here rounds through Double unless
// a value is too extreme to handle exactly.

/// A number as sign × significand digits × 10^exponent, with no leading or trailing zeros in
/// the significand (zero has no digits and no sign), so equal values have equal forms.
struct DecimalForm: Hashable {
    var negative: Bool
    var digits: [UInt8]  // 0...9, most significant first
    var exponent: Int

    init(_ text: String) {
        var negative = false
        var digits: [UInt8] = []
        var exponent = 0
        var fractionLength = 0
        var inFraction = false
        var exponentValue = 0
        var exponentNegative = false
        var inExponent = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-") where !inExponent: negative = true
            case UInt8(ascii: "-"): exponentNegative = true
            case UInt8(ascii: "+"): break
            case UInt8(ascii: "."): inFraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
            default:
                let digit = byte &- UInt8(ascii: "0")
                if inExponent {
                    // Exact below 10^17, saturated there: an exponent's text may be any length,
                    // and Int arithmetic on exponents (plus a fraction length under 2^32) stays
                    // far from overflow. Saturating earlier made 1e10000000005 == 1e10000000006.
                    exponentValue = min(DecimalForm.exponentLimit, exponentValue * 10 + Int(digit))
                } else {
                    if digits.isEmpty && digit == 0 {
                        if inFraction { fractionLength += 1 }
                        continue
                    }
                    digits.append(digit)
                    if inFraction { fractionLength += 1 }
                }
            }
        }
        exponent = (exponentNegative ? -exponentValue : exponentValue) - fractionLength
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty {
            negative = false
            exponent = 0
        }
        self.negative = negative
        self.digits = digits
        self.exponent = exponent
    }

    /// Exponents of this magnitude or more compare as this (JSON allows any exponent).
    static let exponentLimit = 100_000_000_000_000_000

    var isZero: Bool { digits.isEmpty }

    /// Compares magnitudes, ignoring sign.
    static func compareMagnitude(_ a: DecimalForm, _ b: DecimalForm) -> Int {
        if a.isZero || b.isZero { return (a.isZero ? 0 : 1) - (b.isZero ? 0 : 1) }
        let aTop = a.digits.count + a.exponent
        let bTop = b.digits.count + b.exponent
        if aTop != bTop { return aTop < bTop ? -1 : 1 }
        let n = max(a.digits.count, b.digits.count)
        for i in 0..<n {
            let x = i < a.digits.count ? a.digits[i] : 0
            let y = i < b.digits.count ? b.digits[i] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }

    static func compare(_ a: DecimalForm, _ b: DecimalForm) -> Int {
        if a.negative != b.negative { return a.negative ? -1 : 1 }
        let magnitude = compareMagnitude(a, b)
        return a.negative ? -magnitude : magnitude
    }
}

extension JSONNumber {
    /// Nil when `text` is not a valid JSON number; the same as `JSONNumber(text)`.
    public init?(text: String) {
        self.init(text)
    }
}

extension JSONNumber: Comparable, Hashable {
    /// Numeric equality: `1`, `1.0` and `1e0` are equal; `-0` equals `0`.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        lhs.text == rhs.text || compare(lhs, rhs) == 0
    }

    public static func < (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        compare(lhs, rhs) < 0
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(DecimalForm(text))
    }

    /// True when the value is a whole number (`1.0` and `1e2` are).
    public var isInteger: Bool {
        if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) { return true }
        return DecimalForm(text).exponent >= 0
    }

    /// The exact value as Int64, or nil when it is not a whole number or does not fit.
    public var int64Value: Int64? {
        let form = DecimalForm(text)
        guard form.exponent >= 0, form.digits.count + form.exponent <= 19 else { return form.isZero ? 0 : nil }
        var value: Int64 = 0
        for digit in form.digits + [UInt8](repeating: 0, count: form.exponent) {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(digit))
            if o1 || o2 { return form.negative && value == 922_337_203_685_477_580 && digit == 8 ? Int64.min : nil }
            value = sum
        }
        return form.negative ? -value : value
    }

    /// The exact value as Int, or nil.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// True when `self / divisor` is a whole number, computed exactly on the decimal digits
    /// (so 0.0075 is a multiple of 0.0001). Falls back to Double only when the divisor has
    /// more than 18 significant digits or the scaled dividend would exceed 10,000 digits.
    public func isMultiple(of divisor: JSONNumber) -> Bool {
        let a = DecimalForm(text)
        let b = DecimalForm(divisor.text)
        if b.isZero { return false }
        if a.isZero { return true }
        // a's last digit is not 0, so a is no multiple of 10, let alone of b's 10^(b.exponent - a.exponent).
        if a.exponent < b.exponent { return false }
        // Now a = digits(a) · 10^aZeros · 10^e and b = digits(b) · 10^e, so the remainder of
        // digits(a) followed by aZeros zeros, divided by digits(b), decides.
        let aZeros = a.exponent - b.exponent
        // An 18-digit modulus keeps `remainder * 10 + 9` below 10^19, inside UInt64.
        if b.digits.count <= 18 && a.digits.count + aZeros <= 10_000 {
            var modulus: UInt64 = 0
            for digit in b.digits { modulus = modulus * 10 + UInt64(digit) }
            var remainder: UInt64 = 0
            for digit in a.digits { remainder = (remainder * 10 + UInt64(digit)) % modulus }
            for _ in 0..<aZeros { remainder = (remainder * 10) % modulus }
            return remainder == 0
        }
        let quotient = doubleValue / divisor.doubleValue
        guard quotient.isFinite else { return false }
        // Every Double of magnitude 2^53 or more is whole; below that Int64 holds it exactly.
        // (Avoids `rounded()`, which needs libm, which this module does not link.)
        return quotient.magnitude >= 9_007_199_254_740_992 || quotient == Double(Int64(quotient))
    }
}
