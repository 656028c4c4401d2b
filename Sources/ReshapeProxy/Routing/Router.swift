import Glibc
import ReshapeRules

/// Which endpoints a listener answers: all of them on one port (the default), or the rule
/// routes on the public port and the admin endpoints on a port of their own (`--admin-listen`).
package enum Endpoints: Sendable {
    case all
    case routes
    case admin
}

/// Matches a request to a route. Built once per rule set.
package struct Router: Sendable {
    /// The reserved prefix of Reshape's own endpoints; rules cannot shadow it.
    package static let adminPrefix = "/_reshape/"

    package enum Match: Sendable {
        case route(SharedRoute, parameters: [String: String])
        case admin(String)
        case methodNotAllowed(allowed: [String])
        case notFound
        case badRequest(String)
    }

    private let routes: [SharedRoute]

    package init(routes: [Route]) {
        // Most specific first: at the first segment where two templates differ, a literal wins.
        self.routes = routes.sorted { Router.moreSpecific($0.path, than: $1.path) }.map(SharedRoute.init)
    }

    package func match(method: String, path: Substring, endpoints: Endpoints = .all) -> Match {
        // Where the other kind lives on another port, its paths are unknown here, like any other.
        if Router.startsWithAdminPrefix(path) {
            // By bytes, as the prefix was found: dropping characters would take a combining mark
            // that follows the prefix with it.
            let name = Substring(path.utf8.dropFirst(Router.adminPrefix.utf8.count))
            return endpoints == .routes ? .notFound : .admin(String(name))
        }
        if endpoints == .admin { return .notFound }
        guard path.utf8.first == UInt8(ascii: "/") else {
            return .badRequest("the request target must be an absolute path")
        }
        // Matched on the bytes after "/": `dropFirst()` would drop a whole character, a
        // combining mark after the slash with it, and `/\u{301}users` would reach `/users`.
        var text = String(path)
        return text.withUTF8 { bytes in
            let rest = UnsafeBufferPointer(rebasing: bytes.dropFirst())
            return Self.withSegmentEnds(rest) { ends in match(method: method, Segments(bytes: rest, ends: ends)) }
        }
    }

    /// A path's segments as byte ranges: segment `i` ends at `ends[i]` (a `/` or the end), and
    /// starts after the one before it.
    private struct Segments {
        let bytes: UnsafeBufferPointer<UInt8>
        let ends: UnsafeBufferPointer<Int>

        subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
            let start = index == 0 ? 0 : ends[index - 1] + 1
            return UnsafeBufferPointer(rebasing: bytes[start..<ends[index]])
        }
    }

    /// Calls `body` with where each segment of `bytes` ends, in temporary memory (the stack,
    /// unless the path has more segments than any route could).
    private static func withSegmentEnds<Result>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<Int>) -> Result
    ) -> Result {
        var count = 1
        for byte in bytes where byte == UInt8(ascii: "/") { count += 1 }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { ends in
            var segment = 0
            for offset in bytes.indices where bytes[offset] == UInt8(ascii: "/") {
                ends[segment] = offset
                segment += 1
            }
            ends[segment] = bytes.count
            return body(UnsafeBufferPointer(ends))
        }
    }

    private func match(method: String, _ segments: Segments) -> Match {
        var allowed: [String] = []
        for shared in routes {
            let template = shared.route.path.segments
            guard template.count == segments.ends.count, Self.fits(template, segments) else { continue }
            let routeMethod = shared.route.method
            guard routeMethod == method || (method == "HEAD" && routeMethod == "GET") else {
                if !allowed.contains(routeMethod) { allowed.append(routeMethod) }
                if routeMethod == "GET" && !allowed.contains("HEAD") { allowed.append("HEAD") }
                continue
            }
            var parameters: [String: String] = [:]
            for (index, part) in template.enumerated() {
                guard case .parameter(let name) = part else { continue }
                let value = String(decoding: segments[index], as: UTF8.self)
                guard let decoded = PercentEncoding.decode(value[...]) else {
                    return .badRequest("path segment '\(value)' has an invalid percent-encoding or is not UTF-8")
                }
                parameters[name] = decoded
            }
            return .route(shared, parameters: parameters)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    /// Whether the segments are the template's: each literal the same bytes, each parameter
    /// not empty.
    private static func fits(_ template: [PathTemplate.Segment], _ segments: Segments) -> Bool {
        for (index, part) in template.enumerated() {
            let segment = segments[index]
            switch part {
            case .literal(let text): guard sameBytes(segment, text) else { return false }
            case .parameter: guard !segment.isEmpty else { return false }
            }
        }
        return true
    }

    /// Whether `path` begins with the admin prefix, byte for byte, without indexing the
    /// Substring by characters (every request asks).
    private static func startsWithAdminPrefix(_ path: Substring) -> Bool {
        let prefix = adminPrefix.utf8
        let compared = path.utf8.withContiguousStorageIfAvailable { path in
            prefix.withContiguousStorageIfAvailable { prefix in
                path.count >= prefix.count && memcmp(path.baseAddress!, prefix.baseAddress!, prefix.count) == 0
            }
        }
        return (compared ?? nil) ?? path.utf8.starts(with: prefix)
    }

    /// Byte for byte (not canonical equivalence, as `==` on strings): every request's segments
    /// are compared with the routes' literals.
    static func sameBytes(_ segment: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { text in
            text.count == segment.count
                && (text.count == 0 || memcmp(text.baseAddress!, segment.baseAddress!, text.count) == 0)
        }
    }

    /// A strict weak order: by segment count (templates of different lengths never compete),
    /// then literal before parameter at the first segment where the kinds differ.
    private static func moreSpecific(_ a: PathTemplate, than b: PathTemplate) -> Bool {
        if a.segments.count != b.segments.count { return a.segments.count < b.segments.count }
        for (x, y) in zip(a.segments, b.segments) {
            switch (x, y) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }
}
