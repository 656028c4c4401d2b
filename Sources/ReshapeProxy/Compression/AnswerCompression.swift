import ReshapeCompression

/// How one worker loop compresses answers: its own `Compressor` (which reuses its contexts, so it
/// is not thread-safe; only the loop that owns these settings touches it) and the smallest
/// answer worth compressing.
package final class AnswerCompression: @unchecked Sendable {
    /// Answers below this many bytes are sent as they are: a few hundred bytes gain little, and
    /// the compressor's fixed cost per call would then dominate.
    package let minimumBytes: Int
    package let compressor: Compressor

    /// The default `minimumBytes` (`--compress-min-bytes`).
    package static let defaultMinimumBytes = 1024

    package init(minimumBytes: Int = AnswerCompression.defaultMinimumBytes, compressor: Compressor = Compressor()) {
        self.minimumBytes = minimumBytes
        self.compressor = compressor
    }
}
