/// RFC 3339 `date-time`, `full-date`, `full-time`, and the appendix A `duration`.
enum DateTimeFormats {
    private static func number(_ s: ArraySlice<UInt8>, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= s.endIndex else { return nil }
        var value = 0
        for b in s[start..<start + count] {
            guard Formats.isDigit(b) else { return nil }
            value = value * 10 + Int(b - 0x30)
        }
        return value
    }

    static func isDate(_ s: ArraySlice<UInt8>) -> Bool {
        let o = s.startIndex
        guard s.count == 10, s[o + 4] == UInt8(ascii: "-"), s[o + 7] == UInt8(ascii: "-"),
            let year = number(s, o, 4), let month = number(s, o + 5, 2), let day = number(s, o + 8, 2),
            (1...12).contains(month), day >= 1
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    /// `HH:MM:SS[.frac](Z|±HH:MM)`; a leap second (`:60`) only at 23:59 UTC.
    static func isTime(_ s: ArraySlice<UInt8>) -> Bool {
        let o = s.startIndex
        guard s.count >= 9, s[o + 2] == UInt8(ascii: ":"), s[o + 5] == UInt8(ascii: ":"),
            let hour = number(s, o, 2), let minute = number(s, o + 3, 2), let second = number(s, o + 6, 2),
            hour <= 23, minute <= 59, second <= 60
        else { return false }
        var i = o + 8
        if s[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < s.endIndex, Formats.isDigit(s[i]) { i += 1 }
            guard i > start else { return false }
        }
        guard i < s.endIndex else { return false }
        var offsetMinutes = 0
        if s[i] | 0x20 == UInt8(ascii: "z") {
            guard i + 1 == s.endIndex else { return false }
        } else {
            guard s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-"), s.endIndex - i == 6,
                s[i + 3] == UInt8(ascii: ":"), let h = number(s, i + 1, 2), let m = number(s, i + 4, 2),
                h <= 23, m <= 59
            else { return false }
            offsetMinutes = (h * 60 + m) * (s[i] == UInt8(ascii: "+") ? 1 : -1)
        }
        if second == 60 {
            let utc = ((hour * 60 + minute - offsetMinutes) % 1440 + 1440) % 1440
            return utc == 23 * 60 + 59
        }
        return true
    }

    static func isDateTime(_ s: [UInt8]) -> Bool {
        guard s.count > 11, s[10] | 0x20 == UInt8(ascii: "t") else { return false }
        return isDate(s[0..<10]) && isTime(s[11...])
    }

    /// `P` then date units (a contiguous run of Y, M, D) and/or `T` and time units (a contiguous
    /// run of H, M, S), or weeks alone (`P3W`).
    static func isDuration(_ s: [UInt8]) -> Bool {
        guard s.first == UInt8(ascii: "P"), s.count > 1 else { return false }
        var units: [(UInt8, Bool)] = []  // designator, in time part
        var inTime = false
        var i = 1
        while i < s.count {
            if s[i] == UInt8(ascii: "T") {
                guard !inTime else { return false }
                inTime = true
                i += 1
                guard i < s.count else { return false }
                continue
            }
            let start = i
            while i < s.count, Formats.isDigit(s[i]) { i += 1 }
            guard i > start, i < s.count else { return false }
            units.append((s[i], inTime))
            i += 1
        }
        guard !units.isEmpty else { return false }
        if units.count == 1, units[0].0 == UInt8(ascii: "W"), !units[0].1 { return true }
        func contiguous(_ found: [UInt8], in order: [UInt8]) -> Bool {
            guard let first = found.first, let start = order.firstIndex(of: first) else { return found.isEmpty }
            return found.count <= order.count - start && Array(order[start..<start + found.count]) == found
        }
        let dateUnits = units.filter { !$0.1 }.map(\.0)
        let timeUnits = units.filter { $0.1 }.map(\.0)
        if inTime && timeUnits.isEmpty { return false }
        return contiguous(dateUnits, in: Array("YMD".utf8)) && contiguous(timeUnits, in: Array("HMS".utf8))
    }
}
