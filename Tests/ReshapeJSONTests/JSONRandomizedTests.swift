import XCTest
@testable import ReshapeJSON

/// Deterministic randomized checks of the unsafe-pointer code: random values must round
/// trip exactly, and mutated documents must either parse or fail with a sane position.
final class JSONRandomizedTests: XCTestCase {
    private struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    private static let numbers = ["0", "-0", "1", "-17", "0.1", "1.5E+300", "12345678901234567890", "2e-7", "3.250"]
    private static let scalars: [Unicode.Scalar] = ["a", "z", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}",
                                                    "é", "ß", "€", "✓", "😀", "\u{2028}", "\u{FFFF}"]

    private func randomString(_ random: inout Random) -> String {
        var text = ""
        // Lengths up to 40 cross the 8-byte and 16-byte boundaries of the fast paths.
        for _ in 0..<random.below(40) {
            text.unicodeScalars.append(random.below(3) == 0 ? JSONRandomizedTests.scalars[random.below(JSONRandomizedTests.scalars.count)]
                                                            : Unicode.Scalar(UInt8(97 + random.below(26))))
        }
        return text
    }

    private func randomValue(_ random: inout Random, depth: Int) -> JSON {
        switch random.below(depth > 4 ? 4 : 6) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2: return .number(JSONNumber(uncheckedText: JSONRandomizedTests.numbers[random.below(JSONRandomizedTests.numbers.count)]))
        case 3: return .string(randomString(&random))
        case 4: return .array((0..<random.below(5)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var object = JSONObject()
            for i in 0..<random.below(random.below(4) == 0 ? 40 : 6) {
                object.members.append(JSONMember(key: randomString(&random) + "#\(i)", value: randomValue(&random, depth: depth + 1)))
            }
            return .object(object)
        }
    }

    func testRandomValuesRoundTripExactly() throws {
        var random = Random(state: 7)
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
        // Large enough for the parser's string caches, with names and values repeating.
        var random = Random(state: 5)
        let value = JSON.array((0..<300).map { _ in randomValue(&random, depth: 1) })
        let bytes = value.serialized()
        XCTAssertGreaterThan(bytes.count, JSONParser.cacheThreshold)
        let reparsed = try JSON.parse(bytes)
        XCTAssertEqual(reparsed, value)
        XCTAssertEqual(reparsed.serialized(), bytes)
    }

    func testMutatedDocumentsFailCleanly() {
        var random = Random(state: 11)
        var failures = 0
        for _ in 0..<3000 {
            var bytes = randomValue(&random, depth: 0).serialized()
            guard !bytes.isEmpty else { continue }
            for _ in 0..<1 + random.below(3) where !bytes.isEmpty {
                let i = random.below(bytes.count)
                switch random.below(3) {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.remove(at: i)
                default:
                    let structural = Array("{}[],:\"\\e.-0 ".utf8)
                    bytes.insert(structural[random.below(structural.count)], at: i)
                }
            }
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
