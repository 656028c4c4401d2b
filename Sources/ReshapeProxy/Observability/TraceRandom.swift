/// The random source for trace and span ids: xoshiro256** (Blackman and Vigna), one per
/// worker loop. The system generator reads the kernel's entropy on every call, which is too
/// dear for ids made on every request and fetch; it only seeds this one, once. Tests pass a
/// fixed seed, so the ids they see are the same on every run.
package struct TraceRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// Seeded from `seed` through SplitMix64, as the xoshiro authors advise: any seed,
    /// zero included, gives a state that is not all zeros.
    package init(seed: UInt64) {
        var mix = seed
        func next() -> UInt64 {
            mix &+= 0x9E37_79B9_7F4A_7C15
            var z = mix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    /// Seeded from the system's generator.
    package static func system() -> TraceRandom {
        var system = SystemRandomNumberGenerator()
        return TraceRandom(seed: system.next())
    }

    package mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
