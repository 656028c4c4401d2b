import ReshapeTestSupport
import XCTest

@testable import ReshapeJSON

/// The duplicate-name check: `MemberNameSet` alone, then whole documents shaped like what
/// backends send (many sibling objects with the same names), whose expected verdict is
/// worked out here while they are written, without the parser: every parser path must reject
/// exactly the first repeat in text order, at its offset, and accept everything else.
final class MemberNameSetTests: XCTestCase {
    func testShortNameHashReadingWordsEqualsTheByteHash() {
        // Names of every length up to 26, each followed by other bytes the word loads read past.
        let text = Array("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH".utf8)
        text.withUnsafeBufferPointer { all in
            for length in 0...26 {
                for start in 0..<4 {
                    let name = UnsafeBufferPointer(rebasing: all[start..<start + length])
                    XCTAssertEqual(
                        overreadingMemberNameHash(all.baseAddress! + start, count: length, seed: 99),
                        memberNameHash(name, seed: 99), "length \(length)")
                }
            }
        }
    }

    private func short(_ value: UInt64) -> NameFingerprint { NameFingerprint(low: value, high: 0, length: 1) }

    func testAPlainNamesFingerprintIsItsBytesAndLength() {
        // Read in place (16 bytes loaded, the rest masked off) or packed from decoded bytes:
        // the same words for every length that is its own fingerprint.
        let text = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        text.withUnsafeBytes { all in
            for length in 0...15 {
                var packed = (UInt64(0), UInt64(0))
                for i in 0..<length {
                    let byte = UInt64(text[3 + i]) << (8 * UInt64(i % 8))
                    if i < 8 { packed.0 |= byte } else { packed.1 |= byte }
                }
                let inPlace = NameFingerprint(plain: all.baseAddress! + 3, length: length)
                XCTAssertEqual(inPlace, NameFingerprint(low: packed.0, high: packed.1, length: length), "\(length)")
                XCTAssertTrue(inPlace.isExact)
            }
        }
        XCTAssertFalse(NameFingerprint(hashed: 0).isExact)
        XCTAssertNotEqual(NameFingerprint(hashed: 0), NameFingerprint(low: 0, high: 0, length: 0))
    }

    func testStampsAreKeptPerDepthAndObject() {
        var set = MemberNameSet(seed: 7)
        set.reserve(expected: 4)
        defer { set.release() }
        let never: (Int) -> Bool = { _ in
            XCTFail("short fingerprints need no confirmation")
            return false
        }
        XCTAssertTrue(set.stamp(short(1), salt: set.salt(depth: 1), depth: 1, stamp: 1, node: 10, isSame: never))
        XCTAssertTrue(set.stamp(short(2), salt: set.salt(depth: 1), depth: 1, stamp: 1, node: 11, isSame: never))
        // The same name one level deeper, in an object opened inside: another entry.
        XCTAssertTrue(set.stamp(short(1), salt: set.salt(depth: 2), depth: 2, stamp: 2, node: 12, isSame: never))
        XCTAssertFalse(set.stamp(short(1), salt: set.salt(depth: 2), depth: 2, stamp: 2, node: 13, isSame: never))
        // Back in the outer object: its own stamp is still on its entry.
        XCTAssertFalse(set.stamp(short(2), salt: set.salt(depth: 1), depth: 1, stamp: 1, node: 14, isSame: never))
        // A sibling object restamps the entries it meets.
        XCTAssertTrue(set.stamp(short(2), salt: set.salt(depth: 1), depth: 1, stamp: 3, node: 15, isSame: never))
        XCTAssertTrue(set.stamp(short(1), salt: set.salt(depth: 1), depth: 1, stamp: 3, node: 16, isSame: never))
        XCTAssertFalse(set.stamp(short(1), salt: set.salt(depth: 1), depth: 1, stamp: 3, node: 17, isSame: never))
        XCTAssertEqual(set.count, 3)
    }

    func testEqualLongFingerprintsAreConfirmedByName() {
        var set = MemberNameSet(seed: 7)
        set.reserve(expected: 4)
        defer { set.release() }
        // Every long name gets the same fingerprint: only the comparison can tell them apart.
        let names = ["alpha-long", "bravo-long", "charlie-long", "alpha-long"]
        let fingerprint = NameFingerprint(hashed: 42)
        for node in 0..<3 {
            XCTAssertTrue(
                set.stamp(fingerprint, salt: set.salt(depth: 1), depth: 1, stamp: 1, node: node) {
                    names[$0] == names[node]
                })
        }
        XCTAssertFalse(
            set.stamp(fingerprint, salt: set.salt(depth: 1), depth: 1, stamp: 1, node: 3) { names[$0] == names[3] })
        XCTAssertTrue(
            set.stamp(fingerprint, salt: set.salt(depth: 1), depth: 1, stamp: 2, node: 3) { names[$0] == names[3] })
        XCTAssertEqual(set.count, 3)
    }

    func testNamesOfClosedObjectsGoSoUniqueKeysDoNotAccumulate() {
        var set = MemberNameSet(seed: 7)
        set.reserve(expected: 1)
        defer { set.release() }
        // 100,000 records at depth 2, under one object at depth 1, each with four names no
        // other record has: before, all 400,000 stayed for the whole parse.
        XCTAssertTrue(set.stamp(short(1 << 40), salt: set.salt(depth: 1), depth: 1, stamp: 1, node: 0) { _ in false })
        var stamp: UInt32 = 1
        for record in 0..<100_000 {
            stamp += 1
            for k in 0..<4 {
                let name = short(UInt64(record * 4 + k))
                XCTAssertTrue(
                    set.stamp(name, salt: set.salt(depth: 2), depth: 2, stamp: stamp, node: record) { _ in false })
            }
            // A repeat in the open record is still found, after any rebuild.
            if record % 997 == 0 {
                XCTAssertFalse(
                    set.stamp(short(UInt64(record * 4)), salt: set.salt(depth: 2), depth: 2, stamp: stamp, node: 0) {
                        _ in false
                    })
            }
        }
        XCTAssertLessThanOrEqual(set.capacity, 256, "the set holds about the open objects' names")
        // The enclosing object's name is still its own: stamped 1 at depth 1, it stays.
        XCTAssertFalse(set.stamp(short(1 << 40), salt: set.salt(depth: 1), depth: 1, stamp: 1, node: 0) { _ in false })
    }

    func testGrowthKeepsEveryEntry() {
        var set = MemberNameSet(seed: 7)
        set.reserve(expected: 1)
        defer { set.release() }
        func stamp(_ i: Int, depth: Int, node: Int) -> Bool {
            set.stamp(
                short(UInt64(i)), salt: set.salt(depth: depth), depth: UInt32(depth), stamp: 1, node: node,
                isSame: { _ in false })
        }
        for i in 0..<5000 { XCTAssertTrue(stamp(i, depth: 1 + i % 3, node: i)) }
        for i in stride(from: 0, to: 5000, by: 7) {
            XCTAssertFalse(stamp(i, depth: 1 + i % 3, node: 0), "\(i)")
            XCTAssertTrue(stamp(i, depth: 2 + i % 3, node: 0), "\(i)")
        }
        XCTAssertEqual(set.count, 5000 + 715)
    }

    // MARK: - Documents

    /// A member name as written: its JSON spelling (with quotes) and its decoded value.
    private struct Name {
        let spelled: String
        let value: String
        init(_ value: String) {
            self.value = value
            spelled = "\"" + value + "\""
        }
        init(spelled: String, value: String) {
            self.spelled = spelled
            self.value = value
        }
        /// The same name with its first character as a `\u` escape (for ASCII first characters).
        var escaped: Name {
            let first = value.unicodeScalars.first!
            let hex = String(first.value, radix: 16)
            let rest = String(value.unicodeScalars.dropFirst())
            return Name(
                spelled: "\"\\u" + String(repeating: "0", count: 4 - hex.count) + hex + rest + "\"", value: value)
        }
    }

    /// A document being written, with the first repeated name (offset, decoded name) found so far.
    private struct Writer {
        var text: [UInt8] = []
        var firstRepeat: (offset: Int, name: String)?
        /// Names of the open objects, innermost last.
        var open: [Set<String>] = []

        mutating func append(_ s: String) { text += Array(s.utf8) }

        mutating func beginObject() {
            append("{")
            open.append([])
        }

        mutating func name(_ name: Name, first: Bool) {
            if !first { append(",") }
            if !open[open.count - 1].insert(name.value).inserted && firstRepeat == nil {
                firstRepeat = (text.count, name.value)
            }
            append(name.spelled + ":")
        }

        mutating func endObject() {
            append("}")
            open.removeLast()
        }

        /// A document that is one object of `names`.
        static func single(_ names: [Name]) -> Writer {
            var writer = Writer()
            writer.object(names)
            return writer
        }

        /// An object of `names`, each member's value from `value(index)` (writes it).
        mutating func object(_ names: [Name], value: (inout Writer, Int) -> Void = { w, i in w.append("\(i)") }) {
            beginObject()
            for (i, name) in names.enumerated() {
                self.name(name, first: i == 0)
                value(&self, i)
            }
            endObject()
        }
    }

    /// Parses `writer.text` by every path and checks each gives the writer's verdict.
    private func check(_ writer: Writer, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        for path in JSONParsePath.allCases {
            let result = Result { () throws(JSONParseError) in
                try JSONTape.parse(writer.text, options: JSONParseOptions(path: path))
            }
            switch (result, writer.firstRepeat) {
            case (.success, nil): break
            case (.failure(let error), let expected?):
                XCTAssertEqual(
                    error.message, "duplicate member name \"\(expected.name)\"", label, file: file, line: line)
                XCTAssertEqual(error.offset, expected.offset, "\(label), \(path)", file: file, line: line)
            case (.success, let expected?):
                XCTFail("\(label), \(path): accepted a repeat of \"\(expected.name)\"", file: file, line: line)
            case (.failure(let error), nil):
                XCTFail("\(label), \(path): rejected with \(error)", file: file, line: line)
            }
        }
    }

    private static let record = ["id", "name", "email", "createdAt", "address", "tags", "", "a-much-longer-name"]
        .map(Name.init)

    /// A keyed collection of `count` records whose names `names(index)` gives, each with a
    /// nested `address` object of the same three names.
    private func collection(_ count: Int, keyed: Bool = true, names: (Int) -> [Name]) -> Writer {
        var writer = Writer()
        if keyed { writer.beginObject() } else { writer.append("[") }
        for index in 0..<count {
            if keyed {
                writer.name(Name("key-\(index)"), first: index == 0)
            } else if index > 0 {
                writer.append(",")
            }
            writer.object(names(index)) { w, i in
                if i == 4 {
                    w.object([Name("street"), Name("city"), Name("zip")])
                } else {
                    w.append("\(i)")
                }
            }
        }
        if keyed { writer.endObject() } else { writer.append("]") }
        return writer
    }

    func testSameShapedSiblingsAreAccepted() {
        for keyed in [true, false] {
            check(collection(50, keyed: keyed) { _ in MemberNameSetTests.record }, "same order, keyed \(keyed)")
        }
    }

    func testARepeatInALaterSiblingIsFoundAtEveryPosition() {
        let record = MemberNameSetTests.record
        for sibling in [1, 2] {
            for original in record.indices {
                for position in original + 1...record.count {
                    // The repeat inserted at `position` of the 2nd or 3rd record, after siblings that passed.
                    check(
                        collection(4) { index in
                            var names = record
                            if index == sibling { names.insert(record[original], at: position) }
                            return names
                        }, "record \(sibling), name \(original) again at \(position)")
                    // The same with the repeat spelled with an escape, and replacing a name instead.
                    check(
                        collection(4, keyed: false) { index in
                            var names = record
                            if index == sibling {
                                names.insert(
                                    record[original].value.isEmpty ? record[original] : record[original].escaped,
                                    at: position)
                            }
                            return names
                        }, "record \(sibling), name \(original) escaped at \(position)")
                    if position < record.count {
                        check(
                            collection(4) { index in
                                var names = record
                                if index == sibling { names[position] = record[original] }
                                return names
                            }, "record \(sibling), name \(position) replaced by \(original)")
                    }
                }
            }
        }
    }

    func testSiblingsInAnotherOrderOrWithAnExtraName() {
        var random = SplitMix64(seed: 27)
        let record = MemberNameSetTests.record
        // Every record in its own order: accepted; then one repeat in one of them.
        let orders = (0..<40).map { _ in shuffled(record.indices, &random) }
        check(collection(40) { orders[$0].map { record[$0] } }, "shuffled")
        for round in 0..<60 {
            let target = 1 + random.below(39)
            let original = random.below(record.count)
            let position = random.below(record.count + 1)
            check(
                collection(40) { index in
                    var names = orders[index].map { record[$0] }
                    if index == target { names.insert(record[original], at: position) }
                    return names
                }, "shuffled, round \(round)")
        }
        // A record with an extra name, anywhere; after it, records without it; the extra name repeated.
        for position in 0...record.count {
            check(
                collection(6) { index in
                    var names = record
                    if index == 2 { names.insert(Name("extra"), at: position) }
                    return names
                }, "extra name at \(position)")
            check(
                collection(6) { index in
                    var names = record
                    if index == 2 { names.insert(Name("extra"), at: position) }
                    if index == 4 { names += [Name("extra"), Name("extra")] }
                    return names
                }, "extra name twice in a later record, first at \(position)")
            check(
                collection(6) { index in
                    var names = record
                    if index >= 2 { names.insert(Name("extra"), at: position) }
                    if index == 3 { names.append(Name("extra").escaped) }
                    return names
                }, "extra name repeated by an escape, first at \(position)")
        }
    }

    func testEscapedNamesAreTheirDecodedValue() {
        let a = Name("a")
        let escapedA = Name(spelled: #""\u0061""#, value: "a")
        let long = Name("abcdefghij")
        let escapedLong = Name(spelled: #""abcdefgh\u0069j""#, value: "abcdefghij")
        for (plain, escaped) in [
            (a, escapedA), (long, escapedLong), (Name("é"), Name(spelled: #""\u00e9""#, value: "é")),
        ] {
            // Across siblings both spellings are fine; within one object either order repeats.
            check(
                collection(5) { $0 % 2 == 0 ? [plain, Name("b")] : [Name("b"), escaped] }, "siblings \(plain.value)")
            check(collection(5) { $0 == 3 ? [plain, Name("b"), escaped] : [plain, Name("b")] }, "plain first")
            check(collection(5) { $0 == 3 ? [escaped, Name("b"), plain] : [plain, Name("b")] }, "escaped first")
            check(collection(5) { $0 == 3 ? [escaped, escaped] : [escaped] }, "escaped twice")
        }
    }

    func testNamesOfEveryLengthAtTheEndOfTheText() {
        // The last names of a document are read by the slower path (no 16 bytes after them),
        // the same names earlier by the inline one: both must give the same fingerprint.
        for length in 0...20 {
            let name = String("abcdefghijklmnopqrstu".prefix(length))
            for spelled in [Name(name), length > 0 ? Name(name).escaped : Name(name)] {
                var writer = Writer()
                writer.append("[")
                writer.object([Name(name), Name("x")])
                writer.append(",")
                writer.object([Name("x"), Name(name), spelled])
                writer.append("]")
                check(writer, "length \(length), \(spelled.spelled)")
                var accepted = Writer()
                accepted.append("[")
                accepted.object([Name(name)])
                accepted.append(",")
                accepted.object([Name("x"), spelled])
                accepted.append("]")
                check(accepted, "length \(length), \(spelled.spelled), once")
            }
        }
    }

    func testDeepNestingWithTheSameNamesAtEveryLevel() {
        // {"a":0,"b":{"a":0,"b":{...}},"c":0} 400 levels deep, twice over (siblings at every
        // depth), then with a repeat at one level of the second.
        for repeatDepth in [nil, 0, 1, 200, 399] as [Int?] {
            var writer = Writer()
            writer.append("[")
            for copy in 0..<2 {
                if copy > 0 { writer.append(",") }
                func level(_ depth: Int, _ w: inout Writer) {
                    w.beginObject()
                    w.name(Name("a"), first: true)
                    w.append("0")
                    if depth < 399 {
                        w.name(Name("b"), first: false)
                        level(depth + 1, &w)
                    }
                    if copy == 1 && depth == repeatDepth {
                        w.name(Name("a").escaped, first: false)
                    } else {
                        w.name(Name("c"), first: false)
                    }
                    w.append("0")
                    w.endObject()
                }
                level(0, &writer)
            }
            writer.append("]")
            check(writer, "deep, repeat at \(repeatDepth.map(String.init) ?? "none")")
        }
    }

    func testLargeObjectsOrderedOrNot() {
        var random = SplitMix64(seed: 4)
        for ordered in [true, false] {
            var keys = (0..<3000).map { "k" + String($0).leftPadded(to: 5) }
            if !ordered { keys = shuffled(keys, &random) }
            // Records inside the large object, so its names and theirs interleave in the set.
            check(collection(3000) { [Name("name"), Name(keys[$0])] }, "ordered \(ordered), records")
            for (position, original) in [(3000, 2999), (3000, 0), (1500, 1499), (17, 3), (16, 15), (2000, 10)] {
                var writer = Writer()
                var members = keys.map(Name.init)
                members.insert(Name(keys[original]), at: position)
                writer.object(members)
                check(writer, "ordered \(ordered), \(keys[original]) again at \(position)")
                var escaped = Writer()
                members[position] = Name(keys[original]).escaped
                escaped.object(members)
                check(escaped, "ordered \(ordered), \(keys[original]) escaped at \(position)")
            }
        }
        // In order but for two early names swapped (the run is judged at its 16th name), or
        // for one escaped name among the first 16: every later name must still be checked.
        let ordered = (0..<60).map { Name("k" + String($0).leftPadded(to: 2)) }
        for (swap, repeated, position) in [(3, 4, 30), (14, 15, 16), (0, 1, 59), (15, 16, 40)] {
            var members = ordered
            members.swapAt(swap, swap + 1)
            check(Writer.single(members), "swapped \(swap)")
            members.insert(ordered[repeated], at: position)
            check(Writer.single(members), "swapped \(swap), \(repeated) again at \(position)")
        }
        for escapedAt in [0, 7, 15] {
            var members = ordered
            members[escapedAt] = ordered[escapedAt].escaped
            check(Writer.single(members), "escaped \(escapedAt)")
            members.insert(ordered[escapedAt], at: 33)
            check(Writer.single(members), "escaped \(escapedAt), repeated plainly")
        }
        // Two large ordered objects at one depth with the same names, then an order that breaks late.
        var twice = Writer()
        let names = (0..<200).map { Name("n" + String($0).leftPadded(to: 3)) }
        twice.append("[")
        twice.object(names)
        twice.append(",")
        twice.object(names + [Name("a")] + names.suffix(1))
        twice.append("]")
        check(twice, "large ordered objects at one depth")
    }

    func testRandomSiblingsWithRepeats() {
        var random = SplitMix64(seed: 2711)
        let pool = ["id", "name", "e", "", "createdAt", "createdAu", "abcdefgh", "abcdefghi", "é", "日本", "x-\u{1F600}"]
            .map(Name.init)
        for round in 0..<300 {
            var writer = Writer()
            writer.append("[")
            let records = 1 + random.below(12)
            for record in 0..<records {
                if record > 0 { writer.append(",") }
                var names = shuffled(pool, &random).prefix(random.below(pool.count + 1)).map { $0 }
                if random.below(4) == 0 && !names.isEmpty {
                    // A repeat, spelled plainly or escaped.
                    let repeated = names[random.below(names.count)]
                    let spelling =
                        repeated.value.first?.isASCII == true && random.below(2) == 0 ? repeated.escaped : repeated
                    names.insert(spelling, at: random.below(names.count + 1))
                }
                writer.object(names) { w, i in
                    if random.below(5) == 0 { w.object([Name("name"), Name("id")]) } else { w.append("null") }
                }
            }
            writer.append("]")
            check(writer, "round \(round)")
        }
    }

    private func shuffled<C: Collection>(_ items: C, _ random: inout SplitMix64) -> [C.Element] {
        var result = Array(items)
        for i in stride(from: result.count - 1, to: 0, by: -1) { result.swapAt(i, random.below(i + 1)) }
        return result
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
