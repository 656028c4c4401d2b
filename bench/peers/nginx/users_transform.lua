-- The users transform for nginx + Lua (LuaJIT, the lua-nginx-module) + lua-cjson.
--
-- content_by_lua_block { require("users_transform").handle() } in a location whose regex
-- captures the size as $1; the upstream body comes from an ngx.location.capture subrequest to
-- the internal /_origin/ location, which proxy_passes to the origin over keep-alive.
--
-- Limits of lua-cjson (Debian's 2.1.0), all outside what gen.py produces:
--  * objects decode into Lua tables, so member order is lost: records come out with their
--    members in hash order (run.sh compares this peer's answer ignoring member order);
--  * [] and {} decode to the same empty table and an empty table encodes as {}: an empty
--    `tags` would come back as {} (gen.py never writes one), and an empty result is written
--    out by hand below.
local cjson = require "cjson.safe"

local decode, encode, null = cjson.decode, cjson.encode, cjson.null
local capture = ngx.location.capture
local sort = table.sort
local type, pairs, find = type, pairs, string.find

local M = {}

-- A decoded JSON object: a table without element 1 (a non-empty array always has it).
local function is_object(t)
  return type(t) == "table" and t[1] == nil
end

-- The User schema by hand. minLength 1 in code points is #s >= 1 in bytes (any code point
-- takes at least one byte). `age % 1 == 0` accepts 1.0 as JSON Schema's integer does.
local function valid(key, r)
  if #key < 1 then return false end                                      -- objectId minLength 1
  local name = r.name
  if type(name) ~= "string" or #name < 1 then return false end           -- required, minLength 1
  local email = r.email
  if type(email) ~= "string" or not find(email, "@", 1, true) then return false end -- pattern "@"
  local age = r.age                                                      -- null is cjson.null: fails
  if age ~= nil and (type(age) ~= "number" or age < 0 or age % 1 ~= 0) then return false end
  local tags = r.tags                                                    -- array of strings
  if tags ~= nil then
    if type(tags) ~= "table" then return false end
    for k, v in pairs(tags) do
      if type(k) ~= "number" or type(v) ~= "string" then return false end
    end
  end
  local a = r.address                                                    -- object, string city/zip
  if a ~= nil then
    if not is_object(a) then return false end
    local city, zip = a.city, a.zip
    if city ~= nil and type(city) ~= "string" then return false end
    if zip ~= nil and type(zip) ~= "string" then return false end
  end
  return true
end

local function fail(status, msg)
  ngx.status = status
  ngx.print(encode({ error = msg }))
end

function M.handle()
  local res = capture("/_origin/" .. ngx.var[1] .. ".json")
  if res.status ~= 200 then return fail(502, "upstream " .. res.status) end
  local doc, err = decode(res.body)
  if doc == nil then return fail(502, "upstream JSON: " .. tostring(err)) end
  if doc == null then doc = {} end                 -- Firebase's empty collection
  if not is_object(doc) then return fail(502, "not an object") end

  local keys, n = {}, 0
  for k in pairs(doc) do n = n + 1; keys[n] = k end
  sort(keys)                                       -- LuaJIT compares strings bytewise
  local out, m = {}, 0
  for i = 1, n do
    local key = keys[i]
    local r = doc[key]
    -- a member that is not an object would become {objectId, value}: no name, so dropped
    if is_object(r) and valid(key, r) then
      r.objectId = key
      m = m + 1
      out[m] = r
    end
  end
  local body = m == 0 and '{"objects":[]}' or encode({ objects = out })
  ngx.header["Content-Length"] = #body             -- as the other peers do, instead of chunked
  ngx.print(body)
end

return M
