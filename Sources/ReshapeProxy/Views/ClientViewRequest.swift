import ReshapeJSON
import ReshapeProblem
import ReshapeRules

/// One request's view of a `client-query` route (docs/queries.md): parsed when the request is
/// routed, so a bad query is refused before anything is looked up or fetched, and made from
/// the route's whole answer in `RequestLifecycle.deliver`, after the cache and before the
/// `ETag`, the 304 and compression. The cache and the upstream request never see it.
struct ClientViewRequest {
    let view: ClientView
    let rule: ClientQueryRule
    /// The route's fingerprint, which the view's cursors are bound to.
    let fingerprint: String
    let path: Substring
    let rawQuery: Substring
    /// Where the answer's tape may already be, parsed for another view of it.
    let tapes: ViewTapes

    /// The view `request` asks of `route`: nil when it asks none (or the route has no
    /// `client-query`); a 400 problem when the query is refused.
    static func prepare(_ route: Route, _ request: HTTPRequest, tapes: ViewTapes) -> Result<
        ClientViewRequest?, Problem
    > {
        guard let rule = route.clientQuery else { return .success(nil) }
        let parsed: ClientView?
        do {
            parsed = try ClientView.parse(request.rawQuery, rule: rule)
        } catch {
            return .failure(problem(error))
        }
        guard let parsed else { return .success(nil) }
        if route.live != nil, LiveSubscription.asksForStream(request) {
            // A stream's default page is no page: only what the client asked for counts.
            guard ClientView.asks(request.rawQuery, rule) else { return .success(nil) }
            if let name = ClientView.pageParameter(in: request.rawQuery) {
                return .failure(
                    problem(
                        ClientQueryError(
                            code: .badParameter, name: name,
                            detail: "pages a plain GET; a live stream follows the whole view", allowed: [])))
            }
        }
        do {
            // The cursor's digest needs no answer: a bad one costs no lookup and no fetch.
            try parsed.checkCursor(fingerprint: route.fingerprint)
        } catch {
            return .failure(problem(error))
        }
        return .success(
            ClientViewRequest(
                view: parsed, rule: rule, fingerprint: route.fingerprint, path: request.path,
                rawQuery: request.rawQuery, tapes: tapes))
    }

    /// The view a live subscription of the request follows.
    var liveView: LiveView { LiveView(view: view, rule: rule) }

    /// The view of a 200 JSON answer; any other answer is sent as it is.
    func render(_ response: HTTPResponse) -> HTTPResponse {
        guard response.status == 200, let answer = tapes.tape(of: response.body) else { return response }
        let outcome: TapeViewOutcome
        do {
            // On the tape: records are compared on its nodes and the page copied from its text.
            outcome = try view.apply(toTape: answer, rule: rule, fingerprint: fingerprint)
        } catch {
            return Self.problem(error).response
        }
        guard let total = outcome.total else { return response }
        var rendered = response
        rendered.body = outcome.body
        for index in rendered.headers.indices where rendered.headers[index].name == "ETag" {
            rendered.headers[index].value = EntityTag.of(rendered.body)
        }
        rendered.headers.append(NameValue(name: "Reshape-Total-Count", value: String(total)))
        if let next = outcome.nextCursor {
            rendered.headers.append(NameValue(name: "Link", value: "<\(nextPage(next))>; rel=\"next\""))
        }
        return rendered
    }

    /// The request's own path and query, its `cursor` replaced by `cursor` (RFC 8288's target).
    /// Rebuilt from the decoded pairs, each name and value percent-encoded with only RFC 3986's
    /// unreserved characters literal, so nothing the client sent can end the URI reference or
    /// the link-value (`>`, `,`, `;`, quotes) and point `rel="next"` elsewhere. A pair that does
    /// not decode is none of the view's (`ClientView.parse`) and is left out.
    func nextPage(_ cursor: String) -> String {
        var query: [String] = []
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            guard let name = PercentEncoding.decode(equals.map { pair[..<$0] } ?? pair, plusIsSpace: true),
                name != "cursor",
                let value = PercentEncoding.decode(
                    equals.map { pair[pair.index(after: $0)...] } ?? "", plusIsSpace: true)
            else { continue }
            query.append(
                PercentEncoding.encode(name) + (equals == nil ? "" : "=" + PercentEncoding.encode(value)))
        }
        query.append("cursor=" + PercentEncoding.encode(cursor))
        return Self.pathText(path) + "?" + query.joined(separator: "&")
    }

    /// `path` with every byte outside RFC 3986's path characters (unreserved, sub-delims, `:`,
    /// `@`, `/`, `%`) percent-encoded: the router matched it, but a `>` must not reach the link.
    static func pathText(_ path: Substring) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(path.utf8.count)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                output.append(byte)
            case _ where "-._~!$&'()*+,;=:@/%".utf8.contains(byte):
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func problem(_ error: ClientQueryError) -> Problem {
        var extra = [JSONMember(key: "parameter", value: .string(error.name))]
        if !error.allowed.isEmpty {
            extra.append(JSONMember(key: "allowed", value: .array(error.allowed.map(JSON.string))))
        }
        let allowed = error.allowed.isEmpty ? "" : "; allowed: " + error.allowed.joined(separator: ", ")
        switch error.code {
        case .badParameter:
            return Problem(
                status: 400, code: "bad-parameter", title: "Bad parameter",
                detail: "'\(error.name)' \(error.detail)\(allowed)", extra: extra)
        case .badCursor:
            return Problem(status: 400, code: "bad-cursor", title: "Bad cursor", detail: error.detail, extra: extra)
        }
    }
}
