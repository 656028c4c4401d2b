import ReshapeJSON
import XCTest

/// Numbers the `json` fuzz target's exact-comparison property caught (docs/hardening.md);
/// the inputs are in fuzz/crashes/.
final class JSONNumberFuzzRegressionTests: XCTestCase {
    private func n(_ text: String) -> JSONNumber { JSONNumber(text)! }

    /// fuzz/crashes/json-multipleof-scaled-divisor.json: the divisor's 17 digits plus the one
    /// zero of scale alignment made an 18-digit modulus, so the check fell back to Double,
    /// where 345678901234567889 / 345678901234567890 is 1.0.
    func testMultipleOfADivisorWithTrailingZerosIsExact() {
        XCTAssertFalse(n("345678901234567889").isMultiple(of: n("345678901234567890")))
        XCTAssertTrue(n("691357802469135780").isMultiple(of: n("345678901234567890")))
        XCTAssertFalse(n("15").isMultiple(of: n("5e1")))
        XCTAssertFalse(n("123").isMultiple(of: n("1e30")))
        XCTAssertTrue(n("1.5e31").isMultiple(of: n("5e30")))
        XCTAssertFalse(n("0.5").isMultiple(of: n("0.25e1")))
        XCTAssertTrue(n("-7.5").isMultiple(of: n("2.5")))
    }

    /// fuzz/crashes/json-multipleof-18-digit-divisor.json (found by the first CI run): an
    /// 18-digit divisor took the Double fallback, where the quotient rounds to 1.0. UInt64
    /// holds the remainder arithmetic of an 18-digit modulus, so it is exact now.
    func testMultipleOfAn18DigitDivisorIsExact() {
        XCTAssertFalse(n("123456789012345678").isMultiple(of: n("123456789012345677")))
        XCTAssertTrue(n("246913578024691354").isMultiple(of: n("123456789012345677")))
        XCTAssertTrue(n("2469135780246913540e-1").isMultiple(of: n("12345678901234567.7")))
        XCTAssertFalse(n("999999999999999999").isMultiple(of: n("999999999999999998")))
    }

    /// fuzz/crashes/json-exponent-saturation.json: exponents were saturated after their tenth
    /// digit, so 1e10000000005 == 1e10000000006 (and `const`/`enum`/`maximum` agreed).
    func testExponentsCompareExactlyUpTo17Digits() {
        XCTAssertNotEqual(n("1e10000000005"), n("1e10000000006"))
        XCTAssertLessThan(n("1e10000000005"), n("1e10000000006"))
        XCTAssertLessThan(n("1e-10000000006"), n("1e-10000000005"))
        XCTAssertLessThan(n("9e99999999999999998"), n("1e99999999999999999"))
        XCTAssertEqual(n("10e10000000005"), n("1e10000000006"))
        XCTAssertEqual(Set([n("10e10000000005"), n("1e10000000006")]).count, 1)
        XCTAssertLessThan(n("2e10000000006"), n("1e10000000007"))
    }
}
