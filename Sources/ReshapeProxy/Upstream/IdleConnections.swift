import ReshapeRules

/// The upstream connections of one worker and which of them are idle, so the idle pool can be
/// bounded as nginx's `keepalive` and `keepalive_timeout` bound it: at most `max-idle` idle
/// connections per upstream (the least recently used beyond it are closed) and none idle longer
/// than `idle-timeout`. curl keeps its own cache and only checks a connection's age when it
/// would reuse it, so without this a burst leaves its connections open for as long as the
/// upstream tolerates. Sockets are plain descriptors and times monotonic seconds passed in.
public struct IdleConnections: Sendable {
    private struct Connection: Sendable {
        let upstream: String
        /// When it last finished a transfer; nil while one uses it.
        var idleSince: Double?
    }

    private var connections: [Int32: Connection] = [:]
    private var rules: [String: IdlePoolRule] = [:]
    private var idleCounts: [String: Int] = [:]

    public init() {}

    /// Idle connections, over every upstream.
    public private(set) var idleCount = 0

    /// The upstream's pool as the rules now say.
    public mutating func rule(_ rule: IdlePoolRule, for upstream: String) {
        if rules[upstream] != rule { rules[upstream] = rule }
    }

    /// A transfer to `upstream` opened `socket`; it is in use until it goes idle.
    public mutating func opened(_ socket: Int32, upstream: String) {
        forget(socket)
        connections[socket] = Connection(upstream: upstream, idleSince: nil)
    }

    /// The socket is closed (by curl), or is being closed here: it is no longer counted.
    public mutating func forget(_ socket: Int32) {
        guard let connection = connections.removeValue(forKey: socket) else { return }
        if connection.idleSince != nil { countIdle(connection.upstream, -1) }
    }

    /// A transfer uses the socket again.
    public mutating func inUse(_ socket: Int32) {
        guard let connection = connections[socket], connection.idleSince != nil else { return }
        connections[socket]?.idleSince = nil
        countIdle(connection.upstream, -1)
    }

    /// No transfer uses the socket now. Returns the sockets to close because the upstream has
    /// more idle ones than it keeps (the least recently used first); they are forgotten.
    public mutating func idle(_ socket: Int32, now: Double) -> [Int32] {
        guard let connection = connections[socket], connection.idleSince == nil else { return [] }
        connections[socket]?.idleSince = now
        let upstream = connection.upstream
        countIdle(upstream, 1)
        let keep = rules[upstream]?.maxIdle ?? IdlePoolRule.standard.maxIdle
        var closing: [Int32] = []
        while idleCounts[upstream, default: 0] > keep {
            let oldest = connections.filter { $0.value.upstream == upstream && $0.value.idleSince != nil }
                .min { $0.value.idleSince! < $1.value.idleSince! }
            guard let oldest else { break }
            forget(oldest.key)
            closing.append(oldest.key)
        }
        return closing
    }

    /// The idle sockets unused for longer than their upstream's `idle-timeout`; they are forgotten.
    public mutating func expired(now: Double) -> [Int32] {
        var closing: [Int32] = []
        for (socket, connection) in connections {
            guard let since = connection.idleSince else { continue }
            let timeout =
                rules[connection.upstream]?.idleTimeoutMilliseconds
                ?? IdlePoolRule.standard.idleTimeoutMilliseconds
            if now - since >= Double(timeout) / 1000 { closing.append(socket) }
        }
        for socket in closing { forget(socket) }
        return closing.sorted()
    }

    /// Idle connections to `upstream` now.
    public func idleCount(_ upstream: String) -> Int { idleCounts[upstream, default: 0] }

    private mutating func countIdle(_ upstream: String, _ change: Int) {
        idleCounts[upstream, default: 0] += change
        idleCount += change
    }
}
