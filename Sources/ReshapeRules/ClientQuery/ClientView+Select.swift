import ReshapeJSON

/// The records a view chooses from, read only where the view looks: the filters' fields, the
/// sort's and the key. Two kinds: built values (`apply(to:)`, `TreeRecords`) and a tape's
/// nodes (`apply(toTape:)`, `TapeRecords`); the choice itself (`select`) is written once.
protocol ViewRecords {
    var count: Int { get }
    /// Whether record `record` passes the view's filter at index `filter`.
    func passes(_ filter: Int, _ record: Int) -> Bool
    /// Appends to `keys` the record's value of the view's sort key at index `sortKey`.
    func appendSortKey(_ sortKey: Int, of record: Int, to keys: inout SortKeys)
    /// The record's value of the sort key at index `sortKey`; objects and arrays may be
    /// empty, since only their kind orders them.
    func sortValue(_ sortKey: Int, of record: Int) -> JSON?
    /// The record's `keyed-to-array` key, when the rule names one and the record has a string there.
    func key(of record: Int) -> String?
    /// Whether `key(of: record) == wanted`, without building the key.
    func hasKey(_ record: Int, _ wanted: String) -> Bool
}

extension ClientView {
    /// The positions of the page's records among `records`, how many match, and the next
    /// page's cursor.
    func select<Records: ViewRecords>(_ records: Records, rule: ClientQueryRule, fingerprint: String)
        throws(ClientQueryError) -> (page: [Int], total: Int, next: String?)
    {
        let binding = binding(fingerprint: fingerprint)
        let cursor = try decodedCursor(binding: binding)
        var matching: [Int] = []
        matching.reserveCapacity(records.count)
        for record in 0..<records.count where filters.indices.allSatisfy({ records.passes($0, record) }) {
            matching.append(record)
        }
        // The matching records' positions in the view's order.
        let sorted = order(matching, records)
        let start = cursor.map { startIndex(after: $0, in: sorted, records, keyed: rule.keyMember != nil) } ?? 0
        let end = limit.map { min(sorted.count, start + $0) } ?? sorted.count
        let page = Array(sorted[min(start, end)..<end])
        var next: String?
        if end < sorted.count, end > start {
            next = cursorAfter(at: end - 1, in: sorted, records).encoded(binding: binding)
        }
        return (page, sorted.count, next)
    }

    /// `matching` in the view's order: by each sort key in turn (`-`: descending), ties in
    /// their order in the answer.
    private func order<Records: ViewRecords>(_ matching: [Int], _ records: Records) -> [Int] {
        guard !sort.isEmpty, matching.count > 1 else { return matching }
        let keys = sort.indices.map { index in
            var keys = SortKeys(capacity: matching.count)
            for record in matching { records.appendSortKey(index, of: record, to: &keys) }
            return keys
        }
        var order = Array(matching.indices)
        let descending = sort.map(\.descending)
        if keys.count == 1 {
            // One key, the common case: no per-comparison loop over the keys.
            let key = keys[0]
            let flip = descending[0]
            order.sort { a, b in
                if key.precedes(a, b) { return !flip }
                if key.precedes(b, a) { return flip }
                return a < b
            }
        } else {
            order.sort { a, b in
                for index in keys.indices {
                    if keys[index].precedes(a, b) { return !descending[index] }
                    if keys[index].precedes(b, a) { return descending[index] }
                }
                return a < b
            }
        }
        return order.map { matching[$0] }
    }

    /// -1, 0, 1: how `record` orders against a cursor's sort values, in the view's order.
    private func compare<Records: ViewRecords>(_ record: Int, _ records: Records, _ values: [JSON]) -> Int {
        for (index, key) in sort.enumerated() {
            let order = SortKeys.compare(records.sortValue(index, of: record), values[index])
            if order != 0 { return key.descending ? -order : order }
        }
        return 0
    }

    /// Where the page after `cursor` starts in `sorted`: after its record, found by key, if it
    /// is still there with the same sort values; otherwise at the first record after the
    /// cursor's place (among equal sort values: after its key in Firebase's key order, or past
    /// `ties` records).
    private func startIndex<Records: ViewRecords>(
        after cursor: ViewCursor, in sorted: [Int], _ records: Records, keyed: Bool
    ) -> Int {
        if let wanted = cursor.key, keyed,
            let index = sorted.firstIndex(where: { records.hasKey($0, wanted) }),
            compare(sorted[index], records, cursor.values) == 0
        {
            return index + 1
        }
        var tiesSeen = 0
        for (index, record) in sorted.enumerated() {
            let order = compare(record, records, cursor.values)
            if order > 0 { return index }
            guard order == 0 else { continue }
            if let wanted = cursor.key, keyed, let name = records.key(of: record) {
                if FirebaseKeys([wanted, name]).precedes(0, 1) { return index }
            } else {
                if tiesSeen > cursor.ties { return index }
                tiesSeen += 1
            }
        }
        return sorted.count
    }

    /// The cursor of the record at `index` of `sorted`, the last of a page.
    private func cursorAfter<Records: ViewRecords>(at index: Int, in sorted: [Int], _ records: Records)
        -> ViewCursor
    {
        let values = sort.indices.map { sortKey -> JSON in
            switch records.sortValue(sortKey, of: sorted[index]) {
            case nil: .null
            // Objects and arrays tie among themselves: their kind is all that orders them.
            case .object?: .object(JSONObject())
            case .array?: .array([])
            case let value?: value
            }
        }
        var ties = 0
        var before = index - 1
        while before >= 0, compare(sorted[before], records, values) == 0 {
            ties += 1
            before -= 1
        }
        return ViewCursor(values: values, key: records.key(of: sorted[index]), ties: ties)
    }
}
