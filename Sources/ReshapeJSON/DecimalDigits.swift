/// An integer in decimal, written without a temporary string: a JSON number, an access-log
/// field or a `Content-Length` per request. `body` gets the digits, after a `-` if negative.
public func withDecimalDigits<Result>(of value: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    var magnitude = value.magnitude
    // Room for any Int: a sign and 20 digits, written from the end.
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { digits in
        var start = digits.count
        repeat {
            start -= 1
            digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        if value < 0 {
            start -= 1
            digits[start] = UInt8(ascii: "-")
        }
        return body(UnsafeBufferPointer(rebasing: digits[start...]))
    }
}
