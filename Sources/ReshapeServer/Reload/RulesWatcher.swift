import CLibUV
import Glibc

/// Watches the rules for changes on the main loop (`uv_fs_event`, inotify on Linux) and calls
/// `changed` once a burst of changes has been quiet for the debounce interval. A rules directory
/// is watched itself; a rules file, through its directory, since editors and Kubernetes replace
/// files (a rename or a symlink swap) rather than writing into them. Kubernetes swaps a ConfigMap
/// volume's `..data` symlink inside the mounted directory, which this watch sees.
///
/// The watch is re-armed after each burst, so a rules directory that was itself replaced is
/// watched again where it now is. Whether anything really changed is the caller's to decide
/// (the rule set's digest): the directory of a rules file may hold other files.
final class RulesWatcher {
    private let loop: UnsafeMutablePointer<uv_loop_t>
    /// The directory watched.
    let directory: String
    private let debounceMilliseconds: UInt64
    private let changed: () -> Void
    private let event = UnsafeMutablePointer<uv_fs_event_t>.allocate(capacity: 1)
    private let quiet = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var watching = false
    private var closed = false
    /// A watch that could not be armed is logged once, not on every re-arm.
    private var reportedFailure = false

    init(
        loop: UnsafeMutablePointer<uv_loop_t>, rulesPath: String, debounceMilliseconds: Int,
        changed: @escaping () -> Void
    ) {
        self.loop = loop
        directory = Self.watchedDirectory(of: rulesPath)
        self.debounceMilliseconds = UInt64(max(0, debounceMilliseconds))
        self.changed = changed
        let me = Unmanaged.passUnretained(self).toOpaque()
        uv_fs_event_init(loop, event)
        event.pointee.data = me
        uv_timer_init(loop, quiet)
        quiet.pointee.data = me
    }

    /// The directory whose entries decide what the rules at `path` are.
    static func watchedDirectory(of path: String) -> String {
        var isDirectory = stat()
        if stat(path, &isDirectory) == 0, (isDirectory.st_mode & S_IFMT) == S_IFDIR { return path }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Starts watching; returns why it could not, if it could not.
    @discardableResult
    func start() -> String? {
        guard !closed else { return nil }
        if watching { uv_fs_event_stop(event) }
        let status = uv_fs_event_start(
            event,
            { handle, _, _, _ in
                guard let handle, let data = handle.pointee.data else { return }
                // An error (the directory went away) is handled like a change: the watch is re-armed
                // once things are quiet, and the reload says what it finds.
                Unmanaged<RulesWatcher>.fromOpaque(data).takeUnretainedValue().noticed()
            }, directory, 0)
        watching = status == 0
        guard status != 0 else {
            reportedFailure = false
            return nil
        }
        let reason = String(cString: uv_strerror(status))
        if !reportedFailure {
            reportedFailure = true
            Log.event(
                "rules watch failed; reload with SIGHUP", ["directory": .string(directory), "error": .string(reason)])
        }
        return reason
    }

    /// Each change restarts the quiet timer: a burst of writes is one reload.
    private func noticed() {
        guard !closed else { return }
        uv_timer_start(
            quiet,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<RulesWatcher>.fromOpaque(data).takeUnretainedValue().settled()
            }, debounceMilliseconds, 0)
    }

    private func settled() {
        guard !closed else { return }
        start()
        changed()
    }

    /// Stops watching and closes the handles, so the loop can end.
    func close() {
        guard !closed else { return }
        closed = true
        uv_close(reshape_fs_event_handle(event), nil)
        uv_close(reshape_timer_handle(quiet), nil)
    }
}
