import ReshapeJSON
import XCTest

final class JSONPointerTests: XCTestCase {
    func testRFC6901Examples() throws {
        let doc = try JSON(
            parsing: #"{"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8}"#)
        let expectations: [(String, String)] = [
            ("", doc.serializedString()), ("/foo", #"["bar","baz"]"#), ("/foo/0", #""bar""#), ("/", "0"),
            ("/a~1b", "1"), ("/c%d", "2"), ("/e^f", "3"), ("/g|h", "4"), ("/i\\j", "5"), ("/k\"l", "6"),
            ("/ ", "7"), ("/m~0n", "8"),
        ]
        for (pointer, expected) in expectations {
            let parsed = try XCTUnwrap(JSONPointer(pointer), pointer)
            XCTAssertEqual(doc[parsed]?.serializedString(), expected, pointer)
            XCTAssertEqual(parsed.description, pointer)
        }
    }

    func testMissingAndMalformed() throws {
        let doc = try JSON(parsing: #"{"a":[1,2]}"#)
        XCTAssertNil(doc[JSONPointer("/a/2")!])
        XCTAssertNil(doc[JSONPointer("/a/01")!])
        XCTAssertNil(doc[JSONPointer("/a/-")!])
        XCTAssertNil(doc[JSONPointer("/b")!])
        XCTAssertNil(JSONPointer("a"))
        XCTAssertNil(JSONPointer("/~2"))
        XCTAssertNil(JSONPointer("/~"))
    }

    func testBuildingPointerText() {
        XCTAssertEqual(JSONPointer.appending(key: "a/b~c", to: "/x"), "/x/a~1b~0c")
        XCTAssertEqual(JSONPointer.appending(index: 3, to: ""), "/3")
        XCTAssertEqual(JSONPointer(tokens: ["a/b", "0"]).description, "/a~1b/0")
        XCTAssertEqual(JSONPointer().appending(key: "m~n").appending(index: 2).description, "/m~0n/2")
        XCTAssertEqual(JSONPointer("/m~0n/2")?.tokens, ["m~n", "2"])
    }

    func testTapeWalkFindsWhatTheTreeWalkFinds() throws {
        let text = #"{"foo":["bar","baz"],"":0,"a/b":1,"m~n":{"x":[true,{"y":null}]},"e\u0073c":2}"#
        let tape = try JSONTape.parse(Array(text.utf8))
        let tree = try JSON(parsing: text)
        let pointers = [
            "", "/foo", "/foo/0", "/foo/1", "/", "/a~1b", "/m~0n", "/m~0n/x/1/y", "/esc",
            "/foo/2", "/foo/01", "/foo/-", "/foo/+1", "/missing", "/a~1b/0", "/m~0n/x/1/y/z",
        ]
        for text in pointers {
            let pointer = try XCTUnwrap(JSONPointer(text), text)
            let node = tape.node(at: pointer, from: tape.root)
            XCTAssertEqual(node.map { tape.materialize($0) }, tree[pointer], text)
        }
    }

    func testTapeWalkStartsAtAnyNode() throws {
        let tape = try JSONTape.parse(Array(#"{"a":{"b":[10,20,30]}}"#.utf8))
        let inner = try XCTUnwrap(tape.node(at: JSONPointer("/a")!, from: tape.root))
        let found = try XCTUnwrap(tape.node(at: JSONPointer("/b/2")!, from: inner))
        XCTAssertEqual(tape.materialize(found), .number(JSONNumber(30)))
        XCTAssertEqual(tape.node(at: JSONPointer(), from: inner), inner)
    }
}
