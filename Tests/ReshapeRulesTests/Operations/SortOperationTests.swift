import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class SortOperationTests: XCTestCase {
    func testMixedTypesOrderAsFirebase() throws {
        let input =
            #"[{"i": 0, "v": "b"}, {"i": 1, "v": {}}, {"i": 2, "v": 10}, {"i": 3}, {"i": 4, "v": true}, {"i": 5, "v": 9.5},"#
            + #" {"i": 6, "v": false}, {"i": 7, "v": null}, {"i": 8, "v": "B"}, {"i": 9, "v": []}, {"i": 10, "v": -1e3}]"#
        let output = try transform(#"{"sort": {"by": "v"}}"#, on: input)
        let order = try XCTUnwrap(output.value.elementsField("i"))
        XCTAssertEqual(order, [3, 7, 6, 4, 10, 5, 2, 8, 0, 1, 9])
    }

    func testStableAscendingAndDescending() throws {
        let input = #"[{"k": 1, "i": 0}, {"k": 2, "i": 1}, {"k": 1, "i": 2}, {"k": 2, "i": 3}]"#
        XCTAssertEqual(try transform(#"{"sort": {"by": "k"}}"#, on: input).value.elementsField("i"), [0, 2, 1, 3])
        XCTAssertEqual(
            try transform(#"{"sort": {"by": "k", "order": "desc"}}"#, on: input).value.elementsField("i"), [1, 3, 0, 2])
    }

    func testExactNumbersBeyondDouble() throws {
        let input =
            #"[{"n": 12345678901234567891, "i": 0}, {"n": 12345678901234567890, "i": 1}, {"n": 1.5e300, "i": 2}, {"n": 0.1, "i": 3}]"#
        XCTAssertEqual(try transform(#"{"sort": {"by": "n"}}"#, on: input).value.elementsField("i"), [3, 1, 0, 2])
    }

    func testStringsByCodePoints() throws {
        assertJSON(try transform(#"{"sort": {}}"#, on: #"["é", "z", "Z", "a"]"#).value, #"["Z", "a", "z", "é"]"#)
    }

    func testStringsSharingLongPrefixesAndNulBytes() throws {
        assertJSON(
            try transform(
                #"{"sort": {}}"#,
                on: #"["abcdefghij", "abcdefgh", "abcdefghi", "abc\u0000", "abc", "abcdefgha", "abcdefgh\u0000"]"#
            ).value,
            #"["abc", "abc\u0000", "abcdefgh", "abcdefgh\u0000", "abcdefgha", "abcdefghi", "abcdefghij"]"#)
        assertJSON(
            try transform(
                #"{"sort": {}}"#,
                on:
                    #"["0123456789abcdefZ", "0123456789abcdef", "0123456789abcdef\u0000", "0123456789abcdeZ", "0123456789abcdefA"]"#
            ).value,
            #"["0123456789abcdeZ", "0123456789abcdef", "0123456789abcdef\u0000", "0123456789abcdefA", "0123456789abcdefZ"]"#
        )
    }

    func testEqualStringsAndNumbersKeepOrder() throws {
        let input =
            #"[{"k": "same-long-string", "i": 0}, {"k": 1.0, "i": 1}, {"k": "same-long-string", "i": 2}, {"k": 1, "i": 3}, {"k": "s", "i": 4}, {"k": "s", "i": 5}]"#
        XCTAssertEqual(
            try transform(#"{"sort": {"by": "k"}}"#, on: input).value.elementsField("i"), [1, 3, 4, 5, 0, 2])
        XCTAssertEqual(
            try transform(#"{"sort": {"by": "k", "order": "desc"}}"#, on: input).value.elementsField("i"),
            [0, 2, 4, 5, 1, 3])
    }

    /// The fast keys (8-byte string prefixes, Int64 numbers) must order exactly like a plain
    /// comparison by type rank, exact decimal value and UTF-8 bytes.
    func testMatchesAReferenceOrderOnRandomValues() throws {
        var generator = SystemRandomNumberGenerator()
        let prefixes = [
            "", "a", "abcdefgh", "abcdefghij", "abcdefghijklmnop", "abcdefghijklmnopq", "-Nq3", "é", "x\u{0}",
        ]
        let values: [JSON] = (0..<600).map { _ in
            switch Int.random(in: 0..<8, using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .number(JSONNumber(Int.random(in: -1_000...1_000, using: &generator)))
            case 3:
                return .number(
                    JSONNumber(
                        ["12345678901234567890", "-99999999999999999999", "0.5", "-0.25", "1e2", "1.0"].randomElement(
                            using: &generator)!)!)
            case 4, 5:
                return .string(
                    prefixes.randomElement(using: &generator)! + String(Int.random(in: 0...30, using: &generator)))
            case 6: return .object(JSONObject())
            default: return .array([])
            }
        }
        let input = JSON.array(
            values.enumerated().map { .object(JSONObject(["v": $1, "i": .number(JSONNumber($0))])) })
        func rank(_ v: JSON) -> Int {
            switch v {
            case .null: 0
            case .bool(let b): b ? 2 : 1
            case .number: 3
            case .string: 4
            case .object: 5
            case .array: 6
            }
        }
        func less(_ a: JSON, _ b: JSON) -> Bool {
            switch (a, b) {
            case (.number(let x), .number(let y)): return x < y
            case (.string(let x), .string(let y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            default: return rank(a) < rank(b)
            }
        }
        let expected = values.indices.sorted { a, b in
            less(values[a], values[b]) || (!less(values[b], values[a]) && a < b)
        }
        let pipeline = try OperationCatalog.compile(
            steps: json(#"[{"sort": {"by": "v"}}]"#), context: OperationCompileContext())
        XCTAssertEqual(try pipeline.run(input).value.elementsField("i"), expected)
    }

    func testByPointerAndShorthand() throws {
        let input = #"[{"a": {"b": 2}}, {"a": {"b": 1}}]"#
        assertJSON(try transform(#"{"sort": {"by": "/a/b"}}"#, on: input).value, #"[{"a": {"b": 1}}, {"a": {"b": 2}}]"#)
        assertJSON(
            try transform(#"{"sort": "name"}"#, on: #"[{"name": "b"}, {"name": "a"}]"#).value,
            #"[{"name": "a"}, {"name": "b"}]"#)
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
