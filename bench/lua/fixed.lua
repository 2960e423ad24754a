-- One fixed request (method, path, body from the environment), repeated.
local method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")
local auth = os.getenv("BENCH_TOKEN")

function init(args)
  local headers = {}
  if body then headers["Content-Type"] = "application/json" end
  if auth then headers["Authorization"] = "Bearer " .. auth end
  req = wrk.format(method, nil, headers, body)
end

function request() return req end

function response(status, headers, body) count(status) end
