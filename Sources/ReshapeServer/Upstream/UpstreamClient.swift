import CCurl
import CLibUV
import ReshapeProxy
import ReshapeRules
import ReshapeStateMachines

// The upstream client: one curl multi handle driven by the worker's libuv loop, after curl's
// docs/examples/multi-uv.c. curl says which sockets to watch (socket callback → uv_poll, in
// `SocketWatches`) and when to wake it (timer callback → uv_timer, here); we call
// curl_multi_socket_action and drain finished transfers. Nothing blocks the loop: DNS,
// connect, TLS and transfer all run here. The C callbacks are in UpstreamCallbacks.swift.

final class UpstreamClient {
    let loop: UnsafeMutablePointer<uv_loop_t>
    let multi: UnsafeMutableRawPointer
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    var transfers: Set<ObjectIdentifier> = []
    /// Finished easy handles, reset for reuse: creating one per request costs allocations and
    /// setup that a reset avoids. Connections live in the multi handle's cache either way.
    var idleHandles: [UnsafeMutableRawPointer] = []
    private static let maxIdleHandles = 256
    /// How many stay once a load has ended: each keeps curl's receive buffer, and those kept
    /// from a burst lie among its freed memory, holding its pages.
    static let idleHandlesAfterLoad = 16
    /// Connections to one host at a time; more transfers to it queue in curl. Live streams
    /// hold theirs for as long as they last, so `LiveHub` keeps them to a part of this.
    static let maxHostConnections = 64
    /// The curl header lists kept for header sets that recur.
    private var headerLists = HeaderListCache<HeaderList>()
    private(set) var sockets: SocketWatches!
    /// Large body buffers of finished fetches, for the next large body.
    let spareBodies = SpareBodies()
    /// Every upstream's circuit and retry budget on this worker.
    private var health = UpstreamHealth()
    let metrics: Metrics
    /// The process's `max-in-flight` places, shared with the other loops; nil: none is kept
    /// (tests of this client alone), and every fetch starts at once.
    let admissions: UpstreamAdmissions?
    /// The process's memory budget for requests in flight; nil: none is kept.
    let inflight: InflightBytes?
    /// This loop's mailbox, where a place or room freed on another loop wakes a fetch waiting here.
    let mailbox: LoopMailbox?

    init(
        loop: UnsafeMutablePointer<uv_loop_t>, metrics: Metrics, admissions: UpstreamAdmissions? = nil,
        inflight: InflightBytes? = nil, mailbox: LoopMailbox? = nil
    ) {
        self.loop = loop
        self.metrics = metrics
        self.admissions = admissions
        self.inflight = inflight
        self.mailbox = mailbox
        multi = reshape_curl_multi_init()
        sockets = SocketWatches(loop: loop, metrics: metrics) { [unowned self] fd, flags in
            self.socketAction(fd, flags)
        }
        uv_timer_init(loop, timer)
        timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        reshape_multi_setopt_socket_function(multi, upstreamSocketCallback)
        reshape_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, Unmanaged.passUnretained(sockets).toOpaque())
        reshape_multi_setopt_timer_function(multi, upstreamTimerCallback)
        reshape_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, Unmanaged.passUnretained(self).toOpaque())
        reshape_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, Self.maxHostConnections)
        reshape_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 256)
        reshape_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    }

    /// Starts a fetch; `completion` runs on this loop unless the fetch is cancelled first. A
    /// fetch that cannot start (its upstream's circuit is open, it is saturated, or no transfer
    /// could be made) completes before this returns, and nil is returned. A fetch may wait in
    /// its upstream's `max-in-flight` queue, then for room in the memory budget, first
    /// (`UpstreamClient+Admission`, `UpstreamClient+Budget`). `heldBy`: the request it is a
    /// fetch of, which takes what it reserved when it ends.
    func start(
        _ request: UpstreamRequest, heldBy: HeldBytes? = nil,
        completion: @escaping (UpstreamResult, Double) -> Void
    ) -> UpstreamFetch? {
        let now = Clock.monotonicSeconds()
        let fetch = UpstreamFetch(
            request: request, plan: UpstreamHealth.Fetch(request, now: now), admissions: admissions,
            inflight: inflight, heldBy: heldBy, completion: completion)
        // A place first, then room: a fetch reserves bytes only once it can really start.
        // Reserved the other way, bytes waited in the upstream's queue, held by fetches that
        // could not run, while the places were held by transfers paused for room those bytes
        // took: neither wait could end before the queue's timeout. This way a fetch waiting
        // for a place holds no bytes, and one waiting for room holds its place only while the
        // budget decides, which never waits for a place: what running fetches hold comes back
        // as they end, and what waiters hold is counted as stuck (a paused transfer's bytes,
        // and a request's own, also while one of its fetches waits for a place), so the first
        // waiter goes when nothing else could make room.
        if let rule = request.admission, let admissions {
            admit(fetch, rule: rule, admissions: admissions)
        } else {
            reserveOrBegin(fetch)
        }
        return fetch.isDone ? nil : fetch
    }

    /// Past its upstream's `max-in-flight`: through the budget, if there is one, else at once.
    func reserveOrBegin(_ fetch: UpstreamFetch) {
        if let inflight {
            reserve(fetch, in: inflight)
        } else {
            begin(fetch, now: Clock.monotonicSeconds())
        }
    }

    /// The fetch's first attempt, through its upstream's circuit.
    func begin(_ fetch: UpstreamFetch, now: Double) {
        sockets.idlePool(fetch.request.upstreamName, rule: fetch.request.idlePool)
        let action = health.begin(&fetch.plan, now: now)
        perform(action, for: fetch, last: nil)
    }

    /// Carries out what `UpstreamHealth` decided for a fetch; `last` is the last attempt's
    /// result, which `finish` gives over.
    private func perform(_ action: UpstreamHealth.Action, for fetch: UpstreamFetch, last: UpstreamResult?) {
        let upstream = fetch.plan.upstream
        switch action {
        case .attempt(let timeout):
            startTransfer(fetch.attemptRequest(timeoutMilliseconds: timeout), for: fetch)
        case .follow(let timeout):
            metrics.upstreamRedirected(upstream: upstream, followed: true)
            startTransfer(fetch.attemptRequest(timeoutMilliseconds: timeout), for: fetch)
        case .refuseRedirect(let reason):
            metrics.upstreamRedirected(upstream: upstream, followed: false)
            fetch.finish(.failure(.redirectRefused, message: reason))
        case .expire(let reason):
            fetch.finish(.failure(.timeout, message: reason))
        case .retryLater(let reason, let delay):
            metrics.upstreamRetried(upstream: upstream, reason: reason.label)
            guard let last else { impossible("retryLater without a result", in: fetch.phaseName) }
            let timer = RouteTimer(loop: loop, milliseconds: delay) { [unowned self] in
                let last = fetch.retryDue()
                let action = self.health.retryDue(&fetch.plan, now: Clock.monotonicSeconds())
                self.perform(action, for: fetch, last: last)
            }
            fetch.waitToRetry(timer, last: last)
        case .finish:
            fetch.finish(last ?? .failure(.other, message: "the fetch ended without a result"))
        case .reject(let seconds):
            metrics.circuitRejected(upstream: upstream)
            fetch.finish(.circuitOpen(retryAfterSeconds: seconds))
        }
        if let state = health.circuitGauge(upstream) { metrics.circuitState(upstream: upstream, value: state) }
    }

    private func startTransfer(_ request: UpstreamRequest, for fetch: UpstreamFetch) {
        guard let easy = idleHandles.popLast() ?? reshape_curl_easy_init() else {
            health.cancelled(&fetch.plan, timedOut: false, now: Clock.monotonicSeconds())
            return fetch.finish(.failure(.other, message: "cannot create a transfer"))
        }
        let transfer = UpstreamTransfer(
            easy: easy, headerList: headerList(for: request), maxBodyBytes: request.maxBodyBytes
        ) { [unowned self] result, end in
            fetch.transferEnded()
            let action = self.health.attemptEnded(&fetch.plan, end, now: Clock.monotonicSeconds())
            self.perform(action, for: fetch, last: result)
        }
        transfer.configure(for: request, sockets: sockets)
        transfer.spareBodies = spareBodies
        if let inflight {
            transfer.sized = { [unowned self, unowned fetch] bytes, exact in
                self.bodyNeeds(bytes, exact: exact, for: fetch, in: inflight)
            }
        }
        fetch.transferStarted(transfer)
        transfers.insert(ObjectIdentifier(transfer))
        reshape_curl_multi_add_handle(multi, easy)
    }

    /// The curl list for a request's headers: a kept one when `headerLists` has it, else one
    /// built for this request (and kept if its headers recur).
    func headerList(for request: UpstreamRequest) -> HeaderList {
        let name = request.upstreamName
        let forBody = HeaderList.forBody(request)
        if let list = headerLists.list(upstream: name, headers: request.headers, forBody: forBody) { return list }
        let list = HeaderList(request.headers, forBody: forBody)
        headerLists.built(list, upstream: name, headers: request.headers, forBody: forBody)
        return list
    }

    /// Stops a fetch at once (its client went away, or the route's timeout passed: `timedOut`,
    /// which its upstream's circuit counts as a failure); its completion never runs.
    func cancel(_ fetch: UpstreamFetch, timedOut: Bool = false) {
        guard !fetch.isDone else { return }
        let transfer = fetch.cancel()
        health.cancelled(&fetch.plan, timedOut: timedOut, now: Clock.monotonicSeconds())
        let upstream = fetch.plan.upstream
        if let state = health.circuitGauge(upstream) { metrics.circuitState(upstream: upstream, value: state) }
        guard let transfer, transfers.remove(ObjectIdentifier(transfer)) != nil else { return }
        transfer.completion = nil
        release(transfer)
    }

    /// Stops the timer and frees the multi handle; call when no transfer is left.
    func close() {
        sockets.close()
        for easy in idleHandles { reshape_curl_easy_cleanup(easy) }
        idleHandles.removeAll()
        headerLists.removeAll()
        uv_timer_stop(timer)
        uv_close(reshape_timer_handle(timer)) { handle in
            handle?.deallocate()
        }
        reshape_curl_multi_cleanup(multi)
    }

    /// Frees idle easy handles beyond `count`.
    func releaseIdleHandles(keeping count: Int) {
        while idleHandles.count > count, let easy = idleHandles.popLast() { reshape_curl_easy_cleanup(easy) }
        if idleHandles.isEmpty { idleHandles = [] }
    }

    func release(_ transfer: UpstreamTransfer) {
        reshape_curl_multi_remove_handle(multi, transfer.easy)
        if idleHandles.count < UpstreamClient.maxIdleHandles {
            reshape_curl_easy_reset(transfer.easy)
            idleHandles.append(transfer.easy)
        } else {
            reshape_curl_easy_cleanup(transfer.easy)
        }
        Unmanaged.passUnretained(transfer).release()
    }

    // MARK: - Driving curl

    /// curl's timer callback: wake it after `timeoutMilliseconds` (-1: never).
    func schedule(timeoutMilliseconds: Int) {
        if timeoutMilliseconds < 0 {
            uv_timer_stop(timer)
            return
        }
        // 0 means "now": run it on the loop's next turn rather than from inside curl's
        // callback (a new transfer then starts without waiting a millisecond).
        uv_timer_start(
            timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                let client = Unmanaged<UpstreamClient>.fromOpaque(data).takeUnretainedValue()
                client.socketAction(reshape_curl_socket_timeout, 0)
            }, UInt64(timeoutMilliseconds), 0)
    }

    private func socketAction(_ fd: curl_socket_t, _ flags: Int32) {
        var running: Int32 = 0
        reshape_curl_multi_socket_action(multi, fd, flags, &running)
        drainFinished()
    }

    private func drainFinished() {
        var pending: Int32 = 0
        while let message = reshape_curl_multi_info_read(multi, &pending) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var privatePointer: UnsafeMutableRawPointer?
            reshape_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &privatePointer)
            guard let privatePointer else { continue }
            let transfer = Unmanaged<UpstreamTransfer>.fromOpaque(privatePointer).takeUnretainedValue()
            let result = UpstreamResult(transfer, code: code)
            spareBodies.keep(transfer.body)
            let end = result.attemptEnd(transfer, code: code)
            let completion = transfer.completion
            transfers.remove(ObjectIdentifier(transfer))
            release(transfer)
            completion?(result, end)
        }
    }
}
