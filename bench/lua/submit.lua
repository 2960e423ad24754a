-- Submissions with If-Match advancing each game's version. BENCH_GAMES names a file of lines
-- "game token unit hexA hexB etag"; thread n of BENCH_THREADS takes every n-th game and sends
-- to its games in turn (the umpire puts the unit in hexA, then hexB, ...). A 412 names the
-- current version in its ETag; when it does not, the next request re-reads the game.
local nthreads = tonumber(os.getenv("BENCH_THREADS") or "1")
local prefer = os.getenv("BENCH_PREFER")  -- e.g. "return=minimal"

function init(args)
  games, byid, idx = {}, {}, 0
  local i = 0
  for line in io.lines(os.getenv("BENCH_GAMES")) do
    if (i % nthreads) + 1 == thread_no then
      local id, token, unit, a, b, etag = line:match("(%S+) (%S+) (%S+) (%S+) (%S+) (.+)")
      local g = {id = id, token = token, unit = unit, a = a, b = b, etag = etag, flip = false}
      table.insert(games, g)
      byid[id] = g
    end
    i = i + 1
  end
end

function request()
  idx = idx % #games + 1
  local g = games[idx]
  if g.stale then
    g.stale = false
    return wrk.format("GET", "/games/" .. g.id, {["Authorization"] = "Bearer " .. g.token})
  end
  g.flip = not g.flip
  local body = string.format('{"kind":"place_unit","unit":"%s","hex":"%s"}', g.unit,
                             g.flip and g.a or g.b)
  local headers = {["Content-Type"] = "application/json",
                   ["Authorization"] = "Bearer " .. g.token, ["If-Match"] = g.etag}
  if prefer then headers["Prefer"] = prefer end
  return wrk.format("POST", "/games/" .. g.id .. "/actions", headers, body)
end

function response(status, headers, body)
  count(status)
  local id
  if status == 201 then
    id = (header(headers, "Location") or ""):match("/games/([^/]+)/")
  elseif status == 412 then
    id = body:match('"instance":"/games/([^/"]+)/')
  elseif status == 200 then
    id = body:match('"id":"([^"]+)"')
  end
  local g = id and byid[id]
  if g then
    local etag = header(headers, "ETag")
    if etag then g.etag = etag else g.stale = true end
  end
end
