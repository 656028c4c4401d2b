import Dispatch
import ReshapeJSON
import ReshapeTestSupport
import XCTest

@testable import ReshapeSchema

/// Property names are looked up through a perfect hash built when the schema is compiled, and
/// `properties` / `required` / `additionalProperties` run as one pass on the tape. These tests
/// compare that path with the one it replaced (`SchemaOptions.memberTables` off: scans and
/// probing, separate keywords) and with the tree evaluator.
final class MemberLookupTests: XCTestCase {
    static let legacy: SchemaOptions = {
        var options = SchemaOptions()
        options.memberTables = false
        return options
    }()

    // MARK: NameList

    /// The index of the first equal name, by bytes: what every lookup must answer.
    private func reference(_ names: [[UInt8]], _ key: [UInt8]) -> Int? { names.firstIndex(of: key) }

    private func lookup(_ list: NameList, _ key: [UInt8], cursor: inout Int) -> Int? {
        key.withUnsafeBufferPointer { list.index(of: $0, cursor: &cursor) }
    }

    /// Names of every length up to 40 (so short, two-word and longer-than-16-byte keys), names
    /// alike at both ends, duplicates, the empty name and non-ASCII ones; keys that are names,
    /// near misses (one byte changed at the start, middle or end, one byte longer or shorter)
    /// and strangers.
    func testPerfectLookupsAgreeWithAScan() {
        var random = SplitMix64(seed: 21)
        let alphabet = Array("abcdeé_-0")
        var perfect = 0
        for round in 0..<400 {
            let count = 1 + Int.random(in: 0..<(round % 4 == 0 ? 90 : 20), using: &random)
            var names: [[UInt8]] = []
            for _ in 0..<count {
                if !names.isEmpty, Int.random(in: 0..<10, using: &random) == 0 {
                    // A duplicate, or a name alike at both ends past 16 bytes.
                    var copy = names.randomElement(using: &random)!
                    if copy.count > 16, Bool.random(using: &random) { copy[copy.count / 2] ^= 1 }
                    names.append(copy)
                    continue
                }
                let length = Int.random(in: 0...40, using: &random)
                names.append(Array(String((0..<length).map { _ in alphabet.randomElement(using: &random)! }).utf8))
            }
            let strings = names.map { String(decoding: $0, as: UTF8.self) }
            let list = NameList(strings)
            let plain = NameList(strings, perfect: false)
            defer {
                list.deallocate()
                plain.deallocate()
            }
            if list.isPerfect { perfect += 1 }
            var keys = names
            for name in names where !name.isEmpty {
                for position in [0, name.count / 2, name.count - 1] {
                    var near = name
                    near[position] ^= 0x20
                    keys.append(near)
                }
                keys.append(name + [UInt8(ascii: "a")])
                keys.append(Array(name.dropLast()))
            }
            keys.append(Array("stranger".utf8))
            // From a fresh cursor: the first equal name. Carrying the cursor along, as a
            // properties pass does: a name equal to the key (with duplicates, maybe a later one).
            var cursors = [0, 0]
            for key in keys + keys.shuffled(using: &random) {
                let expected = reference(names, key)
                var fresh = 0
                XCTAssertEqual(lookup(list, key, cursor: &fresh), expected, "\(strings) \(key)")
                fresh = 0
                XCTAssertEqual(lookup(plain, key, cursor: &fresh), expected, "\(strings) \(key) (no perfect table)")
                for (i, each) in [list, plain].enumerated() {
                    let found = lookup(each, key, cursor: &cursors[i])
                    XCTAssertEqual(found.map { names[$0] }, expected.map { names[$0] }, "\(strings) \(key) (cursor)")
                }
                key.withUnsafeBufferPointer { XCTAssertEqual(list.contains($0), expected != nil) }
            }
        }
        XCTAssertGreaterThan(perfect, 200, "too few lists got a perfect table to mean anything")
    }

    /// Lists in the perfect range get a table; past it, or with two long names alike at both
    /// ends, they scan or probe as before.
    func testWhichListsGetAPerfectTable() {
        let nine = ["objectId", "name", "age", "email", "address", "tags", "score", "active", "createdAt"]
        let list = NameList(nine)
        XCTAssertTrue(list.isPerfect)
        list.deallocate()
        let many = NameList((0..<(NameList.perfectLimit + 1)).map { "field\($0)" })
        XCTAssertFalse(many.isPerfect)
        many.deallocate()
        let alike = NameList(["abcdefgh-one-ijklmnop", "abcdefgh-two-ijklmnop", "x"])
        XCTAssertFalse(alike.isPerfect)
        alike.deallocate()
        let single = NameList(["only"])
        XCTAssertFalse(single.isPerfect)
        single.deallocate()
    }

    // MARK: Validation

    /// Every instance of the suite, required and optional: the same verdict with and without
    /// the tables, on the tape (also with a prepended member) and on the tree, and the same
    /// violations (the reporting path does not use the tables, and must not change).
    func testSuiteVerdictsMatchWithoutTables() throws {
        let suite = try XCTUnwrap(ConformanceSuite.locate(), ConformanceSuite.notFound)
        var compared = 0
        var failures: [String] = []
        let files =
            suite.jsonFiles(in: "").map { ($0, SchemaOptions()) }
            + suite.jsonFiles(in: "optional").map { ($0, SchemaOptions()) }
            + suite.jsonFiles(in: "optional/format").map { ($0, SchemaOptions(assertFormat: true)) }
        for (file, options) in files {
            guard case .array(let groups)? = ConformanceSuite.parse(suite.testsDirectory.appendingPathComponent(file))
            else {
                failures.append("\(file): cannot read")
                continue
            }
            var legacyOptions = options
            legacyOptions.memberTables = false
            for case .object(let group) in groups {
                guard let schema = group["schema"], case .array(let tests)? = group["tests"],
                    let validator = try? Validator(schema: schema, options: options, resolveRemote: suite.remotes),
                    let legacy = try? Validator(schema: schema, options: legacyOptions, resolveRemote: suite.remotes)
                else { continue }
                for case .object(let test) in tests {
                    guard let data = test["data"], let tape = try? JSONTape.parse(data.serialized()) else { continue }
                    let name = "\(file) / \(group["description"].map(ConformanceSuite.text) ?? "?")"
                    compared += 1
                    if let difference = differences(validator, legacy, data, tape) {
                        failures.append("\(name) / \(data.serializedString()): \(difference)")
                    }
                }
            }
        }
        print("member tables vs without: \(compared) instances")
        XCTAssertGreaterThan(compared, ConformanceSuite.requiredTests)
        for failure in failures { XCTFail(failure) }
    }

    /// What differs between the two validators on one instance (nil when nothing does).
    private func differences(_ validator: Validator, _ legacy: Validator, _ data: JSON, _ tape: JSONTape) -> String? {
        let tree = legacy.isValid(data)
        if validator.isValid(data) != tree { return "tree verdicts differ" }
        let onTape = validator.isValid(tape, tape.root)
        if onTape != legacy.isValid(tape, tape.root) { return "tape verdicts differ" }
        if onTape != tree { return "tape says \(onTape), tree says \(tree)" }
        if validator.validate(data) != legacy.validate(data) { return "violations differ" }
        // The first member taken off the tape and prepended, as keyed-to-array does.
        guard case .object(let object) = data, let first = object.members.first else { return nil }
        var key = "abc"
        if case .string(let s) = first.value { key = s }
        let rest = JSON.object(JSONObject(Array(object.members.dropFirst())))
        guard
            let wrapped = try? JSONTape.parse(JSON.object(JSONObject([JSONMember(key: key, value: rest)])).serialized())
        else { return nil }
        let member = PrependedMember(name: first.key, valueNode: 1)
        let withMember = validator.isValid(wrapped, 2, prepending: member)
        if withMember != legacy.isValid(wrapped, 2, prepending: member) { return "prepended verdicts differ" }
        if withMember != legacy.isValid(Validator.materialize(wrapped, 2, prepending: member)) {
            return "prepended: tape and tree differ"
        }
        return nil
    }

    /// Object keywords in the combinations the fused check takes or leaves alone, each a
    /// schema of its own.
    static let objectSchemas: [String] = [
        #"{"type": "object", "properties": {P}, "required": ["id", "name", "email"]}"#,
        #"{"properties": {P}, "required": ["id", "name"], "additionalProperties": false}"#,
        #"{"properties": {P}, "additionalProperties": {"type": "integer"}}"#,
        #"{"properties": {P}, "required": ["id", "nope"], "additionalProperties": {"type": "integer"}}"#,
        #"{"properties": {P}, "patternProperties": {"^x": {"type": "string"}}, "required": ["id"], "additionalProperties": false}"#,
        #"{"properties": {P}, "required": ["id"], "additionalProperties": false, "propertyNames": {"maxLength": 6}}"#,
        #"{"properties": {P}, "required": ["id"], "dependentRequired": {"email": ["name"]}, "minProperties": 2, "maxProperties": 6}"#,
        #"{"properties": {P}, "required": ["name"], "unevaluatedProperties": false}"#,
        #"{"allOf": [{"properties": {P}}], "required": ["id"], "unevaluatedProperties": {"type": "boolean"}}"#,
        #"{"properties": {P}, "additionalProperties": false, "dependentSchemas": {"age": {"required": ["email"]}}}"#,
        #"{"properties": {"id": {"type": "string"}, "n": {"type": "integer"}}, "required": ["n"], "additionalProperties": true}"#,
    ]
    static let properties =
        #"{"id": {"type": "string", "minLength": 2}, "name": {"type": "string"}, "email": {"type": "string", "pattern": "@"}, "age": {"type": "integer", "minimum": 0}, "tags": {"type": "array", "items": {"type": "string"}}, "address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string"}}, "required": ["city"], "additionalProperties": false}, "score": {"type": "number"}, "active": {"type": "boolean"}, "createdAt": {"type": "integer"}, "a-name-longer-than-sixteen": {"type": "null"}}"#

    /// Random records (shuffled member orders, members missing, unknown and pattern members,
    /// values that fit and values that do not, many records sharing a layout): the same
    /// verdicts and violations with and without the tables, on the tape and the tree.
    func testRandomRecordsMatchWithoutTables() throws {
        let known = ["id", "name", "email", "age", "tags", "address", "score", "active", "createdAt", "n"]
        let extra = ["a-name-longer-than-sixteen", "a-name-longer-than-sixteeN", "xtra", "zz", "", "é", "nope"]
        let fitting: [String: String] = [
            "id": #""ab""#, "name": #""Ada""#, "email": #""a@b""#, "age": "3", "tags": #"["t"]"#,
            "address": #"{"zip": "1", "city": "Łódź"}"#, "score": "1.5", "active": "true", "createdAt": "7", "n": "1",
            "a-name-longer-than-sixteen": "null", "xtra": #""x""#,
        ]
        let misfits = [#""""#, "-1", "2.5", "null", "true", #"{"zip": "1"}"#, #"[1]"#, #""no at""#, "{}"]
        var random = SplitMix64(seed: 2112)
        // A few layouts drawn again and again, as a collection's records repeat theirs.
        var layouts: [[String]] = []
        for source in Self.objectSchemas {
            let schema = try JSON(parsing: source.replacingOccurrences(of: "{P}", with: Self.properties))
            let validator = try Validator(schema: schema)
            let legacy = try Validator(schema: schema, options: Self.legacy)
            var verdicts = [0, 0]
            for _ in 0..<1500 {
                let layout: [String]
                if !layouts.isEmpty, Int.random(in: 0..<3, using: &random) == 0 {
                    layout = layouts.randomElement(using: &random)!
                } else {
                    // Most known names, few unknown ones.
                    layout = (known + extra).shuffled(using: &random).filter { name in
                        let draw = Int.random(in: 0..<(known.contains(name) ? 3 : 10), using: &random)
                        return known.contains(name) ? draw != 0 : draw == 0
                    }
                    if layouts.count < 20 { layouts.append(layout) }
                }
                var text = "{"
                for (i, name) in layout.enumerated() {
                    let value =
                        Int.random(in: 0..<25, using: &random) == 0
                        ? misfits.randomElement(using: &random)! : fitting[name] ?? "1"
                    text += (i == 0 ? "" : ",") + JSON.string(name).serializedString() + ":" + value
                }
                text += "}"
                let data = try JSON(parsing: text)
                let tape = try JSONTape.parse(Array(text.utf8))
                if let difference = differences(validator, legacy, data, tape) {
                    XCTFail("\(source.prefix(60)) / \(text): \(difference)")
                }
                verdicts[validator.isValid(tape, tape.root) ? 1 : 0] += 1
            }
            XCTAssertGreaterThan(verdicts[1], 5, "\(source.prefix(60)): too few valid records")
            XCTAssertGreaterThan(verdicts[0], 20, "\(source.prefix(60)): too few invalid records")
        }
    }

    /// The common rule-file shape stays on the tape as one fused keyword that looks each name up
    /// once; `additionalProperties` with patterns to skip also fuses; `required` naming something
    /// that is not a property leaves `required` to its own keyword.
    func testCommonObjectSchemasFuse() throws {
        func fused(_ source: String) throws -> RequiredPropertiesKeyword? {
            let validator = try Validator(
                schema: try JSON(parsing: source.replacingOccurrences(of: "{P}", with: Self.properties)))
            let keywords = validator.root.tapeKeywords.map { $0.takeUnretainedValue() }
            return keywords.compactMap { $0 as? RequiredPropertiesKeyword }.first
        }
        let common = try XCTUnwrap(fused(Self.objectSchemas[1]))
        XCTAssertNotNil(common.required)
        XCTAssertNotNil(common.additional)
        let patterned = try XCTUnwrap(fused(Self.objectSchemas[4]))
        XCTAssertNotNil(patterned.additional)
        let notAllNamed = try XCTUnwrap(fused(Self.objectSchemas[3]))
        XCTAssertNil(notAllNamed.required)
        XCTAssertNotNil(notAllNamed.additional)
        XCTAssertNil(try fused(#"{"properties": {P}, "minProperties": 1}"#))

        let validator = try Validator(
            schema: try JSON(parsing: Self.objectSchemas[1].replacingOccurrences(of: "{P}", with: Self.properties)))
        let tape = try JSONTape.parse(Array(#"{"email": "a@b", "name": "A", "id": "ab", "xtra": 1}"#.utf8))
        let (valid, fallbacks) = validator.check(tape, tape.root, prepending: nil)
        XCTAssertFalse(valid)
        XCTAssertEqual(fallbacks, 0)
    }

    /// Nothing grows while validating: the tables are built when the schema is compiled, at
    /// most 32 slots a name, and never written after. A stream of records each with a layout
    /// of its own (names never seen, in every order) costs no memory per layout and gets the
    /// verdicts of the path without tables.
    func testManyLayoutsStayBounded() throws {
        let schema = try JSON(parsing: Self.objectSchemas[2].replacingOccurrences(of: "{P}", with: Self.properties))
        let validator = try Validator(schema: schema)
        let legacy = try Validator(schema: schema, options: Self.legacy)
        let fused = try XCTUnwrap(
            validator.root.tapeKeywords.map { $0.takeUnretainedValue() }.compactMap { $0 as? RequiredPropertiesKeyword }
                .first)
        let before = fused.properties.tableSlots
        XCTAssertLessThanOrEqual(before, 32 * fused.properties.names.count)
        var random = SplitMix64(seed: 7)
        var text = "["
        for record in 0..<5000 {
            let names = (["id", "name", "age"] + (0..<4).map { "f\(record)_\($0)" }).shuffled(using: &random)
            text +=
                (record == 0 ? "{" : ",{")
                + names.map { "\"\($0)\": \($0 == "id" ? "\"ab\"" : "1")" }
                .joined(separator: ",") + "}"
        }
        text += "]"
        let tape = try JSONTape.parse(Array(text.utf8))
        var agreed = 0
        tape.forEachElement(tape.root) { _, record in
            if validator.isValid(tape, record) == legacy.isValid(tape, record) { agreed += 1 }
        }
        XCTAssertEqual(agreed, 5000)
        XCTAssertEqual(fused.properties.tableSlots, before)
    }

    /// One compiled schema shared by threads, as server workers share a route's validator
    /// (`scripts/sanitize.sh thread --filter MemberLookupTests` runs it under ThreadSanitizer):
    /// the tables are only read.
    func testSharedAcrossThreads() throws {
        let schema = try JSON(parsing: Self.objectSchemas[1].replacingOccurrences(of: "{P}", with: Self.properties))
        let validator = try Validator(schema: schema)
        let records = [
            #"{"id": "ab", "name": "A", "email": "a@b"}"#, #"{"email": "a@b", "id": "ab"}"#,
            #"{"name": "A", "id": "ab", "zz": 1}"#, #"{"age": 3, "name": "A", "id": "ab", "tags": ["t"]}"#,
        ].map { try! JSONTape.parse(Array($0.utf8)) }
        let expected = records.map { validator.isValid($0, $0.root) }
        XCTAssertEqual(expected, [true, false, false, true])
        nonisolated(unsafe) let mismatches = UnsafeMutableBufferPointer<Int>.allocate(capacity: 4)
        mismatches.initialize(repeating: 0)
        defer { mismatches.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<2000 {
                let i = (round + worker) % records.count
                if validator.isValid(records[i], records[i].root) != expected[i] { mismatches[worker] += 1 }
            }
        }
        XCTAssertEqual(mismatches.reduce(0, +), 0)
    }
}
