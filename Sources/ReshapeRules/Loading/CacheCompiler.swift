import ReshapeJSON

extension RuleSetBuilder {
    static let cacheKeys: Set<String> = [
        "ttl", "stale-while-revalidate", "stale-if-error", "vary-query", "upstream-cache-control",
    ]

    /// `cache: { ttl: 30s, stale-while-revalidate: 30s, stale-if-error: 10m, vary-query: [orderBy] }`,
    /// only on GET routes (a write's answer is never reused).
    mutating func compileCache(_ value: JSON?, method: String, _ scope: RouteScope) -> CachePolicy? {
        guard let value else { return nil }
        let pointer = scope.pointer + "/cache"
        guard case .object(let object) = value else {
            report(
                scope.document, pointer,
                "`cache` must be a mapping with `ttl` (and optionally stale-while-revalidate, stale-if-error, vary-query)"
            )
            return nil
        }
        if !method.isEmpty && method != "GET" {
            report(
                scope.document, pointer, "`cache` is only for GET routes (a \(method) is never answered from a cache)")
        }
        _ = reportUnknownKeys(in: object, allowed: Self.cacheKeys, what: "cache key", scope.document, pointer)
        func duration(_ key: String) -> Int? {
            guard let member = object[key] else { return nil }
            if case .string(let text) = member, let milliseconds = Quantities.milliseconds(text) { return milliseconds }
            report(scope.document, pointer + "/" + key, "`\(key)` must be a duration like 500ms, 30s, 10m or 1h")
            return nil
        }
        guard object["ttl"] != nil else {
            report(scope.document, pointer, "`cache` needs `ttl` (how long an answer stays fresh, e.g. 30s)")
            return nil
        }
        let ttl = duration("ttl")
        let staleWhileRevalidate = duration("stale-while-revalidate") ?? 0
        let staleIfError = duration("stale-if-error") ?? 0
        var varyQuery: [String] = []
        if let member = object["vary-query"] {
            if case .array(let names) = member, names.allSatisfy({ $0.stringValue.map { !$0.isEmpty } ?? false }) {
                varyQuery = names.compactMap(\.stringValue)
            } else {
                report(scope.document, pointer + "/vary-query", "`vary-query` must be a list of query parameter names")
            }
        }
        var upstreamCacheControl: UpstreamCacheControl?
        if let member = object["upstream-cache-control"] {
            if let name = member.stringValue, let reading = UpstreamCacheControl(rawValue: name) {
                upstreamCacheControl = reading
            } else {
                report(
                    scope.document, pointer + "/upstream-cache-control",
                    "`upstream-cache-control` must be honor or ignore")
            }
        }
        guard let ttl else { return nil }
        var policy = CachePolicy(
            ttlMilliseconds: ttl, staleWhileRevalidateMilliseconds: staleWhileRevalidate,
            staleIfErrorMilliseconds: staleIfError, varyQuery: varyQuery)
        policy.upstreamCacheControl = upstreamCacheControl
        return policy
    }
}
