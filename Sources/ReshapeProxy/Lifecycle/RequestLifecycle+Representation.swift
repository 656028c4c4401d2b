import ReshapeRules

/// The last step of every answer: the representation the client asked for (its content coding,
/// by `Accept-Encoding`), then `304 Not Modified` when it already holds exactly that one.
extension RequestLifecycle {
    /// What the client gets of `response`. `entry` is the cache entry the answer is, when it is
    /// one: its compressed bodies are made once and kept with it, so a hit costs no compression.
    func deliver(_ response: HTTPResponse, entry: ResponseCache.Entry?) -> HTTPResponse {
        var response = response
        var entry = entry
        // A client view is made first: its bytes are what the tag, the 304 and the coding are of.
        if let clientView, response.status == 200 {
            response = clientView.render(response)
            entry = nil
        }
        response = Self.encoded(response, entry: entry, acceptEncoding: acceptEncoding, settings: settings)
        // Last: the CORS headers name what the answer carries (the rate limits' too, so a page
        // may read them), and are never kept with it.
        return cors.apply(to: withLimitHeaders(notModified(response) ?? response))
    }

    /// `response` in the content coding `acceptEncoding` asks for, where the listener
    /// compresses; a cache entry's (`entry`) coded bodies are made once and kept with it.
    static func encoded(
        _ response: HTTPResponse, entry: ResponseCache.Entry?, acceptEncoding: String?, settings: LifecycleSettings
    ) -> HTTPResponse {
        guard let compression = settings.compression else { return response }
        let identity = response.body
        return ContentNegotiation.represent(
            response, acceptEncoding: acceptEncoding, minimumBytes: compression.minimumBytes
        ) { coding in
            if let entry, let cache = settings.cache {
                return cache.body(of: entry, as: coding) { compression.compressor.compress($0, as: coding) }
            }
            return compression.compressor.compress(identity, as: coding)
        }
    }

    /// `304 Not Modified` when the client already has this representation: its tag and the
    /// headers a cache updates the one it keeps with (`Cache-Control`, `Vary`, `Age`), no
    /// content and nothing that describes content (`Content-Type`, `Content-Encoding`).
    func notModified(_ response: HTTPResponse) -> HTTPResponse? {
        guard response.status == 200, let ifNoneMatch, let tag = response.header("ETag"),
            EntityTag.ifNoneMatch(ifNoneMatch, matches: tag)
        else { return nil }
        let headers = response.headers.filter { $0.name != "Content-Type" && $0.name != "Content-Encoding" }
        return HTTPResponse(status: 304, headers: headers, body: [])
    }

    /// An admin answer: never kept by a cache, whatever it reports.
    static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        guard response.header("Cache-Control") == nil else { return response }
        var response = response
        response.headers.append(CachingHeaders.noStore)
        return response
    }
}
