import ReshapeJSON
import XCTest

@testable import ReshapeLive

final class JSONPatchDifferenceTests: XCTestCase {
    /// A long unchanged value, so that replacing its container whole is never the shorter patch.
    let pad = "\"" + String(repeating: "p", count: 200) + "\""

    // MARK: Scalars and kinds

    func testIdenticalDocumentsGiveAnEmptyPatch() {
        assertDifference(#"{"objects":[{"a":1,"b":[true,null]}]}"#, #"{"objects":[{"a":1,"b":[true,null]}]}"#, is: "[]")
    }

    func testAScalarChangeIsOneReplace() {
        assertDifference(#"{"a":1,"b":"x"}"#, #"{"a":1,"b":"y"}"#, is: #"[{"op":"replace","path":"/b","value":"y"}]"#)
    }

    func testNumbersCompareBySpellingNotByValue() {
        // `JSON ==` calls these equal; the bytes a client ends with differ.
        XCTAssertEqual(json("1"), json("1.0"))
        assertDifference(#"{"a":1}"#, #"{"a":1.0}"#, is: #"[{"op":"replace","path":"/a","value":1.0}]"#)
        assertDifference("[1e2]", "[1E2]", is: #"[{"op":"replace","path":"/0","value":1E2}]"#)
    }

    func testStringsCompareByTheirBytes() {
        // NFC and NFD spellings of "é" are equal Swift Strings but different JSON text.
        let nfc = JSON.string("\u{E9}")
        let nfd = JSON.string("e\u{301}")
        XCTAssertFalse(nfc.isIdentical(to: nfd))
        let patch = JSONPatch.difference(from: nfc, to: nfd)
        XCTAssertEqual(patch.operations.count, 1)
        assertRoundTrip(patch, from: nfc, to: nfd)
    }

    func testAKindChangeIsAReplace() {
        assertDifference(#"{"a":{"b":1}}"#, #"{"a":[1]}"#, is: #"[{"op":"replace","path":"/a","value":[1]}]"#)
        assertDifference(#"{"a":null}"#, #"{"a":"x"}"#, is: #"[{"op":"replace","path":"/a","value":"x"}]"#)
        assertDifference(#"{"a":[]}"#, #"{"a":{}}"#, is: #"[{"op":"replace","path":"/a","value":{}}]"#)
        assertDifference(#"{"a":"1"}"#, #"{"a":1}"#, is: #"[{"op":"replace","path":"/a","value":1}]"#)
    }

    func testTheRootIsReplacedAtTheEmptyPath() {
        assertDifference("[1]", #"{"a":1}"#, is: #"[{"op":"replace","path":"","value":{"a":1}}]"#)
        assertDifference("1", "2", is: #"[{"op":"replace","path":"","value":2}]"#)
    }

    // MARK: Objects

    func testMembersAreRemovedChangedAndAppended() {
        assertDifference(
            #"{"p":\#(pad),"a":1,"b":2,"c":3}"#, #"{"p":\#(pad),"a":1,"c":4,"d":5,"e":6}"#,
            is: #"[{"op":"remove","path":"/b"},{"op":"replace","path":"/c","value":4},"#
                + #"{"op":"add","path":"/d","value":5},{"op":"add","path":"/e","value":6}]"#)
    }

    func testMemberNamesAreEscapedInPaths() {
        assertDifference(
            #"{"a/b":1,"~c":\#(pad),"é":3}"#, #"{"a/b":2,"~c":\#(pad),"é":4,"x~/y":5}"#,
            is: #"[{"op":"replace","path":"/a~1b","value":2},{"op":"replace","path":"/é","value":4},"#
                + #"{"op":"add","path":"/x~0~1y","value":5}]"#)
    }

    func testReorderedMembersReplaceTheObject() {
        // No sequence of add and remove moves `a` after `b` where adds append.
        assertDifference(
            #"{"r":{"a":1,"b":2},"s":0}"#, #"{"r":{"b":2,"a":1},"s":0}"#,
            is: #"[{"op":"replace","path":"/r","value":{"b":2,"a":1}}]"#)
    }

    func testANewMemberBeforeAnOldOneReplacesTheObject() {
        assertDifference(
            #"{"r":{"a":1,"b":2}}"#, #"{"r":{"a":1,"n":0,"b":2}}"#,
            is: #"[{"op":"replace","path":"/r","value":{"a":1,"n":0,"b":2}}]"#)
    }

    func testEmptyObjects() {
        assertDifference("{}", #"{"a":1}"#, is: #"[{"op":"add","path":"/a","value":1}]"#)
        assertDifference(#"{"a":1}"#, "{}", is: #"[{"op":"remove","path":"/a"}]"#)
        assertDifference(#"{"a":{}}"#, #"{"a":{}}"#, is: "[]")
    }

    // MARK: Arrays

    func testAnInsertedElementIsOneAdd() {
        assertDifference("[1,2,3,4]", "[1,2,9,3,4]", is: #"[{"op":"add","path":"/2","value":9}]"#)
        assertDifference("[1,2]", "[1,2,3]", is: #"[{"op":"add","path":"/2","value":3}]"#)
        assertDifference("[1,2]", "[0,1,2]", is: #"[{"op":"add","path":"/0","value":0}]"#)
    }

    func testADeletedElementIsOneRemove() {
        assertDifference("[1,2,3,4]", "[1,2,4]", is: #"[{"op":"remove","path":"/2"}]"#)
        assertDifference("[1,2,3]", "[2,3]", is: #"[{"op":"remove","path":"/0"}]"#)
    }

    func testExtraOldElementsAreRemovedFromTheHighestIndexDown() {
        assertDifference(
            "[\(pad),1,2,3,4,5,9]", "[\(pad),7,9]",
            is: #"[{"op":"replace","path":"/1","value":7},{"op":"remove","path":"/5"},"#
                + #"{"op":"remove","path":"/4"},{"op":"remove","path":"/3"},{"op":"remove","path":"/2"}]"#)
    }

    func testExtraNewElementsAreAddedAtTheirIndex() {
        assertDifference(
            #"[\#(pad),"b","z"]"#, #"[\#(pad),"c","d","e","z"]"#,
            is: #"[{"op":"replace","path":"/1","value":"c"},{"op":"add","path":"/2","value":"d"},"#
                + #"{"op":"add","path":"/3","value":"e"}]"#)
    }

    func testAChangedFieldOfAnElementIsOneReplaceOfThatField() {
        assertDifference(
            #"{"objects":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob","tags":["x"]}]}"#,
            #"{"objects":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob","tags":["x","y"]}]}"#,
            is: #"[{"op":"add","path":"/objects/1/tags/1","value":"y"}]"#)
    }

    func testNestedArrays() {
        assertDifference("[[1,2],[3,[4,5]]]", "[[1,2],[3,[4,6]]]", is: #"[{"op":"replace","path":"/1/1/1","value":6}]"#)
    }

    func testEmptyArrays() {
        assertDifference("[]", "[1]", is: #"[{"op":"add","path":"/0","value":1}]"#)
        assertDifference("[1]", "[]", is: #"[{"op":"remove","path":"/0"}]"#)
        assertDifference("[[]]", "[[],[]]", is: #"[{"op":"add","path":"/1","value":[]}]"#)
    }

    func testRepeatedElementsKeepIndicesRight() {
        assertDifference("[1,1,1]", "[1,1]", is: #"[{"op":"remove","path":"/2"}]"#)
        assertDifference(
            "[\(pad),1,1]", "[\(pad),1,1,1,1]",
            is: #"[{"op":"add","path":"/3","value":1},{"op":"add","path":"/4","value":1}]"#)
    }

    // MARK: Replacing whole when shorter

    func testManyOperationsOnAValueGiveWayToOneReplaceWhenShorter() {
        assertDifference(
            #"{"r":{"a":1,"b":2,"c":3}}"#, #"{"r":{"a":4,"b":5,"c":6}}"#,
            is: #"[{"op":"replace","path":"/r","value":{"a":4,"b":5,"c":6}}]"#)
        assertDifference("[1,2,3]", "[4,5,6]", is: #"[{"op":"replace","path":"","value":[4,5,6]}]"#)
    }

    func testOperationsStayWhenShorterThanAReplace() {
        let long = String(repeating: "x", count: 60)
        assertDifference(
            #"{"r":{"a":1,"b":2,"t":"\#(long)"}}"#, #"{"r":{"a":3,"b":4,"t":"\#(long)"}}"#,
            is: #"[{"op":"replace","path":"/r/a","value":3},{"op":"replace","path":"/r/b","value":4}]"#)
    }
}
