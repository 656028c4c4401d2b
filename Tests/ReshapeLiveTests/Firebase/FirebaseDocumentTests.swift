import ReshapeJSON
import XCTest

@testable import ReshapeLive

final class FirebaseDocumentTests: XCTestCase {
    /// Applies `name` with `data` as Firebase would stream it, and returns the change.
    @discardableResult
    static func apply(_ name: String, _ path: String, _ data: String, to document: inout FirebaseDocument)
        throws -> FirebaseDocument.Change
    {
        let envelope = #"{"path": "\#(path)", "data": \#(data)}"#
        return try document.apply(FirebaseEvent(ServerSentEvent(name: name, data: envelope)))
    }

    /// The document's exact text.
    static func text(_ document: FirebaseDocument) -> String { document.value.serializedString() }

    func testTheFirebaseDocsExample() throws {
        var document = FirebaseDocument()
        XCTAssertEqual(try Self.apply("put", "/", #"{"a": 1, "b": 2}"#, to: &document), .whole)
        XCTAssertEqual(try Self.apply("put", "/c", #"{"foo": true, "bar": false}"#, to: &document), .rootMembers(["c"]))
        XCTAssertEqual(try Self.apply("patch", "/c", #"{"foo": 3, "baz": 4}"#, to: &document), .rootMembers(["c"]))
        XCTAssertEqual(Self.text(document), #"{"a":1,"b":2,"c":{"foo":3,"bar":false,"baz":4}}"#)
    }

    func testPutCreatesIntermediateObjectsAndReplacesScalarsOnTheWay() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"a": 5, "z": 0}"#))
        XCTAssertEqual(try Self.apply("put", "/a/b/c", "true", to: &document), .rootMembers(["a"]))
        XCTAssertEqual(Self.text(document), #"{"a":{"b":{"c":true}},"z":0}"#)
        XCTAssertEqual(try Self.apply("put", "/a/b", #""s""#, to: &document), .rootMembers(["a"]))
        XCTAssertEqual(Self.text(document), #"{"a":{"b":"s"},"z":0}"#)
    }

    func testDeletingPrunesEmptyObjectsUpToTheRoot() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"a": {"b": {"c": 1}, "d": 2}, "e": 3}"#))
        XCTAssertEqual(try Self.apply("put", "/a/b/c", "null", to: &document), .rootMembers(["a"]))
        XCTAssertEqual(Self.text(document), #"{"a":{"d":2},"e":3}"#)
        XCTAssertEqual(try Self.apply("patch", "/a", #"{"d": null}"#, to: &document), .rootMembers(["a"]))
        XCTAssertEqual(Self.text(document), #"{"e":3}"#)
        XCTAssertEqual(try Self.apply("put", "/e", "null", to: &document), .whole, "the root became null")
        XCTAssertEqual(Self.text(document), "null")
    }

    func testDeletingWhatIsNotThereChangesNothing() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"a": 5, "b": {"c": 1}}"#))
        XCTAssertEqual(try Self.apply("put", "/x", "null", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try Self.apply("put", "/a/b", "null", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try Self.apply("put", "/b/x/y", "null", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try Self.apply("patch", "/q/r", #"{"s": null}"#, to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try Self.apply("patch", "/b", #"{}"#, to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(Self.text(document), #"{"a":5,"b":{"c":1}}"#)
    }

    func testPutNormalizesWhatFirebaseWouldNotStore() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"a": 1}"#))
        XCTAssertEqual(
            try Self.apply("put", "/b", #"{"x": null, "y": {}, "z": {"w": 2}}"#, to: &document), .rootMembers(["b"]))
        XCTAssertEqual(Self.text(document), #"{"a":1,"b":{"z":{"w":2}}}"#)
        XCTAssertEqual(try Self.apply("put", "/a", "{}", to: &document), .rootMembers(["a"]), "an empty object deletes")
        XCTAssertEqual(Self.text(document), #"{"b":{"z":{"w":2}}}"#)
        XCTAssertEqual(Self.text(FirebaseDocument(try JSON(parsing: #"{"a": null, "b": {}}"#))), "null")
    }

    func testPatchAtTheRootNamesTheMembersItChanged() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"a": 1, "b": 2, "c": 3}"#))
        let change = try Self.apply("patch", "/", #"{"c": 30, "a": 1, "b": null, "d": 4, "x": null}"#, to: &document)
        XCTAssertEqual(change, .rootMembers(["c", "b", "d"]), "a was set to what it was; x was not there")
        XCTAssertEqual(Self.text(document), #"{"a":1,"c":30,"d":4}"#)
    }

    func testPatchThatEmptiesAndRefillsAnObjectKeepsItsPlace() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"x": {"a": 1}, "y": 2}"#))
        XCTAssertEqual(try Self.apply("patch", "/x", #"{"a": null, "b": 1}"#, to: &document), .rootMembers(["x"]))
        XCTAssertEqual(Self.text(document), #"{"x":{"b":1},"y":2}"#)
    }

    func testPatchOverAScalarReplacesIt() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"x": "s"}"#))
        XCTAssertEqual(try Self.apply("patch", "/x", #"{"a": null, "b": 1}"#, to: &document), .rootMembers(["x"]))
        XCTAssertEqual(Self.text(document), #"{"x":{"b":1}}"#)
    }

    func testChangeIsBySpellingNotMeaning() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"n": 1, "o": {"a": 1, "b": 2}, "s": "é"}"#))
        XCTAssertEqual(try Self.apply("put", "/n", "1", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try Self.apply("put", "/n", "1.0", to: &document), .rootMembers(["n"]))
        XCTAssertEqual(try Self.apply("put", "/o", #"{"a": 1, "b": 2}"#, to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try Self.apply("put", "/o", #"{"b": 2, "a": 1}"#, to: &document), .rootMembers(["o"]))
        // "é" precomposed, then decomposed: equal as Swift Strings, different as JSON strings.
        XCTAssertEqual(try Self.apply("put", "/s", "\"\u{E9}\"", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try Self.apply("put", "/s", "\"e\u{301}\"", to: &document), .rootMembers(["s"]))
        XCTAssertEqual(Self.text(document), "{\"n\":1.0,\"o\":{\"b\":2,\"a\":1},\"s\":\"e\u{301}\"}")
    }

    func testRootChanges() throws {
        var document = FirebaseDocument()
        XCTAssertEqual(try Self.apply("put", "/", "null", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try Self.apply("patch", "/", #"{"a": 1}"#, to: &document), .whole, "null became an object")
        XCTAssertEqual(try Self.apply("put", "/", #"{"a": 1}"#, to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try Self.apply("put", "/", #"{"a": 2}"#, to: &document), .whole)
        XCTAssertEqual(try Self.apply("put", "/", "7", to: &document), .whole)
        XCTAssertEqual(try Self.apply("put", "/a", "1", to: &document), .whole, "a scalar root became an object")
        XCTAssertEqual(Self.text(document), #"{"a":1}"#)
    }

    func testOtherEventsChangeNothing() throws {
        var document = FirebaseDocument(.string("x"))
        XCTAssertEqual(try document.apply(.keepAlive), FirebaseDocument.Change.none)
        XCTAssertEqual(try document.apply(.cancel(reason: nil)), FirebaseDocument.Change.none)
        XCTAssertEqual(try document.apply(.authRevoked(reason: "expired")), FirebaseDocument.Change.none)
        XCTAssertEqual(Self.text(document), #""x""#)
    }

    func testTooDeepIsNotApplicableAndChangesNothing() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"a": 1}"#))
        let path = Array(repeating: "k", count: FirebaseDocument.maxDepth)
        XCTAssertThrowsError(
            try document.apply(.put(path: path, data: .object(JSONObject(["x": .null, "y": .bool(true)]))))
        ) {
            XCTAssertEqual($0 as? FirebaseDocument.Failure, .pathNotApplicable(path: path))
        }
        XCTAssertEqual(try document.apply(.put(path: path, data: .bool(true))), .rootMembers(["k"]), "just deep enough")
        XCTAssertThrowsError(try document.apply(.patch(path: path, data: JSONObject(["x": .bool(true)]))))
        XCTAssertEqual(FirebaseDocument.depth(document.value), FirebaseDocument.maxDepth)
    }
}
