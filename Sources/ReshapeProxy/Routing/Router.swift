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
        case route(Route, parameters: [String: String])
        case admin(String)
        case methodNotAllowed(allowed: [String])
        case notFound
        case badRequest(String)
    }

    private let routes: [Route]

    package init(routes: [Route]) {
        // Most specific first: at the first segment where two templates differ, a literal wins.
        self.routes = routes.sorted { Router.moreSpecific($0.path, than: $1.path) }
    }

    package func match(method: String, path: Substring, endpoints: Endpoints = .all) -> Match {
        // Where the other kind lives on another port, its paths are unknown here, like any other.
        if path.utf8.count >= Router.adminPrefix.utf8.count,
            Router.sameBytes(path.prefix(Router.adminPrefix.utf8.count), Router.adminPrefix)
        {
            return endpoints == .routes ? .notFound : .admin(String(path.dropFirst(Router.adminPrefix.count)))
        }
        if endpoints == .admin { return .notFound }
        guard path.hasPrefix("/") else { return .badRequest("the request target must be an absolute path") }
        let segments = PathTemplate.segments(of: path.dropFirst())
        var allowed: [String] = []
        for route in routes {
            guard let raw = Router.captures(route.path, segments) else { continue }
            guard route.method == method || (method == "HEAD" && route.method == "GET") else {
                if !allowed.contains(route.method) { allowed.append(route.method) }
                if route.method == "GET" && !allowed.contains("HEAD") { allowed.append("HEAD") }
                continue
            }
            var parameters: [String: String] = [:]
            for (name, value) in raw {
                guard let decoded = PercentEncoding.decode(value) else {
                    return .badRequest("path segment '\(value)' has an invalid percent-encoding or is not UTF-8")
                }
                parameters[name] = decoded
            }
            return .route(route, parameters: parameters)
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
