import ReshapeTestSupport
import XCTest

@testable import ReshapeJSON

/// Deterministic randomized checks of the unsafe-pointer code: random values must round
/// trip exactly, and mutated documents must either parse or fail with a sane position.
final class JSONRandomizedTests: XCTestCase {
    private func randomValue(_ random: inout SplitMix64, depth: Int) -> JSON {
        JSONGenerator.value(&random, depth: depth)
    }

    func testRandomValuesRoundTripExactly() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0..<400 {
            let value = randomValue(&random, depth: 0)
            let compact = value.serialized()
            let reparsed = try JSON.parse(compact)
            XCTAssertEqual(reparsed, value)
            XCTAssertEqual(reparsed.serialized(), compact, "compact output is not a fixed point")
            XCTAssertEqual(try JSON.parse(value.serialized(pretty: true)), value)
        }
    }

    func testOneLargeRandomDocumentRoundTrips() throws {
        // A large document, with names and values repeating.
        var random = SplitMix64(seed: 5)
        let value = JSON.array((0..<300).map { _ in randomValue(&random, depth: 1) })
        let bytes = value.serialized()
        XCTAssertGreaterThan(bytes.count, 4096)
        let reparsed = try JSON.parse(bytes)
        XCTAssertEqual(reparsed, value)
        XCTAssertEqual(reparsed.serialized(), bytes)
    }

    func testMutatedDocumentsFailCleanly() {
        var random = SplitMix64(seed: 11)
        var failures = 0
        for _ in 0..<3000 {
            var bytes = randomValue(&random, depth: 0).serialized()
            guard !bytes.isEmpty else { continue }
            JSONGenerator.mutate(&bytes, &random)
            do {
                _ = try JSON.parse(bytes)
            } catch {
                failures += 1
                XCTAssertTrue((0...bytes.count).contains(error.offset), "\(error) offset \(error.offset)")
                XCTAssertGreaterThanOrEqual(error.line, 1)
                XCTAssertGreaterThanOrEqual(error.column, 1)
            }
        }
        XCTAssertGreaterThan(failures, 1000, "mutations should mostly break documents")
    }
}
