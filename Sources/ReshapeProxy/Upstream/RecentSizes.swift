/// What a route's fetches recently needed: the largest of its last few bodies, the estimate a
/// new fetch reserves in the memory budget before its `Content-Length` is known.
package struct RecentSizes: Sendable {
    /// A route not yet seen: a small JSON document's worth.
    package static let unseen = 16 << 10
    private static let kept = 8

    private var sizes: [Int] = []
    private var next = 0

    package init() {}

    package var estimate: Int { sizes.max() ?? Self.unseen }

    package mutating func record(_ bytes: Int) {
        if sizes.count < Self.kept {
            sizes.append(bytes)
        } else {
            sizes[next] = bytes
            next = (next + 1) % Self.kept
        }
    }
}
