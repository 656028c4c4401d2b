import ReshapeStateMachines

/// Which live subscribers a worker admits, as pure bookkeeping: subscribers per route against
/// its `max-subscribers`, and open streams per route and per upstream host against
/// `maxStreamsPerHost`. `LiveHub` is its driver: it keeps the streams and subscribers
/// themselves, asks `subscribe` what to do with a new client, and reports each subscriber
/// leaving and each stream it holds under a key closing. Counts only, and no clock.
package struct LiveAdmission: Sendable, Equatable {
    /// Why a client was turned away.
    package enum Refusal: Error, Sendable, Equatable {
        /// The route has its `max-subscribers` on this worker.
        case tooManySubscribers
        /// Its upstream host has `limit` streams on this worker, none of them this one.
        case tooManyStreams(limit: Int)
    }

    /// What the hub holds under a subscription's stream key now.
    package enum StreamUnderKey: Sendable, Equatable {
        case none
        /// A stream that takes subscribers.
        case open
        /// A stream that is over (its subscribers ended, its close due): nobody joins it.
        case over
    }

    /// What the hub does with a new subscriber.
    package enum Action: Sendable, Equatable {
        /// Turn it away.
        case refuse(Refusal)
        /// Join the open stream under its key.
        case join
        /// Open a stream under its key (none is there) and join it; it is counted from now.
        case open
        /// Open a stream under its key and join it, in place of the one there, which is over:
        /// the new one takes its key and its place in the counts, and the old one is held
        /// until its close has run (it no longer counts).
        case replace
    }

    /// Distinct streams one worker keeps open to one upstream host (scheme and authority).
    package let maxStreamsPerHost: Int
    /// Subscribers per route, against its `max-subscribers`.
    private(set) var subscribers: [String: Int] = [:]
    /// Streams open per route: a plain GET of a route without any costs nothing.
    private(set) var streamsPerRoute: [String: Int] = [:]
    /// Streams open per upstream host, against `maxStreamsPerHost`.
    private(set) var streamsPerHost: [String: Int] = [:]

    package init(maxStreamsPerHost: Int) {
        self.maxStreamsPerHost = maxStreamsPerHost
    }

    /// A client subscribes to a stream of `route` to `host`, whose key holds `existing`: it is
    /// counted, or refused. The route's limit comes first; joining an open stream takes no
    /// new stream, and neither does replacing one that is over (it still counts against the
    /// host, and its successor takes its place in the count).
    package mutating func subscribe(
        route: String, host: String, maxSubscribers: Int, existing: StreamUnderKey
    ) -> Action {
        guard subscribers[route, default: 0] < maxSubscribers else { return .refuse(.tooManySubscribers) }
        if existing == .none, streamsPerHost[host, default: 0] >= maxStreamsPerHost {
            return .refuse(.tooManyStreams(limit: maxStreamsPerHost))
        }
        subscribers[route, default: 0] += 1
        switch existing {
        case .open:
            return .join
        case .over:
            return .replace
        case .none:
            streamsPerRoute[route, default: 0] += 1
            streamsPerHost[host, default: 0] += 1
            return .open
        }
    }

    /// A subscriber of `route` left (its client is gone, or its stream ended). Once per
    /// subscriber admitted.
    package mutating func unsubscribed(route: String) {
        guard let count = subscribers[route], count > 0 else {
            impossible("unsubscribed", in: "a route without subscribers")
        }
        subscribers[route] = count > 1 ? count - 1 : nil
    }

    /// The stream the hub holds under its key, of `route` to `host`, closed: the next
    /// subscriber to that key opens a new one. Not for a stream that was replaced.
    package mutating func streamClosed(route: String, host: String) {
        guard let perRoute = streamsPerRoute[route], perRoute > 0, let perHost = streamsPerHost[host], perHost > 0
        else {
            impossible("streamClosed", in: "a route or host without streams")
        }
        streamsPerRoute[route] = perRoute > 1 ? perRoute - 1 : nil
        streamsPerHost[host] = perHost > 1 ? perHost - 1 : nil
    }

    /// Whether `route` has a stream open on this worker: only then may a plain GET look for
    /// one's answer (building a stream key costs).
    package func hasStreams(route: String) -> Bool {
        streamsPerRoute[route, default: 0] > 0
    }
}
