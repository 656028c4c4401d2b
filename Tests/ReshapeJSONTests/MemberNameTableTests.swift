import XCTest

@testable import ReshapeJSON

final class MemberNameTableTests: XCTestCase {
    func testShortNameHashReadingWordsEqualsTheByteHash() {
        // Names of every length up to 26, each followed by other bytes the word loads read past.
        let text = Array("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH".utf8)
        text.withUnsafeBufferPointer { all in
            for length in 0...26 {
                for start in 0..<4 {
                    let name = UnsafeBufferPointer(rebasing: all[start..<start + length])
                    XCTAssertEqual(
                        overreadingMemberNameHash(all.baseAddress! + start, count: length, seed: 99),
                        memberNameHash(name, seed: 99), "length \(length)")
                }
            }
        }
    }

    func testEqualHashesAreConfirmedByName() {
        let names = ["a", "b", "c", "d"]
        var table = MemberNameTable(expectedCount: 4)
        // Every name gets the same hash: only the name comparison can tell them apart.
        for (i, name) in names.enumerated() {
            XCTAssertTrue(table.insert(hash: 42, index: i) { names[$0] == name }, name)
        }
        XCTAssertFalse(table.insert(hash: 42, index: 4) { names[$0] == "c" })
        XCTAssertGreaterThan(table.probes, 0)
    }

    func testGrowthKeepsEveryEntry() {
        var table = MemberNameTable(expectedCount: 1)
        for i in 0..<1000 {
            XCTAssertTrue(table.insert(hash: UInt64(i) &* 0x9E37_79B9_7F4A_7C15, index: i) { _ in true })
        }
        for i in stride(from: 0, to: 1000, by: 37) {
            XCTAssertFalse(table.insert(hash: UInt64(i) &* 0x9E37_79B9_7F4A_7C15, index: 1000) { $0 == i })
        }
    }
}
