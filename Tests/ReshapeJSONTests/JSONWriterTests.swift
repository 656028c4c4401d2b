import XCTest
import ReshapeJSON

final class JSONWriterTests: XCTestCase {
    func testPrettyOutputIsStable() throws {
        let value = try JSON(parsing: #"{"b":[1,{"c":null}],"a":{},"e":[],"s":"x"}"#)
        XCTAssertEqual(value.serializedString(pretty: true), """
        {
          "b": [
            1,
            {
              "c": null
            }
          ],
          "a": {},
          "e": [],
          "s": "x"
        }
        """)
    }

    func testControlCharactersAreEscaped() {
        let value = JSON.string("\u{01}\u{1F}\u{7F}\"\\")
        XCTAssertEqual(value.serializedString(), "\"\\u0001\\u001f\u{7F}\\\"\\\\\"")
    }

    func testOutputReparsesToAnEqualValue() throws {
        let text = #"{"k":[1.50,"\u2028",{"x":-0.0e-0}],"n":null}"#
        let value = try JSON(parsing: text)
        XCTAssertEqual(try JSON.parse(value.serialized()), value)
        XCTAssertEqual(try JSON.parse(value.serialized(pretty: true)), value)
    }
}
