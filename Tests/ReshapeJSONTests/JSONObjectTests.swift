import XCTest

@testable import ReshapeJSON

final class JSONObjectTests: XCTestCase {
    func testSubscriptKeepsOrderAndReplacesInPlace() {
        var object = JSONObject(["b": .null, "a": .bool(true)])
        object["b"] = .string("x")
        object["c"] = .number(JSONNumber(3))
        XCTAssertEqual(object.keys, ["b", "a", "c"])
        object["a"] = nil
        XCTAssertEqual(object.keys, ["b", "c"])
    }

    func testNumberGrammar() {
        for good in ["0", "-0", "12345678901234567890", "0.1", "1.5E+300", "1e-7"] {
            XCTAssertNotNil(JSONNumber(good), good)
        }
        for bad in ["", "-", "01", "1.", ".5", "1e", "+1", "NaN", "0x10"] {
            XCTAssertNil(JSONNumber(bad), bad)
        }
    }
}
