import ReshapeJSON
import ReshapeRules
import XCTest

@testable import ReshapeContract

/// `reshape infer`'s drafts: the layout the samples call for, the types they show, and a file
/// that loads and passes its own examples whatever the samples hold.
final class RuleDraftTests: XCTestCase {
    private func json(_ text: String) -> JSON { try! JSON.parse(Array(text.utf8)) }

    /// Drafts from samples, loads the file and runs its examples; returns the loaded route and its types.
    @discardableResult
    private func draft(
        _ samples: [String], _ configure: (inout RuleDraft.Options) -> Void = { _ in },
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (text: String, route: Route, types: JSON) {
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
        let result = try draft([
            #"{"-Nx2": {"a": 1, "b": "x"}, "-Nx1": {"a": 1.5}, "-Nx3": {"a": null, "c": [1, "y"]}}"#
        ])
        XCTAssertEqual(
            result.types,
            json(
                #"""
                {"Thing": {"type": "object", "required": ["objectId", "a"], "properties": {
                  "objectId": {"type": "string"}, "a": {"type": ["number", "null"]}, "b": {"type": "string"},
                  "c": {"type": "array", "items": {"type": ["string", "integer"]}}}}}
                """#))
        XCTAssertEqual(
            result.route.pipeline.written.first, json(#"{"keyed-to-array": {"key": "objectId", "order": "key"}}"#))
        XCTAssertTrue(result.text.contains("request: \"GET /things\""), result.text)
    }

    func testSeveralSamplesMergeAndNullIsAnEmptyCollection() throws {
        let result = try draft([#"{"u1": {"name": "A", "id": 1}}"#, "null", "{}", #"{"u2": {"name": 5}}"#])
        // The records have an `id` field: the key goes elsewhere.
        XCTAssertEqual(
            result.route.pipeline.written.first, json(#"{"keyed-to-array": {"key": "objectId", "order": "key"}}"#))
        XCTAssertEqual(result.types.record?["Thing"]?.record?["required"], json(#"["objectId", "name"]"#))
        XCTAssertEqual(
            result.types.record?["Thing"]?.record?["properties"]?.record?["name"],
            json(#"{"type": ["string", "integer"]}"#))
        let clash = try draft([#"{"u1": {"objectId": "own", "name": "A"}}"#])
        XCTAssertEqual(clash.route.pipeline.written.first, json(#"{"keyed-to-array": {"key": "id", "order": "key"}}"#))
    }

    func testOnlyEmptyCollectionsGiveARecordWithItsKey() throws {
        let result = try draft(["null"], { $0.key = "uid" })
        XCTAssertEqual(
            result.types,
            json(#"{"Thing": {"type": "object", "required": ["uid"], "properties": {"uid": {"type": "string"}}}}"#))
    }

    func testArrayWithHolesIsIntegerKeyed() throws {
        let result = try draft([#"[null, {"p": "a"}, null, {"p": "b", "n": 2}]"#, #"{"7": {"p": "c"}}"#])
        XCTAssertEqual(
            result.route.pipeline.written.first,
            json(#"{"keyed-to-array": {"key": "objectId", "order": "numeric-key"}}"#))
    }

    func testPlainArraysAndSingleValuesAreNotKeyed() throws {
        let list = try draft([#"[{"a": 1}, {"a": 2, "b": true}]"#, "[]"])
        XCTAssertEqual(
            list.route.pipeline.written,
            [json(#"{"validate": {"type": "Thing", "invalid": "drop"}}"#), json(#"{"wrap": "objects"}"#)])
        XCTAssertEqual(
            list.types,
            json(
                #"{"Thing": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}}}}"#
            ))
        let scalars = try draft([#"[1, 2.5, "x"]"#])
        XCTAssertEqual(scalars.types, json(#"{"Thing": {"type": ["string", "number"]}}"#))
        // Word keys with members of different shapes: one record, not a collection.
        let record = try draft(
            [#"{"name": "Ada", "address": {"city": "L"}, "profile": {"bio": "x"}}"#, "null"],
            {
                $0.request = "GET /users/{id}"
                $0.typeName = "User"
            })
        XCTAssertEqual(
            record.route.pipeline.written,
            [json(#"{"require": "present"}"#), json(#"{"validate": {"type": "User", "invalid": "fail"}}"#)])
        XCTAssertEqual(record.route.examples.map(\.error), [nil, "not-found"])
        XCTAssertEqual(record.route.examples.first?.parameters, ["id": "sample"])
        XCTAssertEqual(record.route.upstreamPath.description, "/users/{id}.json")
    }

    func testFormatsOnlyWhereEveryValueHasOne() throws {
        let result = try draft([
            #"""
            [{"e": "a@b.org", "d": "2024-02-29", "t": "2024-02-29T10:00:00Z", "u": "https://x.org/a", "m": "a@b.org"},
             {"e": "c@d.org", "d": "2023-01-01", "t": "2023-01-01T00:00:00+02:00", "u": "urn:isbn:1", "m": "not an email"}]
            """#
        ])
        let properties = result.types.record?["Thing"]?.record?["properties"]
        XCTAssertEqual(
            properties,
            json(
                #"""
                {"e": {"type": "string", "format": "email"}, "d": {"type": "string", "format": "date"},
                 "t": {"type": "string", "format": "date-time"}, "u": {"type": "string", "format": "uri"}, "m": {"type": "string"}}
                """#))
    }

    func testEnumsOnlyWhenAskedAndForSmallRepeatedSets() throws {
        let samples = [
            #"[{"os": "ios", "n": "a"}, {"os": "android", "n": "b"}, {"os": "ios", "n": "c"}, {"os": null, "n": "d"}]"#
        ]
        let plain = try draft(samples)
        XCTAssertEqual(
            plain.types.record?["Thing"]?.record?["properties"]?.record?["os"], json(#"{"type": ["string", "null"]}"#))
        let closed = try draft(samples, { $0.enums = true })
        XCTAssertEqual(
            closed.types.record?["Thing"]?.record?["properties"],
            json(#"{"os": {"enum": ["ios", "android", null]}, "n": {"type": "string"}}"#))
    }

    func testNestedCollectionsBecomeGroupsOfRecords() throws {
        let result = try draft(
            [#"{"-U1": {"-D2": {"m": "x"}, "-D1": {"m": "y"}}, "-U2": {}}"#],
            {
                $0.typeName = "Device"
                $0.key = "userId"
            })
        XCTAssertEqual(
            result.route.pipeline.written.prefix(2),
            [
                json(#"{"at": {"path": "/*", "do": [{"keyed-to-array": {"key": "deviceId", "order": "key"}}]}}"#),
                json(#"{"keyed-to-array": {"key": "userId", "value": "devices", "order": "key"}}"#),
            ])
        XCTAssertEqual(
            result.types.record?["DeviceGroup"]?.record?["properties"]?.record?["devices"],
            json(#"{"type": "array", "items": {"$ref": "Device"}}"#))
    }

    func testStringsThatYAMLWouldMisreadAreQuoted() throws {
        let tricky =
            ##"{"-k1": {"s": ["yes", "No", "42", "-x", "a: b", "", "#c", "~", "null", "1e3", "x y", "é", "line\nbreak", "@at", "[a]"]}}"##
        let result = try draft([tricky])
        XCTAssertEqual(result.route.examples[0].upstream, json(tricky))
    }

    func testBadRequestLineIsAUsageMistake() {
        var options = RuleDraft.Options()
        options.request = "users"
        XCTAssertThrowsError(try RuleDraft(samples: [.null], options: options).yaml())
    }

    // MARK: - Outliers

    /// Records for a plain-array sample: `count` copies of `usual`, then `odd`.
    private func records(_ usual: String, _ count: Int, _ odd: [String]) -> String {
        "[" + (Array(repeating: usual, count: count) + odd).joined(separator: ", ") + "]"
    }

    private func thing(_ result: (text: String, route: Route, types: JSON)) -> JSON? { result.types.record?["Thing"] }

    func testAMinorityMissingAMemberMakesItRequired() throws {
        let result = try draft([records(#"{"a": 1, "b": "x"}"#, 3, [#"{"a": 2}"#])])
        XCTAssertEqual(thing(result)?.record?["required"], json(#"["a", "b"]"#))
        XCTAssertTrue(result.text.contains("required: [a, b]  # 1 of 4 had no b: treated as corrupt"), result.text)
        XCTAssertTrue(result.text.contains("dropped: 1"), result.text)
    }

    func testEmptyStringsAndNegativeNumbersInAMinority() throws {
        let result = try draft([records(#"{"s": "x", "k": 3}"#, 5, [#"{"s": "", "k": 0}"#, #"{"s": "y", "k": -1}"#])])
        XCTAssertEqual(
            thing(result)?.record?["properties"],
            json(#"{"s": {"type": "string", "minLength": 1}, "k": {"type": "integer", "minimum": 0}}"#))
        XCTAssertTrue(
            result.text.contains(#"s: { type: string, minLength: 1 }  # 1 of 7 had "" here: treated as corrupt"#),
            result.text)
        XCTAssertTrue(
            result.text.contains(
                "k: { type: integer, minimum: 0 }  # 1 of 7 had a negative number here: treated as corrupt"),
            result.text)
        XCTAssertTrue(result.text.contains("dropped: 2"), result.text)
        // A format judged without the empty strings: those are dropped anyway.
        let emails = try draft([records(#"{"e": "a@b.org"}"#, 4, [#"{"e": ""}"#])])
        XCTAssertEqual(
            thing(emails)?.record?["properties"]?.record?["e"],
            json(#"{"type": "string", "format": "email", "minLength": 1}"#))
    }

    func testIntegersAsStringsAreCoercedBeforeValidate() throws {
        let result = try draft([records(#"{"k": 3}"#, 3, [#"{"k": "42"}"#])])
        XCTAssertEqual(thing(result)?.record?["properties"]?.record?["k"], json(#"{"type": "integer"}"#))
        XCTAssertEqual(
            result.route.pipeline.written,
            [
                json(#"{"coerce": {"k": "integer", "invalid": "keep"}}"#),
                json(#"{"validate": {"type": "Thing", "invalid": "drop"}}"#), json(#"{"wrap": "objects"}"#),
            ])
        XCTAssertTrue(
            result.text.contains(
                #"- coerce: { k: integer, invalid: keep }  # k: 1 of 4 had an integer as a string ("42"): coerced to integer"#
            ), result.text)
        XCTAssertFalse(result.text.contains("dropped:"), result.text)
        // Numbers: any number as a string.
        let prices = try draft([records(#"{"p": 1.5}"#, 3, [#"{"p": "7.25"}"#])])
        XCTAssertEqual(prices.route.pipeline.written.first, json(#"{"coerce": {"p": "number", "invalid": "keep"}}"#))
    }

    func testAnyOtherTypeInAMinorityKeepsTheMajoritysType() throws {
        let result = try draft([
            records(#"{"k": 3, "s": "x"}"#, 4, [#"{"k": "many", "s": 5}"#, #"{"k": null, "s": "y"}"#])
        ])
        // `null` is not an outlier: a nullable member is meant.
        XCTAssertEqual(
            thing(result)?.record?["properties"],
            json(#"{"k": {"type": ["integer", "null"]}, "s": {"type": "string"}}"#))
        XCTAssertTrue(result.text.contains("1 of 6 had a number here, not a string: treated as corrupt"), result.text)
        // "many" is not an integer: a coerce step (keep) leaves it for validate to drop.
        XCTAssertTrue(result.text.contains("dropped: 1"), result.text)
    }

    func testNoOutliersInSmallCollectionsLargeMinoritiesOrSingleValues() throws {
        // Three records: too few to tell a pattern from a coincidence.
        let few = try draft([records(#"{"a": 1, "b": "x"}"#, 2, [#"{"a": -2, "b": ""}"#])])
        XCTAssertEqual(
            thing(few),
            json(
                #"{"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}"#
            ))
        // Two odd of six is more than a quarter.
        let many = try draft([records(#"{"a": 1, "b": 1}"#, 4, [#"{"a": "x"}"#, #"{"a": "y"}"#])])
        XCTAssertEqual(thing(many)?.record?["properties"]?.record?["a"], json(#"{"type": ["string", "integer"]}"#))
        XCTAssertEqual(thing(many)?.record?["required"], json(#"["a"]"#))
        // One value: no majority to go by.
        let single = try draft([#"{"tags": ["a", "b", "c", "d", ""]}"#], { $0.request = "GET /thing" })
        XCTAssertEqual(
            thing(single)?.record?["properties"]?.record?["tags"],
            json(#"{"type": "array", "items": {"type": "string"}}"#))
    }

    func testNoOutliersOptionInfersOnlyWhatEveryRecordHas() throws {
        let sample = records(#"{"a": 1, "s": "x"}"#, 5, [#"{"a": "2", "s": ""}"#, #"{"s": "y"}"#])
        let on = try draft([sample])
        XCTAssertTrue(on.text.contains("# "), on.text)
        let off = try draft([sample], { $0.outliers = false })
        XCTAssertEqual(
            thing(off),
            json(
                #"{"type": "object", "required": ["s"], "properties": {"a": {"type": ["string", "integer"]}, "s": {"type": "string"}}}"#
            ))
        XCTAssertFalse(off.text.contains("treated as corrupt"), off.text)
        XCTAssertFalse(off.text.contains("coerce"), off.text)
    }

    func testNestedPlacesDropRatherThanCoerce() throws {
        // A coerce step reaches the record's own members only: deeper, an integer as a string is dropped.
        let result = try draft([records(#"{"home": {"k": 1}}"#, 3, [#"{"home": {"k": "2"}}"#])])
        XCTAssertEqual(
            thing(result)?.record?["properties"]?.record?["home"],
            json(#"{"type": "object", "required": ["k"], "properties": {"k": {"type": "integer"}}}"#))
        XCTAssertTrue(
            result.text.contains("k: { type: integer }  # 1 of 4 had a string here, not a number: treated as corrupt"),
            result.text)
        XCTAssertTrue(result.text.contains("dropped: 1"), result.text)
        // In a nested collection, the records are checked the same way, and groups too.
        let devices = try draft(
            [#"{"-U1": {"-D1": {"m": "a"}, "-D2": {"m": "b"}}, "-U2": {"-D3": {"m": "c"}, "-D4": {"m": ""}}}"#],
            { $0.typeName = "Device" })
        XCTAssertEqual(
            devices.types.record?["Device"]?.record?["properties"]?.record?["m"],
            json(#"{"type": "string", "minLength": 1}"#))
    }
}
