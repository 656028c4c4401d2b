// Parsing into a tree. There is one JSON grammar in Reshape, the tape parser's
// (JSONTapeParser.swift): a tree is the tape's root materialized, so `JSON.parse` and
// `JSONTape.parse` accept the same documents and fail with the same message and position.

extension JSON {
    /// Parses one JSON document from UTF-8 bytes.
    public static func parse(_ bytes: [UInt8], options: JSONParseOptions = .init()) throws(JSONParseError) -> JSON {
        let tape = try JSONTape.parse(bytes, options: options)
        return tape.materialize(tape.root)
    }

    /// Parses one JSON document from any collection of UTF-8 bytes (an `ArraySlice`, a
    /// `String.UTF8View`, an `UnsafeBufferPointer`, ...).
    public static func parse<Bytes: Collection>(_ bytes: Bytes, options: JSONParseOptions = .init())
        throws(JSONParseError) -> JSON
    where Bytes.Element == UInt8 {
        try parse(Array(bytes), options: options)
    }

    /// Parses one JSON document from text.
    public init(parsing text: String, options: JSONParseOptions = .init()) throws(JSONParseError) {
        self = try JSON.parse(Array(text.utf8), options: options)
    }
}
