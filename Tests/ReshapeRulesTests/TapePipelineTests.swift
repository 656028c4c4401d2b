import ReshapeJSON
import ReshapeSchema
import XCTest

@testable import ReshapeRules

/// Multi-step pipelines on the tape against the same pipelines on the tree: the same bytes,
/// drops and errors, on inputs written with whitespace and escapes (so copied bytes must be
/// re-spelled) and with every record shape keyed-to-array distinguishes.
final class TapePipelineTests: XCTestCase {
    private func context() throws -> OperationCompileContext {
        let user = json(
            #"""
            {"type": "object", "required": ["objectId", "name"], "additionalProperties": false,
             "properties": {"objectId": {"type": "string", "minLength": 2}, "name": {"type": "string", "minLength": 1},
                            "age": {"type": "integer", "minimum": 0}, "tags": {"type": "array", "items": {"type": "string"}},
                            "value": {}}}
            """#)
        return OperationCompileContext(types: try SchemaSet(types: [("User", user)]))
    }

    private let pipelines = [
        #"[{"keyed-to-array": {"key": "objectId"}}, {"validate": {"type": "User", "invalid": "drop"}}, {"wrap": "objects"}]"#,
        #"[{"keyed-to-array": {"key": "objectId", "order": "key"}}, {"coerce": {"age": "integer", "invalid": "keep"}}, {"validate": {"type": "User", "invalid": "drop"}}, {"wrap": "objects"}]"#,
        #"[{"keyed-to-array": {"key": "objectId", "order": "numeric-key", "conflict": "keep"}}, {"coerce": {"age": "integer", "invalid": "drop"}}, {"validate": {"type": "User", "invalid": "keep"}}]"#,
        #"[{"keyed-to-array": {"key": "objectId", "conflict": "fail"}}, {"validate": {"type": "User", "invalid": "fail"}}]"#,
        #"[{"keyed-to-array": {}}, {"coerce": {"age": "string", "objectId": "integer", "invalid": "drop"}}, {"wrap": "a"}, {"wrap": "b"}]"#,
        #"[{"select": "/data"}, {"require": "present"}, {"keyed-to-array": {"key": "objectId"}}, {"rename": {"name": "fullName"}}, {"wrap": "objects"}]"#,
        #"[{"validate": {"type": "User", "invalid": "drop"}}, {"wrap": "objects"}]"#,
        #"[{"keyed-to-array": {"key": "objectId"}}, {"sort": {"by": "name"}}, {"validate": {"type": "User", "invalid": "drop"}}]"#,
    ]

    private let inputs = [
        #"{"u1": {"name": "Ada", "age": 36}, "u2": {"name": "", "age": 1}, "u3": {"name": "Bea", "age": "41"}}"#,
        #"{ "u1" : { "name" : "A\/da", "tags" : [ "x" , "\u0041" ] } ,"u\u0032":{"name":"B\"\n"},"3":{}, "10": {"name": "C", "objectId": "own"}}"#,
        #"{"u1": 5, "u2": null, "u3": [1, 2], "u4": {"name": "Dee", "age": 4.0}, "u5": {"name": "Eve", "age": -0}}"#,
        #"{"data": {"a1": {"name": "Z"}, "b2": {"name": "Y", "age": "x"}}}"#,
        #"{"data": null}"#,
        #"null"#,
        #"[{"name": "Ann", "objectId": "k1"}, null, {"name": ""}]"#,
        #"{}"#,
        #""not a collection""#,
    ]

    func testEveryPipelineAgreesOnEveryInput() throws {
        let ctx = try context()
        var outcomes = 0
        for steps in pipelines {
            let pipeline = try OperationCatalog.compile(steps: json(steps), context: ctx)
            for input in inputs {
                // As written (re-spelled on output) and compact (copied as is).
                _ = try? runBothWays(pipeline, on: input)
                _ = try? runBothWays(pipeline, on: json(input).serializedString())
                outcomes += 1
            }
        }
        XCTAssertEqual(outcomes, pipelines.count * inputs.count)
    }

    /// `order: query` with every `orderBy` the run can get, on every input: the same bytes,
    /// drops and errors on both paths.
    func testQueryOrderAgreesOnEveryInputAndOrder() throws {
        var ctx = try context()
        ctx.firebaseQuery = true
        let queryPipelines = [
            #"[{"keyed-to-array": {"key": "objectId", "order": "query"}}, {"validate": {"type": "User", "invalid": "drop"}}, {"wrap": "objects"}]"#,
            #"[{"keyed-to-array": {"key": "objectId", "order": "query", "conflict": "keep"}}, {"coerce": {"age": "integer", "invalid": "drop"}}]"#,
            #"[{"select": "/data"}, {"keyed-to-array": {"order": "query", "conflict": "fail"}}, {"rename": {"name": "n"}}]"#,
        ]
        let orders: [FirebaseQuery.Order] = [.key, .value, .child(["age"]), .child(["name"]), .child(["tags", "0"])]
        for steps in queryPipelines {
            let pipeline = try OperationCatalog.compile(steps: json(steps), context: ctx)
            for input in inputs {
                for order in orders {
                    _ = try? runBothWays(pipeline, on: input, queryOrder: order)
                    _ = try? runBothWays(pipeline, on: json(input).serializedString(), queryOrder: order)
                }
            }
        }
    }

    func testNamesMatchByCodePointsOnBothPaths() throws {
        // NFC "é" as the key or field, NFD "e\u0301" in the record: different names for JSON.
        for steps in [
            #"[{"keyed-to-array": {"key": "\u00e9"}}]"#,
            #"[{"keyed-to-array": {"key": "\u00e9", "conflict": "fail"}}]"#,
            #"[{"keyed-to-array": {}}, {"coerce": {"\u00e9": "integer", "invalid": "fail"}}]"#,
        ] {
            let pipeline = try OperationCatalog.compile(steps: json(steps), context: try context())
            let output = try runBothWays(pipeline, on: #"{"a":{"e\u0301":"x"}}"#)
            XCTAssertEqual(output.value.serializedString().utf8.count, output.serialized().count)
        }
        let pipeline = try OperationCatalog.compile(
            steps: json(#"[{"keyed-to-array": {"key": "\u00e9"}}]"#), context: try context())
        XCTAssertEqual(
            try runBothWays(pipeline, on: #"{"a":{"e\u0301":1}}"#).value,
            json(#"[{"\u00e9":"a","e\u0301":1}]"#))
    }

    func testTheHeadlineRouteKeepsRecordsOnTheTape() throws {
        let pipeline = try OperationCatalog.compile(steps: json(pipelines[1]), context: try context())
        let output = try runBothWays(pipeline, on: inputs[0])
        guard case .records(let list) = output.tapeValue.core else { return XCTFail("the output was built as a tree") }
        XCTAssertEqual(output.tapeValue.envelopes, ["objects"])
        // u1 is valid as sent and stays bytes; u3's "41" was converted, so it was built.
        XCTAssertEqual(list.records.count, 2)
        guard case .onTape = list.records[0], case .tree = list.records[1] else { return XCTFail("\(list.records)") }
        XCTAssertEqual(output.dropped.map(\.pointer), ["/1"])
    }

    func testRandomKeyedCollectionsAgree() throws {
        let pipeline = try OperationCatalog.compile(steps: json(pipelines[1]), context: try context())
        var queryContext = try context()
        queryContext.firebaseQuery = true
        let byQuery = try OperationCatalog.compile(
            steps: json(pipelines[1].replacingOccurrences(of: #""order": "key""#, with: #""order": "query""#)),
            context: queryContext)
        var state: UInt64 = 3
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let names = ["\"Ada\"", "\"\"", "\"B\\u00e9a\"", "7", "null", "\"O'Brien \\\"x\\\"\""]
        let ages = ["36", "\"41\"", "-3", "4.5", "\"x\"", "null", "1e2"]
        for _ in 0..<200 {
            var members: [String] = []
            for i in 0..<next(8) {
                var fields: [String] = []
                if next(4) > 0 { fields.append("\"name\": \(names[next(names.count)])") }
                if next(3) > 0 { fields.append("\"age\" :\(ages[next(ages.count)])") }
                if next(6) == 0 { fields.append("\"objectId\": \"own\(i)\"") }
                if next(5) == 0 { fields.append("\"tags\": [\"t\", \(next(2) == 0 ? "1" : "\"u\"")]") }
                members.append(
                    "\"k\(next(50))_\(i)\": "
                        + (next(9) == 0 ? "42" : "{\(fields.joined(separator: next(2) == 0 ? "," : " , "))}"))
            }
            let text = "{\(members.joined(separator: ","))}"
            _ = try? runBothWays(pipeline, on: text)
            _ = try? runBothWays(pipeline, on: json(text).serializedString())
            for order: FirebaseQuery.Order in [.key, .child(["age"]), .child(["name"])] {
                _ = try? runBothWays(byQuery, on: text, queryOrder: order)
            }
        }
    }

    func testKeyOrderOnTheTapeMatchesTheTree() throws {
        // Names that are prefixes of others, non-ASCII (multi-byte UTF-8 orders as code points)
        // and escaped names (which the byte comparison must hand to the general path).
        let pipeline = try OperationCatalog.compile(steps: json(pipelines[1]), context: try context())
        let parts = ["a", "b", "ab", "é", "東", "Z", "-", "_", "0", "~", "\\u00e9", "\\u0041"]
        var state: UInt64 = 11
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for round in 0..<300 {
            var seen: Set<String> = []
            var members: [String] = []
            for _ in 0..<next(12) {
                let name = (0..<(1 + next(3))).map { _ in
                    parts[round % 3 == 0 ? next(parts.count) : next(parts.count - 2)]
                }.joined()
                // Names are unique as decoded: "\\u00e9" and "é" are the same name.
                guard seen.insert(name.replacing("\\u00e9", with: "é").replacing("\\u0041", with: "A")).inserted else {
                    continue
                }
                members.append("\"\(name)\": {\"name\": \"N\"}")
            }
            let output = try runBothWays(pipeline, on: "{\(members.joined(separator: ","))}")
            guard case .object(let top) = output.value, case .array(let records)? = top["objects"] else {
                return XCTFail("no objects")
            }
            let ids: [String] = records.compactMap { record in
                guard case .object(let fields) = record, case .string(let id)? = fields["objectId"] else { return nil }
                return id
            }
            XCTAssertEqual(ids.count, records.count)
            XCTAssertEqual(
                ids, ids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, "round \(round)")
        }
    }

    func testLongNamesSharingTheirFirstWordsSortByEveryByte() throws {
        // Push-id-like names: long shared prefixes, lengths across the 8- and 16-byte words,
        // and multi-byte characters at the word edges.
        let alphabet = ["-", "N", "j", "E", "t", "a", "b", "é", "東", "_"]
        var state: UInt64 = 5
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for round in 0..<200 {
            let stem = (0..<next(18)).map { _ in alphabet[next(3)] }.joined()
            var names: Set<String> = []
            for _ in 0..<(2 + next(30)) { names.insert(stem + (0..<next(12)).map { _ in alphabet[next(10)] }.joined()) }
            let text = "{" + names.map { "\"\($0)\":0" }.joined(separator: ",") + "}"
            let tape = try JSONTape.parse(Array(text.utf8))
            var nameNodes: [Int] = []
            tape.forEachMember(tape.root) { name, _ in nameNodes.append(name) }
            let order = try XCTUnwrap(KeyOrder.byteOrder(of: nameNodes, in: tape))
            let sorted = order.map { tape.string(nameNodes[$0]) }
            XCTAssertEqual(
                sorted, names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, "round \(round)")
        }
    }
}
