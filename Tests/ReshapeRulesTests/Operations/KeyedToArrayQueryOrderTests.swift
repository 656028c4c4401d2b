import ReshapeJSON
import XCTest

@testable import ReshapeRules

/// `keyed-to-array`'s `order: query`: the order Firebase's SDK gives a query's children, on
/// the tree and on the tape alike (`transform` runs both and compares their bytes).
final class KeyedToArrayQueryOrderTests: XCTestCase {
    private let query = OperationCompileContext(firebaseQuery: true)
    private let step = #"{"keyed-to-array": {"order": "query", "key": "id"}}"#

    private func ids(_ input: String, _ order: FirebaseQuery.Order, file: StaticString = #filePath, line: UInt = #line)
        throws -> [String]
    {
        let output = try transform(step, on: input, context: query, queryOrder: order, file: file, line: line)
        guard case .array(let records) = output.value else {
            XCTFail("not an array: \(output.value)", file: file, line: line)
            return []
        }
        return records.map { $0.objectValue?["id"]?.stringValue ?? "?" }
    }

    func testByKeyIntegersFirstNumericallyThenTheRestByBytes() throws {
        let input = #"{"b": 1, "10": 2, "-3": 3, "a": 4, "9": 5, "09": 6, "2147483648": 7, "B": 8, "-0": 9}"#
        // 2147483648 is past 32 bits: a string. "09" is 9 written longer, so after "9"; "-0" is 0.
        XCTAssertEqual(try ids(input, .key), ["-3", "-0", "9", "09", "10", "2147483648", "B", "a", "b"])
    }

    func testByChildNullsFalseTrueNumbersStringsObjectsTiesByKey() throws {
        let input = """
            {"s2": {"age": "b"}, "n10": {"age": 10}, "o": {"age": {"x": 1}}, "t": {"age": true},
             "missing": {}, "n2": {"age": 2.5}, "f": {"age": false}, "nul": {"age": null}, "s1": {"age": "a"},
             "n1": {"age": 2.5}, "big": {"age": 1e400}, "a": {"age": [1]}, "scalar": 7}
            """
        XCTAssertEqual(
            try ids(input, .child(["age"])),
            ["missing", "nul", "scalar", "f", "t", "n1", "n2", "n10", "big", "s1", "s2", "a", "o"])
    }

    func testByNestedChildPath() throws {
        let input = #"{"u1": {"a": {"city": "Rome"}}, "u2": {"a": {"city": "Oslo"}}, "u3": {"a": "Paris"}}"#
        XCTAssertEqual(try ids(input, .child(["a", "city"])), ["u3", "u2", "u1"])
    }

    func testByValue() throws {
        let input = #"{"x": 3, "y": "z", "w": {"n": 1}, "v": 3, "u": null, "t": true, "s": -1}"#
        let output = try transform(step, on: input, context: query, queryOrder: .value)
        assertJSON(
            output.value,
            #"""
            [{"id": "u", "value": null}, {"id": "t", "value": true}, {"id": "s", "value": -1},
             {"id": "v", "value": 3}, {"id": "x", "value": 3}, {"id": "y", "value": "z"}, {"id": "w", "n": 1}]
            """#)
    }

    func testRecordsThatAreBuiltKeepTheirPlace() throws {
        // "b" already has the key field (the tape builds it), "c" is not an object.
        let input = #"{"c": 5, "b": {"id": "old", "age": 1}, "a": {"age": 2}}"#
        XCTAssertEqual(try ids(input, .child(["age"])), ["c", "b", "a"])  // a scalar has no child: null
        XCTAssertEqual(try ids(input, .child(["id"])), ["a", "c", "b"])
    }

    func testFirebaseArrayFormIsOrderedLikeItsObject() throws {
        XCTAssertEqual(try ids(#"[null, {"age": 9}, {"age": 1}, null, {"age": 5}]"#, .child(["age"])), ["2", "4", "1"])
        XCTAssertEqual(try ids("null", .value), [])
    }

    func testWithoutOrderByTheSDKOrdersByKey() throws {
        let pipeline = try OperationCatalog.compile(steps: json("[\(step)]"), context: query)
        let output = try pipeline.run(json(#"{"b": {}, "2": {}, "a": {}, "1": {}}"#))
        assertJSON(output.value, #"[{"id": "1"}, {"id": "2"}, {"id": "a"}, {"id": "b"}]"#)
    }

    func testNestedInAtAndEach() throws {
        let output = try transform(
            #"{"at": {"path": "/list", "do": [{"keyed-to-array": {"order": "query"}}]}}"#,
            on: #"{"list": {"p": {"n": 2}, "q": {"n": 1}}}"#, context: query, queryOrder: .child(["n"]))
        assertJSON(output.value, #"{"list": [{"objectId": "q", "n": 1}, {"objectId": "p", "n": 2}]}"#)
    }

    func testRefusedWithoutAFirebaseQuery() {
        let error = configError(#"{"keyed-to-array": {"order": "query"}}"#)
        XCTAssertEqual(error?.pointer, "/keyed-to-array/order")
        XCTAssertTrue(error?.message.contains("firebase-query: true") ?? false, "\(String(describing: error))")
    }

    /// Random keyed objects, both paths, every order: the same bytes (checked by `transform`),
    /// and sorted as the comparator says.
    func testRandomDocumentsAgreeOnBothPaths() throws {
        var random = SystemRandomNumberGenerator()
        let names = ["1", "01", "-2", "10", "a", "B", "é", "x y", "2147483647", "99999999999", "\\u0041", "k"]
        let values = ["null", "true", "false", "1", "-1.5", "1e2", "\"a\"", "\"B\"", "{}", "[1]", "{\"age\": 3}"]
        for _ in 0..<300 {
            var members: [String] = []
            for name in names.shuffled(using: &random).prefix(Int.random(in: 0...names.count, using: &random)) {
                let value =
                    Bool.random(using: &random)
                    ? values.randomElement(using: &random)!
                    : "{\"age\": \(values.randomElement(using: &random)!), \"n\": 1}"
                members.append("\"\(name)\": \(value)")
            }
            let input = "{" + members.joined(separator: ", ") + "}"
            for order: FirebaseQuery.Order in [.key, .value, .child(["age"]), .child(["age", "x"])] {
                _ = try transform(step, on: input, context: query, queryOrder: order)
            }
        }
    }
}
