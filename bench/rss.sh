#!/bin/sh
# SPDX-License-Identifier: MIT
# rss.sh - memory benchmark: the server's resident set size (VmRSS) after
# loading N items (each key written once, sequentially) and again after M
# further mixed requests (bench/wrk/mix.lua: 80% GetItem, 20% PutItem over
# the same keys). Data on disk, --throttle off, one server thread pinned to
# the first CPU, wrk (one thread, 32 connections) on the second.
#
# Usage: bench/rss.sh [-n ITEMS] [-m REQUESTS] [-b BYTES] [-x SHARDLOCAL]
#   defaults: 100000 items of 200 bytes, 1000000 requests, ./shardlocal
# Prints "rss_after_load_kb N" and "rss_after_mix_kb N". Exit 77 when wrk
# is missing.

set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
ITEMS=100000
REQS=1000000
BYTES=200
BIN=./shardlocal
while getopts "n:m:b:x:h" opt; do
    case $opt in
    n) ITEMS=$OPTARG ;;
    m) REQS=$OPTARG ;;
    b) BYTES=$OPTARG ;;
    x) BIN=$OPTARG ;;
    *) sed -n '2,13p' "$0"; exit 2 ;;
    esac
done
command -v wrk >/dev/null 2>&1 || { echo "rss: wrk not found" >&2; exit 77; }

WORK=$(mktemp -d /tmp/shardlocal-rss.XXXXXX)
PID=""
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

PIN_SRV="" PIN_WRK=""
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
    PIN_SRV="taskset -c 0"
    PIN_WRK="taskset -c 1"
fi
$PIN_SRV "$BIN" --port 0 --port-file "$WORK/port" --data-dir "$WORK/data" \
    --throttle off --threads 1 --log-level warn 2>"$WORK/log" &
PID=$!
i=0
while [ ! -s "$WORK/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(cat "$WORK/port") || exit 1
URL="http://127.0.0.1:$PORT/"

curl -s "$URL" -H 'Content-Type: application/x-amz-json-1.0' \
    -H 'X-Amz-Target: DynamoDB_20120810.CreateTable' \
    -H 'Authorization: AWS4-HMAC-SHA256 Credential=BENCH/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \
    -H 'X-Amz-Date: 20250101T000000Z' \
    --data-binary '{"TableName":"bench_hash","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}' \
    >/dev/null
sleep 1

rss() { awk '/^VmRSS:/ {print $2}' "/proc/$PID/status"; }

# run_count WORKLOAD N [ENV...]: N requests of WORKLOAD in 10-second wrk
# runs (wrk ends at -d even when its thread stopped early); one wrk
# thread, so BENCH_STOP_AFTER counts them all. The keys go on from one run
# to the next with BENCH_SEQ_FROM.
run_count() {
    w=$1 left=$2 done_n=0
    shift 2
    while [ "$left" -gt 0 ]; do
        env BENCH_KEYS="$ITEMS" BENCH_VALUE_BYTES="$BYTES" \
            BENCH_STOP_AFTER="$left" BENCH_SEQ_FROM="$done_n" "$@" \
            $PIN_WRK wrk -t1 -c32 -d10s -s "bench/wrk/$w.lua" "$URL" \
            >"$WORK/wrk.out" 2>&1
        n=$(awk '/requests in/ {print $1}' "$WORK/wrk.out")
        [ -n "$n" ] && [ "$n" -gt 0 ] || { cat "$WORK/wrk.out" >&2; exit 1; }
        done_n=$((done_n + n))
        left=$((left - n))
    done
}

run_count put "$ITEMS" BENCH_SEQ=1
echo "rss_after_load_kb $(rss)"
run_count mix "$REQS"
echo "rss_after_mix_kb $(rss)"
