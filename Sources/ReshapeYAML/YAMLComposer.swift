import CYAML

/// Where a node starts in the text: 1-based line and column.
public struct YAMLMark: Sendable, Equatable {
    public let line: Int
    public let column: Int

    init(_ mark: yaml_mark_t) {
        line = mark.line + 1
        column = mark.column + 1
    }
}

/// A composed YAML node. Scalars keep their text and whether they were plain (unquoted),
/// which decides how the YAML core schema reads them; tags are not kept, and an alias
/// (`*name`) is the node its anchor (`&name`) names, mark included.
public indirect enum YAMLNode: Sendable {
    case scalar(String, plain: Bool, YAMLMark)
    case sequence([YAMLNode], YAMLMark)
    case mapping([(key: YAMLNode, value: YAMLNode)], YAMLMark)

    public var mark: YAMLMark {
        switch self {
        case .scalar(_, _, let mark), .sequence(_, let mark), .mapping(_, let mark): mark
        }
    }
}

/// Why a text is not one YAML document, with libyaml's own description and position.
public struct YAMLError: Error, Sendable {
    public enum Kind: Sendable {
        /// The scanner or parser refused the text, or it holds a second document.
        case syntax
        /// A mapping repeats a key (`message` names every repeated key).
        case duplicateKey
        /// The bytes cannot be read as YAML text (an encoding error).
        case unreadable
    }

    public let kind: Kind
    public let message: String
    public let mark: YAMLMark?
}

/// Composes the nodes of one YAML document from libyaml's parse events: the job Yams's
/// composer did, in the one shape rule files need, without linking Foundation.
public enum YAMLComposer {
    /// The document of `text`, or nil for an empty stream. A stream with a second document,
    /// or a mapping that repeats a key, is an error.
    public static func compose(_ text: String) throws(YAMLError) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLError(kind: .unreadable, message: "cannot create a YAML parser", mark: nil)
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        let result: Result<YAMLNode?, YAMLError> = bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var composer = Composer()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return .failure(error(of: parser)) }
                defer { yaml_event_delete(&event) }
                do throws(YAMLError) {
                    if try composer.take(event) { return .success(composer.root) }
                } catch {
                    return .failure(error)
                }
            }
        }
        return try result.get()
    }

    private static func error(of parser: yaml_parser_t) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        switch parser.error {
        case YAML_READER_ERROR:
            return YAMLError(kind: .unreadable, message: problem, mark: nil)
        case YAML_SCANNER_ERROR, YAML_PARSER_ERROR:
            let context = parser.context.map { " (\(String(cString: $0)))" } ?? ""
            return YAMLError(kind: .syntax, message: problem + context, mark: YAMLMark(parser.problem_mark))
        default:
            return YAMLError(kind: .unreadable, message: problem, mark: nil)
        }
    }
}

/// Builds the tree from events, one open collection per level.
private struct Composer {
    private struct Open {
        let isMapping: Bool
        let mark: YAMLMark
        let anchor: String?
        var items: [YAMLNode] = []
    }

    private(set) var root: YAMLNode?
    private var open: [Open] = []
    private var documents = 0
    private var anchors: [String: YAMLNode] = [:]

    /// Consumes one event; true at the end of the stream.
    mutating func take(_ event: yaml_event_t) throws(YAMLError) -> Bool {
        let mark = YAMLMark(event.start_mark)
        switch event.type {
        case YAML_STREAM_END_EVENT:
            return true
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw YAMLError(
                    kind: .syntax, message: "but found another document (expected a single document in the stream)",
                    mark: mark)
            }
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE || scalar.style == YAML_ANY_SCALAR_STYLE
            add(.scalar(text, plain: plain, mark), anchor: Self.name(scalar.anchor))
        case YAML_ALIAS_EVENT:
            let name = Self.name(event.data.alias.anchor) ?? ""
            guard let node = anchors[name] else {
                throw YAMLError(kind: .syntax, message: "found undefined alias '\(name)'", mark: mark)
            }
            add(node, anchor: nil)
        case YAML_SEQUENCE_START_EVENT:
            open.append(Open(isMapping: false, mark: mark, anchor: Self.name(event.data.sequence_start.anchor)))
        case YAML_MAPPING_START_EVENT:
            open.append(Open(isMapping: true, mark: mark, anchor: Self.name(event.data.mapping_start.anchor)))
        case YAML_SEQUENCE_END_EVENT:
            let sequence = open.removeLast()
            add(.sequence(sequence.items, sequence.mark), anchor: sequence.anchor)
        case YAML_MAPPING_END_EVENT:
            let mapping = open.removeLast()
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            pairs.reserveCapacity(mapping.items.count / 2)
            var seen: Set<String> = []
            var repeated: [String] = []
            for i in stride(from: 0, to: mapping.items.count - 1, by: 2) {
                pairs.append((mapping.items[i], mapping.items[i + 1]))
                if case .scalar(let key, _, _) = mapping.items[i], !seen.insert(key).inserted, !repeated.contains(key) {
                    repeated.append(key)
                }
            }
            if !repeated.isEmpty {
                throw YAMLError(
                    kind: .duplicateKey,
                    message: "duplicate key \(repeated.map { "'\($0)'" }.joined(separator: ", ")) in a mapping",
                    mark: mapping.mark)
            }
            add(.mapping(pairs, mapping.mark), anchor: mapping.anchor)
        default:
            break  // stream and document starts and ends carry nothing a rule file needs
        }
        return false
    }

    private mutating func add(_ node: YAMLNode, anchor: String?) {
        if let anchor { anchors[anchor] = node }
        if open.isEmpty { root = node } else { open[open.count - 1].items.append(node) }
    }

    private static func name(_ anchor: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        anchor.map { String(cString: $0) }
    }
}
