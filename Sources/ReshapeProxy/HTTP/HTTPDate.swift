/// `Date` header values (RFC 9110 §5.6.7 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`), computed
/// from Unix seconds without a calendar library: the server formats one per second and reuses it.
package enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of `unixSeconds` (seconds since 1970-01-01T00:00:00Z; earlier times clamp to it).
    package static func imfFixdate(unixSeconds: Int) -> String {
        let seconds = max(0, unixSeconds)
        let days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        return weekdays[days % 7] + ", " + twoDigits(day) + " " + months[month - 1] + " " + String(year) + " "
            + twoDigits(secondOfDay / 3600) + ":" + twoDigits(secondOfDay / 60 % 60) + ":" + twoDigits(secondOfDay % 60)
            + " GMT"
    }

    /// Year, month (1...12) and day (1...31) of a day count since 1970-01-01, in the proleptic
    /// Gregorian calendar (Howard Hinnant's `civil_from_days`).
    static func civilDate(daysSinceEpoch: Int) -> (year: Int, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0" + String(value) : String(value)
    }
}
