// A deterministic Firebase-style keyed collection: push ids mapping to user records,
// with a few corrupt records, the shape Reshape's headline route normalizes.

/// Small, fast, seedable generator so every run measures the same bytes.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

enum FirebaseDocument {
    /// Firebase's push-id alphabet, in ASCII order so ids sort by creation time.
    private static let pushAlphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)
    private static let firstNames = ["Ada", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances",
                                     "José", "Zoë", "Søren", "Małgorzata", "李", "Émile", "Nadia", "Tim"]
    private static let lastNames = ["Lovelace", "Hopper", "Torvalds", "Hamilton", "Thompson", "Liskov", "Ritchie",
                                    "Allen", "García", "Müller", "O'Brien", "Nakamura", "Kowalski", "Dubois"]
    private static let cities = ["London", "Zürich", "São Paulo", "Kraków", "Tokyo", "New York", "Nairobi", "Oslo"]
    private static let tags = ["admin", "beta", "vip", "trial", "churned", "mobile", "web", "eu", "us", "apac"]

    /// About `targetBytes` of compact JSON; every 997th record is corrupt in one of several ways.
    /// `shuffled`: as real backends send it after edits and merges, push ids in random order
    /// and each record's fields in an order of its own (the sorted form is the fast path of
    /// the tape's duplicate-name check and of `order: key`, so it flatters the figures).
    static func generate(targetBytes: Int = 8 * 1024 * 1024, seed: UInt64 = 42,
                         shuffled: Bool = false) -> (bytes: [UInt8], records: Int, corrupt: Int) {
        var random = SplitMix64(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(targetBytes + 4096)
        var records = 0
        var corrupt = 0
        var timestamp: UInt64 = 1_700_000_000_000
        out.append(UInt8(ascii: "{"))
        while out.count < targetBytes {
            if records > 0 { out.append(UInt8(ascii: ",")) }
            timestamp += UInt64(random.below(5000))
            // Shuffled ids: the timestamp part is drawn at random instead of increasing.
            let idTime = shuffled ? 1_700_000_000_000 + random.next() % 100_000_000_000 : timestamp
            appendString(pushID(timestamp: idTime, random: &random), to: &out)
            out.append(UInt8(ascii: ":"))
            let isCorrupt = records % 997 == 996
            if isCorrupt { corrupt += 1 }
            appendRecord(&out, random: &random, timestamp: timestamp, corruption: isCorrupt ? corrupt % 4 : nil, shuffled: shuffled)
            records += 1
        }
        out.append(UInt8(ascii: "}"))
        return (out, records, corrupt)
    }

    private static func pushID(timestamp: UInt64, random: inout SplitMix64) -> String {
        var chars = [UInt8](repeating: 0, count: 20)
        var t = timestamp
        for i in stride(from: 7, through: 0, by: -1) {
            chars[i] = pushAlphabet[Int(t % 64)]
            t /= 64
        }
        for i in 8..<20 { chars[i] = pushAlphabet[random.below(64)] }
        return String(decoding: chars, as: UTF8.self)
    }

    private static func appendRecord(_ out: inout [UInt8], random: inout SplitMix64, timestamp: UInt64, corruption: Int?,
                                     shuffled: Bool) {
        let first = firstNames[random.below(firstNames.count)]
        let last = lastNames[random.below(lastNames.count)]
        var fields: [(String, String)] = []
        if corruption != 0 { fields.append(("name", quoted("\(first) \(last)"))) }  // 0: name missing
        fields.append(("age", corruption == 1 ? quoted("forty-two") : String(18 + random.below(70))))
        let email = "\(first.lowercased()).\(last.lowercased())\(random.below(1000))@example.com"
        fields.append(("email", quoted(corruption == 2 ? "" : email)))
        let street = "\(1 + random.below(400)) \(lastNames[random.below(lastNames.count)]) Street"
        let city = cities[random.below(cities.count)]
        let zip = String(10000 + random.below(89999))
        fields.append(("address", corruption == 3 ? "null"
            : "{\"street\":\(quoted(street)),\"city\":\(quoted(city)),\"zip\":\(quoted(zip))}"))
        let tagList = (0..<random.below(4)).map { _ in quoted(tags[random.below(tags.count)]) }
        fields.append(("tags", "[" + tagList.joined(separator: ",") + "]"))
        fields.append(("score", "\(random.below(100)).\(random.below(100))"))
        fields.append(("active", random.below(2) == 0 ? "true" : "false"))
        fields.append(("createdAt", String(timestamp)))
        if random.below(10) == 0 { fields.append(("bio", quoted("Says \"hi\"\nand likes C:\\path\\to\\things"))) }
        if shuffled {
            for i in stride(from: fields.count - 1, to: 0, by: -1) { fields.swapAt(i, random.below(i + 1)) }
        }
        out.append(UInt8(ascii: "{"))
        for (i, (key, value)) in fields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: value.utf8)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: Array("\\\"".utf8))
            case UInt8(ascii: "\\"): out.append(contentsOf: Array("\\\\".utf8))
            case 0x0A: out.append(contentsOf: Array("\\n".utf8))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
