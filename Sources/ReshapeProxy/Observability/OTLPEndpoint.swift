/// Where spans go: `--otlp-endpoint`, or OpenTelemetry's standard variables.
public enum OTLPEndpoint {
    /// The traces URL, nil when none is set, or what is wrong with the one given. The flag is
    /// taken as is when it has a path, and as the collector's base URL (`/v1/traces` added)
    /// when it has none; `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as is, and
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` gets `/v1/traces`, as the OTLP exporter spec says.
    public static func traces(flag: String?, environment: [String: String]) -> Result<String?, Invalid> {
        let url: String
        if let flag, !flag.isEmpty {
            url = hasPath(flag) ? flag : trimmed(flag) + "/v1/traces"
        } else if let traces = environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], !traces.isEmpty {
            url = traces
        } else if let base = environment["OTEL_EXPORTER_OTLP_ENDPOINT"], !base.isEmpty {
            url = trimmed(base) + "/v1/traces"
        } else {
            return .success(nil)
        }
        guard let rest = afterScheme(url), !rest.isEmpty, !rest.hasPrefix("/") else {
            return .failure(Invalid(url: displayed(url)))
        }
        return .success(url)
    }

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let url: String
        public var description: String { "the OTLP endpoint must be an http:// or https:// URL (got '\(url)')" }
    }

    /// The URL as logs show it: user and password, if any, left out.
    public static func displayed(_ url: String) -> String {
        guard let rest = afterScheme(url) else { return url }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url.prefix(url.count - rest.count)) + String(rest[rest.index(after: at)...])
    }

    private static func afterScheme(_ url: String) -> Substring? {
        for scheme in ["http://", "https://"] where url.lowercased().hasPrefix(scheme) {
            return url.dropFirst(scheme.count)
        }
        return nil
    }

    private static func hasPath(_ url: String) -> Bool {
        guard let rest = afterScheme(url), let slash = rest.firstIndex(of: "/") else { return false }
        return rest[slash...] != "/"
    }

    private static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
