import ReshapeJSON

extension BodyRule {
    /// Violations reported for one invalid client body.
    static let maxReportedViolations = 100

    /// Checks a client's parsed JSON body against the type, runs the transform, and encodes
    /// the result for the upstream. Throws `validation-failed` (every violation's pointer),
    /// a transform's own error, or `form-not-flat`; the proxy answers each with 422.
    package func prepare(_ body: JSON, parameters: [String: String]) throws(PipelineError) -> (
        bytes: [UInt8], contentType: String
    ) {
        if let validator, !validator.isValid(body) {
            let violations = validator.validate(body, maxErrors: Self.maxReportedViolations)
            throw PipelineError(
                code: "validation-failed",
                message: "the request body is not a valid \(typeName ?? "value"): "
                    + (violations.first.map {
                        "\($0.instancePointer.isEmpty ? "(root)" : $0.instancePointer): \($0.reason)"
                    } ?? "invalid"),
                pointer: violations.first?.instancePointer,
                errors: violations.map { .init(pointer: $0.instancePointer, keyword: $0.keyword, reason: $0.reason) })
        }
        let value = try transform.run(body, parameters: parameters).value
        switch encoding {
        case .json:
            return (value.serialized(), "application/json")
        case .form:
            return (Array(try Self.formEncoded(value).utf8), "application/x-www-form-urlencoded")
        }
    }

    /// `a=1&b=x%20y` from a flat object, members in order. `null` is an empty value; nested
    /// values cannot be expressed and are refused rather than flattened by a guess.
    static func formEncoded(_ value: JSON) throws(PipelineError) -> String {
        guard case .object(let object) = value else {
            throw PipelineError(
                code: "form-not-flat", message: "form encoding needs an object, found \(value.kindName)", pointer: "")
        }
        var pairs: [String] = []
        for member in object.members {
            let text: String
            switch member.value {
            case .string(let string): text = string
            case .number(let number): text = number.text
            case .bool(let flag): text = flag ? "true" : "false"
            case .null: text = ""
            default:
                throw PipelineError(
                    code: "form-not-flat",
                    message:
                        "form encoding needs strings, numbers, booleans or null; '\(member.key)' is \(member.value.kindName)",
                    pointer: JSONPointer.appending(key: member.key, to: ""))
            }
            pairs.append(PercentEncoding.encode(member.key) + "=" + PercentEncoding.encode(text))
        }
        return pairs.joined(separator: "&")
    }
}
