-- wrk report: exact counts for bench/load/run.sh and bench/peers/run.sh to parse (one
-- "REPORT key value" per line).
-- No response() callback, so wrk keeps its fast path; errors.status counts non-2xx/3xx.
function done(summary, latency, requests)
   local e = summary.errors
   local secs = summary.duration / 1e6
   io.write(string.format("REPORT requests %d\n", summary.requests))
   io.write(string.format("REPORT seconds %.2f\n", secs))
   io.write(string.format("REPORT rps %.1f\n", summary.requests / secs))
   io.write(string.format("REPORT bytes %d\n", summary.bytes))
   for _, p in ipairs({50, 90, 99, 99.9}) do
      io.write(string.format("REPORT p%s %.3f\n", tostring(p), latency:percentile(p) / 1000))
   end
   io.write(string.format("REPORT max %.3f\n", latency.max / 1000))
   io.write(string.format("REPORT non2xx %d\n", e.status))
   io.write(string.format("REPORT sockerr %d\n", e.connect + e.read + e.write + e.timeout))
   io.write(string.format("REPORT sockdetail connect=%d,read=%d,write=%d,timeout=%d\n",
      e.connect, e.read, e.write, e.timeout))
end
