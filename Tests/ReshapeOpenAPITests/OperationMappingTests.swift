import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules
import XCTest

/// One operation (or a short chain) at a time: the schema it derives, as compact JSON.
final class OperationMappingTests: XCTestCase {
    static let types = """
        types:
          User:
            type: object
            required: [objectId, name]
            properties:
              objectId: { type: string, minLength: 1 }
              name: { type: string, minLength: 1 }
              address: { $ref: Address }
          Address:
            type: object
            properties:
              city: { type: string }
        """

    /// The response schema of a GET route with these steps (YAML flow list items).
    func derived(_ steps: [String], fetch: String? = nil) throws -> String {
        let source = fetch.map { "    fetch: \($0)\n" } ?? "    upstream: up\n    path: /x.json\n"
        let text =
            Self.types + "\nroutes:\n  - name: r\n    request: GET /x/{id}\n" + source + "    transform:\n"
            + steps.map { "      - \($0)\n" }.joined()
        let ruleSet = try Fixture.rules(text)
        return try DerivedSchemas(ruleSet).schemas["r"]!.serializedString()
    }

    func testTheIssueExample() throws {
        XCTAssertEqual(
            try derived(["keyed-to-array: { key: objectId }", "validate: { type: User }", "wrap: objects"]),
            ##"{"type":"object","properties":{"objects":{"type":"array","items":{"$ref":"#/components/schemas/User"}}},"required":["objects"],"additionalProperties":false}"##
        )
    }

    func testNoStepsIsAnything() throws {
        XCTAssertEqual(try derived(["require: present"]), "{}")
    }

    func testKeyedToArrayOfAKnownRecord() throws {
        // Elements are User (validated), then the key is set as a string.
        XCTAssertEqual(
            try derived(["validate: { type: User }", "keyed-to-array: { key: id }"]),
            ##"{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}"##)
    }

    func testRenameMovesAKnownMember() throws {
        XCTAssertEqual(
            try derived(["validate: User", "rename: { name: title }", "select: /title"]),
            ##"{"type":"string","minLength":1}"##)
    }

    func testRenameOfAnOptionalMemberKeepsEitherShape() throws {
        XCTAssertEqual(try derived(["set: { b: 1 }", "rename: { a: b }", "select: /b"]), "{}")
        XCTAssertEqual(try derived(["keep: [a]", "set: { b: 1 }", "rename: { a: b }", "select: /b"]), "{}")
    }

    func testKeepCloses() throws {
        XCTAssertEqual(
            try derived(["validate: User", "keep: [name, missing]"]),
            ##"{"anyOf":[{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","minLength":1},"missing":{}},"required":["name"],"additionalProperties":false}},{"type":"object","properties":{"name":{"type":"string","minLength":1},"missing":{}},"required":["name"],"additionalProperties":false}]}"##
        )
    }

    func testDropRemoves() throws {
        XCTAssertEqual(
            try derived(["set: { a: 1, b: 2 }", "drop: [a]"]),
            ##"{"anyOf":[{"type":"array","items":{"type":"object","properties":{"b":{"const":2}},"required":["b"]}},{"type":"object","properties":{"b":{"const":2}},"required":["b"]}]}"##
        )
    }

    func testSetAndDefault() throws {
        XCTAssertEqual(
            try derived(["validate: User", "set: { objectId: \"{id}\", n: 3 }", "default: { tags: [], name: x }"]),
            ##"{"anyOf":[{"type":"array","items":{"type":"object","properties":{"objectId":{"type":"string"},"name":{"anyOf":[{"type":"string","minLength":1},{"const":"x"}]},"address":{"$ref":"#/components/schemas/Address"},"n":{"const":3}},"required":["objectId","name","n","tags"]}},{"type":"object","properties":{"objectId":{"type":"string"},"name":{"anyOf":[{"type":"string","minLength":1},{"const":"x"}]},"address":{"$ref":"#/components/schemas/Address"},"n":{"const":3}},"required":["objectId","name","n","tags"]}]}"##
        )
    }

    func testCoerce() throws {
        XCTAssertEqual(
            try derived(["keep: [a, b]", "coerce: { a: integer, b: string }"]),
            ##"{"anyOf":[{"type":"array","items":{"type":"object","properties":{"a":{"type":["null","integer"]},"b":{"type":["null","string"]}},"additionalProperties":false}},{"type":"object","properties":{"a":{"type":["null","integer"]},"b":{"type":["null","string"]}},"additionalProperties":false}]}"##
        )
        // `keep` may leave a value unconverted; `drop` may turn a lone record into null.
        XCTAssertEqual(try derived(["keep: [a]", "coerce: { a: integer, invalid: keep }", "select: /a"]), "{}")
        XCTAssertEqual(
            try derived(["validate: User", "coerce: { name: integer, invalid: drop }"]),
            ##"{"anyOf":[{"type":["null","array"],"items":{"type":"object","properties":{"objectId":{"type":"string","minLength":1},"name":{"type":"integer"},"address":{"$ref":"#/components/schemas/Address"}},"required":["objectId","name"]}},{"type":"object","properties":{"objectId":{"type":"string","minLength":1},"name":{"type":"integer"},"address":{"$ref":"#/components/schemas/Address"}},"required":["objectId","name"]}]}"##
        )
    }

    func testSelectIntoATypeFollowsReferences() throws {
        XCTAssertEqual(try derived(["validate: User", "select: /address/city"]), ##"{"type":"string"}"##)
    }

    func testArrayToKeyed() throws {
        XCTAssertEqual(
            try derived(["keyed-to-array: { key: k }", "array-to-keyed: { key: k }"]),
            ##"{"type":"object","additionalProperties":{"type":"object"}}"##)
    }

    func testEachAndSort() throws {
        XCTAssertEqual(
            try derived(["keyed-to-array: {}", "each: [ { wrap: w } ]", "sort: { by: /w/objectId }"]),
            ##"{"type":"array","items":{"type":"object","properties":{"w":{"type":"object","properties":{"objectId":{"type":"string"}},"required":["objectId"]}},"required":["w"],"additionalProperties":false}}"##
        )
    }

    func testAtThatMayDropMakesMembersOptional() throws {
        XCTAssertEqual(
            try derived(
                ["at: { path: /a, do: [ { validate: { type: User, invalid: drop } } ] }"],
                fetch: "{ a: { upstream: up, path: /a.json }, b: { upstream: up, path: /b.json } }"),
            ##"{"type":"object","properties":{"a":{"anyOf":[{"type":["null","array"],"items":{"$ref":"#/components/schemas/User"}},{"$ref":"#/components/schemas/User"}]},"b":{}},"required":["b"],"additionalProperties":false}"##
        )
    }

    func testMergeOnAFetchRoute() throws {
        XCTAssertEqual(
            try derived(
                ["merge: { base: /a, add: { bs: /b } }", "validate: User"],
                fetch: "{ a: { upstream: up, path: /a.json }, b: { upstream: up, path: /b.json, optional: true } }"),
            ##"{"allOf":[{"type":"object","required":["bs"]},{"$ref":"#/components/schemas/User"}]}"##)
    }

    func testRequireRemovesNull() throws {
        XCTAssertEqual(
            try derived(["validate: { type: User, invalid: drop }", "require: present"]),
            ##"{"anyOf":[{"type":"array","items":{"$ref":"#/components/schemas/User"}},{"$ref":"#/components/schemas/User"}]}"##
        )
    }

    /// swift-openapi-generator supports no schema of type `null` and left out the whole member
    /// that held one (examples/rules' `posts`, its `author`): a lone `null` part joins the type
    /// of the union's first array or object part, and a union left with one part is that part.
    func testNullJoinsAnArrayOrObjectPart() throws {
        XCTAssertEqual(
            try derived([
                "keyed-to-array: { key: id }",
                "expand: { key: a, fetch: { upstream: up, path: \"/a/{value}.json\" }, as: a, missing: \"null\", "
                    + "transform: [ { require: present }, { keep: [name] } ] }",
            ]),
            ##"{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"a":{"anyOf":[{"type":["null","array"],"items":{"type":"object","properties":{"name":{}},"additionalProperties":false}},{"type":"object","properties":{"name":{}},"additionalProperties":false}]}},"required":["id","a"]}}"##
        )
        XCTAssertEqual(
            try derived([
                "keyed-to-array: { key: id }",
                "expand: { key: a, fetch: { upstream: up, path: \"/a/{value}.json\" }, as: a, missing: \"null\", "
                    + "transform: [ { wrap: w } ] }",
            ]),
            ##"{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"a":{"type":["null","object"],"properties":{"w":{}},"required":["w"],"additionalProperties":false}},"required":["id","a"]}}"##
        )
    }

    func testAStepThatAlwaysFailsLeavesNothing() throws {
        XCTAssertEqual(try derived(["wrap: w", "sort: {}"]), "false")
    }
}
