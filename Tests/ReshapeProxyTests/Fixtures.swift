import ReshapeJSON
import ReshapeRules

@testable import ReshapeProxy

// Rule-model values built directly, so these tests do not depend on the rule loader.

/// A client template: `/users/{id}` → [literal users, parameter id].
func clientTemplate(_ text: String) -> PathTemplate {
    let segments: [PathTemplate.Segment] = PathTemplate.segments(of: text.dropFirst()).map {
        $0.hasPrefix("{") && $0.hasSuffix("}") ? .parameter(String($0.dropFirst().dropLast())) : .literal(String($0))
    }
    return PathTemplate(segments: segments, description: text)
}

/// An upstream template: `/users/{id}.json` → [literal "/users/", parameter id, literal ".json"].
func upstreamTemplate(_ text: String) -> PathTemplate {
    var segments: [PathTemplate.Segment] = []
    var rest = Substring(text)
    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
        if open > rest.startIndex { segments.append(.literal(String(rest[..<open]))) }
        segments.append(.parameter(String(rest[rest.index(after: open)..<close])))
        rest = rest[rest.index(after: close)...]
    }
    if !rest.isEmpty { segments.append(.literal(String(rest))) }
    return PathTemplate(segments: segments, description: text)
}

func makeRoute(
    _ name: String, _ method: String, _ path: String, upstream: String = "api",
    upstreamPath: String = "/data.json", forwardQuery: [String] = [],
    steps: [any TransformOperation] = []
) -> Route {
    Route(
        name: name, method: method, path: clientTemplate(path), upstream: upstream,
        upstreamPath: upstreamTemplate(upstreamPath), forwardQuery: forwardQuery,
        pipeline: Pipeline(steps: steps), location: SourceLocation(file: "test.yaml", line: 1, column: 1))
}

func makeUpstream(
    _ name: String = "api", host: String = "api.example.com", port: Int? = nil, basePath: String = "",
    headers: [NameValue] = [], query: [NameValue] = [], secrets: [String] = []
) -> Upstream {
    Upstream(
        name: name, scheme: "https", host: host, port: port, basePath: basePath,
        headers: headers, query: query, secrets: secrets)
}

/// Fails the document with a fixed error, like a `validate: { invalid: fail }` step.
struct FailingStep: TransformOperation {
    let error: PipelineError
    func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) { throw error }
}

/// Removes array elements that are not objects and records each as dropped, like `validate: { invalid: drop }`.
struct DropNonObjectsStep: TransformOperation {
    func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        guard case .array(let items) = value else { return }
        var kept: [JSON] = []
        for (index, item) in items.enumerated() {
            if case .object = item {
                kept.append(item)
            } else {
                context.dropped.append(DroppedElement(pointer: "/\(index)", type: "User", reason: "not an object"))
            }
        }
        value = .array(kept)
    }
}

extension [UInt8] {
    var text: String { String(decoding: self, as: UTF8.self) }
}

func parseJSON(_ bytes: [UInt8]) -> JSON? { try? JSON.parse(bytes) }

extension JSON {
    subscript(_ key: String) -> JSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }
    var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    var intValue: Int? { if case .number(let number) = self { Int(number.text) } else { nil } }
    var arrayValue: [JSON]? { if case .array(let items) = self { items } else { nil } }
}
