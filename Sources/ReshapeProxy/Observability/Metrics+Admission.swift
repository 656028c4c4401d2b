extension Metrics {
    /// The upstreams with `max-in-flight`: fetches holding a place and fetches waiting, over
    /// the whole process (one table, not one per worker).
    package static func admissionExposition(_ gauges: [String: (inFlight: Int, queued: Int)]) -> String {
        func label(_ value: String) -> String {
            value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
        }
        let sorted = gauges.sorted { $0.key < $1.key }
        var out =
            "# HELP reshape_upstream_in_flight Fetches at once to an upstream with max-in-flight, over the process.\n# TYPE reshape_upstream_in_flight gauge\n"
        for (upstream, gauge) in sorted {
            out += "reshape_upstream_in_flight{upstream=\"\(label(upstream))\"} \(gauge.inFlight)\n"
        }
        out +=
            "# HELP reshape_upstream_queue_length Fetches waiting in an upstream's queue for a place.\n# TYPE reshape_upstream_queue_length gauge\n"
        for (upstream, gauge) in sorted {
            out += "reshape_upstream_queue_length{upstream=\"\(label(upstream))\"} \(gauge.queued)\n"
        }
        return out
    }
}

extension Metrics {
    /// The memory budget for requests in flight (`--max-inflight-bytes`); nothing without one.
    package static func budgetExposition(_ gauges: (used: Int, waiting: Int)?) -> String {
        guard let gauges else { return "" }
        return
            "# HELP reshape_inflight_bytes Bytes reserved in the memory budget by requests in flight.\n# TYPE reshape_inflight_bytes gauge\nreshape_inflight_bytes \(gauges.used)\n"
            + "# HELP reshape_inflight_waiting Fetches waiting for room in the memory budget.\n# TYPE reshape_inflight_waiting gauge\nreshape_inflight_waiting \(gauges.waiting)\n"
    }
}
