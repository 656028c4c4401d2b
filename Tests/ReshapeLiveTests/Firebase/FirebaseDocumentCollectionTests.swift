import ReshapeJSON
import XCTest

@testable import ReshapeLive

/// A keyed collection as Firebase streams one (push ids as keys), and arrays (keys 0, 1, …).
final class FirebaseDocumentCollectionTests: XCTestCase {
    private func apply(_ name: String, _ path: String, _ data: String, to document: inout FirebaseDocument)
        throws -> FirebaseDocument.Change
    {
        try FirebaseDocumentTests.apply(name, path, data, to: &document)
    }

    private func text(_ document: FirebaseDocument) -> String { FirebaseDocumentTests.text(document) }

    func testRecordsAddedReplacedPatchedAndDeleted() throws {
        var document = FirebaseDocument()
        let initial = #"{"-Nx1": {"name": "Ada", "year": 1815}, "-Nx2": {"name": "Alan", "year": 1912}}"#
        XCTAssertEqual(try apply("put", "/", initial, to: &document), .whole)

        XCTAssertEqual(
            try apply("put", "/-Nx3", #"{"name": "Grace", "year": 1906}"#, to: &document), .rootMembers(["-Nx3"]))
        XCTAssertEqual(
            try apply("put", "/-Nx1", #"{"name": "Ada King", "year": 1815}"#, to: &document), .rootMembers(["-Nx1"]))
        XCTAssertEqual(
            try apply("patch", "/-Nx2", #"{"year": 1913, "field": "logic"}"#, to: &document), .rootMembers(["-Nx2"]))
        XCTAssertEqual(try apply("put", "/-Nx3/year", "1906", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(
            text(document),
            #"{"-Nx1":{"name":"Ada King","year":1815},"-Nx2":{"name":"Alan","year":1913,"field":"logic"},"#
                + #""-Nx3":{"name":"Grace","year":1906}}"#)

        XCTAssertEqual(try apply("put", "/-Nx2", "null", to: &document), .rootMembers(["-Nx2"]))
        // A multi-location update (PATCH with slashes in its keys) streams as one patch whose
        // keys are paths below the patch's own.
        XCTAssertEqual(
            try apply("patch", "/", #"{"-Nx1/name": "Ada L.", "-Nx4": {"name": "Edsger"}}"#, to: &document),
            .rootMembers(["-Nx1", "-Nx4"]))
        XCTAssertEqual(
            text(document),
            #"{"-Nx1":{"name":"Ada L.","year":1815},"-Nx3":{"name":"Grace","year":1906},"#
                + #""-Nx4":{"name":"Edsger"}}"#)
    }

    func testALargePatchMergesLikeTheSameChildrenPutOneByOne() throws {
        var records = (0..<40).map { #""-N\#($0)": {"n": \#($0)}"# }
        var merged = FirebaseDocument(try JSON(parsing: "{" + records.joined(separator: ",") + "}"))
        var oneByOne = merged
        // Replaced, unchanged, deleted, new, a path below a record, and a new name twice.
        var children: [(String, String)] = (0..<10).map { ("-N\($0 * 3)", #"{"n": \#($0 * 100)}"#) }
        children += [("-N1", #"{"n": 1}"#), ("-N2", "null"), ("-N5", "null"), ("-Nnew", #"{"n": -1}"#)]
        children += [("-N7/m", "7"), ("-Nz", "1"), ("-Nz", "2")]
        let data = "{" + children.map { #""\#($0.0)": \#($0.1)"# }.joined(separator: ",") + "}"
        XCTAssertThrowsError(try JSON(parsing: data), "the parser refuses duplicate names")
        let unique = children.filter { $0.0 != "-Nz" } + [("-Nz", "2")]
        let uniqueData = "{" + unique.map { #""\#($0.0)": \#($0.1)"# }.joined(separator: ",") + "}"
        let change = try apply("patch", "/", uniqueData, to: &merged)
        for (name, value) in unique { _ = try apply("put", "/" + name, value, to: &oneByOne) }
        XCTAssertEqual(text(merged), text(oneByOne))
        guard case .rootMembers(let touched) = change else { return XCTFail("\(change)") }
        XCTAssertEqual(
            Set(touched), Set(unique.map { String($0.0.split(separator: "/")[0]) }).subtracting(["-N1", "-N0"]))
        records.removeAll()
    }

    func testAnIndexSetsAnArrayElementInPlaceAndOnePastTheEndAppends() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"list": ["a", "b", "c"]}"#))
        XCTAssertEqual(try apply("put", "/list/1", #""B""#, to: &document), .rootMembers(["list"]))
        XCTAssertEqual(try apply("put", "/list/3", #""d""#, to: &document), .rootMembers(["list"]))
        XCTAssertEqual(try apply("patch", "/list/0", #"{"x": 1}"#, to: &document), .rootMembers(["list"]))
        XCTAssertEqual(text(document), #"{"list":[{"x":1},"B","c","d"]}"#)
    }

    func testDeletingElementsLeavesNullsAndDropsTrailingOnes() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"list": ["a", "b", "c"], "k": 1}"#))
        XCTAssertEqual(try apply("put", "/list/1", "null", to: &document), .rootMembers(["list"]))
        XCTAssertEqual(text(document), #"{"list":["a",null,"c"],"k":1}"#)
        XCTAssertEqual(try apply("put", "/list/1", "null", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try apply("put", "/list/7", "null", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try apply("put", "/list/x", "null", to: &document), FirebaseDocument.Change.none)
        XCTAssertEqual(try apply("put", "/list/2", "null", to: &document), .rootMembers(["list"]))
        XCTAssertEqual(text(document), #"{"list":["a"],"k":1}"#)
        XCTAssertEqual(try apply("patch", "/list", #"{"0": null}"#, to: &document), .rootMembers(["list"]))
        XCTAssertEqual(text(document), #"{"k":1}"#, "an array left empty is deleted")
    }

    func testAnyOtherKeyTurnsTheArrayIntoItsObject() throws {
        var document = FirebaseDocument(try JSON(parsing: #"{"list": ["a", null, "c"]}"#))
        XCTAssertEqual(try apply("put", "/list/5", #""f""#, to: &document), .rootMembers(["list"]))
        XCTAssertEqual(text(document), #"{"list":{"0":"a","2":"c","5":"f"}}"#)

        var leadingZero = FirebaseDocument(try JSON(parsing: #"{"list": ["a"]}"#))
        XCTAssertEqual(try apply("put", "/list/00", "1", to: &leadingZero), .rootMembers(["list"]))
        XCTAssertEqual(text(leadingZero), #"{"list":{"0":"a","00":1}}"#)

        var named = FirebaseDocument(try JSON(parsing: #"["a", "b"]"#))
        XCTAssertEqual(try apply("patch", "/", #"{"name": "x"}"#, to: &named), .whole, "the root's kind changed")
        XCTAssertEqual(text(named), #"{"0":"a","1":"b","name":"x"}"#)
    }

    func testAnArrayRootNamesItsIndexes() throws {
        var document = FirebaseDocument(try JSON(parsing: #"[{"n": 1}, {"n": 2}]"#))
        XCTAssertEqual(try apply("put", "/1/n", "3", to: &document), .rootMembers(["1"]))
        XCTAssertEqual(
            try apply("patch", "/", #"{"0": null, "2": {"n": 4}}"#, to: &document), .rootMembers(["0", "2"]))
        XCTAssertEqual(text(document), #"[null,{"n":3},{"n":4}]"#)
    }
}
