import ReshapeJSON
@testable import ReshapeRules
import XCTest

final class SortOperationTests: XCTestCase {
    func testMixedTypesOrderAsFirebase() throws {
        let input = #"[{"i": 0, "v": "b"}, {"i": 1, "v": {}}, {"i": 2, "v": 10}, {"i": 3}, {"i": 4, "v": true}, {"i": 5, "v": 9.5},"#
            + #" {"i": 6, "v": false}, {"i": 7, "v": null}, {"i": 8, "v": "B"}, {"i": 9, "v": []}, {"i": 10, "v": -1e3}]"#
        let output = try transform(#"{"sort": {"by": "v"}}"#, on: input)
        let order = try XCTUnwrap(output.value.elementsField("i"))
        XCTAssertEqual(order, [3, 7, 6, 4, 10, 5, 2, 8, 0, 1, 9])
    }

    func testStableAscendingAndDescending() throws {
        let input = #"[{"k": 1, "i": 0}, {"k": 2, "i": 1}, {"k": 1, "i": 2}, {"k": 2, "i": 3}]"#
        XCTAssertEqual(try transform(#"{"sort": {"by": "k"}}"#, on: input).value.elementsField("i"), [0, 2, 1, 3])
        XCTAssertEqual(try transform(#"{"sort": {"by": "k", "order": "desc"}}"#, on: input).value.elementsField("i"), [1, 3, 0, 2])
    }

    func testExactNumbersBeyondDouble() throws {
        let input = #"[{"n": 12345678901234567891, "i": 0}, {"n": 12345678901234567890, "i": 1}, {"n": 1.5e300, "i": 2}, {"n": 0.1, "i": 3}]"#
        XCTAssertEqual(try transform(#"{"sort": {"by": "n"}}"#, on: input).value.elementsField("i"), [3, 1, 0, 2])
    }

    func testStringsByCodePoints() throws {
        assertJSON(try transform(#"{"sort": {}}"#, on: #"["é", "z", "Z", "a"]"#).value, #"["Z", "a", "z", "é"]"#)
    }

    func testByPointerAndShorthand() throws {
        let input = #"[{"a": {"b": 2}}, {"a": {"b": 1}}]"#
        assertJSON(try transform(#"{"sort": {"by": "/a/b"}}"#, on: input).value, #"[{"a": {"b": 1}}, {"a": {"b": 2}}]"#)
        assertJSON(try transform(#"{"sort": "name"}"#, on: #"[{"name": "b"}, {"name": "a"}]"#).value, #"[{"name": "a"}, {"name": "b"}]"#)
    }

    func testNotAnArray() {
        XCTAssertEqual(runError(#"{"sort": {}}"#, on: "{}")?.code, "not-an-array")
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"sort": {"order": "up"}}"#)?.pointer, "/sort/order")
        XCTAssertEqual(configError(#"{"sort": {"by": "/a~"}}"#)?.pointer, "/sort/by")
        XCTAssertEqual(configError(#"{"sort": {"field": "a"}}"#)?.pointer, "/sort/field")
    }
}

extension JSON {
    /// The integer field `name` of every element, for checking an order.
    func elementsField(_ name: String) -> [Int]? {
        guard case .array(let elements) = self else { return nil }
        return elements.map { element in
            if case .object(let object) = element, case .number(let n)? = object[name] { return n.intValue ?? -1 }
            return -1
        }
    }
}
