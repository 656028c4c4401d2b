import ReshapeRules

/// What upstream `Cache-Control` headers allow a shared cache to do with an answer built from
/// them (RFC 9111 §5.2.2): `no-store`, `private` and `no-cache` forbid keeping it (Reshape does
/// not revalidate), and `s-maxage` or else `max-age` bounds how long it stays fresh.
package struct CacheControl: Sendable, Equatable {
    package var mayStore = true
    /// An upstream said `no-store`: no cache may keep what is built from its answer.
    package var noStore = false
    /// An upstream said `private`: only the requester's own cache may keep it.
    package var isPrivate = false
    /// An upstream said `no-cache`: Reshape, which does not revalidate, does not keep it.
    package var noCache = false
    /// Seconds; nil when no fetch said.
    package var maxAge: Int?

    package init(mayStore: Bool = true, maxAge: Int? = nil) {
        self.mayStore = mayStore
        self.maxAge = maxAge
    }

    /// One upstream header's directives.
    package init(header: String?) {
        guard let header else { return }
        var maxAge: Int?
        var sharedMaxAge: Int?
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = String(parts.first ?? "").filter { $0 != " " && $0 != "\t" }.lowercased()
            let value = parts.count > 1 ? String(parts[1]).filter { $0 != " " && $0 != "\t" && $0 != "\"" } : ""
            switch name {
            case "no-store":
                mayStore = false
                noStore = true
            case "private":
                mayStore = false
                isPrivate = true
            case "no-cache":
                mayStore = false
                noCache = true
            case "max-age": maxAge = Int(value).map { max(0, $0) } ?? 0
            case "s-maxage": sharedMaxAge = Int(value).map { max(0, $0) } ?? 0
            default: continue
            }
        }
        self.maxAge = sharedMaxAge ?? maxAge
    }

    /// An answer built from several fetches is as cacheable as the least cacheable of them.
    package func combined(with other: CacheControl) -> CacheControl {
        let ages = [maxAge, other.maxAge].compactMap { $0 }
        var combined = CacheControl(mayStore: mayStore && other.mayStore, maxAge: ages.min())
        combined.noStore = noStore || other.noStore
        combined.isPrivate = isPrivate || other.isPrivate
        combined.noCache = noCache || other.noCache
        return combined
    }

    /// How a route reads one upstream's header.
    package enum Reading: Sendable, Equatable {
        case all
        /// Everything but `no-cache`: a Firebase host's default, since its front end sends it
        /// on every answer; `no-store` and `private` are still honoured.
        case allButNoCache
        /// Not at all (`upstream-cache-control: ignore`).
        case nothing
    }

    /// How `policy` reads `upstream`'s header (nil policy: a route without `cache:`, which
    /// reads it all for the caching headers it passes on).
    package static func reading(_ policy: CachePolicy?, upstream: Upstream?) -> Reading {
        switch policy?.upstreamCacheControl {
        case .ignore?: .nothing
        case .honor?: .all
        case nil: policy != nil && upstream?.isFirebaseHost == true ? .allButNoCache : .all
        }
    }

    /// One upstream header as `reading` reads it.
    package init(header: String?, reading: Reading) {
        switch reading {
        case .all: self.init(header: header)
        case .nothing: self.init()
        case .allButNoCache:
            self.init(header: header)
            if noCache, !noStore, !isPrivate { mayStore = true }
            noCache = false
        }
    }

    /// Why an answer built from these directives is not stored, as `reshape_cache_skipped_total`
    /// names it; nil when it may be.
    package var skipReason: String? {
        if mayStore { return nil }
        if noStore { return "no-store" }
        if isPrivate { return "private" }
        return "no-cache"
    }
}
