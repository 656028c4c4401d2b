import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// What replicas share through Redis is read back as the same answer, and anything else found
/// under a Reshape key (another version, a truncated value, garbage) is a miss, never a crash
/// and never a wrong answer.
final class SharedCacheEntryTests: XCTestCase {
    private let policy = CachePolicy(
        ttlMilliseconds: 10_000, staleWhileRevalidateMilliseconds: 5_000, staleIfErrorMilliseconds: 60_000)
    private var route: Route {
        var route = makeRoute("users", "GET", "/users")
        route.cache = policy
        return route
    }

    private func stored(now: Double) -> ResponseCache.Stored {
        ResponseCache.Stored(
            response: HTTPResponse(
                status: 200,
                headers: [
                    NameValue(name: "Content-Type", value: "application/json"),
                    NameValue(name: "ETag", value: "\"abc\""),
                ],
                body: Array(#"{"objects":["Łódź",1]}"#.utf8) + [0x0A, 0x00]),
            dropped: 2, route: route, policy: policy, now: now, upstreamMaxAge: nil)
    }

    func testAnEntryReadsBackWithItsWindowsOnAnotherReplicasClock() throws {
        // Written at monotonic 100 s on one replica, read 3 s later on one whose clock says 5,000 s.
        let bytes = SharedCacheEntry.encode(stored(now: 100), now: 100, unixMilliseconds: 1_764_000_000_000)
        let read = try XCTUnwrap(
            SharedCacheEntry.decode(bytes, route: route, now: 5_000, unixMilliseconds: 1_764_000_003_000))
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
        /// The good entry with one part replaced, then a body.
        func changed(_ part: String, _ replacement: String) -> String {
            good.replacingOccurrences(of: part, with: replacement) + "\n[]"
        }
        var malformed: [String] = ["", "\n", good, "[]\n[]", "not json\n[]", String(good.dropLast(5)) + "\n[]"]
        malformed.append(changed(#""v":1"#, #""v":2"#))
        malformed.append(changed(#""v":1"#, #""v":"1""#))
        malformed.append(changed(#","d":0"#, ""))
        malformed.append(changed(#""f":10000"#, #""f":1e400"#))
        malformed.append(changed(#"[["Content-Type","application/json"]]"#, #"[["Content-Type"]]"#))
        malformed.append(changed(#"[["Content-Type","application/json"]]"#, #"[["Content-Type",1]]"#))
        malformed.append(changed(#"[["Content-Type","application/json"]]"#, #"{"Content-Type":"x"}"#))
        // Would overflow `now - t` (a trap before the fix) or be a window that ended before it began.
        malformed.append(changed(#""t":1000"#, #""t":-9223372036854775807"#))
        malformed.append(changed(#""t":1000"#, #""t":-1"#))
        malformed.append(changed(#""f":10000"#, #""f":-10000"#))
        malformed.append(changed(#""d":0"#, #""d":-1"#))
        // Windows longer than the route's policy, or a store time far in the future: they
        // would be served as fresh, with a huge max-age, until evicted.
        malformed.append(changed(#""f":10000"#, #""f":9000000000000000000"#))
        malformed.append(changed(#""w":15000"#, #""w":15002"#))
        malformed.append(changed(#""e":60000"#, #""e":70002"#))
        malformed.append(changed(#""t":1000"#, #""t":9000000000000000000"#))
        malformed.append(changed(#""t":1000"#, #""t":70000"#))
        // Headers `encode` never writes, or values that are not one visible-ASCII line: they
        // would go out in the answer's head (a second Content-Length, a cookie, an injected line).
        let headers = #"[["Content-Type","application/json"]]"#
        malformed.append(changed(headers, #"[["Content-Type","application/json"],["Content-Length","0"]]"#))
        malformed.append(changed(headers, #"[["Set-Cookie","a=b"]]"#))
        malformed.append(changed(headers, #"[["ETag","\"x\"\r\nSet-Cookie: a=b"]]"#))
        malformed.append(changed(headers, #"[["Content-Type","application/json\u0000"]]"#))
        for text in malformed { XCTAssertNil(decode(text), text) }
    }

    func testArbitraryBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let prefix = Array(#"{"v":1,"t":1000,"f":10000,"w":15000,"e":60000,"d":0,"h":[]}"#.utf8)
        for _ in 0..<2_000 {
            var bytes =
                prefix + [0x0A]
                + (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            // Flip a few bytes anywhere, header included.
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = SharedCacheEntry.decode(bytes, route: route, now: 0, unixMilliseconds: 2_000)
        }
    }
}
