import ReshapeAuth
import ReshapeProxy
import ReshapeRules

/// The key sets of the rules' verifiers on one worker: fetched through the worker's upstream
/// client (on its loop, with the upstreams' TLS verification), kept and refreshed as
/// `VerifierKeys` decides, and handed to the requests that wait for them.
final class KeyStore {
    private unowned let upstream: UpstreamClient
    /// One verifier's keys: by name and key set URL, so that a reload that moves it starts over.
    private final class Entry {
        var keys = VerifierKeys()
        var waiters: [(KeySet?) -> Void] = []
        var fetch: UpstreamFetch?
    }
    private var entries: [String: Entry] = [:]

    init(upstream: UpstreamClient) {
        self.upstream = upstream
    }

    /// Calls `answer` with the verifier's keys: at once when they are in hand, else when the
    /// fetch it waits for ends (nil: none to be had).
    func lookUp(_ verifier: AuthVerifierRule, refetch: Bool, answer: @escaping (KeySet?) -> Void) {
        let url = Self.url(of: verifier.jwks)
        let name = verifier.name + "\n" + url
        let entry = entries[name] ?? Entry()
        entries[name] = entry
        switch entry.keys.lookUp(refetch: refetch, now: Clock.monotonicSeconds()) {
        case .now(let keys, let startFetch):
            if startFetch { start(verifier, url: url, entry) }
            answer(keys)
        case .wait(let startFetch):
            entry.waiters.append(answer)
            if startFetch { start(verifier, url: url, entry) }
        }
    }

    private func start(_ verifier: AuthVerifierRule, url: String, _ entry: Entry) {
        let jwks = verifier.jwks
        var request = UpstreamRequest(
            method: "GET", url: url,
            headers: [NameValue(name: "Accept", value: "application/jwk-set+json, application/json")], body: nil,
            timeoutMilliseconds: jwks.timeoutMilliseconds, connectTimeoutMilliseconds: jwks.connectTimeoutMilliseconds,
            maxBodyBytes: jwks.maxBodyBytes, upstreamName: jwks.name, secrets: jwks.secrets)
        request.retryable = true
        let fetch = upstream.start(request) { [weak self, weak entry] result, _ in
            guard let self, let entry else { return }
            entry.fetch = nil
            self.ended(verifier, result, entry)
        }
        // nil: it ended before `start` returned (and a waiter may have started the next one).
        if let fetch { entry.fetch = fetch }
    }

    private func ended(_ verifier: AuthVerifierRule, _ result: UpstreamResult, _ entry: Entry) {
        var keys: KeySet?
        var maxAge: Int?
        switch result {
        case .response(let response) where response.status == 200:
            switch KeySet.parse(response.body) {
            case .success(let parsed):
                keys = parsed
                maxAge = CacheControl(header: response.cacheControl).maxAge
                for skipped in parsed.skipped {
                    Log.event("auth: verifier \(verifier.name): a key of its set is skipped: \(skipped)")
                }
            case .failure(let error):
                Log.event("auth: verifier \(verifier.name): its key set is not usable: \(error)")
            }
        case .response(let response):
            Log.event("auth: verifier \(verifier.name): fetching its key set answered \(response.status)")
        case .failure(let kind, _):
            // The message may name the URL, which may carry a secret: the kind says enough.
            Log.event("auth: verifier \(verifier.name): fetching its key set failed (\(kind.rawValue))")
        }
        let fetched = entry.keys.fetchEnded(keys, maxAgeSeconds: maxAge, now: Clock.monotonicSeconds())
        let waiters = entry.waiters
        entry.waiters = []
        for waiter in waiters { waiter(fetched.keys) }
    }

    /// Starts fetching every verifier's keys, so that the first requests need not wait for them.
    func prefetch(_ verifiers: some Sequence<AuthVerifierRule>) {
        for verifier in verifiers { lookUp(verifier, refetch: false) { _ in } }
    }

    /// Stops the fetches in flight (the worker is stopping); their waiters are gone with it.
    func close() {
        for entry in entries.values {
            if let fetch = entry.fetch { upstream.cancel(fetch) }
            entry.fetch = nil
            entry.waiters = []
        }
    }

    static func url(of jwks: Upstream) -> String {
        var url = jwks.scheme + "://" + (jwks.host.contains(":") ? "[\(jwks.host)]" : jwks.host)
        if let port = jwks.port { url += ":\(port)" }
        return url + (jwks.basePath.isEmpty ? "/" : jwks.basePath)
    }
}
