import ReshapeJSON
import ReshapeTestSupport
import XCTest

@testable import ReshapeSchema

/// `Validator.isValid(tape, node, prepending:)` must answer exactly as `isValid(JSON)` on the
/// materialized value, and must stay on the tape for the schemas rule files use.
final class TapeValidationTests: XCTestCase {
    struct Tally {
        var compared = 0
        var prepended = 0
        var failures: [String] = []
    }

    /// Every instance of the suite, as a tape: the same verdict as the tree, and the expected one.
    func testSuiteVerdictsMatchTheTree() throws {
        let suite = try XCTUnwrap(ConformanceSuite.locate(), ConformanceSuite.notFound)
        var tally = Tally()
        for file in suite.jsonFiles(in: "") { compare(suite, file, options: .init(), expectSuite: true, &tally) }
        print("tape vs tree, required: \(tally.compared) instances, \(tally.prepended) with a prepended member")
        XCTAssertEqual(tally.compared, ConformanceSuite.requiredTests)
        XCTAssertGreaterThan(tally.prepended, 300)
        for failure in tally.failures { XCTFail(failure) }
    }

    /// The optional files (format asserting, bignum, ECMA regex...): the tape agrees with the
    /// tree even where the tree disagrees with the suite.
    func testOptionalSuiteVerdictsMatchTheTree() throws {
        let suite = try XCTUnwrap(ConformanceSuite.locate(), ConformanceSuite.notFound)
        var tally = Tally()
        for file in suite.jsonFiles(in: "optional/format") {
            compare(suite, file, options: .init(assertFormat: true), expectSuite: false, &tally)
        }
        for file in suite.jsonFiles(in: "optional") {
            compare(suite, file, options: .init(), expectSuite: false, &tally)
        }
        print("tape vs tree, optional: \(tally.compared) instances")
        XCTAssertGreaterThan(tally.compared, ConformanceSuite.optionalInstancesAtLeast)
        for failure in tally.failures { XCTFail(failure) }
    }

    /// Compares verdicts for each test of `file`: the instance as its own tape, and (for
    /// objects) with its first member taken off the tape and prepended instead.
    private func compare(
        _ suite: ConformanceSuite, _ file: String, options: SchemaOptions, expectSuite: Bool,
        _ tally: inout Tally
    ) {
        guard case .array(let groups)? = ConformanceSuite.parse(suite.testsDirectory.appendingPathComponent(file))
        else {
            tally.failures.append("\(file): cannot read")
            return
        }
        for case .object(let group) in groups {
            guard let schema = group["schema"], case .array(let tests)? = group["tests"],
                let validator = try? Validator(schema: schema, options: options, resolveRemote: suite.remotes)
            else { continue }
            for case .object(let test) in tests {
                guard let data = test["data"], case .bool(let expected)? = test["valid"] else { continue }
                let name =
                    "\(file) / \(group["description"].map(ConformanceSuite.text) ?? "?") / \(test["description"].map(ConformanceSuite.text) ?? "?")"
                let tree = validator.isValid(data)
                guard let tape = try? JSONTape.parse(data.serialized()) else {
                    tally.failures.append("\(name): instance does not parse as a tape")
                    continue
                }
                tally.compared += 1
                let onTape = validator.isValid(tape, tape.root)
                if onTape != tree { tally.failures.append("\(name): tape says \(onTape), tree says \(tree)") }
                if expectSuite, onTape != expected {
                    tally.failures.append("\(name): tape says \(onTape), suite says \(expected)")
                }
                if let (record, verdict) = prependedCase(validator, data) {
                    tally.prepended += 1
                    let withMember = validator.isValid(record.tape, record.node, prepending: record.member)
                    if withMember != verdict {
                        tally.failures.append("\(name) (prepended): tape says \(withMember), tree says \(verdict)")
                    }
                }
            }
        }
    }

    struct Record {
        let tape: JSONTape
        let node: Int
        let member: PrependedMember
    }

    /// For an object instance: its first member's value made a string (the name of a keyed
    /// record, as keyed-to-array prepends it), a tape `{"<that string>": <the other members>}`,
    /// and the tree's verdict on the whole object.
    private func prependedCase(_ validator: Validator, _ data: JSON) -> (Record, Bool)? {
        guard case .object(let object) = data, let first = object.members.first else { return nil }
        var key = "abc"
        if case .string(let s) = first.value { key = s }
        var whole = object
        whole.members[0].value = .string(key)
        let rest = JSON.object(JSONObject(Array(object.members.dropFirst())))
        let wrapper = JSON.object(JSONObject([JSONMember(key: key, value: rest)]))
        guard let tape = try? JSONTape.parse(wrapper.serialized()) else { return nil }
        // Node 1 is the wrapper's member name, node 2 the record.
        return (
            Record(tape: tape, node: 2, member: PrependedMember(name: first.key, valueNode: 1)),
            validator.isValid(.object(whole))
        )
    }

    /// A record whose id lives only in the wrapper's member name: every object keyword sees it.
    func testPrependedMemberIsSeenByObjectKeywords() throws {
        let schema = try JSON(
            parsing: #"""
                {
                  "type": "object",
                  "required": ["objectId", "name"],
                  "properties": {"objectId": {"type": "string", "minLength": 3}, "name": {"type": "string"}},
                  "additionalProperties": false,
                  "maxProperties": 2,
                  "minProperties": 2,
                  "propertyNames": {"maxLength": 8},
                  "dependentRequired": {"objectId": ["name"]}
                }
                """#)
        let validator = try Validator(schema: schema)
        let cases: [(String, String, Bool)] = [
            ("abc", #"{"name": "Ada"}"#, true),
            ("ab", #"{"name": "Ada"}"#, false),  // objectId too short
            ("abc", #"{}"#, false),  // name missing, too few properties
            ("abc", #"{"name": "Ada", "x": 1}"#, false),  // additional, too many properties
            ("abc", #"{"name": 7}"#, false),
        ]
        for (id, body, expected) in cases {
            let tape = try JSONTape.parse(Array("{\"\(id)\": \(body)}".utf8))
            let member = PrependedMember(name: "objectId", valueNode: 1)
            let tree = validator.isValid(Validator.materialize(tape, 2, prepending: member))
            XCTAssertEqual(tree, expected, "\(id) \(body) (tree)")
            XCTAssertEqual(validator.isValid(tape, 2, prepending: member), expected, "\(id) \(body)")
            XCTAssertEqual(validator.check(tape, 2, prepending: member).fallbacks, 0, "\(id) \(body)")
        }
        // Without the member: required fails, and a name too long for propertyNames is caught.
        let tape = try JSONTape.parse(Array(#"{"abc": {"name": "Ada"}}"#.utf8))
        XCTAssertFalse(validator.isValid(tape, 2))
        let long = PrependedMember(name: "objectIdentifier", valueNode: 1)
        XCTAssertFalse(validator.isValid(tape, 2, prepending: long))
        XCTAssertEqual(validator.isValid(Validator.materialize(tape, 2, prepending: long)), false)
    }

    /// Names and values with escapes are compared by their decoded code points.
    func testEscapedNamesAndStrings() throws {
        let schema = try JSON(
            parsing: #"""
                {"required": ["é"], "properties": {"é": {"const": "a\"b", "maxLength": 3}, "n": {"enum": ["\u00e9", 1]}},
                 "additionalProperties": false}
                """#)
        let validator = try Validator(schema: schema)
        for (text, expected) in [
            (#"{"\u00e9": "a\"b"}"#, true), (#"{"\u00e9": "a\"b", "n": "\u00e9"}"#, true),
            (#"{"e\u0301": "a\"b"}"#, false), (#"{"\u00e9": "a\u0022b", "n": "e\u0301"}"#, false),
            (#"{"\u00e9": "ab"}"#, false),
        ] {
            let tape = try JSONTape.parse(Array(text.utf8))
            XCTAssertEqual(validator.isValid(tape, tape.root), expected, text)
            XCTAssertEqual(validator.isValid(tape.materialize(tape.root)), expected, text)
        }
    }

    /// Random records against a schema with more properties than the name scan handles (so
    /// names are hashed), names of every length, and `required` in a different order than the
    /// records: tape and tree agree, with and without a prepended member.
    func testRandomRecordsMatchTheTree() throws {
        let names = (1...20).map { String(repeating: "k", count: $0 - 1) + String($0 % 10) } + ["é", "objectId"]
        var properties = JSONObject()
        let leaves = [
            #"{"type": "string", "minLength": 2}"#, #"{"type": "integer", "minimum": 3}"#,
            #"{"type": ["number", "null"]}"#, #"{"type": "array", "items": {"type": "boolean"}, "maxItems": 2}"#,
            #"{"enum": ["ab", 5, null]}"#, #"{"type": "object", "required": ["k1"]}"#,
        ]
        let fitting: [JSON] = [
            .string("abc"), .number(JSONNumber(4)), .number(JSONNumber(uncheckedText: "3.0")),
            .array([.bool(false)]), .string("ab"), try JSON(parsing: #"{"k1": 1}"#),
        ]
        for (i, name) in names.enumerated() {
            let leaf = name == "objectId" ? #"{"type": "string", "minLength": 3}"# : leaves[i % leaves.count]
            properties.members.append(JSONMember(key: name, value: try JSON(parsing: leaf)))
        }
        let schema = JSON.object(
            JSONObject([
                JSONMember(key: "properties", value: .object(properties)),
                JSONMember(
                    key: "required",
                    value: .array([.string(names[7]), .string(names[2]), .string("objectId"), .string(names[0])])),
                JSONMember(key: "additionalProperties", value: try JSON(parsing: #"{"type": "boolean"}"#)),
                JSONMember(key: "maxProperties", value: .number(JSONNumber(12))),
            ]))
        let validator = try Validator(schema: schema)
        let values: [JSON] = [
            .string("abc"), .string("a"), .number(JSONNumber(4)), .number(JSONNumber(2)),
            .number(JSONNumber(uncheckedText: "3.0")), .null, .bool(true),
            .array([.bool(false)]), .array([.bool(true), .number(JSONNumber(1))]),
            try JSON(parsing: #"{"k1": 1}"#), .object(JSONObject()),
        ]
        var random = SplitMix64(seed: 2020_12)
        var verdicts = [0, 0]
        for _ in 0..<3000 {
            var members: [JSONMember] = []
            for name in (names.filter { $0 != "objectId" } + ["zz", "k"]).shuffled(using: &random)
            where Int.random(in: 0..<3, using: &random) == 0 {
                // Mostly a value that fits the property, so that some records are valid.
                let index = names.firstIndex(of: name)
                let good = index.map { fitting[$0 % fitting.count] } ?? .bool(true)
                members.append(
                    JSONMember(
                        key: name,
                        value: Int.random(in: 0..<12, using: &random) == 0
                            ? values.randomElement(using: &random)! : good))
            }
            if Bool.random(using: &random) {
                for required in [names[7], names[2], names[0]] where !members.contains(where: { $0.key == required }) {
                    members.insert(
                        JSONMember(key: required, value: fitting[names.firstIndex(of: required)! % fitting.count]),
                        at: 0)
                }
            }
            let id = ["abc", "a", "objectId"].randomElement(using: &random)!
            let record = JSON.object(JSONObject(members))
            let tape = try JSONTape.parse(JSON.object(JSONObject([JSONMember(key: id, value: record)])).serialized())
            let tree = validator.isValid(record)
            XCTAssertEqual(validator.isValid(tape, 2), tree, record.serializedString())
            let member = PrependedMember(name: "objectId", valueNode: 1)
            let withId = validator.isValid(Validator.materialize(tape, 2, prepending: member))
            XCTAssertEqual(validator.isValid(tape, 2, prepending: member), withId, "\(id) \(record.serializedString())")
            verdicts[withId ? 1 : 0] += 1
        }
        XCTAssertGreaterThan(verdicts[1], 20, "too few valid records to mean anything")
    }

    /// A chain of in-place schemas longer than `maxDepth` fails on the tape as on the tree.
    func testDepthGuardMatchesTheTree() throws {
        let schema = try JSON(
            parsing:
                ##"{"allOf": [{"allOf": [{"allOf": [{"$ref": "#/$defs/leaf"}]}]}], "$defs": {"leaf": {"type": "integer"}}}"##
        )
        let tape = try JSONTape.parse(Array("[1]".utf8))
        for depth in 1...6 {
            let validator = try Validator(schema: schema, options: .init(maxDepth: depth))
            XCTAssertEqual(validator.isValid(tape, 1), validator.isValid(.number(JSONNumber(1))), "maxDepth \(depth)")
            XCTAssertEqual(validator.isValid(tape, 1), depth >= 5, "maxDepth \(depth)")
        }
    }

    /// The bench's User type (what a keyed Firebase collection is checked against) never leaves
    /// the tape; a keyword without a tape check does, which shows the counter counts.
    func testUserRecordsStayOnTheTape() throws {
        guard case .object(let types) = try JSON(parsing: Self.userTypes) else { return XCTFail("types") }
        let set = try SchemaSet(types: types.members.map { (name: $0.key, schema: $0.value) })
        let user = try XCTUnwrap(set.validator(named: "User"))
        let tape = try JSONTape.parse(
            Array(
                #"""
                {"u1": {"name": "Ada", "email": "ada@example.com", "age": 36, "score": 9.5, "active": true,
                        "tags": ["x", "y"], "address": {"city": "London", "zip": "N1"}, "createdAt": 1700000000000},
                 "u2": {"name": "", "email": "b@x.io"},
                 "u3": {"name": "Bob", "email": "bob@example.com", "age": -1},
                 "u4": {"name": "Cy", "email": "cy@example.com", "age": 1.5},
                 "u5": {"name": "Di", "email": "di@example.com", "address": {"street": "Main"}},
                 "u6": {"name": "Ed", "email": "ed@example.com", "tags": ["ok", 3]},
                 "u7": {"name": "Fa", "email": "fa@example.com", "age": 2.0, "score": 1e400}}
                """#.utf8))
        var verdicts: [Bool] = []
        tape.forEachMember(tape.root) { name, record in
            let member = PrependedMember(name: "objectId", valueNode: name)
            let (valid, fallbacks) = user.check(tape, record, prepending: member)
            XCTAssertEqual(fallbacks, 0, "record \(tape.string(name)) left the tape")
            XCTAssertEqual(valid, user.isValid(Validator.materialize(tape, record, prepending: member)))
            verdicts.append(valid)
        }
        XCTAssertEqual(verdicts, [true, false, false, false, false, false, true])

        let unique = try Validator(schema: JSON(parsing: #"{"properties": {"tags": {"uniqueItems": true}}}"#))
        let tags = try JSONTape.parse(Array(#"{"tags": ["a", "a"]}"#.utf8))
        XCTAssertEqual(unique.check(tags, tags.root, prepending: nil).fallbacks, 1)
        XCTAssertFalse(unique.isValid(tags, tags.root))
    }

    static let userTypes = #"""
        {
          "User": {
            "type": "object",
            "required": ["objectId", "name", "email"],
            "properties": {
              "objectId": { "type": "string" },
              "name": { "type": "string", "minLength": 1 },
              "age": { "type": "integer", "minimum": 0 },
              "email": { "type": "string", "minLength": 3 },
              "address": { "$ref": "Address" },
              "tags": { "type": "array", "items": { "type": "string" } },
              "score": { "type": "number" },
              "active": { "type": "boolean" },
              "createdAt": { "type": "integer" }
            }
          },
          "Address": {
            "type": "object",
            "required": ["city"],
            "properties": { "street": { "type": "string" }, "city": { "type": "string" }, "zip": { "type": "string" } }
          }
        }
        """#
}
