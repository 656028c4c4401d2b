/// Expands `${VAR}` and `${VAR:-default}` from the environment at load time. What came from
/// the environment is reported back so it can be treated as a secret: never logged, never echoed.
struct EnvironmentExpander {
    let environment: [String: String]

    enum Failure: Error, Equatable {
        case unset(String)
        case malformed
    }

    /// Returns the expanded text and the values that came from variables. `inserting` rewrites
    /// what each `${...}` stands for (a value or a fallback) as it goes into the text.
    func expand(
        _ text: String,
        inserting: (String) -> String = { $0 }
    ) -> Result<(text: String, secrets: [String]), Failure> {
        guard text.contains("${") else { return .success((text, [])) }
        var output = ""
        var secrets: [String] = []
        var rest = Substring(text)
        while let start = rest.firstRange(of: "${") {
            output += rest[..<start.lowerBound]
            guard let close = rest[start.upperBound...].firstIndex(of: "}") else { return .failure(.malformed) }
            let inner = rest[start.upperBound..<close]
            var name = Substring(inner)
            var fallback: Substring? = nil
            if let dash = inner.firstRange(of: ":-") {
                name = inner[..<dash.lowerBound]
                fallback = inner[dash.upperBound...]
            }
            guard !name.isEmpty, name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }) else {
                return .failure(.malformed)
            }
            if let value = environment[String(name)], !value.isEmpty {
                output += inserting(value)
                secrets.append(value)
            } else if let fallback {
                output += inserting(String(fallback))
            } else {
                return .failure(.unset(String(name)))
            }
            rest = rest[rest.index(after: close)...]
        }
        output += rest
        return .success((output, secrets))
    }
}
