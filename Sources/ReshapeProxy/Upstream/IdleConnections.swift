import ReshapeRules

/// The upstream connections of one worker and which of them are idle, so the idle pool can be
/// bounded as nginx's `keepalive` and `keepalive_timeout` bound it: at most `max-idle` idle
/// connections per upstream (the least recently used beyond it are closed) and none idle longer
/// than `idle-timeout`. curl keeps its own cache and only checks a connection's age when it
/// would reuse it, so without this a burst leaves its connections open for as long as the
/// upstream tolerates. Sockets are plain descriptors and times monotonic seconds passed in.
package struct IdleConnections: Sendable {
    private struct Connection: Sendable {
        let upstream: String
        /// When it last finished a transfer; nil while one uses it.
        var idleSince: Double?
    }

    private var connections: [Int32: Connection] = [:]
    private var rules: [String: IdlePoolRule] = [:]
    private var idleCounts: [String: Int] = [:]

    package init() {}

    /// Idle connections, over every upstream.
    package private(set) var idleCount = 0

    /// The upstream's pool as the rules now say.
    package mutating func rule(_ rule: IdlePoolRule, for upstream: String) {
        if rules[upstream] != rule { rules[upstream] = rule }
    }

    /// A transfer to `upstream` opened `socket`; it is in use until it goes idle.
    package mutating func opened(_ socket: Int32, upstream: String) {
        forget(socket)
        connections[socket] = Connection(upstream: upstream, idleSince: nil)
    }

    /// The socket is closed (by curl), or is being closed here: it is no longer counted.
    package mutating func forget(_ socket: Int32) {
        guard let connection = connections.removeValue(forKey: socket) else { return }
        if connection.idleSince != nil { countIdle(connection.upstream, -1) }
    }

    /// A transfer uses the socket again.
    package mutating func inUse(_ socket: Int32) {
        guard let connection = connections[socket], connection.idleSince != nil else { return }
        connections[socket]?.idleSince = nil
        countIdle(connection.upstream, -1)
    }

    /// No transfer uses the socket now.
    package mutating func idle(_ socket: Int32, now: Double) {
        guard let connection = connections[socket], connection.idleSince == nil else { return }
        connections[socket]?.idleSince = now
        countIdle(connection.upstream, 1)
    }

    /// The idle sockets to close now, which are forgotten: those unused for longer than their
    /// upstream's `idle-timeout`, then, per upstream, the least recently used beyond `max-idle`.
    /// The cap is applied here, on the periodic sweep, rather than the moment a connection goes
    /// idle: under a burst wider than `max-idle`, connections are idle for a moment between
    /// requests, and closing them then would open a new connection (a TLS handshake) per request.
    package mutating func sweep(now: Double) -> [Int32] {
        var closing: [Int32] = []
        var idleByUpstream: [String: [(socket: Int32, since: Double)]] = [:]
        for (socket, connection) in connections {
            guard let since = connection.idleSince else { continue }
            let rule = rules[connection.upstream] ?? IdlePoolRule.standard
            if now - since >= Double(rule.idleTimeoutMilliseconds) / 1000 {
                closing.append(socket)
            } else {
                idleByUpstream[connection.upstream, default: []].append((socket, since))
            }
        }
        for (upstream, idle) in idleByUpstream {
            let keep = rules[upstream]?.maxIdle ?? IdlePoolRule.standard.maxIdle
            guard idle.count > keep else { continue }
            let leastRecent = idle.sorted { $0.since < $1.since }.prefix(idle.count - keep)
            closing += leastRecent.map(\.socket)
        }
        for socket in closing { forget(socket) }
        return closing.sorted()
    }

    /// Idle connections to `upstream` now.
    package func idleCount(_ upstream: String) -> Int { idleCounts[upstream, default: 0] }

    private mutating func countIdle(_ upstream: String, _ change: Int) {
        idleCounts[upstream, default: 0] += change
        idleCount += change
    }
}
