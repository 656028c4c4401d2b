import ReshapeJSON
import ReshapeRules

// The input is one or more rule files separated by NUL bytes (rule files are text, so a NUL
// never occurs in a real one). A file whose first non-blank character is `{` is loaded as
// `.json` (the strict JSON reader), any other as `.yaml` (Yams). Properties:
// - loading never crashes; it gives a rule set or diagnostics;
// - every diagnostic names one of the files (or "(rules)") at a line and column that exist;
// - a rule set that loads keeps what docs/rules.md promises of it: upstream URLs are
//   http(s)://host[:port][/base path] with a port in range and a base path of plain segments;
//   request templates start with '/'; upstream paths start with '/', have no '?' or '#', and
//   use only the request's captures;
// - a rule set that loads runs its examples (what `reshape test` does) without crashing, and
//   the pipeline never answers differently on the tape and on the tree (ExampleRunner reports
//   that as an internal error).

/// Variables the rule files may expand; `${UNSET}` is missing on purpose.
private let environment = ["API_TOKEN": "s3cr3t", "DEMO_UPSTREAM_URL": "http://127.0.0.1:8081", "EMPTY": ""]

/// One libFuzzer input (`LLVMFuzzerTestOneInput` of its fuzz target); always 0.
public func fuzzRules(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    var files: [(name: String, text: String)] = []
    for (index, part) in bytes.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).enumerated() {
        // The directory reader refuses files that are not UTF-8 before the loader sees them.
        guard let text = String(validating: part, as: UTF8.self) else { return 0 }
        let isJSON = text.first { !$0.isWhitespace } == "{"
        files.append((name: "rules\(index).\(isJSON ? "json" : "yaml")", text: text))
    }

    switch RuleLoader.load(files: files, environment: environment) {
    case .failure(let diagnostics):
        require(!diagnostics.diagnostics.isEmpty, "a failed load without diagnostics")
        // A value that came from the environment is a secret: no diagnostic may show it.
        let secretInInput = files.contains { $0.text.contains("s3cr3t") }
        for diagnostic in diagnostics.diagnostics {
            checkLocation(diagnostic, files)
            require(
                secretInInput || !diagnostic.description.contains("s3cr3t"),
                "a diagnostic shows a secret: \(diagnostic)")
        }
    case .success(let ruleSet):
        checkLoaded(ruleSet)
        for outcome in ExampleRunner.run(ruleSet) {
            if let failure = outcome.failure {
                require(!failure.hasPrefix("internal error"), "\(outcome.route) example \(outcome.index): \(failure)")
            }
        }
    }
    return 0
}

private func checkLoaded(_ ruleSet: RuleSet) {
    for (name, upstream) in ruleSet.upstreams {
        require(upstream.scheme == "http" || upstream.scheme == "https", "upstream \(name): scheme \(upstream.scheme)")
        require(!upstream.host.isEmpty, "upstream \(name): empty host")
        require(upstream.port.map { (1...65535).contains($0) } ?? true, "upstream \(name): port \(upstream.port!)")
        let base = upstream.basePath
        require(base.isEmpty || (base.hasPrefix("/") && !base.hasSuffix("/")), "upstream \(name): base path '\(base)'")
        require(
            !base.contains(where: { "?#%".contains($0) })
                && !base.split(separator: "/").contains { $0 == "." || $0 == ".." },
            "upstream \(name): base path '\(base)'")
    }
    for route in ruleSet.routes {
        require(ruleSet.upstreams[route.upstream] != nil, "route \(route.name): unknown upstream \(route.upstream)")
        require(route.path.description.hasPrefix("/"), "route \(route.name): request path \(route.path.description)")
        require(
            route.upstreamPath.description.hasPrefix("/"),
            "route \(route.name): upstream path \(route.upstreamPath.description)")
        let captures = Set(route.path.parameterNames)
        for part in route.upstreamPath.segments {
            switch part {
            case .literal(let text):
                require(
                    !text.contains("?") && !text.contains("#"),
                    "route \(route.name): upstream path \(route.upstreamPath.description) has '?' or '#'")
            case .parameter(let name):
                require(captures.contains(name), "route \(route.name): upstream path uses {\(name)}, not a capture")
            }
        }
    }
}

private func checkLocation(_ diagnostic: RuleDiagnostic, _ files: [(name: String, text: String)]) {
    let location = diagnostic.location
    if location.file == "(rules)" { return }
    guard let file = files.first(where: { $0.name == location.file }) else {
        require(false, "diagnostic for an unknown file: \(diagnostic)")
        return
    }
    require(location.line >= 1 && location.column >= 1, "a location before the start: \(diagnostic)")
    // The JSON reader breaks lines at LF only; libyaml also at CR, CRLF, NEL, LS and PS.
    // Either way the place must exist: a line of the file (or the one after its end), and a
    // column at most one past the line's end.
    let conventions: [(Unicode.Scalar) -> Bool] = [
        { $0 == "\n" }, { "\n\r\u{85}\u{2028}\u{2029}".unicodeScalars.contains($0) },
    ]
    let exists = conventions.contains { isBreak in
        let lines = lineLengths(file.text, isBreak)
        guard location.line <= lines.count + 1 else { return false }
        return location.line > lines.count || location.column <= lines[location.line - 1] + 2
    }
    require(exists, "\(diagnostic) points past the end of its line or file")
}

/// The length in Unicode scalars of each line (CRLF is one break).
private func lineLengths(_ text: String, _ isBreak: (Unicode.Scalar) -> Bool) -> [Int] {
    var lengths: [Int] = []
    var current = 0
    var previous: Unicode.Scalar?
    for scalar in text.unicodeScalars {
        if scalar == "\n" && previous == "\r" && isBreak("\r") {
            // The LF of a CRLF: the CR already ended the line.
        } else if isBreak(scalar) {
            lengths.append(current)
            current = 0
        } else {
            current += 1
        }
        previous = scalar
    }
    lengths.append(current)
    return lengths
}
