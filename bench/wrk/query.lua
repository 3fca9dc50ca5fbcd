-- query.lua - Query returning the 10 items of one partition key of
-- bench_range (pk S, sk N), loaded with 10 items per key by bench/run.sh.
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

local qkeys = tonumber(os.getenv("BENCH_QUERY_KEYS") or "10")
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.Query"

request = function()
    local body = string.format(
        '{"TableName":"bench_range","KeyConditionExpression":"pk = :p",' ..
        '"ExpressionAttributeValues":{":p":{"S":"q%d"}}}',
        math.random(0, qkeys - 1))
    return wrk.format(nil, nil, nil, body)
end
