-- update.lua - UpdateItem ADD 1 to a counter under a random key of
-- BENCH_KEYS in bench_hash (read-modify-write on the server).
-- common.lua sits next to this script (bench/run.sh runs wrk from the root).
local common = dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") ..
                      "common.lua")
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.UpdateItem"

request = function()
    local body = string.format(
        '{"TableName":"bench_hash","Key":{"pk":{"S":"k%d"}},' ..
        '"UpdateExpression":"ADD c :one",' ..
        '"ExpressionAttributeValues":{":one":{"N":"1"}}}',
        math.random(0, common.keys - 1))
    return wrk.format(nil, nil, nil, body)
end
