-- common.lua - what every workload shares, loaded first with dofile():
-- the POST to "/" with DynamoDB's JSON headers and a dummy SigV4
-- Authorization, BENCH_KEYS/BENCH_VALUE_BYTES, and a per-thread seed.
-- Returns { keys = n, value = "vvv...", with_target = fn }.
wrk.method = "POST"
wrk.path = "/"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=BENCH/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0000000000000000000000000000000000000000000000000000000000000000"
wrk.headers["X-Amz-Date"] = "20250101T000000Z"

function init(args)
    -- each wrk thread has its own Lua state: seed each differently
    math.randomseed(os.time() + math.floor(os.clock() * 1000000) +
                    tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 1000003)
end

local common = {
    keys = tonumber(os.getenv("BENCH_KEYS") or "10000"),
    value = string.rep("v", tonumber(os.getenv("BENCH_VALUE_BYTES") or "100")),
}

-- The shared headers plus X-Amz-Target for op, as a new table: wrk.format()
-- replaces wrk.headers when given one, so a workload sending several
-- operations passes a copy per operation.
function common.with_target(op)
    local h = {}
    for k, v in pairs(wrk.headers) do h[k] = v end
    h["X-Amz-Target"] = "DynamoDB_20120810." .. op
    return h
end

-- BENCH_STOP_AFTER=N: each wrk thread stops sending after N responses
-- (bench/rss.sh runs exact request counts with it; wrk itself still ends
-- at -d).
local stop_after = tonumber(os.getenv("BENCH_STOP_AFTER") or "0")
if stop_after > 0 then
    local seen = 0
    response = function()
        seen = seen + 1
        if seen >= stop_after then wrk.thread:stop() end
    end
end

-- BENCH_SEQ=1: common.key() returns BENCH_SEQ_FROM (0), then the next
-- ones (wrapping at keys) instead of random keys, so a load writes every
-- key once.
local seq_next = tonumber(os.getenv("BENCH_SEQ_FROM") or "0") - 1
function common.key()
    if os.getenv("BENCH_SEQ") == "1" then
        seq_next = (seq_next + 1) % common.keys
        return seq_next
    end
    return math.random(0, common.keys - 1)
end

return common
