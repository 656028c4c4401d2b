import ReshapeJSON
import ReshapeRules

/// A `limit:` route's rate-limit headers (draft-ietf-httpapi-ratelimit-headers) on every
/// answer it documents, and `Retry-After` on its 429 (docs/limits.md).
extension OpenAPIDocument {
    static func addLimitResponses(_ route: Route, to responses: inout JSONObject) {
        guard !route.limit.isEmpty else { return }
        let policy = limitHeader(
            "The route's rate-limit policies: `\"name\";q=<requests>;w=<seconds>`, one item per policy.")
        let state = limitHeader(
            "Where this client stands under each policy: `\"name\";r=<remaining>;t=<seconds until one more>`.")
        for member in responses.members {
            guard case .object(var response) = member.value else { continue }
            var headers: JSONObject
            if case .object(let existing)? = response["headers"] {
                headers = existing
            } else {
                headers = JSONObject([])
            }
            headers["RateLimit-Policy"] = policy
            headers["RateLimit"] = state
            if member.key == "429" {
                headers["Retry-After"] = .object(
                    JSONObject([
                        JSONMember(key: "description", value: .string("Whole seconds until a request is admitted.")),
                        JSONMember(
                            key: "schema",
                            value: .object(JSONObject(["type": .string("string"), "pattern": .string("^[0-9]+$")]))),
                    ]))
            }
            response["headers"] = .object(headers)
            responses[member.key] = .object(response)
        }
    }

    private static func limitHeader(_ description: String) -> JSON {
        .object(
            JSONObject([
                JSONMember(key: "description", value: .string(description)),
                JSONMember(key: "schema", value: .object(JSONObject(["type": .string("string")]))),
            ]))
    }
}
