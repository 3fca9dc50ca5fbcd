-- put.lua - PutItem of a ~100-byte item under a random key of BENCH_KEYS
-- (table bench_hash, partition key pk S). Also used to load the table.
-- common.lua sits next to this script (bench/run.sh runs wrk from the root).
local common = dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") ..
                      "common.lua")
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.PutItem"

request = function()
    local k = common.key()
    local body = string.format(
        '{"TableName":"bench_hash","Item":{"pk":{"S":"k%d"},"v":{"S":"%s"},"n":{"N":"%d"}}}',
        k, common.value, k)
    return wrk.format(nil, nil, nil, body)
end
