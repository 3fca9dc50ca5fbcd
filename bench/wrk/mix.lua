-- mix.lua - 80% GetItem / 20% PutItem on random keys of bench_hash.
-- common.lua sits next to this script (bench/run.sh runs wrk from the root).
local common = dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") ..
                      "common.lua")
local get_headers = common.with_target("GetItem")
local put_headers = common.with_target("PutItem")

request = function()
    local k = math.random(0, common.keys - 1)
    if math.random(1, 100) <= 80 then
        return wrk.format(nil, nil, get_headers, string.format(
            '{"TableName":"bench_hash","Key":{"pk":{"S":"k%d"}}}', k))
    end
    return wrk.format(nil, nil, put_headers, string.format(
        '{"TableName":"bench_hash","Item":{"pk":{"S":"k%d"},"v":{"S":"%s"},"n":{"N":"%d"}}}',
        k, common.value, k))
end
