import ReshapeProblem
import ReshapeRules

/// What `conditional: true` does to one request: the fetch it sends and the answer it gets
/// (docs/rules.md, "Conditional reads and writes"). Pure: `RouteExchange` asks it at the start,
/// when its fetch ends, and before answering.
package enum ConditionalExchange: Equatable, Sendable {
    /// Not a conditional route (or not a single fetch, which the rules refuse).
    case off
    /// A GET: Firebase's ETag is asked for and carried in the answer's tag.
    case read(resource: String)
    /// A PUT, PATCH or DELETE: `ifMatch` decides what is sent; `minimal` is the client's
    /// `Prefer: return=minimal`.
    case write(resource: String, ifMatch: IfMatch, minimal: Bool)

    /// Firebase's header asking for the ETag (docs/firebase.md).
    static let askForETag = NameValue(name: "X-Firebase-ETag", value: "true")

    /// The use for `request` on `route`, whose single fetch is `fetch`.
    package static func of(route: Route, request: HTTPRequest, fetch: UpstreamRequest) -> ConditionalExchange {
        guard route.conditional else { return .off }
        let resource = ConditionalTag.resource(
            upstream: fetch.upstreamName, url: fetch.url, fingerprint: route.conditionalFingerprint)
        switch route.method {
        case "GET", "HEAD": return .read(resource: resource)
        case "PUT", "PATCH", "DELETE":
            let values = request.headers.filter { RequestFraming.equalsIgnoringCase($0.name, "If-Match") }.map(\.value)
            let prefer = request.headers.filter { RequestFraming.equalsIgnoringCase($0.name, "Prefer") }.map(\.value)
            return .write(
                resource: resource, ifMatch: IfMatch.decide(values, resource: resource),
                minimal: prefersMinimal(prefer))
        default: return .off
        }
    }

    /// Whether a `Prefer` field (RFC 7240 §2) asks for `return=minimal`.
    static func prefersMinimal(_ values: [String]) -> Bool {
        for value in values {
            for preference in value.split(separator: ",") {
                let token = preference.split(separator: ";", maxSplits: 1).first ?? ""
                let words = token.filter { $0 != " " && $0 != "\t" && $0 != "\"" }.lowercased()
                if words == "return=minimal" { return true }
            }
        }
        return false
    }

    /// The fetch as this use sends it: Firebase's ETag asked for; on a write, Firebase's tag as
    /// `if-match` (or `*`), `print=silent` when the client prefers a minimal answer, and for a
    /// stale tag a read of the current value instead of the write: nothing is written, and
    /// Firebase's answer gives the current ETag the 412 carries.
    package func prepare(_ fetch: inout UpstreamRequest) {
        switch self {
        case .off: return
        case .read:
            fetch.headers.append(Self.askForETag)
        case .write(_, let ifMatch, let minimal):
            fetch.headers.append(Self.askForETag)
            switch ifMatch {
            case .absent: break
            case .any: fetch.headers.append(NameValue(name: "if-match", value: "*"))
            case .firebase(let tag): fetch.headers.append(NameValue(name: "if-match", value: tag))
            case .stale:
                fetch.method = "GET"
                fetch.body = nil
                fetch.headers.removeAll { RequestFraming.equalsIgnoringCase($0.name, "Content-Type") }
                fetch.retryable = true
                return
            }
            if minimal { fetch.url += (fetch.url.contains("?") ? "&" : "?") + "print=silent" }
        }
    }

    /// The 412 that answers the request instead of `result`, if it is one: a stale tag (whatever
    /// the read of the current value brought), or Firebase's own mismatch. Its `ETag` is the
    /// current value's, when Firebase sent one; the current value itself is not shown: it is the
    /// upstream's, not normalized by any route.
    func refusal(_ result: UpstreamResult, context: ResponseRenderer.Context) -> Problem? {
        guard case .write(let resource, let ifMatch, _) = self else { return nil }
        let response: UpstreamResponse?
        if case .response(let answered) = result { response = answered } else { response = nil }
        let detail: String
        switch ifMatch {
        case .stale:
            detail = "If-Match names no tag this route made for this resource under its current rules"
        case .firebase, .any:
            guard let response, response.status == 412 else { return nil }
            detail = "the resource changed since its tag was made"
        case .absent:
            return nil
        }
        var problem = context.problem(412, "precondition-failed", "Precondition failed", detail)
        if let response, response.status == 200 || response.status == 412, let firebase = response.entityTag,
            ConditionalTag.isCarried(firebase)
        {
            let tag = ConditionalTag.composed(
                EntityTag.of(response.body), resource: resource, firebase: firebase)
            problem.extraHeaders.append(Problem.Header(name: "ETag", value: tag))
        }
        return problem
    }

    /// A 2xx answer with the composed tag (when Firebase sent its ETag) and, for a minimal
    /// write answered without content, `Preference-Applied`.
    func finished(_ response: HTTPResponse, firebaseTag: String?) -> HTTPResponse {
        guard (200..<300).contains(response.status) else { return response }
        var response = response
        switch self {
        case .off: return response
        case .read(let resource):
            guard let firebaseTag, let index = response.headers.firstIndex(where: { $0.name == "ETag" }) else {
                return response
            }
            response.headers[index].value = ConditionalTag.composed(
                response.headers[index].value, resource: resource, firebase: firebaseTag)
        case .write(let resource, _, let minimal):
            if let firebaseTag, ConditionalTag.isCarried(firebaseTag) {
                let tag = ConditionalTag.composed(
                    EntityTag.of(response.body), resource: resource, firebase: firebaseTag)
                response.headers.removeAll { $0.name == "ETag" }
                response.headers.append(NameValue(name: "ETag", value: tag))
            }
            if minimal, response.status == 204 {
                response.headers.append(NameValue(name: "Preference-Applied", value: "return=minimal"))
            }
        }
        return response
    }
}
