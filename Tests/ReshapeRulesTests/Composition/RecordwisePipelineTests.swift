import ReshapeJSON
import XCTest

@testable import ReshapeRules

/// Which routes are normalized record by record, and the member names their runs give.
final class RecordwisePipelineTests: XCTestCase {
    private func routes(_ transforms: [String]) throws -> [Route] {
        var text = """
            upstreams:
              api: { url: "http://127.0.0.1:8081" }
            types:
              User:
                type: object
                required: [name]
                properties:
                  name: { type: string, minLength: 1 }
            routes:

            """
        for (index, transform) in transforms.enumerated() {
            text += """
                  - name: r\(index)
                    request: GET /r\(index)
                    upstream: api
                    path: /users.json
                    transform: \(transform)

                """
        }
        switch RuleLoader.load(files: [("rules.yaml", text)], environment: [:]) {
        case .success(let ruleSet): return ruleSet.routes
        case .failure(let diagnostics): throw diagnostics
        }
    }

    func testRecordwiseRoutesStartWithKeyedToArrayThenTreatEachElementAlone() throws {
        let accepted = try routes([
            "[{keyed-to-array: {order: key}}, {validate: {type: User, invalid: drop}}, {wrap: objects}]",
            "[{keyed-to-array: {}}, {rename: {name: n}}, {drop: [x]}, {keep: [n]}, {default: {n: a}}, {set: {k: 1}}]",
            "[{keyed-to-array: {}}, {coerce: {age: integer, invalid: keep}}, {each: [{sort: {}}]}]",
            "[{keyed-to-array: {}}, {at: {path: /*/tags, do: [{sort: {}}]}}, {validate: User}]",
        ])
        for route in accepted { XCTAssertNotNil(RecordwisePipeline(route), route.name) }
        let refused = try routes([
            "[{keyed-to-array: {order: numeric-key}}]",
            "[{keyed-to-array: {}}, {sort: {by: name}}]",
            "[{keyed-to-array: {}}, {wrap: objects}, {rename: {a: b}}]",
            "[{keyed-to-array: {}}, {at: {path: /0/tags, do: [{sort: {}}]}}]",
            "[{select: /users}, {keyed-to-array: {}}]",
            "[{validate: User}]",
        ])
        for route in refused { XCTAssertNil(RecordwisePipeline(route), route.name) }
    }

    func testAWholeRunNamesTheRecordsItKeeps() throws {
        let route = try routes([
            "[{keyed-to-array: {order: key}}, {coerce: {age: integer, invalid: drop}}, "
                + "{validate: {type: User, invalid: drop}}, {wrap: objects}]"
        ])[0]
        let pipeline = try XCTUnwrap(RecordwisePipeline(route))
        let document = try JSONTape.parse(
            Array(
                #"{"d":{"name":"Di"},"b":{"name":""},"a":{"name":"Ada","age":"x"},"c":{"name":"Cy","age":"3"}}"#.utf8))
        let run = try pipeline.run(document)
        XCTAssertEqual(run.names, ["c", "d"], "a fails coerce, b fails validate")
        XCTAssertEqual(run.output.dropped.count, 2)
        XCTAssertEqual(pipeline.records(in: run.output.value)?.count, 2)

        let records = try XCTUnwrap(
            pipeline.records(of: [
                JSONMember(key: "z", value: .object(JSONObject(["name": .string("Zed")]))),
                JSONMember(key: "b", value: .object(JSONObject(["name": .string("")]))),
            ]))
        XCTAssertEqual(records.map(\.name), ["z"])
        XCTAssertEqual(records.first?.record.serializedString(), #"{"objectId":"z","name":"Zed"}"#)
    }
}
