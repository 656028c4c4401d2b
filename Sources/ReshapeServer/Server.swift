import CCurl
import CLibUV
import Glibc
import ReshapeJSON
import ReshapeOpenAPI
import ReshapeProxy
import ReshapeRules

/// `reshape serve`: loads the rules, starts one worker loop per core, and runs the main
/// thread's loop for signals (and the admin listener, when it has a port of its own): SIGHUP
/// reloads the rules (a bad set is refused and the old one kept), SIGTERM/SIGINT drain
/// in-flight requests within a bound and exit 0, or `drainTimeoutExitStatus` if the bound cut
/// some off.
package final class Server {
    /// The exit status when `--drain-timeout` runs out before every connection is done.
    package static let drainTimeoutExitStatus: Int32 = 3

    private let configuration: ServerConfiguration
    private let environment: [String: String]
    private var shared: SharedState!
    private var workers: [Worker] = []
    private var adminListener: AdminListener?
    private let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
    private let hangup = UnsafeMutablePointer<uv_signal_t>.allocate(capacity: 1)
    private let terminate = UnsafeMutablePointer<uv_signal_t>.allocate(capacity: 1)
    private let interrupt = UnsafeMutablePointer<uv_signal_t>.allocate(capacity: 1)
    private let workerExited = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
    private let drainDeadline = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    /// Samples the workers' metrics for the status page's window.
    private let statusSampler = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private let exitedCount = AtomicCounter()
    private var rulesWatcher: RulesWatcher?
    private var draining = false

    package init(configuration: ServerConfiguration, environment: [String: String]) {
        self.configuration = configuration
        self.environment = environment
    }

    /// Runs until shut down; returns the process exit status.
    package func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // Take SIGTERM/SIGINT/SIGHUP before anything slow: a signal during startup is then
        // handled once the loop runs instead of killing the process with the default action.
        uv_loop_init(loop)
        // Bodies, tapes and outputs of large documents are allocated and freed per request.
        // glibc raises its mmap threshold after the first such block is freed and then serves
        // them from the heap, which keeps the freed memory; a fixed threshold keeps every
        // block of 1 MiB or more in its own mapping, returned to the system when freed. Fixing
        // it also fixes the heap's trim threshold at 128 KiB, which would hand back (and fault
        // in again) the memory of every medium-sized request: the heap keeps up to 16 MiB.
        _ = reshape_set_malloc_thresholds(1 << 20, 16 << 20)
        watchSignals()
        if let failure = reshape_curl_open() {
            FileOutput.stderr(
                "reshape: refusing to start: libcurl could not be loaded (\(String(cString: failure))); "
                    + "install libcurl4 (Debian) or the system's libcurl.so.4")
            return 1
        }
        let ruleSet: RuleSet
        switch RuleLoader.loadServable(path: configuration.rulesPath, environment: environment) {
        case .success(let loaded): ruleSet = loaded
        case .failure(let diagnostics):
            for diagnostic in diagnostics.diagnostics { FileOutput.stderr(diagnostic.description) }
            FileOutput.stderr(
                "reshape: refusing to start: \(diagnostics.diagnostics.count) problem(s) in \(configuration.rulesPath)")
            return 1
        }
        logWarnings(ruleSet)
        shared = SharedState(configuration: configuration, rules: ServingRules(ruleSet))
        let opened: (sockets: [Int32], port: Int)
        do {
            opened = try ListeningSocket.open(
                host: configuration.listenHost, port: configuration.listenPort, count: configuration.workers)
        } catch {
            FileOutput.stderr("reshape: \(error)")
            return 1
        }
        // With port 0 the listening line is where the real ports appear.
        let address = Server.address(configuration.listenHost, opened.port)
        var adminAddress = address
        if let admin = configuration.adminListen {
            do {
                let bound = try ListeningSocket.open(host: admin.host, port: admin.port, count: 1, reusePort: false)
                adminListener = AdminListener(loop: loop, listeningSocket: bound.sockets[0], shared: shared)
                adminAddress = Server.address(admin.host, bound.port)
            } catch {
                FileOutput.stderr("reshape: admin listener: \(error)")
                return 1
            }
            if let failure = adminListener?.listen() {
                FileOutput.stderr("reshape: admin listener: cannot listen on \(adminAddress): \(failure)")
                return 1
            }
        }
        uv_async_init(loop, workerExited) { async in
            guard let async, let data = async.pointee.data else { return }
            Unmanaged<Server>.fromOpaque(data).takeUnretainedValue().workerFinished()
        }
        workerExited.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        for (index, fd) in opened.sockets.enumerated() {
            workers.append(Worker(index: index, listeningSocket: fd, shared: shared))
        }
        let exitedSignal = UInt(bitPattern: workerExited)
        for worker in workers {
            worker.start { [exitedCount] in
                exitedCount.increment()
                uv_async_send(UnsafeMutablePointer<uv_async_t>(bitPattern: exitedSignal))
            }
        }
        if configuration.watchRules {
            let watcher = RulesWatcher(
                loop: loop, rulesPath: configuration.rulesPath,
                debounceMilliseconds: configuration.watchDebounceMilliseconds
            ) { [unowned self] in
                self.reload(trigger: .watch)
            }
            watcher.start()
            rulesWatcher = watcher
        }
        startStatusSampler()
        Log.event(
            "listening",
            [
                "address": .string(address), "admin_address": .string(adminAddress),
                "workers": .number(JSONNumber(configuration.workers)),
                "routes": .number(JSONNumber(ruleSet.routes.count)), "rules": .string(ruleSet.digest),
                // Where spans go, so a trace that never arrives is traced back to its setting.
                "otlp_endpoint": configuration.otlpEndpoint.map { .string(OTLPEndpoint.displayed($0)) } ?? .null,
            ])
        uv_run(loop, UV_RUN_DEFAULT)
        for worker in workers { worker.join() }
        Log.event("stopped")
        return 0
    }

    private func watchSignals() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        for handle in [hangup, terminate, interrupt] {
            uv_signal_init(loop, handle)
            handle.pointee.data = me
        }
        uv_signal_start(
            hangup,
            { handle, _ in
                guard let handle, let data = handle.pointee.data else { return }
                Unmanaged<Server>.fromOpaque(data).takeUnretainedValue().reload(trigger: .signal)
            }, SIGHUP)
        let drain: uv_signal_cb = { handle, signal in
            guard let handle, let data = handle.pointee.data else { return }
            Unmanaged<Server>.fromOpaque(data).takeUnretainedValue().beginDrain(signal: signal)
        }
        uv_signal_start(terminate, drain, SIGTERM)
        uv_signal_start(interrupt, drain, SIGINT)
    }

    /// What `reshape check` warns about, logged once per load: allowed, but probably a mistake.
    private func logWarnings(_ ruleSet: RuleSet) {
        guard !ruleSet.warnings.isEmpty else { return }
        Log.event("rules loaded with warnings", ["warnings": .array(ruleSet.warnings.map { .string($0.description) })])
    }

    /// Every few seconds, a sample of the workers' metrics: the status page's rates and
    /// latencies are over the last minute of them, and a load that has ended is when memory
    /// goes back to the system.
    private func startStatusSampler() {
        uv_timer_init(loop, statusSampler)
        statusSampler.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        sampleMetrics()
        uv_timer_start(
            statusSampler,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<Server>.fromOpaque(data).takeUnretainedValue().sampleMetrics()
            }, 5000, 5000)
    }

    private func sampleMetrics() {
        guard shared.sampleMetrics(now: Clock.monotonicSeconds()) else { return }
        // Each worker frees what it keeps for a load on its own loop, then trims.
        for worker in workers {
            let reference = LoopBound(worker)
            worker.mailbox?.post { reference.value?.releaseSpareMemory() }
        }
    }

    /// What asked for a reload: SIGHUP, or a change the rules watch saw.
    private enum ReloadTrigger: String {
        case signal = "SIGHUP"
        case watch = "file change"
    }

    /// Load, check, swap: a bad set is refused and the old one keeps serving. A watched change
    /// that leaves the rules as they were (another file in a rules file's directory, an editor's
    /// swap file) is not a reload.
    private func reload(trigger: ReloadTrigger) {
        switch RuleLoader.loadServable(path: configuration.rulesPath, environment: environment) {
        case .success(let ruleSet):
            if trigger == .watch, ruleSet.digest == shared.rules.ruleSet.digest { return }
            shared.replaceRules(ServingRules(ruleSet))
            shared.lastReload.withLock {
                $0 = "ok (\(trigger.rawValue)) at \(HTTPDate.imfFixdate(unixSeconds: Clock.unixMilliseconds() / 1000))"
            }
            Log.event(
                "rules reloaded",
                [
                    "rules": .string(ruleSet.digest), "routes": .number(JSONNumber(ruleSet.routes.count)),
                    "trigger": .string(trigger.rawValue),
                ])
            logWarnings(ruleSet)
        case .failure(let diagnostics):
            shared.reloadRefused()
            shared.lastReload.withLock {
                let count = diagnostics.diagnostics.count
                $0 =
                    "refused (\(trigger.rawValue)) at \(HTTPDate.imfFixdate(unixSeconds: Clock.unixMilliseconds() / 1000))"
                    + ": \(count) problem\(count == 1 ? "" : "s"), the rules before it still serve"
            }
            Log.event(
                "rules reload refused; keeping the rules in service",
                [
                    "rules": .string(shared.rules.ruleSet.digest), "trigger": .string(trigger.rawValue),
                    "problems": .array(diagnostics.diagnostics.map { .string($0.description) }),
                ])
        }
    }

    private func beginDrain(signal: Int32) {
        guard !draining else { return }
        draining = true
        shared.draining.store(true, ordering: .relaxed)
        Log.event(
            "draining",
            [
                "signal": .number(JSONNumber(Int(signal))),
                "timeout_ms": .number(JSONNumber(configuration.drainTimeoutMilliseconds)),
            ])
        for worker in workers { worker.requestDrain() }
        uv_timer_init(loop, drainDeadline)
        drainDeadline.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_timer_start(
            drainDeadline,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<Server>.fromOpaque(data).takeUnretainedValue().drainTimedOut()
            }, UInt64(configuration.drainTimeoutMilliseconds), 0)
    }

    /// Some connection outlived the drain bound: whatever it was still doing is cut off, and the
    /// exit status says so, so a supervisor can tell a clean stop from a lossy one.
    private func drainTimedOut() {
        Log.event(
            "drain timeout: exiting with requests still in flight",
            [
                "requests_cut": .number(JSONNumber(shared.metrics.reduce(0) { $0 + $1.requestsInFlight })),
                "connections_cut": .number(JSONNumber(workers.reduce(0) { $0 + $1.metrics.openConnections })),
                "exit_status": .number(JSONNumber(Int(Server.drainTimeoutExitStatus))),
            ])
        // Cut off now: `_exit` runs no exit handlers, so a worker still running cannot answer the
        // requests just reported as cut (the log went out with unbuffered writes).
        _exit(Server.drainTimeoutExitStatus)
    }

    private func workerFinished() {
        guard exitedCount.value == workers.count else { return }
        for handle in [hangup, terminate, interrupt] {
            uv_close(reshape_signal_handle(handle), nil)
        }
        uv_close(reshape_async_handle(workerExited), nil)
        rulesWatcher?.close()
        uv_close(reshape_timer_handle(statusSampler), nil)
        if draining { uv_close(reshape_timer_handle(drainDeadline), nil) }
        adminListener?.close()
    }

    private static func address(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
