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

return common
