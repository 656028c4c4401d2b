import ReshapeJSON

extension RuleSetBuilder {
    private static let redirectKeys: Set<String> = ["hosts", "max"]
    private static let redirectExample = "`redirects` must be a mapping like { hosts: [\"*.firebaseio.com\"], max: 3 }"

    /// `redirects: { hosts: [...], max: 3 }`; nil when faulty (each problem reported).
    mutating func compileRedirects(_ value: JSON, _ document: SourceDocument, _ pointer: String) -> RedirectRule? {
        guard case .object(let object) = value else {
            report(document, pointer, Self.redirectExample)
            return nil
        }
        let before = problems.count
        _ = reportUnknownKeys(in: object, allowed: Self.redirectKeys, what: "redirects key", document, pointer)
        var hosts: [HostPattern] = []
        switch object["hosts"] {
        case .array(let entries) where !entries.isEmpty:
            for (index, entry) in entries.enumerated() {
                let at = pointer + "/hosts/\(index)"
                guard case .string(let text) = entry else {
                    report(
                        document, at, "a redirect host must be a string like \"db.example.com\" or \"*.example.com\"")
                    continue
                }
                switch HostPattern.parse(text) {
                case .success(let pattern): hosts.append(pattern)
                case .failure(let failure): report(document, at, "'\(text)': \(failure.message)")
                }
            }
        case nil:
            report(document, pointer, "`redirects` needs `hosts`: the hosts a redirect may lead to")
        default:
            report(document, pointer + "/hosts", "`hosts` must be a non-empty list like [\"*.firebaseio.com\"]")
        }
        var max = RedirectRule.defaultMax
        if let value = object["max"] {
            if case .number(let number) = value, let count = number.intValue, (1...10).contains(count) {
                max = count
            } else {
                report(document, pointer + "/max", "`max` must be a whole number from 1 to 10")
            }
        }
        return problems.count == before ? RedirectRule(hosts: hosts, max: max) : nil
    }
}
