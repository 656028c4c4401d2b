import ReshapeRules

/// Which curl header lists an `UpstreamClient` keeps for reuse, decided from the header lines
/// alone: `List` is whatever holds a built list (a `HeaderList` in the client, any object in
/// tests), so nothing here calls curl.
///
/// A set that recurs (an upstream's headers plus a route's fixed ones) is kept once it has been
/// built twice lately; one carrying forwarded client headers usually differs per request and is
/// built for that request alone. A kept list is reused only for an exactly equal header set,
/// so one client's headers are never sent on another's request. Of sets built, only hashes
/// are remembered, so no forwarded credential is kept for the purpose.
struct HeaderListCache<List: AnyObject> {
    /// Lists kept per upstream: a few header sets recur (one per route shape), not more.
    static var listsPerUpstream: Int { 4 }
    /// Header sets built lately, per upstream, remembered by hash.
    static var rememberedBuilds: Int { 16 }

    private struct Entry {
        let headers: [NameValue]
        let forBody: Bool
        let list: List
    }

    private var kept: [String: [Entry]] = [:]
    private var recentBuilds: [String: [Int]] = [:]

    init() {}

    /// The list kept for exactly these headers, if there is one.
    func list(upstream: String, headers: [NameValue], forBody: Bool) -> List? {
        kept[upstream]?.first { $0.forBody == forBody && $0.headers == headers }?.list
    }

    /// A list was built for a request (`list` had none): kept when the same headers were built
    /// lately, in place of the upstream's oldest kept list when it has its share.
    mutating func built(_ list: List, upstream: String, headers: [NameValue], forBody: Bool) {
        var hasher = Hasher()
        for header in headers {
            hasher.combine(header.name)
            hasher.combine(header.value)
        }
        let hash = hasher.finalize()
        // Taken out and put back, so each array is changed in place rather than copied.
        var builds = recentBuilds.removeValue(forKey: upstream) ?? []
        if let index = builds.firstIndex(of: hash) {
            builds.remove(at: index)
            var lists = kept.removeValue(forKey: upstream) ?? []
            if lists.count >= Self.listsPerUpstream { lists.removeFirst() }
            lists.append(Entry(headers: headers, forBody: forBody, list: list))
            kept[upstream] = lists
        } else {
            if builds.count >= Self.rememberedBuilds { builds.removeFirst() }
            builds.append(hash)
        }
        recentBuilds[upstream] = builds
    }

    /// Forgets every list (the client is closing).
    mutating func removeAll() {
        kept.removeAll()
        recentBuilds.removeAll()
    }
}
