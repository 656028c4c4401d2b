import XCTest

@testable import ReshapeProxy

final class EntityTagTests: XCTestCase {
    func testTheTagFollowsTheBytesExactly() {
        let a = EntityTag.of(Array(#"{"objects":[1,2,3]}"#.utf8))
        XCTAssertEqual(a, EntityTag.of(Array(#"{"objects":[1,2,3]}"#.utf8)))
        XCTAssertNotEqual(a, EntityTag.of(Array(#"{"objects":[1,2,4]}"#.utf8)))
        XCTAssertNotEqual(EntityTag.of([]), EntityTag.of([0]), "length counts, not only content")
        XCTAssertNotEqual(
            EntityTag.of(Array("abcdefgh1".utf8)), EntityTag.of(Array("abcdefgh2".utf8)),
            "the tail after the last word counts")
        XCTAssertEqual(a.count, 18)
        XCTAssertTrue(a.hasPrefix("\"") && a.hasSuffix("\"") && a.dropFirst().dropLast().allSatisfy(\.isHexDigit), a)
    }

    func testIfNoneMatchComparesWeaklyAndAcceptsListsAndStar() {
        let tag = #""0123456789abcdef""#
        XCTAssertTrue(EntityTag.ifNoneMatch(tag, matches: tag))
        XCTAssertTrue(EntityTag.ifNoneMatch(#"W/"0123456789abcdef""#, matches: tag))
        XCTAssertTrue(EntityTag.ifNoneMatch(#""x", "0123456789abcdef" ,"y""#, matches: tag))
        XCTAssertTrue(EntityTag.ifNoneMatch("*", matches: tag))
        XCTAssertFalse(EntityTag.ifNoneMatch(#""0123456789abcdee""#, matches: tag))
        XCTAssertFalse(EntityTag.ifNoneMatch("0123456789abcdef", matches: tag), "an unquoted value is not the tag")
        XCTAssertFalse(EntityTag.ifNoneMatch("", matches: tag))
    }

    func testEveryByteOfEveryLaneAndOfTheTailCounts() {
        // 77 bytes: two rounds of the four 8-byte lanes, one word after them, a 5-byte tail.
        let base = (0..<77).map { UInt8($0 &* 37 & 0xFF) }
        let tag = EntityTag.of(base)
        for index in base.indices {
            var changed = base
            changed[index] ^= 0x01
            XCTAssertNotEqual(EntityTag.of(changed), tag, "byte \(index)")
        }
    }

    func testNoTwoOfManyDifferentAnswersShareATag() {
        var generator = SystemRandomNumberGenerator()
        var seen: [String: [UInt8]] = [:]
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...150, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let tag = EntityTag.of(bytes)
            if let other = seen[tag] { XCTAssertEqual(other, bytes, "two answers share \(tag)") }
            seen[tag] = bytes
        }
    }
}
