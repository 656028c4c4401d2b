import ReshapeJSON
import ReshapeProblem
import ReshapeRules

/// The client's request body, checked before anything is fetched: a route without `body:`
/// takes none (415), one with it takes JSON (415 otherwise), well formed (400, with line and
/// column) and valid for its type (422, with every violation's pointer).
enum ClientBody {
    /// The encoded body and its content type for the upstream; nil when there is none.
    static func prepare(_ request: HTTPRequest, route: Route, parameters: [String: String]) -> Result<
        (bytes: [UInt8], contentType: String)?, Problem
    > {
        // Every GET passes here: nothing is allocated before the answer is known to be "no body".
        if route.body == nil, request.body.isEmpty { return .success(nil) }
        let context: [JSONMember] = [.init(key: "route", value: .string(route.name))]
        guard let rule = route.body else {
            return .failure(
                Problem(
                    status: 415, code: "body-not-accepted", title: "Request body not accepted",
                    detail: "\(route.method) \(route.path.description) takes no request body", extra: context))
        }
        guard let type = request.header("Content-Type"), isJSON(type) else {
            return .failure(
                Problem(
                    status: 415, code: "unsupported-media-type", title: "Unsupported media type",
                    detail: "the request body must be JSON (Content-Type: application/json)", extra: context))
        }
        let body: JSON
        do {
            body = try JSON.parse(request.body)
        } catch {
            return .failure(
                Problem(
                    status: 400, code: "invalid-json", title: "Request body is not valid JSON",
                    detail: "invalid JSON at line \(error.line), column \(error.column): \(error.message)",
                    extra: context + [
                        .init(key: "line", value: .number(JSONNumber(error.line))),
                        .init(key: "column", value: .number(JSONNumber(error.column))),
                    ]))
        }
        do {
            return .success(try rule.prepare(body, parameters: parameters))
        } catch {
            var extra = context
            if let pointer = error.pointer { extra.append(.init(key: "pointer", value: .string(pointer))) }
            if !error.errors.isEmpty {
                extra.append(.init(key: "errors", value: .array(ResponseRenderer.violations(error))))
            }
            return .failure(
                Problem(
                    status: 422, code: "invalid-body", title: "Request body is invalid",
                    detail: error.message, extra: extra))
        }
    }

    /// `application/json`, or any `+json` type, with or without parameters.
    static func isJSON(_ contentType: String) -> Bool {
        let mediaType =
            contentType.split(separator: ";", maxSplits: 1).first.map {
                String($0.filter { $0 != " " && $0 != "\t" }).lowercased()
            } ?? ""
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }
}
