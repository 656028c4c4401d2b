import CJSONIndex
import Foundation
import ReshapeTestSupport
import XCTest

@testable import ReshapeJSON

/// The parser's two stages (docs/benchmarks.md): every stage-1 path writes the same index, and
/// the two-stage parser builds the scalar parser's tape node for node, or gives up.
final class JSONStructuralIndexTests: XCTestCase {
    static let paths = [JSON_INDEX_PATH_PORTABLE, JSON_INDEX_PATH_SSE42, JSON_INDEX_PATH_AVX2]

    private func index(_ bytes: [UInt8], _ path: json_index_path) -> ([UInt32], UInt32) {
        var positions = [UInt32](repeating: 0, count: bytes.count + 64)
        var flags: UInt32 = 0
        let count = bytes.withUnsafeBufferPointer { input in
            positions.withUnsafeMutableBufferPointer {
                json_index_build(
                    input.baseAddress ?? UnsafePointer(bitPattern: 1)!, input.count, $0.baseAddress!, &flags, path)
            }
        }
        return (Array(positions.prefix(count)), flags)
    }

    private func assertPathsAgree(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let expected = index(bytes, JSON_INDEX_PATH_PORTABLE)
        for path in Self.paths.dropFirst() {
            let got = index(bytes, path)
            XCTAssertEqual(got.0, expected.0, "positions, path \(path.rawValue): \(bytes)", file: file, line: line)
            XCTAssertEqual(got.1, expected.1, "flags, path \(path.rawValue): \(bytes)", file: file, line: line)
        }
    }

    func testPathsResolveOnThisMachine() {
        XCTAssertEqual(json_index_resolve(JSON_INDEX_PATH_PORTABLE), JSON_INDEX_PATH_PORTABLE)
        #if arch(x86_64)
            print("stage 1 on this CPU: path \(json_index_resolve(JSON_INDEX_PATH_AUTO).rawValue)")
        #else
            XCTAssertEqual(json_index_resolve(JSON_INDEX_PATH_AUTO), JSON_INDEX_PATH_PORTABLE)
        #endif
    }

    func testIndexOfASmallDocument() {
        let text = Array(#"{"a\"b": [1, true,"x\\"], "c":nul}"#.utf8)
        let (positions, flags) = index(text, JSON_INDEX_PATH_AUTO)
        XCTAssertEqual(flags, 0)
        // { " \ " : [ 1 , true , " \ " ] , " " : nul }
        XCTAssertEqual(positions, [0, 1, 3, 6, 7, 9, 10, 11, 13, 17, 18, 20, 22, 23, 24, 26, 28, 29, 30, 33])
        XCTAssertEqual(index(Array(#"["a"#.utf8), JSON_INDEX_PATH_AUTO).1, UInt32(JSON_INDEX_UNTERMINATED_STRING))
        XCTAssertEqual(index([0x22, 0x01, 0x22], JSON_INDEX_PATH_AUTO).1, UInt32(JSON_INDEX_CONTROL_IN_STRING))
        XCTAssertEqual(index([0x22, 0xC3, 0x22], JSON_INDEX_PATH_AUTO).1, UInt32(JSON_INDEX_INVALID_UTF8))
    }

    func testPathsAgreeOnRandomBytesOfEveryLength() {
        var random = SplitMix64(seed: 21)
        // Bytes that matter to stage 1 weighted up, so quotes and backslash runs cross blocks.
        let alphabet =
            Array("\"\\\\\\{}[]:, \t\n\r a1-e".utf8) + [0x01, 0x1F, 0x7F, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F]
        for length in 0...200 {
            for _ in 0..<40 {
                let bytes = (0..<length).map { _ in
                    random.below(5) == 0
                        ? UInt8(truncatingIfNeeded: random.next()) : alphabet[random.below(alphabet.count)]
                }
                assertPathsAgree(bytes)
            }
        }
    }

    func testPathsAgreeOnBackslashRunsAndUTF8AcrossBlockBoundaries() {
        for run in 0..<8 {
            for shift in 0..<70 {
                var bytes = [UInt8](repeating: UInt8(ascii: " "), count: shift) + [UInt8(ascii: "\"")]
                bytes += [UInt8](repeating: UInt8(ascii: "\\"), count: run) + Array("\"é😀\"]".utf8)
                assertPathsAgree(bytes)
                assertTapesAgree(bytes)
                var split = [UInt8](repeating: UInt8(ascii: "a"), count: shift) + Array("😀€".utf8)
                split = [UInt8(ascii: "\"")] + split + [UInt8(ascii: "\"")]
                assertPathsAgree(split)
                assertTapesAgree(split)
            }
        }
    }

    func testWindowsGiveTheWholeIndex() {
        var random = SplitMix64(seed: 77)
        for _ in 0..<300 {
            let value = JSONGenerator.value(&random, depth: 0)
            var bytes = JSONGenerator.messy(value, &random)
            if random.below(3) == 0 { JSONGenerator.mutate(&bytes, &random) }
            for path in Self.paths {
                let whole = index(bytes, path)
                var scanner = json_index_scanner()
                var positions: [UInt32] = []
                // The flags read the text's end: asked for while it is still borrowed.
                let flags = bytes.withUnsafeBufferPointer { input -> UInt32 in
                    json_index_begin(&scanner, input.baseAddress ?? UnsafePointer(bitPattern: 1)!, input.count, path)
                    while scanner.offset < input.count {
                        let window = 64 * (1 + random.below(4))
                        var part = [UInt32](repeating: 0, count: window + 64)
                        let count = part.withUnsafeMutableBufferPointer {
                            json_index_next(&scanner, $0.baseAddress!, window)
                        }
                        positions += part.prefix(count)
                    }
                    return json_index_flags(&scanner)
                }
                XCTAssertEqual(positions, whole.0, "path \(path.rawValue)")
                XCTAssertEqual(flags, whole.1, "path \(path.rawValue)")
            }
        }
    }

    func testPathsAgreeOnRandomJSON() {
        var random = SplitMix64(seed: 2121)
        for _ in 0..<400 {
            let value = JSONGenerator.value(&random, depth: 0)
            var bytes = JSONGenerator.messy(value, &random)
            assertPathsAgree(bytes)
            JSONGenerator.mutate(&bytes, &random)
            assertPathsAgree(bytes)
        }
    }

    // MARK: - Tapes

    /// Parses with every path; all must reject with the same error or accept with the same
    /// nodes. Returns true when the two-stage parser built the tape itself (did not give up).
    @discardableResult
    private func assertTapesAgree(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let scalar = Result { () throws(JSONParseError) in try JSONTape.parse(bytes, options: .init(path: .scalar)) }
        for path in [JSONParsePath.automatic, .portableIndex] {
            let other = Result { () throws(JSONParseError) in try JSONTape.parse(bytes, options: .init(path: path)) }
            switch (scalar, other) {
            case (.success(let a), .success(let b)):
                XCTAssertEqual(
                    a.nodeCount, b.nodeCount, "\(path): \(String(decoding: bytes, as: UTF8.self))", file: file,
                    line: line)
                for i in 0..<min(a.nodeCount, b.nodeCount) {
                    let x = a.nodes[i]
                    let y = b.nodes[i]
                    if x.offset != y.offset || x.length != y.length || x.next != y.next || x.tag != y.tag {
                        XCTFail(
                            "\(path) node \(i): \(y) but scalar \(x) in \(String(decoding: bytes, as: UTF8.self))",
                            file: file, line: line)
                        break
                    }
                }
            case (.failure(let a), .failure(let b)):
                XCTAssertEqual(a, b, "\(path)", file: file, line: line)
            default:
                XCTFail(
                    "\(path) and scalar disagree on \(String(decoding: bytes, as: UTF8.self))", file: file, line: line)
            }
        }
        guard !bytes.isEmpty else { return false }
        let reference = try? JSONTape.parse(bytes, options: .init(path: .scalar))
        var built = false
        bytes.withUnsafeBufferPointer { buffer in
            // Small windows too, so that strings, escapes and scalars straddle them.
            for window in [IndexedTapeBuilder.defaultWindow, 64, 128, 192] {
                guard
                    let (nodes, count, capacity) = IndexedTapeBuilder.parse(
                        buffer, base: buffer.baseAddress!, options: .init(), window: window)
                else {
                    XCTAssertFalse(built, "window \(window) gave up where another did not", file: file, line: line)
                    continue
                }
                defer { TapeNodeBlocks.give(nodes, capacity: capacity) }
                if window == IndexedTapeBuilder.defaultWindow { built = true }
                guard let reference else {
                    XCTFail("window \(window) accepts what the scalar parser rejects", file: file, line: line)
                    continue
                }
                XCTAssertEqual(count, reference.nodeCount, "window \(window)", file: file, line: line)
                for i in 0..<min(count, reference.nodeCount) {
                    let x = reference.nodes[i]
                    let y = nodes[i]
                    if x.offset != y.offset || x.length != y.length || x.next != y.next || x.tag != y.tag {
                        XCTFail("window \(window) node \(i): \(y) but scalar \(x)", file: file, line: line)
                        break
                    }
                }
            }
        }
        return built
    }

    func testFixturesGiveTheScalarParsersTape() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var files: [URL] = []
        for directory in ["examples", "fuzz/corpus/json", "Tests", "bench", "docs"] {
            let enumerator = FileManager.default.enumerator(
                at: root.appendingPathComponent(directory), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if directory == "fuzz/corpus/json" || url.pathExtension == "json" { files.append(url) }
            }
        }
        var built = 0
        for file in files {
            guard let data = try? Data(contentsOf: file), data.count < 4 << 20 else { continue }
            let bytes = [UInt8](data)
            let accepted = (try? JSONTape.parse(bytes, options: .init(path: .scalar))) != nil
            let indexed = assertTapesAgree(bytes)
            XCTAssertEqual(indexed, accepted, "two-stage parser on \(file.path)")
            if indexed { built += 1 }
        }
        print("fixtures: \(files.count) files, \(built) valid and built by the two-stage parser")
        // The committed files alone (a fresh checkout, before any fuzzing run adds to the
        // corpus): enough to show the walk found the folders.
        XCTAssertGreaterThan(files.count, 20)
    }

    func testRandomDocumentsGiveTheScalarParsersTape() {
        var random = SplitMix64(seed: 4242)
        var built = 0
        for round in 0..<1500 {
            let value = JSONGenerator.value(&random, depth: 0)
            let spellings = [
                value.serialized(), value.serialized(pretty: true),
                JSONGenerator.messy(value, &random), JSONGenerator.messy(value, &random, whitespace: 1, escapes: 2),
            ]
            for bytes in spellings {
                if assertTapesAgree(bytes) {
                    built += 1
                } else {
                    XCTFail("gave up on valid \(String(decoding: bytes, as: UTF8.self))")
                }
                var damaged = bytes
                JSONGenerator.mutate(&damaged, &random)
                assertTapesAgree(damaged)
            }
            // Duplicates: a member repeated, maybe spelled with an escape.
            if case .object(let object) = value, let first = object.members.first, round % 3 == 0 {
                var text = Array(value.serialized().dropLast())
                text += object.members.count > 0 ? Array(",".utf8) : []
                JSONGenerator.writeMessyString(first.key, &random, escapes: 2, into: &text)
                text += Array(":1}".utf8)
                XCTAssertFalse(assertTapesAgree(text))
            }
        }
        XCTAssertGreaterThan(built, 5000)
    }

    func testDeepNestingAndLimitsAgree() {
        for depth in [1, 63, 64, 65, 511, 512, 513, 600] {
            let open = [UInt8](repeating: UInt8(ascii: "["), count: depth)
            let close = [UInt8](repeating: UInt8(ascii: "]"), count: depth)
            assertTapesAgree(open + close)
            assertTapesAgree(open + Array(" 1 ".utf8) + close)
            assertTapesAgree(open + close.dropLast())
            var objects: [UInt8] = []
            for _ in 0..<depth { objects += Array(#"{"k":"#.utf8) }
            objects += Array("null".utf8) + [UInt8](repeating: UInt8(ascii: "}"), count: depth)
            assertTapesAgree(objects)
        }
    }

    func testOddCornersAgree() {
        let cases = [
            "", " ", "1", "-", "1 ", " 1", "1x", "truex", "true false", "nul", "\"", "\"\\\"", "\"\\u00e9\"",
            "\"\\u00E9\"",
            "\"\\ud83d\\ude00\"", "\"\\ud83d\"", "\"\\/\"", "\"\\x\"", "[1,]", "{\"a\":1,}", "{,}", "[,1]", "{\"a\" 1}",
            "{\"a\":}", "[1 2]", "[\"a\"\"b\"]", "{\"a\":1}x", "\u{FEFF}{}", "[]]", "{}}", "[\"\\\\\"]",
            "[1.5e+3, -0, 0.0e-0]",
            "01", "-01", "1.", "1e", "[\"a\" , \"b\" ]", "{ }", "[ ]", "\"\u{7F}\"", "\t\n\r [\t1\n]\r ", "\\", "[\\]",
            "{\"a\":1\\}", "[1]\\", "\"é\"", "[é]", "{\"\":0,\"\":1}",
        ]
        for text in cases { assertTapesAgree(Array(text.utf8)) }
        for byte in 0...255 {
            assertTapesAgree([UInt8(byte)])
            assertTapesAgree([UInt8(ascii: "\""), UInt8(byte), UInt8(ascii: "\"")])
            assertTapesAgree([UInt8(ascii: "["), UInt8(byte), UInt8(ascii: "]")])
        }
    }

    func testEscapesReadFromTheIndexAgree() {
        // Stage 2 reads a string's escapes at the backslashes stage 1 indexed: every escape,
        // canonical or not, surrogate pairs (whose second backslash is indexed too), and every
        // malformed one, which must give up to the scalar parser's error.
        var cases = [
            #""a\"b""#, #""\\""#, #""\\\\\"""#, #""\/x\b\f\n\r\t""#, #""\u0000\u001f\u0020\u007F\u00e9""#,
            #""\uD83D\uDE00 and \ud83d\ude00""#, #""\ud83d\u0041""#, #""\ud83d\\ude00""#, #""\ud83dx""#,
            #""\ude00""#, #""\u12""#, #""\u12g4""#, #""\u""#, #""\""#, #""\q""#, #""é\n😀\u00e9""#,
            #"{"k\u0030":"v\"","k0":1}"#, #"{"\u006b":1,"k":2}"#, #"["\\", "\"", "\\\\\\"]"#,
            // Cut off at the end of the text, inside an escape.
            #""\"#, #""\u12"#, #""\ud83d"#, #""\ud83d\"#, #""\ud83d\u"#, #""\ud83d\ude0"#, #"["\u00e"#,
        ]
        // Escapes across the small windows and 64-byte blocks the agreement check also walks.
        for pad in [60, 61, 62, 63, 64, 125, 126, 127, 190] {
            let padding = String(repeating: "x", count: pad)
            cases.append("[\"\(padding)\\ud83d\\ude00\\n\\u00e9\",\"\(padding)\\\"\"]")
            cases.append("{\"\(padding)\":\"\\\\\(padding)\\/\"}")
        }
        for text in cases {
            let built = assertTapesAgree(Array(text.utf8))
            // The valid ones are read by stage 2 itself, not handed to the scalar parser.
            if (try? JSON.parse(Array(text.utf8))) != nil { XCTAssertTrue(built, "stage 2 gave up on \(text)") }
        }
    }

    func testUTF8VerdictsAgreeOnEveryPairAndOnTheEdgesOfLongerSequences() {
        // The SIMD path checks UTF-8 by table lookups, the portable one sequence by sequence:
        // every pair of bytes after a non-ASCII one, at a block's edge, and sequences of up to
        // four bytes built from the values where the rules change (overlongs, surrogates,
        // U+10FFFF), across the middle of a block and at the end of the text.
        func agree(_ bytes: [UInt8]) {
            let expected = index(bytes, JSON_INDEX_PATH_PORTABLE).1
            for path in Self.paths.dropFirst() where index(bytes, path).1 != expected {
                XCTFail("path \(path.rawValue) disagrees on \(bytes.suffix(8).map { String($0, radix: 16) })")
                return
            }
        }
        let quote = UInt8(ascii: "\"")
        let space = UInt8(ascii: " ")
        for first in 0x80...0xFF {
            for second in 0...0xFF {
                agree([quote] + [UInt8](repeating: space, count: 62) + [UInt8(first), UInt8(second), quote])
            }
        }
        let edges: [UInt8] = [
            0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
            0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        // A lead among a block's last bytes, its sequence cut off at the block's end: the text
        // ends there, or a short tail or a whole ASCII block follows.
        for sequence in [
            [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        ]
            as [[UInt8]]
        {
            for lead in 60...63 {
                let cut = Array(sequence.prefix(64 - lead))
                let text = [quote] + [UInt8](repeating: space, count: lead - 1) + cut
                agree(text)
                agree(text + [quote])
                agree(text + [UInt8](repeating: space, count: 64) + [quote])
            }
        }
        let continuations: [UInt8] = [0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC2]
        for a in edges where a >= 0xC0 {
            for b in continuations {
                for c in continuations {
                    for d in continuations {
                        let sequence = [a, b, c, d]
                        agree([quote] + [UInt8](repeating: space, count: 29) + sequence + [quote])
                        agree([quote] + [UInt8](repeating: space, count: 59) + sequence)
                        agree([quote] + [UInt8](repeating: space, count: 60) + sequence.prefix(3))
                    }
                }
            }
        }
    }
}
