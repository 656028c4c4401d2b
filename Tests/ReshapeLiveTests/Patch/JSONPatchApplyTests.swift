import ReshapeJSON
import XCTest

@testable import ReshapeLive

final class JSONPatchApplyTests: XCTestCase {
    private func apply(_ operations: [JSONPatch.Operation], to text: String) throws(JSONPatch.ApplyFailure) -> String {
        try JSONPatch(operations).applied(to: json(text)).serializedString()
    }

    private func path(_ text: String) -> JSONPointer { JSONPointer(text)! }

    func testAddOfANewMemberAppendsIt() throws {
        XCTAssertEqual(
            try apply([.add(path("/c"), .number(JSONNumber(3)))], to: #"{"b":2,"a":1}"#), #"{"b":2,"a":1,"c":3}"#)
    }

    func testAddOfAnExistingMemberReplacesItInPlace() throws {
        XCTAssertEqual(try apply([.add(path("/b"), .number(JSONNumber(9)))], to: #"{"b":2,"a":1}"#), #"{"b":9,"a":1}"#)
    }

    func testAddToAnArrayInsertsOrAppends() throws {
        XCTAssertEqual(try apply([.add(path("/1"), .number(JSONNumber(9)))], to: "[1,2,3]"), "[1,9,2,3]")
        XCTAssertEqual(try apply([.add(path("/3"), .number(JSONNumber(9)))], to: "[1,2,3]"), "[1,2,3,9]")
        XCTAssertEqual(try apply([.add(path("/-"), .number(JSONNumber(9)))], to: "[1,2,3]"), "[1,2,3,9]")
        XCTAssertEqual(try apply([.add(path("/0"), .number(JSONNumber(9)))], to: "[]"), "[9]")
    }

    func testRemoveKeepsTheOrderOfTheRest() throws {
        XCTAssertEqual(try apply([.remove(path("/b"))], to: #"{"c":3,"b":2,"a":1}"#), #"{"c":3,"a":1}"#)
        XCTAssertEqual(try apply([.remove(path("/0"))], to: "[1,2,3]"), "[2,3]")
    }

    func testReplaceKeepsTheMembersPlace() throws {
        XCTAssertEqual(try apply([.replace(path("/b"), .null)], to: #"{"b":2,"a":1}"#), #"{"b":null,"a":1}"#)
        XCTAssertEqual(try apply([.replace(path("/2"), .null)], to: "[1,2,3]"), "[1,2,null]")
    }

    func testTheRootCanBeReplacedOrAdded() throws {
        XCTAssertEqual(try apply([.replace(JSONPointer(), .number(JSONNumber(1)))], to: "[1]"), "1")
        XCTAssertEqual(try apply([.add(JSONPointer(), json("{}"))], to: "[1]"), "{}")
    }

    func testEscapedAndNonASCIINames() throws {
        XCTAssertEqual(
            try apply(
                [.replace(path("/a~1b/~0c"), .bool(true)), .add(path("/é"), .number(JSONNumber(1)))],
                to: #"{"a/b":{"~c":0}}"#),
            #"{"a/b":{"~c":true},"é":1}"#)
    }

    func testOperationsApplyInOrder() throws {
        XCTAssertEqual(
            try apply(
                [.add(path("/objects/0"), json(#"{"n":1}"#)), .replace(path("/objects/0/n"), .number(JSONNumber(2)))],
                to: #"{"objects":[]}"#),
            #"{"objects":[{"n":2}]}"#)
    }

    func testAMissingLocationNamesTheOperationAndItsPath() {
        let cases: [(JSONPatch.Operation, String)] = [
            (.remove(path("/missing")), "/missing"),
            (.replace(path("/missing"), .null), "/missing"),
            (.add(path("/missing/x"), .null), "/missing/x"),
            (.remove(path("/objects/5")), "/objects/5"),
            (.replace(path("/objects/1"), .null), "/objects/1"),
            (.add(path("/objects/2"), .null), "/objects/2"),
            (.add(path("/objects/01"), .null), "/objects/01"),
            (.remove(path("/objects/-")), "/objects/-"),
            (.add(path("/objects/0/x"), .null), "/objects/0/x"),
            (.remove(path("/a~1b")), "/a~1b"),
            (.remove(JSONPointer()), ""),
        ]
        for (operation, expected) in cases {
            let patch = JSONPatch([.add(path("/n"), .number(JSONNumber(1))), operation])
            XCTAssertThrowsError(try patch.applied(to: json(#"{"objects":[7]}"#)), expected) { error in
                XCTAssertEqual(error as? JSONPatch.ApplyFailure, .pathNotFound(index: 1, path: expected))
            }
        }
    }
}
