/// The decision of a request's policies asked of Redis (`Action.checkLimits`), for replicas
/// that share their limits: one script run checks every policy and stores the new times only
/// if all admit. The script reads Redis's own clock, so replicas' clocks never disagree.
package struct SharedLimitCheck: Sendable, Equatable {
    /// The Redis keys, one per policy: a prefix and the hashed key (never the value itself).
    package var keys: [String]
    /// Per policy: the emission interval in microseconds, then the burst.
    package var arguments: [String]

    package static let keyPrefix = "reshape:limit:"

    init(_ entries: [RateLimiter.Entry]) {
        keys = entries.map { Self.keyPrefix + $0.key.hex }
        arguments = entries.flatMap { entry in
            [String(Int((entry.gcra.emissionInterval * 1_000_000).rounded())), String(entry.gcra.burst)]
        }
    }

    /// The script's answer, three integers per policy (admitted 0 or 1, remaining, microseconds
    /// to wait), as verdicts; nil when it is not that.
    package static func verdicts(_ reply: [Int], count: Int) -> [RateLimiter.Verdict]? {
        guard reply.count == count * 3 else { return nil }
        return (0..<count).map { index in
            RateLimiter.Verdict(
                admitted: reply[index * 3] == 1, remaining: max(0, reply[index * 3 + 1]),
                retryAfterSeconds: Double(max(0, reply[index * 3 + 2])) / 1_000_000)
        }
    }

    /// GCRA over every key at once, atomic in Redis. KEYS: one per policy; ARGV: per policy its
    /// emission interval (µs) and burst. Times are Redis's `TIME` in microseconds; each key
    /// expires when its time is past (a full burst again, as a forgotten key).
    package static let script = """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
        local out, next, refused = {}, {}, false
        for i = 1, #KEYS do
          local interval = tonumber(ARGV[2 * i - 1])
          local burst = tonumber(ARGV[2 * i])
          local tat = tonumber(redis.call('GET', KEYS[i]) or now)
          if tat < now then tat = now end
          local allow = tat + interval - interval * burst
          if now < allow then
            refused = true
            out[3 * i - 2], out[3 * i - 1], out[3 * i] = 0, 0, allow - now
          else
            next[i] = tat + interval
            out[3 * i - 2], out[3 * i - 1], out[3 * i] = 1, math.floor((now - allow) / interval), 0
          end
        end
        for i = 1, #KEYS do
          if next[i] then
            if refused then
              out[3 * i - 1] = out[3 * i - 1] + 1
            else
              redis.call('SET', KEYS[i], string.format('%.0f', next[i]), 'PX', math.ceil((next[i] - now) / 1000) + 1)
            end
          end
        end
        return out
        """
}
