import ReshapeJSON
import ReshapeRules
@testable import ReshapeContract
import XCTest

/// `reshape infer`'s drafts: the layout the samples call for, the types they show, and a file
/// that loads and passes its own examples whatever the samples hold.
final class RuleDraftTests: XCTestCase {
    private func json(_ text: String) -> JSON { try! JSON.parse(Array(text.utf8)) }

    /// Drafts from samples, loads the file and runs its examples; returns the loaded route and its types.
    @discardableResult
    private func draft(_ samples: [String], _ configure: (inout RuleDraft.Options) -> Void = { _ in },
                       file: StaticString = #filePath, line: UInt = #line) throws -> (text: String, route: Route, types: JSON) {
        var options = RuleDraft.Options()
        options.sampleName = "things.json"
        configure(&options)
        let output = try RuleDraft(samples: samples.map(json), options: options).build()
        let text = output.text
        guard case .success(let rules) = RuleLoader.load(files: [(name: "t.yaml", text: text)], environment: [:]) else {
            XCTFail("the draft does not load:\n\(text)", file: file, line: line)
            throw RuleDraft.Failure(description: "no load")
        }
        for outcome in ExampleRunner.run(rules) {
            XCTAssertNil(outcome.failure, "\(outcome.failure ?? "")\n\(text)", file: file, line: line)
        }
        return (text, rules.routes[0], output.types)
    }

    func testKeyedCollectionOfMixedShapesMergesItsRecords() throws {
        let result = try draft([#"{"-Nx2": {"a": 1, "b": "x"}, "-Nx1": {"a": 1.5}, "-Nx3": {"a": null, "c": [1, "y"]}}"#])
        XCTAssertEqual(result.types, json(#"""
            {"Thing": {"type": "object", "required": ["objectId", "a"], "properties": {
              "objectId": {"type": "string"}, "a": {"type": ["number", "null"]}, "b": {"type": "string"},
              "c": {"type": "array", "items": {"type": ["string", "integer"]}}}}}
            """#))
        XCTAssertEqual(result.route.pipeline.written.first, json(#"{"keyed-to-array": {"key": "objectId", "order": "key"}}"#))
        XCTAssertTrue(result.text.contains("request: \"GET /things\""), result.text)
    }

    func testSeveralSamplesMergeAndNullIsAnEmptyCollection() throws {
        let result = try draft([#"{"u1": {"name": "A", "id": 1}}"#, "null", "{}", #"{"u2": {"name": 5}}"#])
        // The records have an `id` field: the key goes elsewhere.
        XCTAssertEqual(result.route.pipeline.written.first, json(#"{"keyed-to-array": {"key": "objectId", "order": "key"}}"#))
        XCTAssertEqual(result.types.record?["Thing"]?.record?["required"], json(#"["objectId", "name"]"#))
        XCTAssertEqual(result.types.record?["Thing"]?.record?["properties"]?.record?["name"], json(#"{"type": ["string", "integer"]}"#))
        let clash = try draft([#"{"u1": {"objectId": "own", "name": "A"}}"#])
        XCTAssertEqual(clash.route.pipeline.written.first, json(#"{"keyed-to-array": {"key": "id", "order": "key"}}"#))
    }

    func testOnlyEmptyCollectionsGiveARecordWithItsKey() throws {
        let result = try draft(["null"], { $0.key = "uid" })
        XCTAssertEqual(result.types, json(#"{"Thing": {"type": "object", "required": ["uid"], "properties": {"uid": {"type": "string"}}}}"#))
    }

    func testArrayWithHolesIsIntegerKeyed() throws {
        let result = try draft([#"[null, {"p": "a"}, null, {"p": "b", "n": 2}]"#, #"{"7": {"p": "c"}}"#])
        XCTAssertEqual(result.route.pipeline.written.first, json(#"{"keyed-to-array": {"key": "objectId", "order": "numeric-key"}}"#))
    }

    func testPlainArraysAndSingleValuesAreNotKeyed() throws {
        let list = try draft([#"[{"a": 1}, {"a": 2, "b": true}]"#, "[]"])
        XCTAssertEqual(list.route.pipeline.written, [json(#"{"validate": {"type": "Thing", "invalid": "drop"}}"#), json(#"{"wrap": "objects"}"#)])
        XCTAssertEqual(list.types, json(#"{"Thing": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}}}}"#))
        let scalars = try draft([#"[1, 2.5, "x"]"#])
        XCTAssertEqual(scalars.types, json(#"{"Thing": {"type": ["string", "number"]}}"#))
        // Word keys with members of different shapes: one record, not a collection.
        let record = try draft([#"{"name": "Ada", "address": {"city": "L"}, "profile": {"bio": "x"}}"#, "null"],
                               { $0.request = "GET /users/{id}"; $0.typeName = "User" })
        XCTAssertEqual(record.route.pipeline.written, [json(#"{"require": "present"}"#), json(#"{"validate": {"type": "User", "invalid": "fail"}}"#)])
        XCTAssertEqual(record.route.examples.map(\.error), [nil, "not-found"])
        XCTAssertEqual(record.route.examples.first?.parameters, ["id": "sample"])
        XCTAssertEqual(record.route.upstreamPath.description, "/users/{id}.json")
    }

    func testFormatsOnlyWhereEveryValueHasOne() throws {
        let result = try draft([#"""
            [{"e": "a@b.org", "d": "2024-02-29", "t": "2024-02-29T10:00:00Z", "u": "https://x.org/a", "m": "a@b.org"},
             {"e": "c@d.org", "d": "2023-01-01", "t": "2023-01-01T00:00:00+02:00", "u": "urn:isbn:1", "m": "not an email"}]
            """#])
        let properties = result.types.record?["Thing"]?.record?["properties"]
        XCTAssertEqual(properties, json(#"""
            {"e": {"type": "string", "format": "email"}, "d": {"type": "string", "format": "date"},
             "t": {"type": "string", "format": "date-time"}, "u": {"type": "string", "format": "uri"}, "m": {"type": "string"}}
            """#))
    }

    func testEnumsOnlyWhenAskedAndForSmallRepeatedSets() throws {
        let samples = [#"[{"os": "ios", "n": "a"}, {"os": "android", "n": "b"}, {"os": "ios", "n": "c"}, {"os": null, "n": "d"}]"#]
        let plain = try draft(samples)
        XCTAssertEqual(plain.types.record?["Thing"]?.record?["properties"]?.record?["os"], json(#"{"type": ["string", "null"]}"#))
        let closed = try draft(samples, { $0.enums = true })
        XCTAssertEqual(closed.types.record?["Thing"]?.record?["properties"], json(#"{"os": {"enum": ["ios", "android", null]}, "n": {"type": "string"}}"#))
    }

    func testNestedCollectionsBecomeGroupsOfRecords() throws {
        let result = try draft([#"{"-U1": {"-D2": {"m": "x"}, "-D1": {"m": "y"}}, "-U2": {}}"#], { $0.typeName = "Device"; $0.key = "userId" })
        XCTAssertEqual(result.route.pipeline.written.prefix(2), [
            json(#"{"at": {"path": "/*", "do": [{"keyed-to-array": {"key": "deviceId", "order": "key"}}]}}"#),
            json(#"{"keyed-to-array": {"key": "userId", "value": "devices", "order": "key"}}"#)])
        XCTAssertEqual(result.types.record?["DeviceGroup"]?.record?["properties"]?.record?["devices"], json(#"{"type": "array", "items": {"$ref": "Device"}}"#))
    }

    func testStringsThatYAMLWouldMisreadAreQuoted() throws {
        let tricky = ##"{"-k1": {"s": ["yes", "No", "42", "-x", "a: b", "", "#c", "~", "null", "1e3", "x y", "é", "line\nbreak", "@at", "[a]"]}}"##
        let result = try draft([tricky])
        XCTAssertEqual(result.route.examples[0].upstream, json(tricky))
    }

    func testBadRequestLineIsAUsageMistake() {
        var options = RuleDraft.Options()
        options.request = "users"
        XCTAssertThrowsError(try RuleDraft(samples: [.null], options: options).yaml())
    }
}
