import Glibc
import ReshapeProxy

/// The `Date` of one loop's answers (RFC 9110 §6.6.1): formatted when the second changes and
/// reused by every answer the loop writes within it, so an answer pays a clock read, not a
/// formatting. Confined to its loop's thread.
final class AnswerDate {
    private var second = Int.min
    private var formatted = ""

    /// The coarse clock is the kernel's last tick, read without a system call; its lag of a few
    /// milliseconds does not show in a value of whole seconds.
    func current() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &time)
        if time.tv_sec != second {
            second = time.tv_sec
            formatted = HTTPDate.imfFixdate(unixSeconds: time.tv_sec)
        }
        return formatted
    }
}
