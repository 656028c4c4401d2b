import ReshapeJSON
import ReshapeTestSupport
import XCTest

@testable import ReshapeLive

/// `JSONPatch.difference(splicing:at:inserted:in:wrap:)` gives what `difference(from:to:)`
/// gives, also where equal elements make the walk's prefix and suffix reach past the splice.
final class JSONPatchSpliceTests: XCTestCase {
    func testASpliceGivesTheWholeDifference() {
        var random = SplitMix64(seed: 11)
        // Few distinct values, so that neighbours are often equal; a long one so that
        // replacing the array whole is sometimes shorter and sometimes not.
        let values: [JSON] = [
            .number(JSONNumber(1)), .number(JSONNumber(2)), .object(JSONObject(["a": .number(JSONNumber(1))])),
            .object(JSONObject(["a": .number(JSONNumber(2))])), .string(String(repeating: "x", count: 60)),
        ]
        for round in 0..<3_000 {
            let old = (0..<Int.random(in: 0...8, using: &random)).map { _ in values.randomElement(using: &random)! }
            let index = Int.random(in: 0...old.count, using: &random)
            let removed = Array(old[index..<min(old.count, index + Int.random(in: 0...2, using: &random))])
            let inserted = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                values.randomElement(using: &random)!
            }
            var new = old
            new.replaceSubrange(index..<(index + removed.count), with: inserted)
            for wrap in [nil, "objects"] as [String?] {
                let before = wrapped(old, in: wrap)
                let after = wrapped(new, in: wrap)
                let spliced = JSONPatch.difference(
                    splicing: removed, at: index, inserted: inserted.count, in: after, wrap: wrap)
                XCTAssertEqual(
                    String(decoding: spliced.serialized(), as: UTF8.self),
                    String(decoding: JSONPatch.difference(from: before, to: after).serialized(), as: UTF8.self),
                    "round \(round): \(old) at \(index), \(removed.count) out, \(inserted) in, wrap \(wrap ?? "-")")
            }
        }
    }

    /// `{wrap: elements}`, or the array itself.
    private func wrapped(_ elements: [JSON], in wrap: String?) -> JSON {
        guard let wrap else { return .array(elements) }
        return .object(JSONObject([JSONMember(key: wrap, value: .array(elements))]))
    }
}
