import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules
import ReshapeTestSupport
import XCTest

/// The derived schemas must never reject an output: every route (the examples' and one that
/// uses every operation) runs on random Firebase-like upstream bodies, and whatever it answers
/// must validate against its schema.
final class RandomSoundnessTests: XCTestCase {
    static let everyOperation = """
        types:
          Rec:
            type: object
            required: [name]
            properties:
              name: { type: string }
              age: { type: integer }
          Named:
            type: object
            required: [label]
            properties:
              label: { type: string, minLength: 1 }
              years: { $ref: "#/types/Rec/properties/age" }
          Pair:
            type: [array, "null"]
            items: { $ref: Rec }
        routes:
          - name: select-each
            request: GET /a
            upstream: up
            path: /a.json
            transform:
              - select: /data
              - each: [ { keep: [name, age] }, { default: { age: 0, tags: [] } } ]
          - name: records
            request: GET /b/{id}
            upstream: up
            path: /b.json
            transform:
              - keyed-to-array: { key: id, value: v, order: key, conflict: keep }
              - coerce: { age: integer, name: string, invalid: drop }
              - rename: { name: label, age: years }
              - drop: [junk]
              - set: { owner: "{id}", kind: rec, n: 3 }
              - sort: { by: label, order: desc }
              - validate: { type: Named, invalid: drop }
              - array-to-keyed: { key: label, keep-key: true }
          - name: unkeyed
            request: GET /b2
            upstream: up
            path: /b2.json
            transform:
              - keyed-to-array: { conflict: fail }
              - array-to-keyed: {}
              - at: { path: /*, do: [ { coerce: { age: number, invalid: drop } } ] }
          - name: nested
            request: GET /c
            upstream: up
            path: /c.json
            transform:
              - at: { path: /*/items, do: [ { keyed-to-array: {} }, { validate: { type: Rec, invalid: drop } } ] }
              - at: { path: /list/0, do: [ { coerce: { age: number, invalid: drop } } ] }
              - at: { path: "", do: [ { validate: { type: Pair, invalid: keep } } ] }
              - wrap: data
          - name: fan
            request: GET /d/{id}
            fetch:
              one: { upstream: up, path: "/one/{id}.json" }
              two: { upstream: up, path: "/two.json", optional: true }
            transform:
              - merge: { base: /one, add: { extra: /two, again: /one } }
              - coerce: { age: boolean, invalid: keep }
              - default: { age: false }
          - name: lone
            request: GET /e
            upstream: up
            path: /e.json
            transform:
              - coerce: { age: integer, invalid: drop }
              - validate: { type: Rec, invalid: drop }
          - name: expanding
            request: GET /f
            upstream: up
            path: /f.json
            transform:
              - keyed-to-array: { key: postId }
              - expand:
                  key: name
                  fetch: { upstream: up, path: "/users/{value}.json" }
                  as: author
                  transform: [ { select: /profile }, { keep: [name] } ]
                  missing: "null"
              - sort: { by: /author/name }
              - expand:
                  key: age
                  fetch: { upstream: up, path: "/ages/{value}.json" }
                  as: aged
                  missing: drop
          - name: whole-validate
            request: GET /g
            upstream: up
            path: /g.json
            transform:
              - require: present
              - validate: { type: Pair, invalid: fail }
              - each: [ { set: { seen: true } } ]
        """

    func testRandomUpstreamsNeverBreakTheDerivedSchemas() throws {
        var generator = RandomJSON(seed: 0x5eed_0a91)
        for ruleSet in [try Fixture.exampleRules(), try Fixture.rules(Self.everyOperation)] {
            let schemas = try DerivedSchemas(ruleSet)
            for route in ruleSet.routes {
                var succeeded = 0
                for _ in 0..<300 {
                    let input: JSON
                    if route.isSingleFetch {
                        input = generator.upstream()
                    } else {
                        var members: [JSONMember] = []
                        for fetch in route.fetches where !fetch.optional || generator.chance(0.7) {
                            members.append(JSONMember(key: fetch.name, value: generator.upstream()))
                        }
                        input = .object(JSONObject(members))
                    }
                    var parameters: [String: String] = [:]
                    for name in route.path.parameterNames { parameters[name] = "p\(generator.int(100))" }
                    var followUps: [String: RouteRun.FollowUp] = [:]
                    let output: JSON
                    do {
                        output = try runRoute(route, input: input, parameters: parameters) { value in
                            if let known = followUps[value] { return known }
                            let answer: RouteRun.FollowUp =
                                generator.chance(0.2) ? .notFound : .body(OfflineRun.tape(generator.upstream()))
                            followUps[value] = answer
                            return answer
                        }
                    } catch {
                        continue
                    }
                    succeeded += 1
                    if let problem = schemas.violations(of: output, route: route.name) {
                        XCTFail("\(problem)\n  upstream: \(input.serializedString())")
                        break
                    }
                }
                XCTAssertGreaterThan(
                    succeeded, 0, "route \(route.name) never succeeded on random input: the test says nothing about it")
            }
        }
    }
}

/// Firebase-like JSON: collections of records keyed by push-id-like names, records with a few
/// well-known fields of assorted types (numbers as strings too), nulls, holes, nesting.
struct RandomJSON {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { random.next() }
    mutating func int(_ bound: Int) -> Int { random.below(bound) }
    mutating func chance(_ p: Double) -> Bool { Double(next() % 10_000) / 10_000 < p }

    static let fields = [
        "name", "age", "label", "objectId", "id", "items", "list", "data", "profile", "email", "junk", "v", "owner",
        "postId", "score",
    ]

    mutating func upstream() -> JSON {
        switch int(10) {
        case 0: return .null
        case 1, 2, 3, 4: return collection(depth: 0)
        case 5: return .array((0..<int(5)).map { _ in chance(0.3) ? .null : record(depth: 1) })
        case 6:
            return .object(
                JSONObject([
                    JSONMember(
                        key: "data",
                        value: chance(0.7) ? .array((0..<int(4)).map { _ in record(depth: 1) }) : value(depth: 1))
                ]))
        default: return record(depth: 0)
        }
    }

    mutating func collection(depth: Int) -> JSON {
        .object(
            JSONObject(
                (0..<int(5)).map { i in
                    JSONMember(
                        key: chance(0.5) ? "-K\(i)" : "\(i)",
                        value: chance(0.85) ? record(depth: depth + 1) : value(depth: depth + 1))
                }))
    }

    mutating func record(depth: Int) -> JSON {
        var members: [JSONMember] = []
        for field in Self.fields where chance(0.4) {
            members.append(JSONMember(key: field, value: value(depth: depth + 1, field: field)))
        }
        return .object(JSONObject(members))
    }

    mutating func value(depth: Int, field: String = "") -> JSON {
        let limit = depth > 3 ? 7 : 10
        switch int(limit) {
        case 0: return .null
        case 1: return .bool(chance(0.5))
        case 2: return .number(JSONNumber(int(200) - 20))
        case 3: return .number(JSONNumber(uncheckedText: ["4.5", "1e2", "-0", "7.25", "3.0"][int(5)]))
        case 4: return .string(["42", "4.5", "true", "false", "Ada", "", "x@y", "-K1", "0"][int(9)])
        case 5, 6:
            return .string(field == "name" || field == "label" ? ["Ada", "Bea", "", "Cy"][int(4)] : "s\(int(9))")
        case 7: return record(depth: depth + 1)
        case 8: return collection(depth: depth + 1)
        default: return .array((0..<int(4)).map { _ in value(depth: depth + 1) })
        }
    }
}
