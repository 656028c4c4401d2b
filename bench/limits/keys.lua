-- Every request a key never sent before: X-Key is the thread's number and a counter.
local threads = {}
local counter = 0
local prefix = ""

function setup(thread)
  thread:set("prefix", tostring(#threads))
  table.insert(threads, thread)
end

function init(args)
  prefix = wrk.thread:get("prefix") or "0"
end

function request()
  counter = counter + 1
  return wrk.format("GET", "/limited/x", { ["X-Key"] = prefix .. "-" .. counter })
end
