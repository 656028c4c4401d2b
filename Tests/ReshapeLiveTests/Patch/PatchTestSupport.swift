import ReshapeJSON
import XCTest

@testable import ReshapeLive

/// Parses JSON text that a test spells out.
func json(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSON {
    do {
        return try JSON(parsing: text)
    } catch {
        XCTFail("bad test JSON \(text): \(error)", file: file, line: line)
        return .null
    }
}

extension JSONPatch {
    var text: String { String(decoding: serialized(), as: UTF8.self) }
}

/// Asserts that the difference from `old` to `new` is `patch` (as text) and that it applies to
/// `old` giving `new`'s exact bytes.
func assertDifference(
    _ old: String, _ new: String, is patch: String, file: StaticString = #filePath, line: UInt = #line
) {
    let old = json(old, file: file, line: line)
    let new = json(new, file: file, line: line)
    let difference = JSONPatch.difference(from: old, to: new)
    XCTAssertEqual(difference.text, patch, file: file, line: line)
    assertRoundTrip(difference, from: old, to: new, file: file, line: line)
}

/// Asserts that `patch` applied to `old` serializes to `new`'s bytes.
func assertRoundTrip(
    _ patch: JSONPatch, from old: JSON, to new: JSON, file: StaticString = #filePath, line: UInt = #line
) {
    do {
        let result = try patch.applied(to: old)
        XCTAssertEqual(
            result.serializedString(), new.serializedString(), "patch: \(patch.text)", file: file, line: line)
    } catch {
        XCTFail("\(patch.text) does not apply to \(old.serializedString()): \(error)", file: file, line: line)
    }
}
