/// What a request holds of the memory budget once its fetches are over: the bytes they
/// reserved for their bodies, the tapes those are parsed into and the answer made of them. An
/// answer waits in memory until the client has read it, a slow client's for long, so the
/// request keeps them until the answer's write is done. They are given back once, when the
/// last holder lets go: the connection after the write, or, for a request that ends without
/// an answer written (its client left, the connection closed, a refresh nobody waits for),
/// whoever drops it then. Made for a request's first fetch, which, like each of its fetches
/// until it ends, holds it too. Confined to its request's loop.
///
/// While one of its fetches waits in the budget's queue or for a place among its upstream's
/// `max-in-flight`, nothing it holds can come back: the budget learns what it holds when the
/// fetch queues, and of every fetch that ends meanwhile (`take`), so that when everything used
/// is held by waiting requests, the first waiter goes. So while its answer waits behind an
/// earlier request's on its connection (`waitsBehind`).
final class HeldBytes {
    private let inflight: InflightBytes
    private let route: String
    /// The request's key in the budget, unique in the process.
    let id: Int
    /// What its finished fetches passed to it.
    private(set) var bytes = 0
    /// Its fetches waiting now: in the budget's queue (new ones, or transfers paused for
    /// room), or for a place; and its answer, while it waits behind an earlier one.
    var waiting = 0
    /// Its answer waits on its connection behind an earlier request's, not answered yet.
    private var behind = false
    private var bodies = 0
    private var fetches = 0
    /// Some fetch brought a body: the request's sizes say something of its route.
    private var answeredUpstream = false
    /// All the request held at once (bodies, tapes, answer), once its answer is made.
    private var need: Int?

    init(inflight: InflightBytes, route: String) {
        self.inflight = inflight
        self.route = route
        id = inflight.newRequest()
    }

    /// A fetch of the request ended holding `bytes`, which the request holds from now on.
    func take(_ bytes: Int) {
        self.bytes += bytes
        if waiting > 0 { inflight.passed(bytes, to: id) }
    }

    /// A fetch of the request ended; `body`: its upstream body's size, nil when it got no answer.
    func fetchEnded(body: Int?) {
        fetches += 1
        if let body {
            bodies += body
            answeredUpstream = true
        }
    }

    /// The answer is made: of `answerBytes`, from bodies parsed into tapes of `tapeBytes`.
    func answerMade(tapeBytes: Int, answerBytes: Int) {
        guard answeredUpstream else { return }
        need = bodies + tapeBytes + answerBytes
    }

    /// Its answer waits behind an earlier request's (answers go out in order), or no longer:
    /// while it does, what it holds cannot come back before that one is answered.
    func waitsBehind(_ now: Bool) {
        guard now != behind else { return }
        behind = now
        if now {
            waiting += 1
            inflight.heldWhileBlocked(request: id, held: bytes)
        } else {
            waiting -= 1
            inflight.blockEnded(request: id)
        }
    }

    deinit {
        if behind { inflight.blockEnded(request: id) }
        inflight.release(
            bytes, request: id, route: route,
            sizes: need.map { InflightBytes.Sizes(need: $0, bodies: bodies, fetches: fetches) })
    }
}
