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
        // The byte after "/": `dropFirst()` would drop a whole character, a combining mark
        // after the slash with it, and `/\u{301}users` would reach `/users`.
        let segments = PathTemplate.segments(of: Substring(path.utf8.dropFirst()))
        var allowed: [String] = []
        for shared in routes {
            guard let raw = Router.captures(shared.route.path, segments) else { continue }
            let routeMethod = shared.route.method
            guard routeMethod == method || (method == "HEAD" && routeMethod == "GET") else {
                if !allowed.contains(routeMethod) { allowed.append(routeMethod) }
                if routeMethod == "GET" && !allowed.contains("HEAD") { allowed.append("HEAD") }
                continue
            }
            var parameters: [String: String] = [:]
            for (name, value) in raw {
                guard let decoded = PercentEncoding.decode(value) else {
                    return .badRequest("path segment '\(value)' has an invalid percent-encoding or is not UTF-8")
                }
                parameters[name] = decoded
            }
            return .route(shared, parameters: parameters)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    private static func captures(_ template: PathTemplate, _ segments: [Substring]) -> [(String, Substring)]? {
        guard template.segments.count == segments.count else { return nil }
        var captured: [(String, Substring)] = []
        for (part, segment) in zip(template.segments, segments) {
            switch part {
            case .literal(let text): guard Router.sameBytes(segment, text) else { return nil }
            case .parameter(let name):
                guard !segment.isEmpty else { return nil }
                captured.append((name, segment))
            }
        }
        return captured
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

    /// Byte for byte (not canonical equivalence, as `==` on strings), and at once over
    /// contiguous storage: every request's segments are compared with the routes' literals.
    static func sameBytes(_ a: Substring, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let compared = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
            }
        }
        return (compared ?? nil) ?? a.utf8.elementsEqual(b.utf8)
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
