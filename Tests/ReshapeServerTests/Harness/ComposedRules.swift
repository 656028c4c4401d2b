import Foundation
import Glibc
import ReshapeJSON
import ReshapeRules
import ReshapeSchema
import ReshapeServer
import ReshapeTestSupport

// Rule sets built in code, served in this process by `EmbeddedServer`: routes with the keys of
// issue 9 (fetch, expand, forward-headers, headers, body, timeout) are built here directly, so
// the server is tested without depending on the rule loader's support for them. Transforms
// that the loader already compiles (keyed-to-array, drop) come from loaded rule text.

/// A client template: `/users/{id}` → [literal users, parameter id].
func clientPath(_ text: String) -> PathTemplate {
    let segments: [PathTemplate.Segment] = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map
    {
        $0.hasPrefix("{") && $0.hasSuffix("}") ? .parameter(String($0.dropFirst().dropLast())) : .literal(String($0))
    }
    return PathTemplate(segments: segments, description: text)
}

/// An upstream template: `/users/{id}.json` → [literal "/users/", parameter id, literal ".json"].
func upstreamPath(_ text: String) -> PathTemplate {
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

let testLocation = SourceLocation(file: "composition-tests", line: 1, column: 1)

func fetch(_ name: String, _ path: String, optional: Bool = false, upstream: String = "demo") -> FetchRule {
    FetchRule(name: name, upstream: upstream, path: upstreamPath(path), optional: optional)
}

func route(
    _ name: String, _ method: String, _ path: String, fetches: [FetchRule], forwardHeaders: [String] = [],
    headers: [HeaderRule] = [], body: BodyRule? = nil, pipeline: Pipeline = Pipeline(steps: []),
    stages: [ExpandStage] = [], timeoutMilliseconds: Int? = nil
) -> Route {
    Route(
        name: name, method: method, path: clientPath(path), fetches: fetches, forwardHeaders: forwardHeaders,
        headers: headers, body: body, pipeline: pipeline, stages: stages, timeoutMilliseconds: timeoutMilliseconds,
        location: testLocation)
}

/// Pipelines compiled by the loader from rule text with keys it already knows, by route name.
func loadedPipelines(_ text: String) throws -> [String: Pipeline] {
    switch RuleLoader.load(files: [(name: "base.yaml", text: text)], environment: [:]) {
    case .success(let ruleSet): return Dictionary(uniqueKeysWithValues: ruleSet.routes.map { ($0.name, $0.pipeline) })
    case .failure(let diagnostics): throw HarnessError("base rules: \(diagnostics.diagnostics.map(\.description))")
    }
}

/// CLOCK_MONOTONIC in milliseconds: the demo upstream's log uses the same system-wide clock.
func monotonicNowMilliseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
}

/// One request the demo upstream logged.
struct UpstreamLogEntry {
    let raw: [String: Any]
    var method: String { raw["method"] as? String ?? "" }
    var target: String { raw["target"] as? String ?? "" }
    var body: String { raw["body"] as? String ?? "" }
    var headers: [(String, String)] {
        (raw["headers"] as? [[String]] ?? []).compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    func hasHeader(_ name: String) -> Bool { header(name) != nil }
    var startedMs: Int { raw["startedMs"] as? Int ?? 0 }
    var answeredMs: Int? { raw["answeredMs"] as? Int }
    var endedMs: Int? { raw["endedMs"] as? Int }
    var clientAborted: Bool { raw["clientAborted"] as? Bool ?? false }
}

extension DemoUpstream {
    func entries(_ prefix: String) throws -> [UpstreamLogEntry] {
        try log().map(UpstreamLogEntry.init).filter { $0.target.hasPrefix(prefix) }
    }

    /// Waits until `count` requests under `prefix` are logged; returns them.
    @discardableResult
    func waitForEntries(_ prefix: String, count: Int, timeout: TimeInterval = 5) throws -> [UpstreamLogEntry] {
        if try waitUntil(timeout: timeout, { try entries(prefix).count >= count }) { return try entries(prefix) }
        throw HarnessError("expected \(count) upstream requests under \(prefix): \(try entries(prefix).map(\.target))")
    }

    /// Waits until every request under `prefix` has ended; returns them.
    func waitForAllEnded(_ prefix: String, timeout: TimeInterval = 3) throws -> [UpstreamLogEntry] {
        try waitUntil(timeout: timeout) {
            let found = try entries(prefix)
            return !found.isEmpty && found.allSatisfy({ $0.endedMs != nil })
        }
        return try entries(prefix)
    }
}

/// The most requests in flight at one time among `entries` (from the head read to the answer).
func maxOverlap(_ entries: [UpstreamLogEntry]) -> Int {
    var events: [(time: Int, delta: Int)] = []
    for entry in entries {
        events.append((entry.startedMs, 1))
        events.append((entry.answeredMs ?? entry.endedMs ?? Int.max, -1))
    }
    // An answer and a start in the same millisecond: the answer first (it was written before the
    // proxy could start the next fetch).
    events.sort { $0.time != $1.time ? $0.time < $1.time : $0.delta < $1.delta }
    var current = 0
    var best = 0
    for event in events {
        current += event.delta
        best = max(best, current)
    }
    return best
}

extension RawHTTP {
    /// One request with any method, headers and body on a fresh connection.
    static func request(
        port: Int, _ method: String, _ target: String, headers: [String] = [], body: String? = nil,
        timeout: TimeInterval = 10
    ) throws -> Response {
        var client = try RawHTTP(port: port, timeout: timeout)
        defer { client.close() }
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined()
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        client.send(text + "Connection: close\r\n\r\n" + (body ?? ""))
        // An interim answer (100 Continue) comes before the final one.
        while let response = client.readResponse(headOnly: false) {
            if response.status >= 200 { return response }
        }
        throw HarnessError("no response to \(method) \(target)")
    }
}
