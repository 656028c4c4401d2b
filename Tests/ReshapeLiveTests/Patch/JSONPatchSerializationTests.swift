import ReshapeJSON
import XCTest

@testable import ReshapeLive

final class JSONPatchSerializationTests: XCTestCase {
    func testEachOperationIsWrittenWithItsMembersInOrder() {
        let patch = JSONPatch([
            .add(JSONPointer("/objects/3")!, json(#"{"objectId":"-Nx1","name":"Ada"}"#)),
            .remove(JSONPointer("/objects/0")!),
            .replace(JSONPointer("/objects/1/name")!, .string("Zoë")),
        ])
        XCTAssertEqual(
            patch.text,
            #"[{"op":"add","path":"/objects/3","value":{"objectId":"-Nx1","name":"Ada"}},"#
                + #"{"op":"remove","path":"/objects/0"},{"op":"replace","path":"/objects/1/name","value":"Zoë"}]"#)
    }

    func testAnEmptyPatchIsAnEmptyArray() {
        XCTAssertEqual(JSONPatch().text, "[]")
    }

    func testPathsEscapeTildeAndSlashAndStringsEscapeQuotes() {
        let patch = JSONPatch([.replace(JSONPointer(tokens: ["a/b", "~c", #"say "hi""#]), .null)])
        XCTAssertEqual(patch.text, #"[{"op":"replace","path":"/a~1b/~0c/say \"hi\"","value":null}]"#)
    }

    func testTheRootIsTheEmptyPath() {
        XCTAssertEqual(
            JSONPatch([.replace(JSONPointer(), json("[]"))]).text, #"[{"op":"replace","path":"","value":[]}]"#)
    }

    func testNumbersKeepTheirSpelling() {
        let patch = JSONPatch([.add(JSONPointer("/n")!, json("[1.0,1,-0,1.5E+300,12345678901234567890]"))])
        XCTAssertEqual(patch.text, #"[{"op":"add","path":"/n","value":[1.0,1,-0,1.5E+300,12345678901234567890]}]"#)
    }

    func testSizesCountedWithoutWritingMatchTheWriter() {
        let values = [
            json(#"{"a":[1,2.5,true,false,null],"b":{},"c":[],"d":"x\"y\\z\n\t\u0001\u001f/é李"}"#),
            json(#""""#), json("[[],{}]"), json(#"{"":{"":""}}"#),
        ]
        for value in values {
            XCTAssertEqual(value.serializedSize(), value.serialized().count, value.serializedString())
            let patch = JSONPatch([
                .add(JSONPointer(tokens: ["a/b", "\u{7}"]), value), .remove(JSONPointer()),
                .replace(JSONPointer(), value),
            ])
            XCTAssertEqual(patch.operations.map { $0.serializedSize() }.reduce(1, +), patch.serialized().count)
        }
    }

    func testASizeLimitStopsTheCountEarly() {
        let big = JSON.array(Array(repeating: json(#"{"name":"Ada"}"#), count: 1000))
        let size = big.serializedSize(limit: 50)
        XCTAssertGreaterThan(size, 50)
        XCTAssertLessThan(size, 100)
    }
}
