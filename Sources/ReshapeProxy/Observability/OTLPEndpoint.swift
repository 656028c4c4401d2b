/// Where spans go: `--otlp-endpoint`, or OpenTelemetry's standard variables.
package enum OTLPEndpoint {
    /// The traces URL, nil when none is set, or what is wrong with the one given. The flag is
    /// taken as is when it has a path, and as the collector's base URL (`/v1/traces` added)
    /// when it has none; `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as is, and
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` gets `/v1/traces`, as the OTLP exporter spec says.
    package static func traces(flag: String?, environment: [String: String]) -> Result<String?, Invalid> {
        let given: String
        let asIs: Bool
        if let flag, !flag.isEmpty {
            (given, asIs) = (flag, hasPath(flag))
        } else if let traces = environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], !traces.isEmpty {
            (given, asIs) = (traces, true)
        } else if let base = environment["OTEL_EXPORTER_OTLP_ENDPOINT"], !base.isEmpty {
            (given, asIs) = (base, false)
        } else {
            return .success(nil)
        }
        guard let rest = afterScheme(given), !rest.isEmpty, !rest.hasPrefix("/") else {
            return .failure(Invalid(url: displayed(given)))
        }
        return .success(asIs ? given : (given.hasSuffix("/") ? String(given.dropLast()) : given) + "/v1/traces")
    }

    package struct Invalid: Error, Sendable, CustomStringConvertible {
        package let url: String
        package var description: String { "the OTLP endpoint must be an http:// or https:// URL (got '\(url)')" }
    }

    /// The URL as logs show it: user and password, if any, left out, and the query and fragment
    /// too (a collector's API key often rides there).
    package static func displayed(_ url: String) -> String {
        let bare = String(url.prefix { $0 != "?" && $0 != "#" })
        guard let rest = afterScheme(bare) else { return bare }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return bare }
        return String(bare.prefix(bare.count - rest.count)) + String(rest[rest.index(after: at)...])
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
}
