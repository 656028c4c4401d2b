import ReshapeJSON
import ReshapeTestSupport

/// Normalized answers as a live route serves them, `{"objects": [record, ...]}`, and the changes
/// a stream brings to them. Numbers are integers, `N.0` or decimals with no trailing zero, which
/// Python's `json` prints back as they are spelled, so the cross-check can compare bytes.
struct RandomAnswers {
    var random: SplitMix64
    private var nextID = 0

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    static let names = [
        "Ada", "Grace", "Zoë", "李雷", "Ĳsbrand", "O\"Brien", "tab\there", "back\\slash", "Émile", "Linus",
    ]
    static let cities = ["Zürich", "Oslo", "Lagos", "São Paulo", "Kyōto"]
    static let tags = ["admin", "beta", "ops", "näive", "a/b", "~x"]

    mutating func answer(records count: Int) -> JSON {
        .object(JSONObject(["objects": .array((0..<count).map { _ in record() })]))
    }

    mutating func record() -> JSON {
        nextID += 1
        var members = [
            JSONMember(key: "objectId", value: .string("-Nx\(nextID)")),
            JSONMember(key: "name", value: .string(Self.names.randomElement(using: &random)!)),
            JSONMember(key: "age", value: .number(JSONNumber(Int.random(in: 0...99, using: &random)))),
            JSONMember(key: "score", value: decimal()),
            JSONMember(key: "active", value: .bool(Bool.random(using: &random))),
            JSONMember(key: "nickname", value: Bool.random(using: &random) ? .null : .string("n\(nextID)")),
            JSONMember(key: "address", value: address()),
            JSONMember(key: "tags", value: tagList()),
        ]
        // Member names that need escaping in a pointer.
        if Int.random(in: 0..<4, using: &random) == 0 {
            members.append(JSONMember(key: "a/b~c", value: .number(JSONNumber(1))))
        }
        return .object(JSONObject(members))
    }

    private mutating func decimal() -> JSON {
        let whole = Int.random(in: 0...500, using: &random)
        let fraction = Int.random(in: 1...9, using: &random)
        return .number(JSONNumber("\(whole).\(fraction)")!)
    }

    private mutating func address() -> JSON {
        .object(
            JSONObject([
                "street": .string("\(Int.random(in: 1...200, using: &random)) Main St"),
                "city": .string(Self.cities.randomElement(using: &random)!),
                "zip": .string("\(Int.random(in: 10000...99999, using: &random))"),
            ]))
    }

    private mutating func tagList() -> JSON {
        .array(
            (0..<Int.random(in: 0...3, using: &random)).map { _ in .string(Self.tags.randomElement(using: &random)!) })
    }

    /// `answer` after one to three random changes.
    mutating func changed(_ answer: JSON) -> JSON {
        guard case .object(var root) = answer, case .array(var records)? = root["objects"] else { return answer }
        for _ in 0..<Int.random(in: 1...3, using: &random) { change(&records, &root) }
        root["objects"] = .array(records)
        return .object(root)
    }

    private mutating func change(_ records: inout [JSON], _ root: inout JSONObject) {
        let kind = Int.random(in: 0..<12, using: &random)
        if records.isEmpty || kind == 0 {
            records.insert(record(), at: Int.random(in: 0...records.count, using: &random))
            return
        }
        let i = Int.random(in: 0..<records.count, using: &random)
        guard case .object(var fields) = records[i] else { return }
        switch kind {
        case 1: records.remove(at: i)
        case 2:
            let moved = records.remove(at: i)
            records.insert(moved, at: Int.random(in: 0...records.count, using: &random))
        case 3: fields["name"] = .string(Self.names.randomElement(using: &random)!)
        case 4: fields["score"] = decimal()
        case 5: fields["nickname"] = fields["nickname"].map { if case .null = $0 { .string("nick") } else { .null } }
        case 6: fields.members.shuffle(using: &random)
        case 7:
            // A new member, at the end (per-member add) or inside (the record is replaced).
            let member = JSONMember(key: "note \(Int.random(in: 0...9, using: &random))", value: .string("ñ"))
            guard fields.index(forKey: member.key) == nil else { break }
            fields.members.insert(member, at: Bool.random(using: &random) ? fields.count : 1)
        case 8: fields.members.remove(at: Int.random(in: 0..<fields.count, using: &random))
        case 9:
            if case .object(var address)? = fields["address"] {
                address["city"] = .string(Self.cities.randomElement(using: &random)!)
                fields["address"] = .object(address)
            }
            fields["tags"] = tagList()
        case 10:
            // The same age spelled as a decimal, or a kind change.
            if case .number(let age)? = fields["age"], !age.text.contains(".") {
                fields["age"] = .number(JSONNumber(age.text + ".0")!)
            } else {
                fields["age"] = .string("unknown")
            }
        default:
            root["count"] = .number(JSONNumber(records.count))
        }
        if kind > 2 { records[i] = .object(fields) }
    }
}
