import ReshapeJSON

/// Turns schema documents into a graph of `SchemaNode`s: registers every `$id`, `$anchor`
/// and `$dynamicAnchor`, loads referenced documents (embedded metaschemas, then
/// `resolveRemote`), and resolves every `$ref` to a node once, so validation never looks
/// anything up by string.
final class SchemaCompiler {
    /// A schema position: document index and JSON Pointer (escaped) inside it.
    struct Location: Hashable {
        let document: Int
        let pointer: String
    }

    /// What scanning learned about a schema position.
    struct Scope {
        var base: URIReference
        var resource: Int
        var vocabularies: Vocabularies
        var assertFormat: Bool
    }

    let options: SchemaOptions
    let resolveRemote: (@Sendable (String) -> JSON?)?
    /// Rule-file type names when compiling a `SchemaSet` (document 0 is `{"types": {...}}`).
    let typeNames: Set<String>

    private(set) var documents: [JSON] = []
    private var documentURIs: [String] = []
    private var resources: [String: Location] = [:]
    private var resourceCount = 0
    private var anchors: [String: Location] = [:]
    private var dynamicAnchors: [Int: [String: Location]] = [:]
    private var scopes: [Location: Scope] = [:]
    private var nodes: [Location: SchemaNode] = [:]
    let dynamicTable = DynamicAnchorTable()

    init(options: SchemaOptions, resolveRemote: (@Sendable (String) -> JSON?)?, typeNames: Set<String> = []) {
        self.options = options
        self.resolveRemote = resolveRemote
        self.typeNames = typeNames
    }

    // MARK: Documents and scanning

    /// Adds a document retrieved from (or named) `uri` and registers its identifiers.
    @discardableResult
    func addDocument(_ json: JSON, uri: String, assertFormat: Bool) throws(SchemaError) -> Int {
        let index = documents.count
        documents.append(json)
        documentURIs.append(uri)
        let base = URIReference(uri).withoutFragment
        let resource = newResource(base.text, Location(document: index, pointer: ""))
        try scan(
            json, Location(document: index, pointer: ""),
            Scope(base: base, resource: resource, vocabularies: .all, assertFormat: assertFormat))
        return index
    }

    private func newResource(_ uri: String, _ location: Location) -> Int {
        if resources[uri] == nil { resources[uri] = location }
        resourceCount += 1
        return resourceCount - 1
    }

    /// Walks the schema positions under `location` (not `enum`/`const` values or unknown keywords).
    private func scan(_ json: JSON, _ location: Location, _ parent: Scope) throws(SchemaError) {
        guard case .object(let object) = json else {
            scopes[location] = parent
            return
        }
        var scope = parent
        if case .string(let id)? = object["$id"] {
            let resolved = scope.base.resolving(URIReference(id)).withoutFragment
            // A root `$id` equal to the URI the document was loaded from is the same resource.
            if !(location.pointer.isEmpty && resolved == scope.base) {
                scope.base = resolved
                scope.resource = newResource(resolved.text, location)
            }
        }
        if case .string(let metaschema)? = object["$schema"] {
            scope.vocabularies = try vocabularies(of: metaschema, at: location)
            if scope.vocabularies.formatAssertion { scope.assertFormat = true }
        }
        if case .bool(true)? = object["x-assert-format"] { scope.assertFormat = true }
        scopes[location] = scope
        if case .string(let name)? = object["$anchor"] {
            anchors[scope.base.text + "#" + name] = location
        }
        if case .string(let name)? = object["$dynamicAnchor"] {
            anchors[scope.base.text + "#" + name] = location
            dynamicAnchors[scope.resource, default: [:]][name] = location
        }
        for member in object.members {
            let keyPointer = location.pointer + "/" + JSONPointer.escape(member.key)
            switch member.key {
            case "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "items", "contains",
                "propertyNames", "not", "if", "then", "else":
                try scan(member.value, Location(document: location.document, pointer: keyPointer), scope)
            case "prefixItems", "allOf", "anyOf", "oneOf":
                guard case .array(let elements) = member.value else { continue }
                for (i, element) in elements.enumerated() {
                    try scan(element, Location(document: location.document, pointer: keyPointer + "/\(i)"), scope)
                }
            case "$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "types":
                guard case .object(let map) = member.value else { continue }
                if member.key == "types" && !(location.document == 0 && location.pointer.isEmpty && !typeNames.isEmpty)
                {
                    continue
                }
                for entry in map.members {
                    try scan(
                        entry.value,
                        Location(
                            document: location.document,
                            pointer: keyPointer + "/" + JSONPointer.escape(entry.key)), scope)
                }
            default:
                continue
            }
        }
    }

    /// The scope of a position, scanning it first if a `$ref` pointed somewhere scanning did not go
    /// (e.g. inside an unknown keyword): it inherits the nearest scanned ancestor's scope.
    private func scope(of location: Location) throws(SchemaError) -> Scope {
        if let scope = scopes[location] { return scope }
        var tokens = JSONPointer(location.pointer)?.tokens ?? []
        var ancestor = Scope(
            base: URIReference(documentURIs[location.document]), resource: 0,
            vocabularies: .all, assertFormat: options.assertFormat)
        while !tokens.isEmpty {
            tokens.removeLast()
            if let found = scopes[
                Location(document: location.document, pointer: JSONPointer(tokens: tokens).description)]
            {
                ancestor = found
                break
            }
        }
        if let json = documents[location.document][JSONPointer(location.pointer) ?? JSONPointer()] {
            try scan(json, location, ancestor)
        }
        return scopes[location] ?? ancestor
    }

    private func vocabularies(of metaschemaURI: String, at location: Location) throws(SchemaError) -> Vocabularies {
        let uri = URIReference(metaschemaURI).withoutFragment.text
        if uri == "https://json-schema.org/draft/2020-12/schema" { return .all }
        if resources[uri] == nil { _ = try? load(uri) }
        guard let root = resources[uri],
            case .object(let meta)? = documents[root.document][JSONPointer(root.pointer) ?? JSONPointer()],
            case .object(let declared)? = meta["$vocabulary"]
        else { return .all }
        return Vocabularies(declared.keys)
    }

    /// Loads a document by absolute URI: embedded metaschemas first, then `resolveRemote`.
    private func load(_ uri: String) throws(SchemaError) -> Bool {
        var json: JSON?
        if let text = EmbeddedMetaschemas.documents[uri] {
            json = try? JSON(parsing: text)
        } else if !uri.hasPrefix("reshape:"), let resolveRemote {
            json = resolveRemote(uri)
        }
        guard let json else { return false }
        try addDocument(json, uri: uri, assertFormat: false)
        return true
    }

    // MARK: Refs

    /// Resolves a `$ref`/`$dynamicRef` value written at `location` to the schema it names.
    func resolve(_ reference: String, from location: Location, keywordPointer: String) throws(SchemaError) -> Location {
        if !typeNames.isEmpty {
            if typeNames.contains(reference) {
                return Location(document: 0, pointer: "/types/" + JSONPointer.escape(reference))
            }
            if reference.hasPrefix("#/types/") {
                let pointer = URIReference.percentDecoded(String(reference.dropFirst())) ?? ""
                guard documents[0][JSONPointer(pointer) ?? JSONPointer(tokens: ["\u{0}"])] != nil else {
                    throw error("unknown type in $ref \"\(reference)\"", keywordPointer, location.document)
                }
                return Location(document: 0, pointer: pointer)
            }
            if !reference.contains(where: { $0 == "#" || $0 == ":" || $0 == "/" || $0 == "." }) {
                throw error("unknown type \"\(reference)\" in $ref", keywordPointer, location.document)
            }
            // "Address#/properties/city": a type name with a fragment.
            if let hash = reference.firstIndex(of: "#"), typeNames.contains(String(reference[..<hash])) {
                let typeRoot = "/types/" + JSONPointer.escape(String(reference[..<hash]))
                let fragment = URIReference.percentDecoded(String(reference[reference.index(after: hash)...])) ?? ""
                guard fragment.isEmpty || fragment.hasPrefix("/"),
                    documents[0][JSONPointer(typeRoot + fragment) ?? JSONPointer(tokens: ["\u{0}"])] != nil
                else {
                    throw error("$ref \"\(reference)\" points at nothing", keywordPointer, location.document)
                }
                return Location(document: 0, pointer: typeRoot + fragment)
            }
        }
        let base = try scope(of: location).base
        let target = base.resolving(URIReference(reference))
        let documentURI = target.withoutFragment.text
        if resources[documentURI] == nil {
            guard try load(documentURI), resources[documentURI] != nil else {
                throw error(
                    "cannot resolve $ref \"\(reference)\" (\(documentURI) is not available)", keywordPointer,
                    location.document)
            }
        }
        let root = resources[documentURI]!
        guard let fragment = URIReference.percentDecoded(target.fragment ?? "") else {
            throw error("bad percent-encoding in $ref \"\(reference)\"", keywordPointer, location.document)
        }
        if fragment.isEmpty { return root }
        if fragment.hasPrefix("/") {
            let pointer = root.pointer + fragment
            guard let parsed = JSONPointer(pointer), documents[root.document][parsed] != nil else {
                throw error("$ref \"\(reference)\" points at nothing", keywordPointer, location.document)
            }
            return Location(document: root.document, pointer: pointer)
        }
        guard let anchored = anchors[documentURI + "#" + fragment] else {
            throw error("$ref \"\(reference)\" names an unknown anchor", keywordPointer, location.document)
        }
        return anchored
    }

    /// True when the schema at `location` declares `$dynamicAnchor: name`.
    func hasDynamicAnchor(_ name: String, at location: Location) -> Bool {
        guard case .object(let object)? = documents[location.document][JSONPointer(location.pointer) ?? JSONPointer()],
            case .string(let declared)? = object["$dynamicAnchor"]
        else { return false }
        return declared == name
    }

    // MARK: Nodes

    /// The compiled node for a schema position (compiling it, and what it refers to, on first use).
    func node(at location: Location) throws(SchemaError) -> SchemaNode {
        if let existing = nodes[location] { return existing }
        let scope = try scope(of: location)
        guard let json = documents[location.document][JSONPointer(location.pointer) ?? JSONPointer()] else {
            throw error("no schema here", location.pointer, location.document)
        }
        let node = SchemaNode(location: display(location.pointer, location.document), resource: scope.resource)
        nodes[location] = node
        switch json {
        case .bool(let flag):
            node.constant = flag
        case .object(let object):
            try compileKeywords(object, into: node, at: location, scope: scope)
        default:
            throw error("a schema must be an object or a boolean", location.pointer, location.document)
        }
        return node
    }

    /// Compiles every `$dynamicAnchor` of every loaded resource (a `$dynamicRef` may land on any
    /// of them at run time) and fills the lookup table. Repeats while compiling loads more.
    func finish() throws(SchemaError) {
        var done = Set<Location>()
        while true {
            let pending = dynamicAnchors.values.flatMap(\.values).filter { !done.contains($0) }
            if pending.isEmpty { break }
            for location in pending {
                _ = try node(at: location)
                done.insert(location)
            }
        }
        var table = [[String: SchemaNode]](repeating: [:], count: resourceCount)
        for (resource, names) in dynamicAnchors {
            for (name, location) in names { table[resource][name] = nodes[location] }
        }
        dynamicTable.anchors = table
        dynamicTable.nodes = Array(nodes.values)
    }

    // MARK: Errors and display

    func display(_ pointer: String, _ document: Int) -> String {
        document == 0 ? pointer : documentURIs[document] + "#" + pointer
    }

    func error(_ message: String, _ pointer: String, _ document: Int) -> SchemaError {
        if document == 0, !typeNames.isEmpty, let tokens = JSONPointer(pointer)?.tokens,
            tokens.count >= 2, tokens[0] == "types"
        {
            return SchemaError(
                message: message,
                schemaPointer: JSONPointer(tokens: Array(tokens.dropFirst(2))).description,
                typeName: tokens[1])
        }
        return SchemaError(message: message, schemaPointer: display(pointer, document))
    }
}
