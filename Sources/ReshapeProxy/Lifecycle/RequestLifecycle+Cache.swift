import ReshapeJSON
import ReshapeRules

/// What a request does with the answer cache.
enum CacheRole: Sendable {
    case none
    /// It fetches the key; whoever joined is answered when it finishes.
    case leader(CacheKey, CachePolicy, staleIfError: ResponseCache.Stored?)
    /// It waits for another request's fetch of the key.
    case waiter(CacheKey, Route, parameters: [String: String], ResponseCache.Waiter)
}

/// A stale answer's background refresh, started after the stale copy is sent.
struct PendingRefresh: Sendable {
    let route: Route
    let parameters: [String: String]
    let key: CacheKey
    let policy: CachePolicy
    let stale: ResponseCache.Stored
}

extension RequestLifecycle {
    /// The cached answer for a GET of a route with `cache:`, or nil to fetch (possibly as the
    /// leader others wait for). `.wait` when another request is fetching the same key.
    /// `waiter` is only asked for on a cached route, so other requests allocate none.
    func lookUpCache(route: Route, parameters: [String: String], now: Double,
                              waiter makeWaiter: () -> ResponseCache.Waiter?) -> Step? {
        guard let cache = settings.cache, let policy = route.cache,
              request.method == "GET" || request.method == "HEAD", request.body.isEmpty,
              let key = CacheKey.of(route: route, parameters: parameters, request: request),
              let waiter = makeWaiter() else { return nil }
        switch cache.lookup(key, now: now, waiter: waiter) {
        case .fresh(let stored):
            let response = stored.response(now: now, cacheStatus: .hit)
            return .respond(notModified(response) ?? response, cancel: [])
        case .stale(let stored, let refresh):
            if refresh { pendingRefresh = PendingRefresh(route: route, parameters: parameters, key: key, policy: policy, stale: stored) }
            let response = stored.response(now: now, cacheStatus: .stale)
            return .respond(notModified(response) ?? response, cancel: [])
        case .lead(let staleIfError):
            cacheRole = .leader(key, policy, staleIfError: staleIfError)
            guard settings.sharedStore != nil else { return nil }
            // Another replica may have it: ask the shared cache before the upstream.
            sharedLookup = (route, parameters)
            return .lookUpShared(SharedCacheEntry.key(key))
        case .joined:
            cacheRole = .waiter(key, route, parameters: parameters, waiter)
            return .wait
        }
    }

    /// The background refresh a stale answer asked for, once: a request without a client
    /// that fetches the key again and stores what it gets. The server runs it like any other
    /// and drops its answer.
    public func takeBackgroundRefresh(now: Double) -> (RequestLifecycle, Step)? {
        guard let refresh = pendingRefresh else { return nil }
        pendingRefresh = nil
        var headers = request.headers
        headers.removeAll { RequestFraming.equalsIgnoringCase($0.name, "If-None-Match") }
        let background = RequestLifecycle(HTTPRequest(method: "GET", target: request.target, headers: headers), rules: rules,
                                          settings: settings, now: now)
        background.isBackground = true
        background.routeName = refresh.route.name
        background.cacheRole = .leader(refresh.key, refresh.policy, staleIfError: refresh.stale)
        let step = background.startExchange(route: refresh.route, parameters: refresh.parameters)
        return (background, step)
    }

    /// The shared cache answered (`bytes`; nil: a miss, an error, or too late). A fresh entry
    /// is answered and kept here too; anything else is fetched.
    public func sharedLookupFinished(_ bytes: [UInt8]?, now: Double, unixMilliseconds: Int) -> Step {
        guard let (route, parameters) = sharedLookup else { return .wait }
        sharedLookup = nil
        if let bytes, case .leader(let key, _, _) = cacheRole, let cache = settings.cache,
           let stored = SharedCacheEntry.decode(bytes, route: route, now: now, unixMilliseconds: unixMilliseconds),
           now < stored.freshUntil {
            cacheRole = .none
            var shared = stored.response(now: now, cacheStatus: .coalesced)
            for waiter in cache.finish(key, storing: stored) { waiter(.answer(shared)) }
            shared = stored.response(now: now, cacheStatus: .hit)
            return .respond(notModified(shared) ?? shared, cancel: [])
        }
        return startExchange(route: route, parameters: parameters)
    }

    /// Another request's fetch of this request's key ended.
    public func cacheDelivered(_ delivery: ResponseCache.Delivery, now: Double) -> Step {
        guard case .waiter(_, let route, let parameters, let waiter) = cacheRole else { return .wait }
        cacheRole = .none
        switch delivery {
        case .answer(let response):
            return .respond(notModified(response) ?? response, cancel: [])
        case .retry:
            if let step = lookUpCache(route: route, parameters: parameters, now: now, waiter: { waiter }) { return step }
            return startExchange(route: route, parameters: parameters)
        }
    }

    /// As the leader: stores a good answer, answers the waiters, and serves the last good copy
    /// instead of an upstream failure within `stale-if-error`. Returns what this request answers.
    func settleCache(_ rendered: ResponseRenderer.Rendered) -> HTTPResponse {
        guard case .leader(let key, let policy, let staleIfError) = cacheRole, let cache = settings.cache else {
            return rendered.response
        }
        cacheRole = .none
        var answer = rendered.response
        var stored: ResponseCache.Stored?
        if answer.status == 200, rendered.errorCode == nil, let exchange, exchange.cacheControl.mayStore {
            let kept = ResponseCache.Stored(response: answer, dropped: rendered.dropped.count, route: exchange.route, policy: policy,
                                            now: started, upstreamMaxAge: exchange.cacheControl.maxAge)
            stored = kept
            answer = kept.response(now: started, cacheStatus: .miss)
            settings.sharedStore?(SharedCacheEntry.key(key), kept)
        } else if answer.status >= 500, let stale = staleIfError, started < stale.staleIfErrorUntil {
            answer = stale.response(now: started, cacheStatus: .stale)
            cache.recordStaleIfError()
        } else if answer.status == 200 {
            answer.headers.append(CacheStatus.miss.header)
        }
        var shared = answer
        if let index = shared.headers.firstIndex(where: { $0.name == CacheStatus.headerName }),
           shared.headers[index].value == CacheStatus.miss.rawValue {
            shared.headers[index] = CacheStatus.coalesced.header
        }
        for waiter in cache.finish(key, storing: stored) { waiter(.answer(shared)) }
        return answer
    }

    /// A leader that goes away without an answer hands the fetch to one of its waiters.
    func abandonCache() {
        guard case .leader(let key, _, _) = cacheRole, let cache = settings.cache else { return }
        for waiter in cache.abandon(key) { waiter(.retry) }
    }

    /// `POST /_reshape/cache/purge?route=NAME`: only on the admin listener, or, without one,
    /// only to a client on a loopback address; everyone else is told there is no such path.
    func cachePurge(_ name: String) -> HTTPResponse? {
        guard name == "cache/purge" else { return nil }
        let allowed = settings.endpoints == .admin || (settings.endpoints == .all && request.fromLoopback)
        guard allowed else { return Problem.notFound(path: String(request.path)).response }
        guard request.method == "POST" else { return Problem.methodNotAllowed(request.method, allowed: ["POST"]).response }
        var route: String?
        for pair in request.rawQuery.split(separator: "&") where pair.hasPrefix("route=") {
            route = PercentEncoding.decode(pair.dropFirst("route=".count), plusIsSpace: true)
        }
        guard let route, !route.isEmpty else { return Problem.badRequest("name the route to purge: ?route=NAME").response }
        guard rules.ruleSet.routes.contains(where: { $0.name == route }) else {
            return Problem(status: 404, code: "no-such-route", title: "No such route", detail: "no route is named '\(route)'").response
        }
        let purged = settings.cache?.purge(route: route) ?? 0
        return .json(200, JSON.object(JSONObject(["route": .string(route), "purged": .number(JSONNumber(purged))])).serialized())
    }
}
