// Repeats a measurement and keeps the best and median, so one noisy run does not decide.

struct Throughput {
    let name: String
    let seconds: [Double]  // sorted ascending
    let bytes: Int

    var best: Double { Double(bytes) / seconds[0] / 1_000_000 }
    var median: Double { Double(bytes) / seconds[seconds.count / 2] / 1_000_000 }

    func line() -> String {
        "\(pad(name, 38)) best \(format(best)) MB/s   median \(format(median)) MB/s   (\(seconds.count) runs)"
    }
}

/// Runs `body` once to warm up, then `runs` times, timing each with a monotonic clock.
func measure(_ name: String, bytes: Int, runs: Int, _ body: () throws -> Void) rethrows -> Throughput {
    try body()
    let clock = ContinuousClock()
    var seconds: [Double] = []
    for _ in 0..<runs {
        let elapsed = try clock.measure { try body() }
        seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    return Throughput(name: name, seconds: seconds.sorted(), bytes: bytes)
}

func format(_ value: Double, decimals: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let fraction = text[text.index(after: dot)...].count
        if fraction < decimals { text += String(repeating: "0", count: decimals - fraction) }
    }
    return pad(text, 8, left: true)
}

func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return left ? fill + text : text + fill
}

/// Keeps the optimizer from discarding work whose result is otherwise unused.
@inline(never) func blackHole<T>(_ value: T) { _ = value }
