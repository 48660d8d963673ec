-- bench/post.lua: wrk script for figure (1), one alert per request.
--
--   BENCH_TARGET=alertd wrk -t2 -c64 -d10s -s bench/post.lua http://127.0.0.1:PORT
--   BENCH_TARGET=alertmanager wrk ... (POST /api/v2/alerts, an array of one)
--
-- Every alert is distinct (its bench_id label is "<thread>-<n>"), so neither
-- side can fold requests together: alertd stores a new alert each time and
-- Alertmanager starts a new group (the bench route groups by every label).
-- At the end one line "BENCHJSON {...}" carries the numbers run.sh keeps.

local target = os.getenv("BENCH_TARGET") or "alertd"
local headers = { ["Content-Type"] = "application/json" }
local threads = {}
local next_thread = 1

function setup(thread)
  thread:set("tid", next_thread)
  next_thread = next_thread + 1
  table.insert(threads, thread)
end

local counter = 0
local prefix

function init(args)
  prefix = "w" .. tostring(tid) .. "-"
end

function request()
  counter = counter + 1
  local id = prefix .. counter
  if target == "alertmanager" then
    local body = '[{"labels":{"alertname":"BenchIngest","severity":"warning","bench_id":"' .. id ..
      '"},"annotations":{"summary":"Bench alert ' .. id .. '"}}]'
    return wrk.format("POST", "/api/v2/alerts", headers, body)
  end
  local body = '{"title":"Bench alert ' .. id ..
    '","severity":"warning","labels":{"alertname":"BenchIngest","bench_id":"' .. id .. '"}}'
  return wrk.format("POST", "/v1/alerts", headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {"requests":%d,"duration_us":%d,"errors_connect":%d,"errors_read":%d,"errors_write":%d,' ..
    '"errors_status":%d,"errors_timeout":%d,"latency_p50_us":%d,"latency_p99_us":%d,"latency_mean_us":%.1f,' ..
    '"latency_max_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max))
end
