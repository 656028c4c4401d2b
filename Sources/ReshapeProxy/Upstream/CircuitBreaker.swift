import ReshapeRules
import ReshapeStateMachines

/// One upstream's circuit on one worker: closed while it answers, open (fetches refused at once,
/// the upstream left alone) after `failures` consecutive transport failures or timeouts, and
/// half-open after `open-for`, when one probe decides whether it closes or opens again. Times
/// are monotonic seconds passed in, so the rules are tested without a clock.
package struct CircuitBreaker: Sendable, Equatable {
    package enum State: Sendable, Equatable {
        /// Fetches go through; `failures` consecutive ones failed so far.
        case closed(failures: Int)
        /// Fetches are refused until `until`.
        case open(until: Double)
        /// One probe may go; `probeInFlight` while it has not come back.
        case halfOpen(probeInFlight: Bool)
    }

    /// What to do with a fetch about to start.
    package enum Admission: Sendable, Equatable {
        case proceed
        /// Go, and report the result with `wasProbe: true`.
        case probe
        /// Fail it now, without contacting the upstream; try again in `retryAfterSeconds`.
        case reject(retryAfterSeconds: Int)
    }

    /// What a finished attempt meant for the circuit.
    package enum Transition: Sendable, Equatable {
        case unchanged
        case opened
        case closed
    }

    package private(set) var state: State = .closed(failures: 0)

    /// The names of `State`'s cases, as docs/architecture.md draws them: a case added to
    /// `State` must be added here too (`stateName` switches over every one).
    enum StateName: String, CaseIterable {
        case closed, open, halfOpen
    }

    /// The state's name.
    var stateName: String {
        switch state {
        case .closed: StateName.closed.rawValue
        case .open: StateName.open.rawValue
        case .halfOpen: StateName.halfOpen.rawValue
        }
    }

    package init() {}

    /// 0 closed, 1 open, 2 half-open: the value of `reshape_upstream_circuit_state`.
    package var gaugeValue: Int {
        switch state {
        case .closed: 0
        case .open: 1
        case .halfOpen: 2
        }
    }

    /// A fetch wants to contact the upstream at `now`.
    package mutating func admit(now: Double) -> Admission {
        switch state {
        case .closed:
            return .proceed
        case .open(let until):
            guard now >= until else { return .reject(retryAfterSeconds: Self.wholeSeconds(until - now)) }
            state = .halfOpen(probeInFlight: true)
            return .probe
        case .halfOpen(let probeInFlight):
            // Until the probe comes back nothing else goes; its answer is the soonest news.
            guard probeInFlight else {
                state = .halfOpen(probeInFlight: true)
                return .probe
            }
            return .reject(retryAfterSeconds: 1)
        }
    }

    /// An attempt admitted earlier ended: `failed` for a transport failure or timeout (an
    /// answer, whatever its status, shows the upstream is there).
    package mutating func finished(failed: Bool, wasProbe: Bool, rule: CircuitRule, now: Double) -> Transition {
        switch state {
        case .closed(let failures):
            if wasProbe { impossible("probe finished", in: "closed") }
            guard failed else {
                state = .closed(failures: 0)
                return .unchanged
            }
            if failures + 1 >= rule.failures {
                state = .open(until: now + Double(rule.openForMilliseconds) / 1000)
                return .opened
            }
            state = .closed(failures: failures + 1)
            return .unchanged
        case .open:
            // Fetches admitted before it opened, coming back late, change nothing.
            if wasProbe { impossible("probe finished", in: "open") }
            return .unchanged
        case .halfOpen(let probeInFlight):
            guard wasProbe else { return .unchanged }
            if !probeInFlight { impossible("probe finished", in: "halfOpen without a probe") }
            if failed {
                state = .open(until: now + Double(rule.openForMilliseconds) / 1000)
                return .opened
            }
            state = .closed(failures: 0)
            return .closed
        }
    }

    /// The probe was cancelled (its client went away) before it said anything: the next fetch probes.
    package mutating func probeCancelled() {
        guard case .halfOpen(probeInFlight: true) = state else { impossible("probeCancelled", in: stateName) }
        state = .halfOpen(probeInFlight: false)
    }

    /// Seconds for `Retry-After`, rounded up so a client never comes back too early.
    static func wholeSeconds(_ seconds: Double) -> Int {
        max(1, Int(seconds.rounded(.up)))
    }
}
