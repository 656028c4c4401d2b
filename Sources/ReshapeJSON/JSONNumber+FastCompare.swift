// Allocation-free comparison for the numbers records actually hold (`42`, `-7`, `12.50`):
// sorting a large collection by a numeric field must not allocate per comparison.

/// A number without exponent and with at most 18 digits, as an integer scaled by 10^-scale.
struct ScaledInteger {
    var value: Int64
    var scale: Int

    /// Nil for exponents, more than 18 digits, or anything else the exact path must handle.
    @inline(__always) init?(_ text: String) {
        var value: Int64 = 0
        var scale = 0
        var digits = 0
        var negative = false
        var inFraction = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                if digits > 18 { return nil }
                value = value &* 10 &+ Int64(byte &- UInt8(ascii: "0"))
                if inFraction { scale += 1 }
            case UInt8(ascii: "-"): negative = true
            case UInt8(ascii: "."): inFraction = true
            default: return nil  // exponent
            }
        }
        self.value = negative ? -value : value
        self.scale = scale
    }

    /// -1, 0 or 1; nil when bringing both to one scale would overflow.
    @inline(__always) static func compare(_ a: ScaledInteger, _ b: ScaledInteger) -> Int? {
        var x = a.value
        var y = b.value
        var scaleX = a.scale
        var scaleY = b.scale
        while scaleX < scaleY {
            let (scaled, overflow) = x.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            x = scaled
            scaleX += 1
        }
        while scaleY < scaleX {
            let (scaled, overflow) = y.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            y = scaled
            scaleY += 1
        }
        return x < y ? -1 : (x == y ? 0 : 1)
    }
}

extension JSONNumber {
    /// Exact three-way comparison: the allocation-free path when it applies, else digit by digit.
    @inline(__always) static func compare(_ lhs: JSONNumber, _ rhs: JSONNumber) -> Int {
        if let a = ScaledInteger(lhs.text), let b = ScaledInteger(rhs.text),
            let result = ScaledInteger.compare(a, b)
        {
            return result
        }
        return DecimalForm.compare(DecimalForm(lhs.text), DecimalForm(rhs.text))
    }
}
