import ReshapeJSON
import XCTest

@testable import ReshapeLive

final class JSONPatchRoundTripTests: XCTestCase {
    /// The live contract: every patch applied in order to the snapshot gives exactly what a plain
    /// GET would return after those changes.
    func testPatchesAppliedInOrderFollowAStreamOfChanges() throws {
        for seed: UInt64 in 1...6 {
            var answers = RandomAnswers(seed: seed)
            let snapshot = answers.answer(records: Int(seed) * 3)
            var current = snapshot
            var patched = snapshot
            for step in 0..<60 {
                let next = answers.changed(current)
                let patch = JSONPatch.difference(from: current, to: next)
                patched = try patch.applied(to: patched)
                XCTAssertEqual(patched.serialized(), next.serialized(), "seed \(seed), step \(step): \(patch.text)")
                XCTAssertEqual(patch.isEmpty, current.isIdentical(to: next), "seed \(seed), step \(step)")
                assertNoLongerThanAReplace(patch, of: next)
                current = next
            }
        }
    }

    /// Pairs far apart: several changes at once, so that objects and arrays are walked in every way.
    func testDifferencesBetweenUnrelatedAnswersApply() throws {
        var answers = RandomAnswers(seed: 42)
        for pair in 0..<200 {
            let old = answers.answer(records: pair % 9)
            var new = old
            for _ in 0..<(1 + pair % 5) { new = answers.changed(new) }
            let patch = JSONPatch.difference(from: old, to: new)
            XCTAssertEqual(try patch.applied(to: old).serialized(), new.serialized(), "pair \(pair): \(patch.text)")
            let counted = patch.operations.map { $0.serializedSize() }.reduce(1, +)
            XCTAssertEqual(patch.isEmpty ? 2 : counted, patch.serialized().count, patch.text)
            assertNoLongerThanAReplace(patch, of: new)
        }
    }

    /// Two or more operations are never longer than replacing the whole document.
    private func assertNoLongerThanAReplace(_ patch: JSONPatch, of new: JSON, line: UInt = #line) {
        guard patch.operations.count >= 2 else { return }
        let replace = JSONPatch([.replace(JSONPointer(), new)])
        XCTAssertLessThanOrEqual(patch.serialized().count, replace.serialized().count, patch.text, line: line)
    }

    // MARK: A long answer

    func testOneChangeInALongAnswerIsOneOperation() throws {
        var answers = RandomAnswers(seed: 7)
        let old = answers.answer(records: 30_000)
        guard case .object(var root) = old, case .array(var records)? = root["objects"],
            case .object(var record) = records[17_345]
        else { return XCTFail("not an answer") }
        record["name"] = .string("Grace Hopper")
        records[17_345] = .object(record)
        root["objects"] = .array(records)
        let changed = JSON.object(root)

        let clock = ContinuousClock()
        var patch = JSONPatch()
        let elapsed = clock.measure { patch = JSONPatch.difference(from: old, to: changed) }
        print("difference() over 30,000 records, one field changed: \(elapsed)")
        XCTAssertEqual(patch.text, #"[{"op":"replace","path":"/objects/17345/name","value":"Grace Hopper"}]"#)
        XCTAssertEqual(try patch.applied(to: old).serialized(), changed.serialized())

        let unchanged = clock.measure { patch = JSONPatch.difference(from: old, to: old) }
        print("difference() over 30,000 identical records: \(unchanged)")
        XCTAssertTrue(patch.isEmpty)

        records.insert(answers.record(), at: 12_000)
        root["objects"] = .array(records)
        let inserted = JSON.object(root)
        patch = JSONPatch.difference(from: changed, to: inserted)
        XCTAssertEqual(patch.operations.count, 1)
        XCTAssertTrue(patch.text.hasPrefix(#"[{"op":"add","path":"/objects/12000","value":{"objectId":"#), patch.text)
        XCTAssertEqual(try patch.applied(to: changed).serialized(), inserted.serialized())

        patch = JSONPatch.difference(from: inserted, to: changed)
        XCTAssertEqual(patch.text, #"[{"op":"remove","path":"/objects/12000"}]"#)
    }
}
