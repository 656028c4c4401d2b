import ReshapeLive

/// A recorded Firebase event stream (what `curl -N -H 'Accept: text/event-stream' URL.json`
/// saves), read whole before anything is replayed, so that a bad recording prints nothing but
/// its error. Each event keeps its number and the line it began on, for the messages.
struct RecordedStream {
    struct Entry {
        var event: FirebaseEvent
        /// 1 for the recording's first event (keep-alives included).
        var number: Int
        var line: Int
    }

    var entries: [Entry] = []

    /// Reads `bytes`, printing `NAME:LINE: event N: …` and exiting 1 at the first event that
    /// is not a Firebase one, or when there is no event at all.
    init(_ bytes: [UInt8], name: String) throws {
        var parser = ServerSentEventParser()
        var line = 1
        var eventStart: Int?
        var number = 0
        var start = 0
        // Fed a line at a time, so that each event is known with the line it began on.
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
            let first = bytes[start]
            let blank = first == UInt8(ascii: "\n") || first == UInt8(ascii: "\r")
            if !blank, first != UInt8(ascii: ":"), eventStart == nil {
                eventStart = line
            }
            let events: [ServerSentEvent]
            do throws(ServerSentEventParser.Failure) {
                events = try parser.feed(Array(bytes[start..<end]))
            } catch {
                Terminal.error("\(name):\(line): an event exceeds \(parser.maxEventBytes) bytes")
                throw ExitCodeError.invalidInput
            }
            for event in events {
                number += 1
                let at = eventStart ?? line
                do throws(FirebaseEvent.Failure) {
                    entries.append(Entry(event: try FirebaseEvent(event), number: number, line: at))
                } catch {
                    Terminal.error("\(name):\(at): event \(number): \(Self.describe(error))")
                    throw ExitCodeError.invalidInput
                }
            }
            if blank { eventStart = nil }
            line += 1
            start = end
        }
        guard !entries.isEmpty else {
            Terminal.error(
                "\(name): no server-sent events: record a stream with curl -N -H 'Accept: text/event-stream' URL.json"
            )
            throw ExitCodeError.invalidInput
        }
    }

    private static func describe(_ failure: FirebaseEvent.Failure) -> String {
        switch failure {
        case .malformed(let event, let message):
            return "malformed '\(event)': \(message)"
        case .unknownEvent(let name):
            return "'\(name)' is not a Firebase stream event (put, patch, keep-alive, cancel, auth_revoked)"
        }
    }
}
