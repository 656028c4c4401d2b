import XCTest

@testable import ReshapeJSON

final class JSONNumberTests: XCTestCase {
    private func n(_ text: String) -> JSONNumber { JSONNumber(text)! }

    func testEqualityIsNumeric() {
        XCTAssertEqual(n("1"), n("1.0"))
        XCTAssertEqual(n("1"), n("1e0"))
        XCTAssertEqual(n("100"), n("1E2"))
        XCTAssertEqual(n("-0"), n("0"))
        XCTAssertEqual(n("0.10"), n("1e-1"))
        XCTAssertNotEqual(n("12345678901234567890"), n("12345678901234567891"))
        XCTAssertEqual(JSON.number(n("2.0")), JSON.number(n("2")))
        XCTAssertEqual(Set([n("1"), n("1.0"), n("10e-1")]).count, 1)
    }

    func testOrderingIsExact() {
        let sorted = ["12345678901234567891", "-1.5", "0", "1e-400", "2", "12345678901234567890", "1e400", "-1e400"]
            .map(n).sorted().map(\.text)
        XCTAssertEqual(
            sorted, ["-1e400", "-1.5", "0", "1e-400", "2", "12345678901234567890", "12345678901234567891", "1e400"])
    }

    func testFastAndExactComparisonAgree() {
        // Pairs straddle the allocation-free path (<= 18 digits, no exponent) and the exact one.
        let texts = [
            "0", "-0", "0.0", "1", "1.0", "1.10", "1.1", "-1.1", "12.5", "3.25", "999999999999999999",
            "1000000000000000000", "0.000000000000000001", "123456789012345678.5", "1e0", "1.1e0", "-12.5e0",
        ]
        for a in texts {
            for b in texts {
                let exact = DecimalForm.compare(DecimalForm(a), DecimalForm(b))
                XCTAssertEqual(JSONNumber.compare(n(a), n(b)), exact, "\(a) vs \(b)")
                XCTAssertEqual(n(a) == n(b), exact == 0, "\(a) == \(b)")
                XCTAssertEqual(n(a) < n(b), exact < 0, "\(a) < \(b)")
            }
        }
    }

    func testIntegerness() {
        XCTAssertTrue(n("1.0").isInteger)
        XCTAssertTrue(n("1e2").isInteger)
        XCTAssertTrue(n("-0").isInteger)
        XCTAssertFalse(n("1.5").isInteger)
        XCTAssertFalse(n("1e-2").isInteger)
        XCTAssertEqual(n("1.0").int64Value, 1)
        XCTAssertEqual(n("-9223372036854775808").int64Value, Int64.min)
        XCTAssertEqual(n("9223372036854775807").int64Value, Int64.max)
        XCTAssertNil(n("9223372036854775808").int64Value)
        XCTAssertNil(n("1.5").int64Value)
    }

    func testMultipleOfIsExact() {
        XCTAssertTrue(n("0.0075").isMultiple(of: n("0.0001")))
        XCTAssertFalse(n("0.00751").isMultiple(of: n("0.0001")))
        XCTAssertTrue(n("4.5").isMultiple(of: n("1.5")))
        XCTAssertFalse(n("35").isMultiple(of: n("1.5")))
        XCTAssertTrue(n("12345678901234567890").isMultiple(of: n("10")))
        XCTAssertFalse(n("1e308").isMultiple(of: n("0.123456789")))
        XCTAssertTrue(n("0").isMultiple(of: n("7")))
        XCTAssertFalse(n("1").isMultiple(of: n("0")))
    }

    func testTextInitializerChecksGrammar() {
        XCTAssertEqual(JSONNumber(text: "1.5E+300")?.text, "1.5E+300")
        XCTAssertNil(JSONNumber(text: "01"))
    }

    func testDoubleValue() {
        XCTAssertEqual(n("1.5E+3").doubleValue, 1500)
    }
}
