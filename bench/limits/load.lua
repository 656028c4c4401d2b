-- bench/limits/load.sh's clients: a fixed offered rate (wrk's delay() between one connection's
-- requests), each request under one of KEYS X-Api-Key values in turn, answers counted by
-- status. Arguments (after --): CONNECTIONS RATE KEYS PREFIX LATENCY_MS, where RATE is the
-- requests per second offered by all the thread's connections together and LATENCY_MS the
-- expected answer time, taken off the wait so the rate holds. The waits are drawn from an
-- exponential distribution (arrivals as many independent clients make them): equal waits
-- line the connections up after any stall, and their bursts would be what is measured.
-- Prints "REPORT ..." lines as bench/load/report.lua does, plus one "STATUS code count" per status.
local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

local interval = 0
local keys = 1
local prefix = "k"
local counter = 0
statuses = {}

function init(args)
   math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
   local connections = tonumber(args[1]) or 1
   local rate = tonumber(args[2]) or 1
   keys = tonumber(args[3]) or 1
   prefix = args[4] or "k"
   local latency = tonumber(args[5]) or 0
   interval = math.max(0, connections * 1000 / rate - latency)
end

function delay()
   return -math.log(1 - math.random()) * interval
end

function request()
   counter = counter + 1
   return wrk.format("GET", nil, { ["X-Api-Key"] = prefix .. (counter % keys) })
end

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
   local e = summary.errors
   local secs = summary.duration / 1e6
   io.write(string.format("REPORT requests %d\n", summary.requests))
   io.write(string.format("REPORT seconds %.2f\n", secs))
   io.write(string.format("REPORT rps %.1f\n", summary.requests / secs))
   for _, p in ipairs({50, 90, 99, 99.9}) do
      io.write(string.format("REPORT p%s %.3f\n", tostring(p), latency:percentile(p) / 1000))
   end
   io.write(string.format("REPORT max %.3f\n", latency.max / 1000))
   io.write(string.format("REPORT sockerr %d\n", e.connect + e.read + e.write + e.timeout))
   io.write(string.format("REPORT sockdetail connect=%d,read=%d,write=%d,timeout=%d\n",
      e.connect, e.read, e.write, e.timeout))
   local total = {}
   for _, thread in ipairs(threads) do
      for status, count in pairs(thread:get("statuses")) do
         total[status] = (total[status] or 0) + count
      end
   end
   for status, count in pairs(total) do
      io.write(string.format("STATUS %d %d\n", status, count))
   end
end
