import ReshapeAuth
import ReshapeJSON

extension RuleSetBuilder {
    private static let verifierKeys: Set<String> = ["jwks", "issuer", "audience", "algorithms", "leeway"]
    /// A key set is small; one larger than this is not one.
    static let maxKeySetBytes = 1 << 20
    /// How long a key set fetch may take: requests of `auth` routes wait for the first one.
    static let keySetTimeoutMilliseconds = 5_000

    /// One `auth:` verifier: `jwks`, `issuer` and `audience` required; `algorithms` among the
    /// asymmetric ones; `leeway` a duration.
    mutating func compileVerifier(_ entry: Entry) -> AuthVerifierRule? {
        let document = entry.document
        let label = "verifier '\(entry.name)'"
        guard case .object(let object) = entry.value else {
            report(document, entry.pointer, "\(label) must be a mapping with `jwks`, `issuer` and `audience`")
            return nil
        }
        let before = problems.count
        _ = reportUnknownKeys(in: object, allowed: Self.verifierKeys, what: "auth key", document, entry.pointer)
        var jwks: Upstream?
        if let text = requiredString("jwks", in: object, document, entry.pointer, label: label) {
            switch expander.expand(text) {
            case .success(let expanded):
                switch UpstreamURL.parse(expanded.text) {
                case .success(let url):
                    jwks = Upstream(
                        name: "auth:" + entry.name, scheme: url.scheme, host: url.host, port: url.port,
                        basePath: url.basePath, timeoutMilliseconds: Self.keySetTimeoutMilliseconds,
                        connectTimeoutMilliseconds: min(3_000, Self.keySetTimeoutMilliseconds),
                        maxBodyBytes: Self.maxKeySetBytes, secrets: expanded.secrets.filter { !$0.isEmpty })
                case .failure(let failure):
                    report(document, entry.pointer + "/jwks", "invalid `jwks` url: \(failure.message)")
                }
            case .failure(.unset(let name)):
                report(
                    document, entry.pointer + "/jwks",
                    "environment variable \(name) is not set (use ${\(name):-default} for a default)")
            case .failure(.malformed):
                report(document, entry.pointer + "/jwks", "malformed ${...} reference in `jwks`")
            }
        }
        let issuer = requiredString("issuer", in: object, document, entry.pointer, label: label)
        let audience = requiredString("audience", in: object, document, entry.pointer, label: label)
        var algorithms = JWSAlgorithm.standard
        if let value = object["algorithms"] {
            let names = value.arrayValue?.compactMap(\.stringValue) ?? []
            if names.isEmpty || names.count != value.arrayValue?.count {
                report(document, entry.pointer + "/algorithms", "`algorithms` must be a non-empty list of names")
            } else {
                algorithms = []
                for (index, name) in names.enumerated() {
                    if let algorithm = JWSAlgorithm(rawValue: name) {
                        algorithms.insert(algorithm)
                    } else {
                        let known = JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")
                        let never =
                            name.lowercased() == "none" || name.uppercased().hasPrefix("HS")
                            ? " (`none` and HMAC are never accepted)" : ""
                        report(
                            document, entry.pointer + "/algorithms/\(index)",
                            "unknown algorithm '\(name)'\(never); expected \(known)")
                    }
                }
            }
        }
        var leeway = TokenVerifier.defaultLeewaySeconds
        if let value = object["leeway"] {
            if case .string(let text) = value, let ms = Quantities.milliseconds(text), ms <= 3_600_000 {
                leeway = Double(ms) / 1000
            } else if case .string("0s") = value {
                leeway = 0
            } else {
                report(document, entry.pointer + "/leeway", "`leeway` must be a duration up to 1h, like 30s")
            }
        }
        guard problems.count == before, let jwks, let issuer, let audience else { return nil }
        return AuthVerifierRule(
            name: entry.name, jwks: jwks,
            verifier: TokenVerifier(issuer: issuer, audience: audience, algorithms: algorithms, leewaySeconds: leeway),
            location: entry.location)
    }

    /// A route's `auth:`: a verifier's name, or `{ verifier, require: { claim: value } }`.
    mutating func compileRouteAuth(_ value: JSON?, verifiers: Set<String>, _ scope: RouteScope) -> RouteAuth? {
        guard let value else { return nil }
        let pointer = scope.pointer + "/auth"
        var name: String?
        var requirements: [RouteAuth.Requirement] = []
        switch value {
        case .string(let text):
            name = text
        case .object(let object):
            _ = reportUnknownKeys(
                in: object, allowed: ["verifier", "require"], what: "auth key", scope.document, pointer)
            name = requiredString("verifier", in: object, scope.document, pointer, label: "`auth`")
            if let require = object["require"] {
                if case .object(let claims) = require, !claims.members.isEmpty {
                    for member in claims.members {
                        switch member.value {
                        case .string, .number, .bool:
                            requirements.append(RouteAuth.Requirement(claim: member.key, value: member.value))
                        default:
                            report(
                                scope.document, pointer + "/require/" + JSONPointer.escape(member.key),
                                "a required claim's value must be a string, a number or a boolean")
                        }
                    }
                } else {
                    report(scope.document, pointer + "/require", "`require` must map claim names to values")
                }
            }
        default:
            report(scope.document, pointer, "`auth` must be a verifier's name or { verifier, require }")
            return nil
        }
        guard let name else { return nil }
        guard verifiers.contains(name) else {
            let defined =
                verifiers.isEmpty
                ? " (no `auth:` verifiers are defined)" : " (defined: \(verifiers.sorted().joined(separator: ", ")))"
            report(scope.document, pointer, "unknown verifier '\(name)'\(defined)")
            return nil
        }
        return RouteAuth(verifier: name, require: requirements)
    }

    /// The claims a route's templates name (`{auth.<claim>}`), sorted and without repeats.
    static func authClaims(
        fetches: [FetchRule], stages: [ExpandStage], headers: [HeaderRule], query: [HeaderRule], steps: Set<String>
    ) -> [String] {
        var names = steps
        for template in fetches.map(\.path) + stages.map(\.expand.fetch.path) {
            for name in template.parameterNames {
                if let claim = RouteAuth.claim(ofParameter: name) { names.insert(String(claim)) }
            }
        }
        for rule in headers + query {
            for name in rule.parameterNames {
                if let claim = RouteAuth.claim(ofParameter: name) { names.insert(String(claim)) }
            }
        }
        return names.sorted()
    }
}

extension JSON {
    var arrayValue: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
