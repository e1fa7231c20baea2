-- The soak mix for wrk: rotates over reads, writes, auth failures, a rate-limited route, cache hits and misses, and
-- sessions. Arguments (after --): the session cookies to rotate, comma-separated. Prints one JSON line in done().
local counter = 0
local cookies = {}
local threads = {}

local function req(method, path, headers, body)
  return { method = method, path = path, headers = headers or {}, body = body }
end

local mix = {
  req("GET", "/health"),
  req("GET", "/users?page=2&limit=10"),
  req("GET", "/users/1"),
  req("GET", "/api/users"),
  req("POST", "/users", { ["Content-Type"] = "application/json" }, '{"name":"Ada","email":"ada@example.com"}'),
  req("POST", "/auth/register", { ["Content-Type"] = "application/json" }, '{"email":"soak@example.com","password":"soak-password-1","confirm":"soak-password-1"}'), -- 201, then 409
  req("POST", "/auth/login", { ["Content-Type"] = "application/json" }, '{"email":"soak@example.com","password":"wrong-password"}'), -- 401
  req("GET", "/key/secure"),                                                  -- 401: no key
  req("GET", "/jwt/secure", { ["Authorization"] = "Bearer not.a.token" }),    -- 401: bad token
  req("GET", "/auth/me"),                                                     -- 401: no token
  req("GET", "/security/api/ping"),                                           -- 60 a minute, then 429
  req("GET", "/cache/data"),                                                  -- mostly hits
  req("GET", "/cache/data?miss="),                                            -- 1,000 keys in turn: a miss whenever a key is past its ttl
  req("GET", "/session"),                                                     -- with a cookie: a session read and write
  req("GET", "/log/orders/42"),
}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for c in string.gmatch(args[1] or "", "[^,]+") do table.insert(cookies, c) end
  statuses = {}
end

function request()
  counter = counter + 1
  local r = mix[(counter % #mix) + 1]
  local headers = {}
  for k, v in pairs(r.headers) do headers[k] = v end
  local path = r.path
  -- 1,000 keys in turn: each misses again once its 5 s ttl is over, and the cache stays bounded, so RSS can level off.
  if path == "/cache/data?miss=" then path = path .. (counter % 1000) end
  if path == "/session" and #cookies > 0 then headers["Cookie"] = cookies[(counter % #cookies) + 1] end
  return wrk.format(r.method, path, headers, r.body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local by_status = {}
  for _, t in ipairs(threads) do
    local s = t:get("statuses")
    for code, n in pairs(s) do by_status[code] = (by_status[code] or 0) + n end
  end
  local parts = {}
  for code, n in pairs(by_status) do table.insert(parts, string.format('"%d":%d', code, n)) end
  io.write(string.format('{"requests":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d,"statuses":{%s}}\n',
    summary.requests, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max, table.concat(parts, ",")))
end
