import ReshapeJSON
import ReshapeRules

/// What `conditional: true` adds to a route's operation (docs/rules.md, "Conditional reads and
/// writes"): on a write, the `If-Match` and `Prefer` request headers, the 412 with the current
/// tag and the 204 a minimal answer is; on a read, the tag its 200 carries.
extension OpenAPIDocument {
    static func conditionalWriteParameters() -> [JSON] {
        [
            described(
                parameter("If-Match", in: "header", required: false, schema: ["type": .string("string")]),
                "An ETag this route group answered for this resource (or `*`): the write applies only if the value is unchanged since."
            ),
            described(
                parameter("Prefer", in: "header", required: false, schema: ["type": .string("string")]),
                "`return=minimal` (RFC 7240): the write is answered 204 without content."),
        ]
    }

    static func addConditionalResponses(_ route: Route, to responses: inout JSONObject) {
        let etag = header(
            "An opaque strong tag: If-None-Match revalidates with it, If-Match on this resource's writes names it.")
        if route.method == "GET" {
            if case .object(var ok)? = responses["200"], case .object(var headers)? = ok["headers"] {
                headers["ETag"] = etag
                ok["headers"] = .object(headers)
                responses["200"] = .object(ok)
            }
            return
        }
        responses["204"] = .object(
            JSONObject([
                JSONMember(key: "description", value: .string("Written; `Prefer: return=minimal` was applied.")),
                JSONMember(
                    key: "headers",
                    value: .object(
                        JSONObject([
                            JSONMember(key: "Preference-Applied", value: header("`return=minimal`.")),
                            JSONMember(key: "ETag", value: etag),
                        ]))),
            ]))
        if case .object(var refused)? = responses["412"] {
            refused["headers"] = .object(
                JSONObject([JSONMember(key: "ETag", value: header("The current value's tag, to retry with."))]))
            responses["412"] = .object(refused)
        }
    }

    private static func header(_ description: String) -> JSON {
        .object(
            JSONObject([
                JSONMember(key: "description", value: .string(description)),
                JSONMember(key: "schema", value: .object(JSONObject(["type": .string("string")]))),
            ]))
    }

    private static func described(_ parameter: JSON, _ description: String) -> JSON {
        guard case .object(var object) = parameter else { return parameter }
        object["description"] = .string(description)
        return .object(object)
    }
}
