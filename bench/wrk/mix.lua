-- mix.lua - 80% GetItem / 20% PutItem on random keys of bench_hash.
wrk.method = "POST"
wrk.path = "/"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=BENCH/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0000000000000000000000000000000000000000000000000000000000000000"
wrk.headers["X-Amz-Date"] = "20250101T000000Z"
local keys = tonumber(os.getenv("BENCH_KEYS") or "10000")
local value = string.rep("v", tonumber(os.getenv("BENCH_VALUE_BYTES") or "100"))

function init(args)
    -- each wrk thread has its own Lua state: seed each differently
    math.randomseed(os.time() + math.floor(os.clock() * 1000000) +
                    tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 1000003)
end

-- wrk.format() replaces wrk.headers when given a table: copy them.
local function with_target(op)
    local h = {}
    for k, v in pairs(wrk.headers) do h[k] = v end
    h["X-Amz-Target"] = "DynamoDB_20120810." .. op
    return h
end
local get_headers = with_target("GetItem")
local put_headers = with_target("PutItem")

request = function()
    local k = math.random(0, keys - 1)
    if math.random(1, 100) <= 80 then
        return wrk.format(nil, nil, get_headers, string.format(
            '{"TableName":"bench_hash","Key":{"pk":{"S":"k%d"}}}', k))
    end
    return wrk.format(nil, nil, put_headers, string.format(
        '{"TableName":"bench_hash","Item":{"pk":{"S":"k%d"},"v":{"S":"%s"},"n":{"N":"%d"}}}',
        k, value, k))
end
