import ReshapeTestSupport

@testable import ReshapeJSON

/// Random JSON values, random spellings of them, and random damage to their text, shared by
/// the tree's (`JSON.parse`) and the tape's randomized tests.
enum JSONGenerator {
    static let numbers = ["0", "-0", "1", "-17", "0.1", "1.5E+300", "12345678901234567890", "2e-7", "3.250"]
    static let scalars: [Unicode.Scalar] = [
        "a", "z", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}",
        "é", "ß", "€", "✓", "😀", "\u{2028}", "\u{FFFF}",
    ]

    static func string(_ random: inout SplitMix64) -> String {
        var text = ""
        // Lengths up to 40 cross the 8-byte and 16-byte boundaries of the fast paths.
        for _ in 0..<random.below(40) {
            text.unicodeScalars.append(
                random.below(3) == 0
                    ? scalars[random.below(scalars.count)]
                    : Unicode.Scalar(UInt8(97 + random.below(26))))
        }
        return text
    }

    static func value(_ random: inout SplitMix64, depth: Int) -> JSON {
        switch random.below(depth > 4 ? 4 : 6) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2: return .number(JSONNumber(uncheckedText: numbers[random.below(numbers.count)]))
        case 3: return .string(string(&random))
        case 4: return .array((0..<random.below(5)).map { _ in value(&random, depth: depth + 1) })
        default:
            var object = JSONObject()
            for i in 0..<random.below(random.below(4) == 0 ? 40 : 6) {
                object.members.append(
                    JSONMember(key: string(&random) + "#\(i)", value: value(&random, depth: depth + 1)))
            }
            return .object(object)
        }
    }

    /// Damages a document with one to three random byte changes, deletions or insertions of
    /// structural characters.
    static func mutate(_ bytes: inout [UInt8], _ random: inout SplitMix64) {
        for _ in 0..<1 + random.below(3) where !bytes.isEmpty {
            let i = random.below(bytes.count)
            switch random.below(3) {
            case 0: bytes[i] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.remove(at: i)
            default:
                let structural = Array("{}[],:\"\\e.-0 ".utf8)
                bytes.insert(structural[random.below(structural.count)], at: i)
            }
        }
    }

    // MARK: - Non-canonical spellings

    /// The value as valid JSON text spelled unlike the canonical writer: random whitespace
    /// between tokens and random (valid) escapes: `\/`, `\u0041`, `\u00E9`, upper- and
    /// lowercase hex, surrogate pairs, `\u000a` for a newline. Parsing it gives `value`.
    static func messy(_ value: JSON, _ random: inout SplitMix64, whitespace: Int = 3, escapes: Int = 4) -> [UInt8] {
        var output: [UInt8] = []
        writeMessy(value, &random, whitespace: whitespace, escapes: escapes, into: &output)
        space(&random, whitespace, &output)
        return output
    }

    private static func space(_ random: inout SplitMix64, _ odds: Int, _ output: inout [UInt8]) {
        guard odds > 0, random.below(odds) == 0 else { return }
        let blanks = Array(" \t\r\n".utf8)
        for _ in 0..<1 + random.below(3) { output.append(blanks[random.below(blanks.count)]) }
    }

    private static func writeMessy(
        _ value: JSON, _ random: inout SplitMix64, whitespace: Int, escapes: Int,
        into output: inout [UInt8]
    ) {
        space(&random, whitespace, &output)
        switch value {
        case .null, .bool, .number:
            output += value.serialized()
        case .string(let string):
            writeMessyString(string, &random, escapes: escapes, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 {
                    space(&random, whitespace, &output)
                    output.append(UInt8(ascii: ","))
                }
                writeMessy(element, &random, whitespace: whitespace, escapes: escapes, into: &output)
            }
            space(&random, whitespace, &output)
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 {
                    space(&random, whitespace, &output)
                    output.append(UInt8(ascii: ","))
                }
                space(&random, whitespace, &output)
                writeMessyString(member.key, &random, escapes: escapes, into: &output)
                space(&random, whitespace, &output)
                output.append(UInt8(ascii: ":"))
                writeMessy(member.value, &random, whitespace: whitespace, escapes: escapes, into: &output)
            }
            space(&random, whitespace, &output)
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeMessyString(_ string: String, _ random: inout SplitMix64, escapes: Int, into output: inout [UInt8])
    {
        output.append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            let escape = escapes > 0 && random.below(escapes) == 0
            switch scalar.value {
            case 0x22: output += escape ? hexEscape(0x22, &random) : Array(#"\""#.utf8)
            case 0x5C: output += escape ? hexEscape(0x5C, &random) : Array(#"\\"#.utf8)
            case 0x2F: output += escape ? Array(#"\/"#.utf8) : [0x2F]
            case 0x08: output += escape ? hexEscape(0x08, &random) : Array(#"\b"#.utf8)
            case 0x0C: output += escape ? hexEscape(0x0C, &random) : Array(#"\f"#.utf8)
            case 0x0A: output += escape ? hexEscape(0x0A, &random) : Array(#"\n"#.utf8)
            case 0x0D: output += escape ? hexEscape(0x0D, &random) : Array(#"\r"#.utf8)
            case 0x09: output += escape ? hexEscape(0x09, &random) : Array(#"\t"#.utf8)
            case 0..<0x20: output += hexEscape(scalar.value, &random)
            case 0x10000...:
                if escape {
                    let v = scalar.value - 0x10000
                    output += hexEscape(0xD800 + (v >> 10), &random)
                    output += hexEscape(0xDC00 + (v & 0x3FF), &random)
                } else {
                    output += Array(String(scalar).utf8)
                }
            default:
                output += escape ? hexEscape(scalar.value, &random) : Array(String(scalar).utf8)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// `\uXXXX`, each hex letter randomly upper- or lowercase.
    static func hexEscape(_ value: UInt32, _ random: inout SplitMix64) -> [UInt8] {
        var digits = Array(String(value, radix: 16).utf8)
        digits = Array(repeating: UInt8(ascii: "0"), count: 4 - digits.count) + digits
        return Array(#"\u"#.utf8) + digits.map { $0 >= UInt8(ascii: "a") && random.below(2) == 0 ? $0 - 32 : $0 }
    }
}
