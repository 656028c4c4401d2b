import ReshapeCompression

/// A hit's answer as written, kept with its entry (`Stored.keptHeads`) for the next hit of the
/// same representation while its ages last (`CacheHit`).
struct KeptHead: Sendable {
    /// The content coding asked for (nil: the listener negotiates none).
    let coding: ContentCoding?
    /// What CORS added: one of the answers that are the same for every request.
    let cors: CORSAnswer
    let age: Int
    let remaining: Int
    let answer: RenderedAnswer

    /// What it weighs in the cache's byte bound: its lines and this record (the body is the
    /// entry's, or a coding's, counted already).
    var cost: Int { answer.lines.count + Self.overhead }
    static let overhead = 96
    /// Heads kept per entry at most: one per coding, and a CORS answer or two.
    static let perEntry = 8
}

extension ResponseCache.Stored {
    /// The answer a hit wrote for `coding` and `cors` with these ages, if one did.
    func keptHead(coding: ContentCoding?, cors: CORSAnswer, age: Int, remaining: Int) -> RenderedAnswer? {
        keptHeads.withLock { heads in
            heads.first {
                $0.coding == coding && $0.cors == cors && $0.age == age && $0.remaining == remaining
            }?.answer
        }
    }

    /// Keeps `answer` for the next hits of `coding` and `cors`, in place of the one with older
    /// ages; returns the bytes the entry weighs more (or less) for it. Codings that are sent
    /// the same (an answer too small to compress is identity for every client) share the
    /// lines of one head.
    fileprivate func keep(_ answer: RenderedAnswer, coding: ContentCoding?, cors: CORSAnswer, age: Int, remaining: Int)
        -> Int
    {
        keptHeads.withLock { heads in
            var answer = answer
            if let same = heads.first(where: {
                $0.cors == cors && $0.age == age && $0.remaining == remaining && $0.answer.lines == answer.lines
                    && Self.sameStorage($0.answer.body, answer.body)
            }) {
                answer = same.answer
            }
            let kept = KeptHead(coding: coding, cors: cors, age: age, remaining: remaining, answer: answer)
            if let index = heads.firstIndex(where: { $0.coding == coding && $0.cors == cors }) {
                let added = kept.cost - heads[index].cost
                heads[index] = kept
                return added
            }
            var added = kept.cost
            if heads.count >= KeptHead.perEntry { added -= heads.removeFirst().cost }
            heads.append(kept)
            return added
        }
    }
}

extension ResponseCache.Stored {
    /// The same array, not only equal bytes: a body is never compared byte by byte here.
    fileprivate static func sameStorage(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress && a.count == b.count }
        }
    }
}

extension ResponseCache {
    /// Keeps a hit's `answer` with its entry (where its CORS answer is the same for every
    /// request), counted in the byte bound while the entry is kept, as its codings are.
    func keepHead(
        _ answer: RenderedAnswer, of entry: Entry, coding: ContentCoding?, cors: CORSAnswer, age: Int, remaining: Int
    ) {
        guard cors.isSameForEveryRequest else { return }
        let added = entry.stored.keep(answer, coding: coding, cors: cors, age: age, remaining: remaining)
        guard added != 0 else { return }
        charge(added, to: entry)
    }
}
