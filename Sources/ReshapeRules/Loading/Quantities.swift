/// Durations (`250ms`, `5s`, `1m`, `1h`) and byte sizes (`512KiB`, `64MiB`, `10MB`, `1024`) as written in rule files.
package enum Quantities {
    package static func milliseconds(_ text: String) -> Int? {
        let units: [(String, Int)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let value = Int(text.dropLast(suffix.count)), value > 0, value <= Int(Int32.max) / scale else {
                return nil
            }
            return value * scale
        }
        return nil
    }

    package static func bytes(_ text: String) -> Int? {
        let units: [(String, Int)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30),
            ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("B", 1),
        ]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let value = Int(text.dropLast(suffix.count)), value > 0, value <= (1 << 40) / scale else {
                return nil
            }
            return value * scale
        }
        if let value = Int(text), value > 0 { return value }
        return nil
    }
}
