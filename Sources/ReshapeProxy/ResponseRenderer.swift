import ReshapeJSON
import ReshapeRules

/// Turns what the upstream answered into what the client gets: decode, run the route's
/// pipeline, encode. Fails closed: a body that could not be normalized is never passed on.
public enum ResponseRenderer {
    /// The first header of every success answer; its ETag is appended per answer.
    private static let jsonHeaders = [NameValue(name: "Content-Type", value: "application/json")]

    public struct Rendered: Sendable {
        public var response: HTTPResponse
        public var dropped: [DroppedElement]
        /// The problem code when the response is an error.
        public var errorCode: String?
    }

    public static func render(_ result: UpstreamResult, route: Route, parameters: [String: String],
                              redactor: Redactor) -> Rendered {
        func problem(_ status: Int, _ code: String, _ title: String, _ detail: String, _ extra: [JSONMember] = []) -> Rendered {
            let context: [JSONMember] = [.init(key: "route", value: .string(route.name)),
                                         .init(key: "upstream", value: .string(route.upstream))]
            let problem = Problem(status: status, code: code, title: title, detail: redactor.redact(detail), extra: context + extra)
            return Rendered(response: problem.response, dropped: [], errorCode: code)
        }
        switch result {
        case .failure(let failure, let message):
            switch failure {
            case .timeout: return problem(504, "upstream-timeout", "Upstream timed out", message)
            case .tooLarge: return problem(502, "upstream-too-large", "Upstream response too large", message)
            case .dns, .connect, .tls: return problem(502, "upstream-unreachable", "Upstream unreachable", message)
            case .transfer, .other: return problem(502, "upstream-failed", "Upstream transfer failed", message)
            }
        case .response(let status, let contentType, let body):
            if status == 404 {
                return problem(404, "upstream-not-found", "Not found upstream", "the upstream answered 404")
            }
            guard (200..<300).contains(status) else {
                return problem(502, "upstream-status", "Upstream error", "the upstream answered \(status)",
                               [.init(key: "upstream_status", value: .number(JSONNumber(status)))])
            }
            let document: JSONTape
            do {
                document = try JSONTape.parse(body)
            } catch {
                let looksLikeJSON = contentType.map { $0.lowercased().contains("json") } ?? true
                if !looksLikeJSON {
                    return problem(502, "upstream-not-json", "Upstream sent something other than JSON",
                                   "the upstream answered \(contentType ?? "no content type"), not JSON")
                }
                return problem(502, "upstream-invalid-json", "Upstream sent invalid JSON",
                               "invalid JSON at line \(error.line), column \(error.column): \(error.message)",
                               [.init(key: "line", value: .number(JSONNumber(error.line))),
                                .init(key: "column", value: .number(JSONNumber(error.column)))])
            }
            do {
                let output = try route.pipeline.run(document, parameters: parameters)
                let body = output.serialized()
                var response = HTTPResponse(status: 200, headers: ResponseRenderer.jsonHeaders, body: body)
                response.headers.append(NameValue(name: "ETag", value: EntityTag.of(body)))
                if !output.dropped.isEmpty {
                    response.headers.append(NameValue(name: "Reshape-Dropped", value: String(output.dropped.count)))
                }
                return Rendered(response: response, dropped: output.dropped, errorCode: nil)
            } catch {
                let errors: [JSON] = error.errors.map { violation in
                    .object(JSONObject(["pointer": .string(violation.pointer), "keyword": .string(violation.keyword),
                                        "reason": .string(violation.reason)]))
                }
                var extra: [JSONMember] = []
                if let pointer = error.pointer { extra.append(.init(key: "pointer", value: .string(pointer))) }
                if !errors.isEmpty { extra.append(.init(key: "errors", value: .array(errors))) }
                if error.code == "not-found" {
                    return problem(404, "not-found", "Not found", error.message, extra)
                }
                return problem(502, error.code, "Upstream response could not be normalized", error.message, extra)
            }
        }
    }
}

/// Replaces every secret (a value that came from `${VAR}`) with `[REDACTED]`.
public struct Redactor: Sendable {
    private let secrets: [String]

    public init(secrets: [String]) {
        // Longest first, so a secret that contains another is removed whole.
        self.secrets = secrets.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
    }

    public func redact(_ text: String) -> String {
        var text = text
        for secret in secrets where text.contains(secret) {
            text = text.replacing(secret, with: "[REDACTED]")
        }
        return text
    }
}
