-- Shared by every wrk script: counts answers by status per thread and prints one JSON line.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_no", #threads)
end

counts = {}

function count(status)
  local key = tostring(status)
  counts[key] = (counts[key] or 0) + 1
end

function header(headers, name)
  return headers[name] or headers[string.lower(name)]
end

function done(summary, latency, requests)
  local agg = {}
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("counts")) do agg[k] = (agg[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(agg) do table.insert(parts, string.format('"%s":%d', k, v)) end
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"errors":%d,"statuses":{%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, table.concat(parts, ",")))
end
