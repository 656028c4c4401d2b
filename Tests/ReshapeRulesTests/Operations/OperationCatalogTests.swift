import ReshapeJSON
import ReshapeSchema
import XCTest

@testable import ReshapeRules

final class OperationCatalogTests: XCTestCase {
    func testNamesListEveryOperation() {
        XCTAssertEqual(
            Set(OperationCatalog.names),
            [
                "select", "keyed-to-array", "array-to-keyed", "each", "at", "rename", "drop",
                "keep", "default", "set", "coerce", "sort", "validate", "wrap", "merge", "require",
            ])
    }

    func testUnknownOperationSuggestsTheClosestName() throws {
        let error = try XCTUnwrap(configError(#"{"keyed-to-arry": {}}"#))
        XCTAssertEqual(error.pointer, "/keyed-to-arry")
        XCTAssertTrue(error.message.contains("did you mean 'keyed-to-array'?"), error.message)
        XCTAssertTrue(error.message.contains("select"), "lists the known names: \(error.message)")
    }

    func testUnknownOperationFarFromAnyNameHasNoSuggestion() throws {
        let error = try XCTUnwrap(configError(#"{"transmogrify": 1}"#))
        XCTAssertFalse(error.message.contains("did you mean"), error.message)
    }

    func testStepMustHaveExactlyOneMember() throws {
        XCTAssertEqual(configError(#"{"drop": ["a"], "keep": ["b"]}"#)?.pointer, "")
        XCTAssertEqual(configError(#"{}"#)?.pointer, "")
        XCTAssertEqual(configError(#""wrap""#)?.pointer, "")
    }

    func testStepsPointersStartWithTheIndex() throws {
        let steps = json(#"[{"wrap": "x"}, {"sort": {"order": "sideways"}}]"#)
        XCTAssertThrowsError(try OperationCatalog.compile(steps: steps, context: OperationCompileContext())) { error in
            XCTAssertEqual((error as? OperationConfigError)?.pointer, "/1/sort/order")
        }
    }

    func testStepsMustBeAnArray() {
        XCTAssertThrowsError(
            try OperationCatalog.compile(steps: json(#"{"wrap": "x"}"#), context: OperationCompileContext())
        ) { error in
            XCTAssertEqual((error as? OperationConfigError)?.pointer, "")
        }
    }

    func testProblemsListsEveryFaultyStep() {
        let steps = json(
            #"[{"keyed-to-arry": {}}, {"wrap": "x"}, {"each": [{"rename": {"a": 1}}]}, {"set": {"id": "{uid}"}}]"#)
        let problems = OperationCatalog.problems(in: steps, context: OperationCompileContext(parameterNames: ["id"]))
        XCTAssertEqual(problems.map(\.pointer), ["/0/keyed-to-arry", "/2/each/0/rename/a", "/3/set/id"])
        XCTAssertEqual(OperationCatalog.problems(in: json(#"[{"wrap": "x"}]"#), context: OperationCompileContext()), [])
        XCTAssertEqual(
            OperationCatalog.problems(in: json("{}"), context: OperationCompileContext()).map(\.pointer), [""])
    }

    func testStepsRunInOrder() throws {
        let pipeline = try OperationCatalog.compile(
            steps: json(#"[{"keyed-to-array": {}}, {"wrap": "objects"}]"#),
            context: OperationCompileContext())
        assertJSON(try pipeline.run(json(#"{"a": {"n": 1}}"#)).value, #"{"objects": [{"objectId": "a", "n": 1}]}"#)
    }

    /// The `users` route of ARCHITECTURE.md, end to end through the catalog.
    func testArchitectureUsersRoute() throws {
        let user = json(
            #"{"type": "object", "required": ["objectId", "name"], "properties": {"objectId": {"type": "string"}, "name": {"type": "string", "minLength": 1}}}"#
        )
        let context = OperationCompileContext(types: try SchemaSet(types: [("User", user)]))
        let steps = json(
            #"[{"keyed-to-array": {"key": "objectId"}}, {"sort": {"by": "objectId"}}, {"validate": {"type": "User", "invalid": "drop"}}, {"wrap": "objects"}]"#
        )
        let pipeline = try OperationCatalog.compile(steps: steps, context: context)
        let output = try pipeline.run(json(#"{"u2": {"name": "B"}, "u1": {"name": "A"}, "bad": {"name": ""}}"#))
        assertJSON(output.value, #"{"objects": [{"objectId": "u1", "name": "A"}, {"objectId": "u2", "name": "B"}]}"#)
        XCTAssertEqual(
            output.dropped.map(\.pointer), ["/0"], "'bad' sorts first, at index 0 of the array validate received")
    }

    func testEditDistance() {
        XCTAssertEqual(OperationCatalog.editDistance(Array("kitten".utf8), Array("sitting".utf8)), 3)
        XCTAssertEqual(OperationCatalog.editDistance([], Array("abc".utf8)), 3)
        XCTAssertEqual(OperationCatalog.closestName(to: "sortt"), "sort")
    }
}
