/// What a route's requests recently needed in memory, the estimates a new fetch of the route
/// reserves in the memory budget: before its headers come, the largest need per fetch of the
/// last few requests; once its `Content-Length` (or its growth) is known and passes the bodies
/// that estimate was made from, that many bytes times the largest need per body byte. A
/// request's need is all it holds at once while its answer is made and written: its upstream
/// bodies, the tapes they were parsed into, and the answer.
package struct RecentSizes: Sendable {
    /// A route not yet seen: a small JSON document's worth, its tape and its answer.
    package static let unseen = 64 << 10
    /// Need per body byte before a large enough body was seen: the body, its tape (whose
    /// nodes outweigh the text), and an answer about the body's size.
    package static let unseenPerByte = 4.0
    /// Bodies smaller than this say little of the need per byte (an answer's head, a problem's
    /// text, fixed costs): a request of them is kept for the estimate only.
    package static let bodiesForRatio = 64 << 10
    /// The bounds of the need per body byte: at least the body itself; and a bound above, so
    /// that one odd request (a large answer made of a small body) cannot make every fetch of
    /// the route wait for room it will not use.
    package static let perByteRange = 1.0...16.0
    private static let kept = 8

    /// One request: its need and its bodies spread over its fetches, and its need per body
    /// byte (nil: its bodies were too small to say).
    private struct Entry: Sendable {
        var perFetch: Int
        var bodyPerFetch: Int
        var perByte: Double?
    }

    /// What a fetch of the route goes by, taken when it reserves.
    package struct Sizing: Sendable, Equatable {
        /// What it reserves before its headers come.
        package var estimate: Int
        /// The largest body per fetch the estimate was made from: a body up to this size is
        /// covered by it.
        package var coveredBody: Int
        package var perByte: Double

        /// What a fetch whose body is `bytes` long is expected to need.
        package func need(forBody bytes: Int) -> Int { Int((Double(bytes) * perByte).rounded(.up)) }
    }

    private var entries: [Entry] = []
    private var next = 0

    package init() {}

    /// What a fetch of the route reserves before its headers come.
    package var estimate: Int { entries.lazy.map(\.perFetch).max() ?? Self.unseen }

    /// The need per body byte to reserve once a body's size is known.
    package var perByte: Double { entries.lazy.compactMap(\.perByte).max() ?? Self.unseenPerByte }

    /// The largest body per fetch of the recent requests (0: none seen).
    package var largestBody: Int { entries.lazy.map(\.bodyPerFetch).max() ?? 0 }

    package var sizing: Sizing { Sizing(estimate: estimate, coveredBody: largestBody, perByte: perByte) }

    /// A route not yet seen: the unseen estimate, covering no body.
    package static let unseenSizing = Sizing(estimate: unseen, coveredBody: 0, perByte: unseenPerByte)

    /// A request of the route answered: `need` bytes in all (bodies, tapes and answer), of
    /// which `bodies` were its `fetches` upstream bodies.
    package mutating func record(need: Int, bodies: Int, fetches: Int) {
        let perByte =
            bodies >= Self.bodiesForRatio
            ? min(max(Double(need) / Double(bodies), Self.perByteRange.lowerBound), Self.perByteRange.upperBound)
            : nil
        let entry = Entry(perFetch: need / max(1, fetches), bodyPerFetch: bodies / max(1, fetches), perByte: perByte)
        if entries.count < Self.kept {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % Self.kept
        }
    }
}
