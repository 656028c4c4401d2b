// Duplicate member names, which RFC 8259 leaves open and Reshape rejects. Every name is looked
// up in the parse's `MemberNameSet` under its depth and stamped with its object; the one
// exception is a large object whose names arrive in strictly increasing order (a keyed
// collection sorted by key, as Firebase sends it), which cannot repeat a name while the order
// holds: those names wait on a stack and enter the set only if the order breaks. Names are
// compared as decoded UTF-8 bytes (code points).

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the duplicate-name check knows of the object being parsed.
struct ObjectNames {
    /// The object's stamp in the name set, unique in the parse.
    let stamp: UInt32
    let depth: UInt32
    /// What the set hashes the object's names with (the seed and the depth).
    let salt: UInt64
    /// The object's node (its first name is the next one).
    let node: Int
    /// Where the object's deferred names start on `TapeBuilder.deferredNames`.
    let mark: Int
    /// Whether the names of a large object arrive in increasing order: `.unknown` until its
    /// run of names is long enough to tell.
    var order = Order.unknown
    /// The last name's node, while `.ascending`.
    var last = 0

    enum Order { case unknown, ascending, unordered }
}

extension TapeBuilder {
    /// Names an object must have, all in increasing order, before later ones in order skip the set.
    static let orderedRunBeforeDeferring = 16

    /// The duplicate-name check's state for an object that has just been opened (after
    /// `enterContainer`, at its first member), whose node is `node`.
    @inline(__always) mutating func openNames(_ node: Int) -> ObjectNames {
        // Sized for a name per 128 bytes (the bench's keyed collection needs one per 250),
        // at most 16,384 to start with: arrays of records have few distinct names.
        memberNames.reserve(expected: min(scanner.end >> 7, 1 << 14))
        objectStamps &+= 1
        let depth = UInt32(truncatingIfNeeded: scanner.depth)
        return ObjectNames(
            stamp: objectStamps, depth: depth, salt: memberNames.salt(depth: scanner.depth), node: node,
            mark: deferredNames.count)
    }

    /// Ends an object's check (it closed; on an error the builder is discarded).
    @inline(__always) mutating func closeNames(_ object: ObjectNames) {
        if object.order == .ascending { deferredNames.truncate(to: object.mark) }
    }

    /// Throws at the second occurrence of a member name in an object, comparing decoded UTF-8;
    /// `index` is the member's (the number of members before it).
    @inline(__always) mutating func checkDuplicate(_ name: Int, index: Int, in object: inout ObjectNames)
        throws(JSONParseError)
    {
        if index >= TapeBuilder.orderedRunBeforeDeferring && object.order != .unordered {
            if try orderedName(name, index, &object) { return }
        }
        // The common case inline: a plain name of at most 15 bytes is its own fingerprint.
        let node = nodes[name]
        let length = Int(node.length) &- 2
        let start = Int(node.offset) &+ 1
        guard node.tag & TapeNode.escapedFlag == 0, length <= 15, start &+ 16 <= scanner.end else {
            return try checkLongOrEscaped(name, object)
        }
        let fingerprint = NameFingerprint(plain: UnsafeRawPointer(scanner.base + start), length: length)
        let isNew = memberNames.stamp(
            fingerprint, salt: object.salt, depth: object.depth, stamp: object.stamp, node: name
        ) { _ in true }
        if !isNew { throw duplicate(name) }
    }

    /// A large object's names in increasing order (a keyed collection sorted by key) cannot
    /// repeat while the order holds: true when `name` continues such a run and so needs no
    /// other check. Its first names are all in the set; from the one at
    /// `orderedRunBeforeDeferring`, names in order wait on `deferredNames` instead, and enter
    /// the set if the order breaks.
    @inline(never) private mutating func orderedName(_ name: Int, _ index: Int, _ object: inout ObjectNames)
        throws(JSONParseError) -> Bool
    {
        let names = NameComparison(nodes: nodes, base: scanner.base, end: scanner.end)
        if object.order == .unknown {
            // The first time: are the names so far in order? (A member's name is followed by
            // its value, whose `next` is the next member's name.)
            var previous = object.node + 1
            for _ in 1..<index {
                let next = Int(nodes[previous + 1].next)
                guard names.precedes(previous, next) else {
                    object.order = .unordered
                    return false
                }
                previous = next
            }
            object.last = previous
        }
        if names.precedes(object.last, name) {
            object.order = .ascending
            object.last = name
            deferredNames.push(name)
            return true
        }
        if object.order == .ascending { try enterDeferredNames(&object) }
        object.order = .unordered
        return false
    }

    @inline(never) private mutating func checkLongOrEscaped(_ name: Int, _ object: ObjectNames) throws(JSONParseError) {
        let names = NameComparison(nodes: nodes, base: scanner.base, end: scanner.end)
        let fingerprint = names.fingerprint(name, seed: memberNames.seed)
        let isNew = memberNames.stamp(
            fingerprint, salt: object.salt, depth: object.depth, stamp: object.stamp, node: name
        ) { names.same($0, name) }
        if !isNew { throw duplicate(name) }
    }

    /// The order broke: the names that skipped the set enter it (they are distinct from each
    /// other and from every earlier name of the object, as they were in increasing order).
    private mutating func enterDeferredNames(_ object: inout ObjectNames) throws(JSONParseError) {
        for i in object.mark..<deferredNames.count {
            try checkLongOrEscaped(deferredNames.base[i], object)
        }
        deferredNames.truncate(to: object.mark)
    }

    @inline(never) private func duplicate(_ name: Int) -> JSONParseError {
        let offset = Int(nodes[name].offset)
        var copy = scanner
        copy.position = offset
        let text = (try? copy.parseString()) ?? ""
        return scanner.error(at: offset, "duplicate member name \"\(text)\"")
    }
}

/// Member-name hashing and equality over the nodes built so far (small, so closures copy it cheaply).
struct NameComparison {
    let nodes: UnsafeMutablePointer<TapeNode>
    let base: UnsafePointer<UInt8>
    let end: Int

    /// Calls `body` with a name node's decoded UTF-8.
    @inline(__always) func withName<R>(_ node: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let n = nodes[node]
        if n.tag & TapeNode.escapedFlag == 0 {
            return body(UnsafeBufferPointer(start: base + Int(n.offset) + 1, count: Int(n.length) - 2))
        }
        var decoder = JSONScanner(UnsafeBufferPointer(start: base, count: end), base: base, maxDepth: 1)
        decoder.position = Int(n.offset)
        var text = (try? decoder.parseString()) ?? ""
        return text.withUTF8 { body($0) }
    }

    /// A name's fingerprint, two words of its decoded bytes: a name of at most 15 bytes is its
    /// bytes and length (so equal fingerprints mean equal names); a longer one is its hash and
    /// a marker (equal fingerprints are confirmed by comparing the names).
    @inline(__always) func fingerprint(_ node: Int, seed: UInt64) -> NameFingerprint {
        let n = nodes[node]
        let length = Int(n.length) - 2
        let start = Int(n.offset) + 1
        if n.tag & TapeNode.escapedFlag == 0 && start + length + 8 <= end {
            if length <= 15 && start + 16 <= end {
                return NameFingerprint(plain: UnsafeRawPointer(base + start), length: length)
            }
            if length > 15 {
                return NameFingerprint(hashed: overreadingMemberNameHash(base + start, count: length, seed: seed))
            }
        }
        return withName(node) { bytes in
            guard bytes.count <= 15 else { return NameFingerprint(hashed: memberNameHash(bytes, seed: seed)) }
            var words: (UInt64, UInt64) = (0, 0)
            for (i, byte) in bytes.enumerated() {
                if i < 8 {
                    words.0 |= UInt64(byte) << (8 * UInt64(i))
                } else {
                    words.1 |= UInt64(byte) << (8 * UInt64(i - 8))
                }
            }
            return NameFingerprint(low: words.0, high: words.1, length: bytes.count)
        }
    }

    /// True when plain name `a` orders strictly before plain name `b` by bytes (code points).
    /// False for escaped names: their bytes are not their value, so no order is claimed.
    @inline(__always) func precedes(_ a: Int, _ b: Int) -> Bool {
        let na = nodes[a]
        let nb = nodes[b]
        guard (na.tag | nb.tag) & TapeNode.escapedFlag == 0 else { return false }
        let lengthA = Int(na.length) - 2
        let lengthB = Int(nb.length) - 2
        let pa = base + Int(na.offset) + 1
        let pb = base + Int(nb.offset) + 1
        // Most neighbours differ in their first 8 bytes (or their first byte): no call.
        if lengthA >= 8 && lengthB >= 8 {
            let wa = UInt64(bigEndian: UnsafeRawPointer(pa).loadUnaligned(as: UInt64.self))
            let wb = UInt64(bigEndian: UnsafeRawPointer(pb).loadUnaligned(as: UInt64.self))
            if wa != wb { return wa < wb }
        } else if lengthA > 0 && lengthB > 0 && pa[0] != pb[0] {
            return pa[0] < pb[0]
        }
        let order = memcmp(pa, pb, min(lengthA, lengthB))
        return order < 0 || (order == 0 && lengthA < lengthB)
    }

    /// True when names `a` and `b` are the same (decoded).
    @inline(__always) func same(_ a: Int, _ b: Int) -> Bool {
        let na = nodes[a]
        let nb = nodes[b]
        if (na.tag | nb.tag) & TapeNode.escapedFlag == 0 {
            return na.length == nb.length && memcmpEqual(base + Int(na.offset), base + Int(nb.offset), Int(na.length))
        }
        return withName(a) { first in withName(b) { second in first.elementsEqual(second) } }
    }
}

/// A member name's fingerprint (`NameComparison.fingerprint`): `low` holds its first 8 bytes
/// (or, for a name longer than 15 bytes, its seeded hash), `high` the next 7 and its length in
/// the top byte (0xFF for a hashed name, whose equal fingerprints must be confirmed).
struct NameFingerprint: Equatable {
    var low: UInt64
    var high: UInt64

    /// True when equal fingerprints are equal names.
    @inline(__always) var isExact: Bool { high &>> 56 != 0xFF }

    @inline(__always) init(low: UInt64, high: UInt64, length: Int) {
        self.low = low
        self.high = high | UInt64(truncatingIfNeeded: length) &<< 56
    }

    @inline(__always) init(hashed hash: UInt64) {
        low = hash
        high = 0xFF &<< 56
    }

    /// The fingerprint of the `length` (at most 15) bytes at `bytes`, reading 16 bytes.
    @inline(__always) init(plain bytes: UnsafeRawPointer, length: Int) {
        let first = bytes.loadUnaligned(as: UInt64.self)
        let second = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        // Masking shifts: each shift is at most 56 bits (a full word takes the other branch).
        if length >= 8 {
            low = first
            high = second & ((1 &<< (8 &* UInt64(length &- 8))) &- 1) | UInt64(length) &<< 56
        } else {
            low = first & ((1 &<< (8 &* UInt64(length))) &- 1)
            high = UInt64(length) &<< 56
        }
    }
}
