import ReshapeJSON
import ReshapeProblem
import ReshapeRules
import ReshapeStateMachines

/// A request that leads the fetch of a cache key: it stores the answer (when it may) and
/// answers the requests that joined meanwhile.
struct CacheLead: Sendable {
    let key: CacheKey
    let policy: CachePolicy
    /// The last good copy, answered instead of an upstream failure within `stale-if-error`.
    let staleIfError: ResponseCache.Stored?
}

extension RequestLifecycle {
    /// The action for a GET of a route with `cache:`: a cached answer, waiting for another
    /// request's fetch, or leading the fetch (asking the shared cache first when there is
    /// one); nil to fetch without the cache. `waiter` is only asked for on a cached route, so
    /// other requests allocate none.
    func lookUpCache(_ match: RouteMatch, now: Double, waiter makeWaiter: () -> ResponseCache.Waiter?) -> Action? {
        // The route is borrowed from the match, not copied (it is large).
        guard let cache = settings.cache, let policy = match.route.cache,
            request.method == "GET" || request.method == "HEAD", request.body.isEmpty,
            let key = CacheKey.of(route: match.route, parameters: match.parameters, request: request),
            let waiter = makeWaiter()
        else { return nil }
        switch cache.lookup(key, now: now, waiter: waiter) {
        case .fresh(let stored):
            let entry = ResponseCache.Entry(key: key, stored: stored)
            return respond(
                stored.response(now: now, cacheStatus: .hit), AnswerRecord(routeName: match.route.name), entry: entry)
        case .stale(let stored, let refresh):
            let entry = ResponseCache.Entry(key: key, stored: stored)
            let action = respond(
                stored.response(now: now, cacheStatus: .stale), AnswerRecord(routeName: match.route.name), entry: entry)
            guard refresh, case .respond(let response, _) = action else { return action }
            let lead = CacheLead(key: key, policy: policy, staleIfError: stored)
            return .respondAndRefresh(response, refresh: backgroundRefresh(match, lead: lead, now: now))
        case .lead(let staleIfError):
            let lead = CacheLead(key: key, policy: policy, staleIfError: staleIfError)
            guard settings.sharesCache else { return startExchange(match, lead: lead) }
            // Another replica may have it: ask the shared cache before the upstream.
            state = .awaitingSharedCache(match, lead)
            return .lookUpShared(SharedCacheEntry.key(key))
        case .joined:
            state = .waitingForLeader(match, waiter)
            return .wait
        }
    }

    /// The refresh a stale answer asks for: a request without a client that fetches the key
    /// again (as its leader) and stores what it gets. The server runs it like any other and
    /// drops its answer.
    private func backgroundRefresh(_ match: RouteMatch, lead: CacheLead, now: Double) -> RequestLifecycle {
        var headers = request.headers
        headers.removeAll { RequestFraming.equalsIgnoringCase($0.name, "If-None-Match") }
        let refresh = RequestLifecycle(
            HTTPRequest(method: "GET", target: request.target, headers: headers),
            rules: rules, settings: settings, now: now, isBackground: true)
        refresh.state = .refreshPending(match, lead)
        return refresh
    }

    /// A refresh's first event, when the server runs it (`Action.respondAndRefresh`): it
    /// fetches the key.
    package func startRefresh() -> Action {
        guard case .refreshPending(let match, let lead) = state else { impossible("startRefresh", in: stateName) }
        return startExchange(match, lead: lead)
    }

    /// The shared cache answered (`bytes`; nil: a miss, an error, or too late). A fresh entry
    /// is answered, kept here too, and handed to the requests that joined meanwhile; anything
    /// else is fetched.
    package func sharedLookupFinished(_ bytes: [UInt8]?, now: Double, unixMilliseconds: Int) -> Action {
        guard case .awaitingSharedCache(let match, let lead) = state else {
            impossible("sharedLookupFinished", in: stateName)
        }
        if let bytes, let cache = settings.cache,
            let stored = SharedCacheEntry.decode(
                bytes, route: match.route, now: now,
                unixMilliseconds: unixMilliseconds),
            now < stored.freshUntil
        {
            let entry = ResponseCache.Entry(key: lead.key, stored: stored)
            let shared = stored.response(now: now, cacheStatus: .coalesced)
            let wake = Settlement.Wake(cache.finish(lead.key, storing: stored), .answer(shared, entry))
            return respond(
                stored.response(now: now, cacheStatus: .hit), AnswerRecord(routeName: match.route.name), entry: entry,
                settlement: Settlement(wake: wake))
        }
        return startExchange(match, lead: lead)
    }

    /// Another request's fetch of this request's key ended.
    package func cacheDelivered(_ delivery: ResponseCache.Delivery, now: Double) -> Action {
        guard case .waitingForLeader(let match, let waiter) = state else { impossible("cacheDelivered", in: stateName) }
        switch delivery {
        case .answer(let response, let entry):
            return respond(response, AnswerRecord(routeName: match.route.name), entry: entry)
        case .retry:
            return lookUpCache(match, now: now, waiter: { waiter }) ?? startExchange(match, lead: nil)
        }
    }

    /// As the leader: stores a good answer (here, and in `settlement` for the shared cache),
    /// has `settlement` wake the waiters with it, and serves the last good copy instead of an
    /// upstream failure within `stale-if-error`. Returns what this request answers, and the
    /// cache entry it is when it is one.
    func settle(
        _ rendered: ResponseRenderer.Rendered, lead: CacheLead, exchange: RouteExchange?,
        into settlement: inout Settlement
    ) -> (HTTPResponse, ResponseCache.Entry?) {
        guard let cache = settings.cache else { return (rendered.response, nil) }
        var answer = rendered.response
        var stored: ResponseCache.Stored?
        var entry: ResponseCache.Entry?
        // The waiters get what this request fetched as `coalesced`; a stale copy or an error as it is.
        var fetched = false
        if answer.status == 200, rendered.errorCode == nil, let exchange, exchange.cacheControl.mayStore {
            let kept = ResponseCache.Stored(
                response: answer, dropped: rendered.dropped.count, route: exchange.route,
                policy: lead.policy, now: started,
                upstreamMaxAge: exchange.cacheControl.maxAge)
            stored = kept
            entry = ResponseCache.Entry(key: lead.key, stored: kept)
            answer = kept.response(now: started, cacheStatus: .miss)
            fetched = true
            if settings.sharesCache {
                settlement.store = Settlement.SharedStore(key: SharedCacheEntry.key(lead.key), stored: kept)
            }
        } else if answer.status >= 500, let stale = lead.staleIfError, started < stale.staleIfErrorUntil {
            answer = stale.response(now: started, cacheStatus: .stale)
            entry = ResponseCache.Entry(key: lead.key, stored: stale)
            cache.recordStaleIfError()
        } else if answer.status == 200 {
            answer.headers.append(CacheStatus.miss.header)
            fetched = true
        }
        var shared = answer
        if fetched, let index = shared.headers.firstIndex(where: { $0.name == CacheStatus.headerName }) {
            shared.headers[index] = CacheStatus.coalesced.header
        }
        settlement.wake = Settlement.Wake(cache.finish(lead.key, storing: stored), .answer(shared, entry))
        return (answer, entry)
    }

    /// A leader that goes away without an answer hands the fetch to one of its waiters: all
    /// are told to look up again (`retry`), and the first to do so leads.
    func abandon(_ lead: CacheLead) -> Settlement.Wake? {
        guard let cache = settings.cache else { return nil }
        return Settlement.Wake(cache.abandon(lead.key), .retry)
    }
}
