-- wrk's script for the trigger bench (bench/senders.ts): each request is the next of the raw HTTP
-- requests in the file named after `--`, made and signed before the phase. Each record is ten digits
-- giving its length, then the request's bytes. When they run out they start over; the bench refuses
-- an intake phase that completed more requests than the file holds, since those were repeats.
local requests, count, sent

function init(args)
  local file = assert(io.open(args[1], "rb"))
  local data = file:read("*a")
  file:close()
  requests, count, sent = {}, 0, 0
  local at = 1
  while at <= #data do
    local length = tonumber(data:sub(at, at + 9))
    count = count + 1
    requests[count] = data:sub(at + 10, at + 9 + length)
    at = at + 10 + length
  end
end

function request()
  sent = sent + 1
  return requests[(sent - 1) % count + 1]
end

function done(summary)
  io.write(string.format('{"completed":%d,"non2xx":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"us":%d}\n',
    summary.requests, summary.errors.status, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.timeout, summary.duration))
end
