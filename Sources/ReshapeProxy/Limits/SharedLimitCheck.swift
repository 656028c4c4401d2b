/// The decision of a request's policies asked of Redis (`Action.checkLimits`), for replicas
/// that share their limits: one script run checks every policy and stores the new times only
/// if all admit. The script reads Redis's own clock, so replicas' clocks never disagree.
package struct SharedLimitCheck: Sendable, Equatable {
    /// The Redis keys, one per policy: a prefix and the hashed key (never the value itself).
    package var keys: [String]
    /// Per policy: the emission interval in nanoseconds, then the burst.
    package var arguments: [String]

    package static let keyPrefix = "reshape:limit:"

    init(_ entries: [RateLimiter.Entry]) {
        keys = entries.map { entry in
            guard let name = entry.sharedName else {
                preconditionFailure("policy \(entry.policy.name) checked in Redis without its shared name")
            }
            return Self.keyPrefix + name
        }
        arguments = entries.flatMap { entry in
            // Whole nanoseconds: exact enough for any rate `reshape check` accepts (at most
            // 1,000,000/s, an interval of 1000 ns or more); microseconds were not (700000/s
            // became 1,000,000/s, and above 2,000,000/s the interval was 0).
            [String(Int((entry.gcra.emissionInterval * 1_000_000_000).rounded())), String(entry.gcra.burst)]
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
    /// emission interval (ns) and burst. Times come from Redis's `TIME`; a key's `tat` is stored
    /// as `seconds nanoseconds` (nanoseconds since 1970 do not fit a Lua number exactly, a
    /// difference of two times does), or, as an older replica wrote it, in microseconds. The
    /// maths is on `tat - now` in nanoseconds. Each key expires when its time is past (a full
    /// burst again, as a forgotten key).
    package static let script = """
        local t = redis.call('TIME')
        local nowS, nowNs = tonumber(t[1]), tonumber(t[2]) * 1000
        local out, next, refused = {}, {}, false
        for i = 1, #KEYS do
          local interval = tonumber(ARGV[2 * i - 1])
          local burst = tonumber(ARGV[2 * i])
          local tat = 0
          local stored = redis.call('GET', KEYS[i])
          if stored then
            local s, n = string.match(stored, '^(%d+) (%d+)$')
            if s then
              tat = (tonumber(s) - nowS) * 1000000000 + (tonumber(n) - nowNs)
            elseif tonumber(stored) then
              tat = (tonumber(stored) - (nowS * 1000000 + nowNs / 1000)) * 1000
            end
          end
          if tat < 0 then tat = 0 end
          local allow = tat + interval - interval * burst
          if 0 < allow then
            refused = true
            out[3 * i - 2], out[3 * i - 1], out[3 * i] = 0, 0, math.ceil(allow / 1000)
          else
            next[i] = tat + interval
            out[3 * i - 2], out[3 * i - 1], out[3 * i] = 1, math.floor(-allow / interval), 0
          end
        end
        for i = 1, #KEYS do
          if next[i] then
            if refused then
              out[3 * i - 1] = out[3 * i - 1] + 1
            else
              local ns = nowNs + next[i]
              local s = nowS + math.floor(ns / 1000000000)
              redis.call('SET', KEYS[i], string.format('%.0f %.0f', s, ns % 1000000000),
                'PX', math.ceil(next[i] / 1000000) + 1)
            end
          end
        end
        return out
        """
}
