-- wrk script for bench/load.py: the request comes from the environment, the summary goes out
-- as one JSON line that load.py parses.
--   BENCH_BODY_FILE   JSON body to POST (unset: GET the URL's path, with the -H headers)
--   BENCH_MISS_EVERY  every n-th request of a thread is sent with Cache-Control: no-cache
--                     (0: never; 1: always; 10: 10 % of the requests)

local body_file = os.getenv("BENCH_BODY_FILE")
local miss_every = tonumber(os.getenv("BENCH_MISS_EVERY") or "0") or 0
local plain_request, miss_request
local sent = 0

function init(args)
  if body_file ~= nil and body_file ~= "" then
    local file = assert(io.open(body_file, "rb"))
    local body = file:read("*a")
    file:close()
    plain_request = wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
    miss_request = wrk.format(
      "POST", nil, {["Content-Type"] = "application/json", ["Cache-Control"] = "no-cache"}, body
    )
  else
    plain_request = wrk.format("GET")  -- wrk's own headers: Host and any -H
    miss_request = plain_request
  end
end

function request()
  sent = sent + 1
  if miss_every > 0 and sent % miss_every == 0 then
    return miss_request
  end
  return plain_request
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,' ..
    '"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, errors.connect, errors.read, errors.write,
    errors.status, errors.timeout, latency:percentile(50), latency:percentile(99), latency.max
  ))
end
