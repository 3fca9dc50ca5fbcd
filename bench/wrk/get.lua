-- get.lua - GetItem of a random key of BENCH_KEYS from bench_hash
-- (loaded beforehand with put.lua).
-- common.lua sits next to this script (bench/run.sh runs wrk from the root).
local common = dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") ..
                      "common.lua")
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.GetItem"

request = function()
    local body = string.format(
        '{"TableName":"bench_hash","Key":{"pk":{"S":"k%d"}}}',
        math.random(0, common.keys - 1))
    return wrk.format(nil, nil, nil, body)
end
