// Duplicate member names, which RFC 8259 leaves open and Reshape rejects: a few names are
// compared one by one, a sorted collection by order alone, and a large unsorted one through
// a hash table. Names are compared as decoded UTF-8 bytes (code points).

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TapeBuilder {
    private static let linearDuplicateCheckLimit = 16

    /// Throws at the second occurrence of a member name, comparing decoded UTF-8.
    mutating func checkDuplicate(_ name: Int, since mark: Int, large: inout LargeObjectNames) throws(JSONParseError) {
        let names = NameComparison(nodes: nodes, base: scanner.base, end: scanner.end)
        let seed = memberNameHashSeed
        let fingerprint = names.fingerprint(name, seed: seed)
        let index = nameNodes.count - mark
        nameNodes.push(name)
        nameHashes.push(fingerprint)
        let fingerprints = nameHashes.base + mark
        let earlier = nameNodes.base + mark
        if large.ascending && index > 0 {
            large.ascending = names.precedes(earlier[index - 1], name)
        }
        if index < TapeBuilder.linearDuplicateCheckLimit {
            // A record's few names: comparing one word with each earlier one is cheaper than hashing.
            for i in 0..<index
            where fingerprints[i] == fingerprint && names.same(earlier[i], name, fingerprint: fingerprint) {
                throw duplicate(name)
            }
            return
        }
        // Names in strictly increasing order cannot repeat: a keyed collection sorted by key
        // (Firebase sends them so) needs no table and none of its cache misses.
        if large.ascending { return }
        let mixed = NameComparison.mix(fingerprint, seed: seed)
        if large.table == nil {
            var table = MemberNameTable(expectedCount: index * 4)
            for i in 0..<index {
                _ = table.insert(hash: NameComparison.mix(fingerprints[i], seed: seed), index: i) { _ in false }
            }
            large.table = table
        }
        // The mix is seeded per process, so crafted collisions cannot be precomputed; the
        // table still confirms every tag match by comparing fingerprints and names.
        let isNew = large.table!.insert(hash: mixed, index: index) {
            fingerprints[$0] == fingerprint && names.same(earlier[$0], name, fingerprint: fingerprint)
        }
        if !isNew { throw duplicate(name) }
    }

    private func duplicate(_ name: Int) -> JSONParseError {
        let offset = Int(nodes[name].offset)
        var copy = scanner
        copy.position = offset
        let text = (try? copy.parseString()) ?? ""
        return scanner.error(at: offset, "duplicate member name \"\(text)\"")
    }
}

/// How an object with many members checks its names: while they arrive in increasing
/// order, by comparing each with the previous one; from the first that does not, by a table.
struct LargeObjectNames {
    var ascending = true
    var table: MemberNameTable? = nil
}

/// Member-name hashing and equality over the nodes built so far (small, so closures copy it cheaply).
private struct NameComparison {
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

    /// A name's fingerprint: a name of at most 7 bytes is its bytes and length, so equal
    /// fingerprints mean equal names; a longer one is its hash with the top bit set, and
    /// equal fingerprints are confirmed by comparing the names. Decoded bytes either way.
    @inline(__always) func fingerprint(_ node: Int, seed: UInt64) -> UInt64 {
        let n = nodes[node]
        let length = Int(n.length) - 2
        let start = Int(n.offset) + 1
        if n.tag & TapeNode.escapedFlag == 0 && start + length + 8 <= end {
            if length <= 7 {
                let word = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
                return (length == 0 ? 0 : word & (UInt64.max >> (64 - 8 * UInt64(length)))) | UInt64(length) << 56
            }
            return overreadingMemberNameHash(base + start, count: length, seed: seed) | 1 << 63
        }
        return withName(node) { bytes in
            guard bytes.count <= 7 else { return memberNameHash(bytes, seed: seed) | 1 << 63 }
            var word: UInt64 = 0
            for (i, byte) in bytes.enumerated() { word |= UInt64(byte) << (8 * UInt64(i)) }
            return word | UInt64(bytes.count) << 56
        }
    }

    /// Spreads a fingerprint's bits (short names' fingerprints are mostly ASCII) for the
    /// large-object table.
    @inline(__always) static func mix(_ fingerprint: UInt64, seed: UInt64) -> UInt64 {
        var h = (fingerprint ^ seed) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 32)
    }

    /// True when plain name `a` orders strictly before plain name `b` by bytes (code points).
    /// False for escaped names: their bytes are not their value, so no order is claimed.
    @inline(__always) func precedes(_ a: Int, _ b: Int) -> Bool {
        let na = nodes[a]
        let nb = nodes[b]
        guard (na.tag | nb.tag) & TapeNode.escapedFlag == 0 else { return false }
        let lengthA = Int(na.length) - 2
        let lengthB = Int(nb.length) - 2
        let order = memcmp(base + Int(na.offset) + 1, base + Int(nb.offset) + 1, min(lengthA, lengthB))
        return order < 0 || (order == 0 && lengthA < lengthB)
    }

    /// True when names `a` and `b`, whose fingerprints are both `fingerprint`, are the same.
    @inline(__always) func same(_ a: Int, _ b: Int, fingerprint: UInt64) -> Bool {
        fingerprint >> 63 == 0 || same(a, b)
    }

    @inline(__always) func same(_ a: Int, _ b: Int) -> Bool {
        let na = nodes[a]
        let nb = nodes[b]
        if (na.tag | nb.tag) & TapeNode.escapedFlag == 0 {
            return na.length == nb.length && memcmpEqual(base + Int(na.offset), base + Int(nb.offset), Int(na.length))
        }
        return withName(a) { first in withName(b) { second in first.elementsEqual(second) } }
    }
}
