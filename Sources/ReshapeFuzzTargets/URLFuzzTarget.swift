import CCurl
import ReshapeProxy
import ReshapeRules

// The input is a client's request target (`/users/a%2F..%2Fb?limit=1#x`), decoded as the parser
// adapter decodes it. It goes through the router and `UpstreamRequestBuilder` with a fixed rule
// set (a port and base path, a bare IPv6 host, a capture inside a segment, a query secret).
// Properties, for every target that leads to a fetch:
// - libcurl (whose URL parser the upstream client uses) reads the built URL as the rule's
//   scheme, host and port, with no user info and no fragment, and a path that starts with the
//   upstream's base path and the route's literal prefix, unchanged by curl's normalization;
// - the query names only the upstream's own pairs and the route's `forward-query` parameters;
// - every capture is non-empty, not `.` or `..`, and is the client's segment percent-decoded.
// And for any text, percent-encoding then decoding gives it back, using only unreserved bytes
// and `%XX`.

private let rules: ServingRules = {
    let text = """
        upstreams:
          api:
            url: https://api.example.com:8443/base/v1
            query: { auth: "${TOKEN}" }
          local: { url: "http://[::1]:9000" }
          plain: { url: "http://plain.example" }
        routes:
          - { name: user, request: "GET /users/{id}", upstream: api, path: "/users/{id}.json", forward-query: [print, limit], transform: [] }
          - { name: me, request: "GET /users/me", upstream: plain, path: /me, transform: [] }
          - { name: repo, request: "GET /orgs/{org}/repos/{repo}", upstream: local, path: "/o/{org}/r/{repo}", transform: [] }
          - { name: file, request: "GET /files/{name}", upstream: plain, path: "/static/{name}", transform: [] }
          - { name: inner, request: "GET /a/{x}/b", upstream: api, path: "/x-{x}-y", forward-query: [q], transform: [] }
        """
    switch RuleLoader.load(files: [("rules.yaml", text)], environment: ["TOKEN": "t0ken"]) {
    case .success(let ruleSet): return ServingRules(ruleSet)
    case .failure(let diagnostics): fatalError("the fuzz target's own rules do not load: \(diagnostics)")
    }
}()

/// One libFuzzer input (`LLVMFuzzerTestOneInput` of its fuzz target); always 0.
public func fuzzURL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let target = String(decoding: fuzzInput(data, size), as: UTF8.self)
    checkPercentEncoding(target)
    checkClientView(HTTPRequest(method: "GET", target: target).rawQuery)
    for method in ["GET", "HEAD", "POST"] {
        let request = HTTPRequest(method: method, target: target)
        guard case .route(let shared, let parameters) = rules.decide(request) else { continue }
        let route = shared.route
        require(method != "POST", "a POST reached GET route \(route.name)")
        // The request the proxy would send: the builder refuses a capture that would leave the path.
        guard
            let upstreamRequest = try? UpstreamRequestBuilder.build(
                route: route, upstream: rules.ruleSet.upstreams[route.upstream]!,
                parameters: parameters, rawQuery: request.rawQuery)
        else { continue }
        checkParameters(request, route, parameters)
        checkURL(upstreamRequest.url, route, rules.ruleSet.upstreams[route.upstream]!, target: target)
    }
    return 0
}

private func checkPercentEncoding(_ text: String) {
    let encoded = PercentEncoding.encode(text)
    require(
        encoded.utf8.allSatisfy { isUnreserved($0) || $0 == UInt8(ascii: "%") },
        "encode left a reserved byte: \(encoded)")
    require(
        PercentEncoding.decode(Substring(encoded)) == text, "decode(encode(x)) != x for \(describe(Array(text.utf8)))")
}

private func checkParameters(_ request: HTTPRequest, _ route: Route, _ parameters: [String: String]) {
    // Split by the slash byte, as paths are matched (docs/http.md), not by Character.
    let segments = request.path.dropFirst().utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        .map { Substring($0) }
    require(segments.count == route.path.segments.count, "route \(route.name) matched \(request.path)")
    for (part, segment) in zip(route.path.segments, segments) {
        guard case .parameter(let name) = part else { continue }
        let value = parameters[name]
        require(
            value != nil && value == PercentEncoding.decode(segment),
            "capture \(name) = \(value ?? "nil") for segment \(segment)")
        require(value != "" && value != "." && value != "..", "capture \(name) = '\(value!)' reached the builder")
    }
}

private func checkURL(_ url: String, _ route: Route, _ upstream: Upstream, target: String) {
    guard let handle = reshape_curl_url() else { fatalError("curl_url") }
    defer { reshape_curl_url_cleanup(handle) }
    let status = reshape_curl_url_set(handle, CURLUPART_URL, url, 0)
    require(status == CURLUE_OK, "curl refuses \(url) (\(status.rawValue)), built for \(target)")

    func part(_ which: CURLUPart) -> String? {
        var text: UnsafeMutablePointer<CChar>?
        guard reshape_curl_url_get(handle, which, &text, 0) == CURLUE_OK, let text else { return nil }
        defer { reshape_curl_free(text) }
        return String(cString: text)
    }
    let host = upstream.host.contains(":") ? "[\(upstream.host)]" : upstream.host
    require(part(CURLUPART_SCHEME) == upstream.scheme, "scheme of \(url)")
    require(part(CURLUPART_HOST) == host, "curl reads host \(part(CURLUPART_HOST) ?? "nil") in \(url) for \(target)")
    require(part(CURLUPART_PORT) == upstream.port.map(String.init), "port of \(url) for \(target)")
    require(part(CURLUPART_USER) == nil && part(CURLUPART_PASSWORD) == nil, "user info in \(url) for \(target)")
    require(part(CURLUPART_FRAGMENT) == nil, "a fragment in \(url) for \(target)")

    let path = part(CURLUPART_PATH) ?? ""
    var prefix = upstream.basePath
    if case .literal(let text) = route.upstreamPath.segments.first { prefix += text }
    require(path.hasPrefix(prefix), "curl reads path \(path) in \(url), outside \(prefix), for \(target)")
    let written = url.split(separator: "?", maxSplits: 1)[0]
    require(written.hasSuffix(path), "curl rewrites the path \(written) as \(path) for \(target)")

    let allowed = Set(upstream.query.map(\.name) + route.forwardQuery)
    for pair in (part(CURLUPART_QUERY) ?? "").split(separator: "&") {
        let name = PercentEncoding.decode(pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0])
        require(name.map(allowed.contains) == true, "query parameter \(name ?? String(pair)) in \(url) for \(target)")
    }
}

private func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
        return true
    default:
        return false
    }
}
