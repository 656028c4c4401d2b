import XCTest
import ReshapeRules
@testable import ReshapeProxy

/// What replicas share through Redis is read back as the same answer, and anything else found
/// under a Reshape key (another version, a truncated value, garbage) is a miss, never a crash
/// and never a wrong answer.
final class SharedCacheEntryTests: XCTestCase {
    private let route = makeRoute("users", "GET", "/users")
    private let policy = CachePolicy(ttlMilliseconds: 10_000, staleWhileRevalidateMilliseconds: 5_000, staleIfErrorMilliseconds: 60_000)

    private func stored(now: Double) -> ResponseCache.Stored {
        ResponseCache.Stored(response: HTTPResponse(status: 200, headers: [NameValue(name: "Content-Type", value: "application/json"),
                                                                           NameValue(name: "ETag", value: "\"abc\"")],
                                                    body: Array(#"{"objects":["Łódź",1]}"#.utf8) + [0x0A, 0x00]),
                             dropped: 2, route: route, policy: policy, now: now, upstreamMaxAge: nil)
    }

    func testAnEntryReadsBackWithItsWindowsOnAnotherReplicasClock() throws {
        // Written at monotonic 100 s on one replica, read 3 s later on one whose clock says 5,000 s.
        let bytes = SharedCacheEntry.encode(stored(now: 100), now: 100, unixMilliseconds: 1_764_000_000_000)
        let read = try XCTUnwrap(SharedCacheEntry.decode(bytes, route: route, now: 5_000, unixMilliseconds: 1_764_000_003_000))
        XCTAssertEqual(read.body, stored(now: 100).body, "the body is kept byte for byte, newlines and NUL included")
        XCTAssertEqual(read.headers, stored(now: 100).headers)
        XCTAssertEqual(read.dropped, 2)
        XCTAssertEqual(read.storedAt, 4_997, accuracy: 0.001)
        XCTAssertEqual(read.freshUntil, 5_007, accuracy: 0.001)
        XCTAssertEqual(read.staleWhileRevalidateUntil, 5_012, accuracy: 0.001)
        XCTAssertEqual(read.staleIfErrorUntil, 5_067, accuracy: 0.001)
    }

    func testAnEntryPastEveryWindowIsAMiss() {
        let bytes = SharedCacheEntry.encode(stored(now: 0), now: 0, unixMilliseconds: 1_000_000)
        XCTAssertNotNil(SharedCacheEntry.decode(bytes, route: route, now: 0, unixMilliseconds: 1_000_000 + 69_000))
        XCTAssertNil(SharedCacheEntry.decode(bytes, route: route, now: 0, unixMilliseconds: 1_000_000 + 71_000))
    }

    func testMalformedEntriesAreMisses() {
        let good = #"{"v":1,"t":1000,"f":10000,"w":15000,"e":60000,"d":0,"h":[["Content-Type","application/json"]]}"#
        func decode(_ text: String) -> ResponseCache.Stored? {
            SharedCacheEntry.decode(Array(text.utf8), route: route, now: 0, unixMilliseconds: 2_000)
        }
        XCTAssertNotNil(decode(good + "\n[]"), "the well-formed control")
        let malformed = [
            "", "\n", good, "[]\n[]", "not json\n[]", good.replacingOccurrences(of: #""v":1"#, with: #""v":2"#) + "\n[]",
            good.replacingOccurrences(of: #""v":1"#, with: #""v":"1""#) + "\n[]",
            good.replacingOccurrences(of: #","d":0"#, with: "") + "\n[]",
            good.replacingOccurrences(of: #""f":10000"#, with: #""f":1e400"#) + "\n[]",
            good.replacingOccurrences(of: #"[["Content-Type","application/json"]]"#, with: #"[["Content-Type"]]"#) + "\n[]",
            good.replacingOccurrences(of: #"[["Content-Type","application/json"]]"#, with: #"[["Content-Type",1]]"#) + "\n[]",
            good.replacingOccurrences(of: #"[["Content-Type","application/json"]]"#, with: #"{"Content-Type":"x"}"#) + "\n[]",
            String(good.dropLast(5)) + "\n[]",
            // Would overflow `now - t` (a trap before the fix) or be a window that ended before it began.
            good.replacingOccurrences(of: #""t":1000"#, with: #""t":-9223372036854775807"#) + "\n[]",
            good.replacingOccurrences(of: #""t":1000"#, with: #""t":-1"#) + "\n[]",
            good.replacingOccurrences(of: #""f":10000"#, with: #""f":-10000"#) + "\n[]",
            good.replacingOccurrences(of: #""d":0"#, with: #""d":-1"#) + "\n[]",
        ]
        for text in malformed { XCTAssertNil(decode(text), text) }
    }

    func testArbitraryBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let prefix = Array(#"{"v":1,"t":1000,"f":10000,"w":15000,"e":60000,"d":0,"h":[]}"#.utf8)
        for _ in 0..<2_000 {
            var bytes = prefix + [0x0A] + (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Flip a few bytes anywhere, header included.
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = SharedCacheEntry.decode(bytes, route: route, now: 0, unixMilliseconds: 2_000)
        }
    }
}
