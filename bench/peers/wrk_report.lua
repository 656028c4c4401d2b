-- wrk report for run.sh: exact counts, one "REPORT key value" per line, parsed by the script.
-- No response() callback, so wrk keeps its fast path; errors.status counts non-2xx/3xx answers.
function done(summary, latency, requests)
   local e = summary.errors
   local secs = summary.duration / 1e6
   io.write(string.format("REPORT requests %d\n", summary.requests))
   io.write(string.format("REPORT seconds %.3f\n", secs))
   io.write(string.format("REPORT rps %.1f\n", summary.requests / secs))
   io.write(string.format("REPORT bytes %d\n", summary.bytes))
   io.write(string.format("REPORT p50 %.3f\n", latency:percentile(50) / 1000))
   io.write(string.format("REPORT p99 %.3f\n", latency:percentile(99) / 1000))
   io.write(string.format("REPORT max %.3f\n", latency.max / 1000))
   io.write(string.format("REPORT non2xx %d\n", e.status))
   io.write(string.format("REPORT sockerr %d\n", e.connect + e.read + e.write + e.timeout))
end
