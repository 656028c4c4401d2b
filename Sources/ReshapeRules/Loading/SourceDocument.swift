import ReshapeJSON
import ReshapeYAML

/// A rule file read into JSON, with the source position of every value, so that a problem
/// found anywhere later (by JSON Pointer) can be reported as `file:line:column`.
struct SourceDocument {
    let file: String
    let root: JSON
    private let positions: [String: SourceLocation]

    init(file: String, root: JSON, positions: [String: SourceLocation]) {
        self.file = file
        self.root = root
        self.positions = positions
    }

    /// The location of the key of the member at `pointer` (where `live:` is written, not where
    /// its value starts), or `location(of:)` when the member has no key of its own.
    func keyLocation(of pointer: String) -> SourceLocation {
        positions[SourceDocument.keyMark + pointer] ?? location(of: pointer)
    }

    /// Prefixes a member's pointer to file its key's position beside the values' positions; no
    /// JSON Pointer starts with it, so the two never collide.
    private static let keyMark = "key:"

    /// The location of the value at `pointer`, or of its nearest located ancestor.
    func location(of pointer: String) -> SourceLocation {
        var pointer = pointer
        while true {
            if let location = positions[pointer] { return location }
            guard let slash = pointer.lastIndex(of: "/") else { return SourceLocation(file: file, line: 1, column: 1) }
            pointer = String(pointer[..<slash])
        }
    }

    /// Reads YAML (or JSON, which is YAML) with libyaml (`YAMLComposer`), converting scalars by
    /// the YAML 1.2 core schema: quoted scalars are strings, `yes`/`on` are strings, numbers keep their text.
    static func parseYAML(_ text: String, file: String) throws(RuleDiagnostics) -> SourceDocument {
        let node: YAMLNode?
        do {
            node = try YAMLComposer.compose(text)
        } catch {
            let mark = error.mark
            let message =
                switch error.kind {
                case .syntax: "YAML syntax error: \(error.message)"
                case .duplicateKey: error.message
                case .unreadable: "cannot read YAML: \(error.message)"
                }
            throw RuleDiagnostics([
                RuleDiagnostic(
                    location: SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1),
                    message: message)
            ])
        }
        var positions: [String: SourceLocation] = [:]
        guard let node else { return SourceDocument(file: file, root: .object(JSONObject()), positions: positions) }
        var problems: [RuleDiagnostic] = []
        let root = convert(node, pointer: "", file: file, positions: &positions, problems: &problems)
        if !problems.isEmpty { throw RuleDiagnostics(problems) }
        return SourceDocument(file: file, root: root, positions: positions)
    }

    /// Reads a `.json` rule file strictly (RFC 8259, exact numbers), then takes positions from
    /// the YAML composer, which reads JSON too.
    static func parseJSON(_ text: String, file: String) throws(RuleDiagnostics) -> SourceDocument {
        let root: JSON
        do {
            root = try JSON(parsing: text)
        } catch {
            throw RuleDiagnostics([
                RuleDiagnostic(
                    location: SourceLocation(file: file, line: error.line, column: error.column),
                    message: "invalid JSON: \(error.message)")
            ])
        }
        let positioned = try? parseYAML(text, file: file)
        return SourceDocument(file: file, root: root, positions: positioned?.positions ?? [:])
    }

    private static func location(_ node: YAMLNode, file: String) -> SourceLocation {
        SourceLocation(file: file, line: node.mark.line, column: node.mark.column)
    }

    private static func convert(
        _ node: YAMLNode, pointer: String, file: String,
        positions: inout [String: SourceLocation], problems: inout [RuleDiagnostic]
    ) -> JSON {
        positions[pointer] = location(node, file: file)
        switch node {
        case .scalar(let text, let plain, _):
            return YAMLScalar.json(text, plain: plain)
        case .sequence(let sequence, _):
            var elements: [JSON] = []
            for (index, element) in sequence.enumerated() {
                elements.append(
                    convert(
                        element, pointer: JSONPointer.appending(index: index, to: pointer),
                        file: file, positions: &positions, problems: &problems))
            }
            return .array(elements)
        case .mapping(let mapping, _):
            var object = JSONObject()
            for (key, value) in mapping {
                guard case .scalar(let name, _, _) = key else {
                    problems.append(
                        RuleDiagnostic(
                            location: location(key, file: file), message: "mapping keys must be plain strings"))
                    continue
                }
                let child = JSONPointer.appending(key: name, to: pointer)
                object.members.append(
                    JSONMember(
                        key: name,
                        value: convert(
                            value, pointer: child, file: file,
                            positions: &positions, problems: &problems)))
                // Point a member's diagnostics at its key when the value has no better place.
                if positions[child] == nil { positions[child] = location(key, file: file) }
                positions[keyMark + child] = location(key, file: file)
            }
            return .object(object)
        }
    }
}
