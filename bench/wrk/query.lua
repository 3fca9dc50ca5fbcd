-- query.lua - Query returning the 10 items of one partition key of
-- bench_range (pk S, sk N), loaded with 10 items per key by bench/run.sh.
-- common.lua sits next to this script (bench/run.sh runs wrk from the root).
local common = dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") ..
                      "common.lua")
local qkeys = tonumber(os.getenv("BENCH_QUERY_KEYS") or "10")
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.Query"

request = function()
    local body = string.format(
        '{"TableName":"bench_range","KeyConditionExpression":"pk = :p",' ..
        '"ExpressionAttributeValues":{":p":{"S":"q%d"}}}',
        math.random(0, qkeys - 1))
    return wrk.format(nil, nil, nil, body)
end
