import ReshapeCompression
import ReshapeRules

/// A plain `GET` (or `HEAD`) that a fresh cached answer serves, on a route with nothing to
/// decide per request (`SharedRoute.hitNeedsNoLifecycle`): answered at dispatch without a
/// `RequestLifecycle`, with the head the entry kept from the last hit of the same
/// representation (`KeptHead`). It answers what the lifecycle would, from the same pieces
/// (`Stored.response`, `RequestLifecycle.encoded`, `CORSAnswer.apply`); the lifecycle keeps
/// everything else: a miss, a stale copy, `If-None-Match`, a draining or shedding worker, and
/// every request while spans are exported (the lifecycle builds them).
enum CacheHit {
    static func answer(
        _ request: HTTPRequest, route shared: SharedRoute, parameters: [String: String], rules: ServingRules,
        settings: LifecycleSettings, now: Double, wallClockMilliseconds: () -> Int
    ) -> (RenderedAnswer, FinishedRequest)? {
        guard shared.hitNeedsNoLifecycle, let cache = settings.cache, settings.canFetch, !settings.tracer.exports,
            request.method == "GET" || request.method == "HEAD", request.body.isEmpty,
            request.header("If-None-Match") == nil
        else { return nil }
        let route = shared.route
        guard let key = CacheKey.of(route: route, parameters: parameters, request: request),
            let stored = cache.fresh(key, now: now)
        else { return nil }
        let acceptEncoding = request.joinedHeader("Accept-Encoding")
        let coding = settings.compression == nil ? nil : AcceptEncoding.choose(acceptEncoding)
        let cors = rules.corsAnswer(route, request)
        let (age, remaining) = stored.ages(now: now)
        let answer: RenderedAnswer
        if let kept = stored.keptHead(coding: coding, cors: cors, age: age, remaining: remaining) {
            answer = kept
        } else {
            let entry = ResponseCache.Entry(key: key, stored: stored)
            let response = RequestLifecycle.encoded(
                stored.response(now: now, cacheStatus: .hit), entry: entry, acceptEncoding: acceptEncoding,
                settings: settings)
            answer = RenderedAnswer(cors.apply(to: response))
            cache.keepHead(answer, of: entry, coding: coding, cors: cors, age: age, remaining: remaining)
        }
        var finished = FinishedRequest(outcome: .answered(status: 200, seconds: 0), route: route.name)
        finished.cacheStatus = CacheStatus.hit.rawValue
        if settings.accessLog {
            let trace = settings.tracer.begin(
                traceparent: request.header("traceparent"), tracestate: request.header("tracestate"))
            let entry = AccessLogEntry(
                timeMilliseconds: wallClockMilliseconds(), method: request.method, path: String(request.path),
                route: route.name, status: 200, upstreamStatus: nil, durationMilliseconds: 0,
                upstreamMilliseconds: nil, bytes: answer.body.count, dropped: [], errorCode: nil, fetches: 0,
                traceID: trace.context.traceID)
            finished.accessLogLine = entry.line(redactor: rules.allSecrets)
        }
        return (answer, finished)
    }
}
