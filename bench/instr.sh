#!/bin/sh
# SPDX-License-Identifier: MIT
# instr.sh - instructions per request, counted by callgrind: the
# yardstick that other processes on a shared machine cannot disturb.
# Each binary runs under valgrind once per workload (data on disk, one
# thread, --throttle off); one keep-alive client creates the tables,
# loads 200 items, then sends N requests of the workload. A run with no
# workload requests is subtracted, so what remains is N requests' worth.
# Counts user-space instructions only: system calls (the socket and the
# WAL writes) are not in them; bench/run.sh measures those.
#
# Usage: bench/instr.sh [-n N] [-w "put update get query"] BINARY...
# Prints "BINARY WORKLOAD INSTRUCTIONS-PER-REQUEST" lines.
# Environment: INSTR_KEEP (a directory that receives each run's callgrind
# profile as BINARY-NAME.WORKLOAD.cg, for callgrind_annotate --inclusive),
# INSTR_SERVER_ARGS (more server options, after the ones above, so that
# "--throttle on --partition-wcu 1000000000 ..." measures metering and
# admission with limits never reached).
# Exit 77 when valgrind is missing.

set -u

N=1000
WORKLOADS="put update get query"
while getopts "n:w:h" opt; do
    case $opt in
    n) N=$OPTARG ;;
    w) WORKLOADS=$OPTARG ;;
    *) sed -n '2,19p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { sed -n '2,19p' "$0"; exit 2; }
command -v valgrind >/dev/null 2>&1 || {
    echo "instr: valgrind not found (apt-get install valgrind)" >&2
    exit 77
}

WORK=$(mktemp -d /tmp/shardlocal-instr.XXXXXX)
trap 'rm -rf "$WORK"' EXIT INT TERM

# total BINARY WORKLOAD: the program's instruction total for one run
total() {
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    rm -rf "$WORK/data" "$WORK/cg.out"
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" -q \
        "$1" --port "$port" --data-dir "$WORK/data" --throttle off \
        --threads 1 --log-level warn ${INSTR_SERVER_ARGS:-} >/dev/null 2>&1 &
    vp=$!
    python3 - "$port" "$2" "$N" <<'EOF'
import http.client, json, sys, time
port, workload, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "Authorization": "AWS4-HMAC-SHA256 Credential=BENCH/20250101/us-east-1/"
                     "dynamodb/aws4_request, SignedHeaders=content-type;"
                     "host;x-amz-date;x-amz-target, Signature=" + "0" * 64,
    "X-Amz-Date": "20250101T000000Z",
}
conn = None
def call(op, body):
    global conn
    if conn is None:
        conn = http.client.HTTPConnection("127.0.0.1", port)
    h = dict(HEADERS, **{"X-Amz-Target": "DynamoDB_20120810." + op})
    conn.request("POST", "/", body=json.dumps(body, separators=(",", ":")),
                 headers=h)
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        sys.exit("instr: %s answered %d: %s" % (op, r.status, data[:200]))
for _ in range(600):                    # valgrind starts slowly
    try:
        http.client.HTTPConnection("127.0.0.1", port).request("GET", "/")
        break
    except OSError:
        time.sleep(0.1)
def table(name, keys):
    defs = [{"AttributeName": k, "AttributeType": t} for k, t, _ in keys]
    schema = [{"AttributeName": k, "KeyType": kt} for k, _, kt in keys]
    call("CreateTable", {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                         "AttributeDefinitions": defs, "KeySchema": schema})
table("bench_hash", [("pk", "S", "HASH")])
table("bench_range", [("pk", "S", "HASH"), ("sk", "N", "RANGE")])
v = {"S": "v" * 100}
for i in range(200):
    call("PutItem", {"TableName": "bench_hash",
                     "Item": {"pk": {"S": "k%d" % i}, "v": v}})
for q in range(10):
    for s in range(10):
        call("PutItem", {"TableName": "bench_range",
                         "Item": {"pk": {"S": "q%d" % q},
                                  "sk": {"N": str(s)}, "v": v}})
for i in range(n if workload != "none" else 0):
    key = {"pk": {"S": "k%d" % (i % 200)}}
    if workload == "put":
        call("PutItem", {"TableName": "bench_hash",
                         "Item": dict(key, v=v, n={"N": str(i)})})
    elif workload == "get":
        call("GetItem", {"TableName": "bench_hash", "Key": key})
    elif workload == "update":
        call("UpdateItem", {"TableName": "bench_hash", "Key": key,
                            "UpdateExpression": "ADD c :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}})
    elif workload == "query":
        call("Query", {"TableName": "bench_range",
                       "KeyConditionExpression": "pk = :p",
                       "ExpressionAttributeValues":
                           {":p": {"S": "q%d" % (i % 10)}}})
EOF
    kill -INT "$vp"
    wait "$vp"
    [ -z "${INSTR_KEEP:-}" ] ||
        cp "$WORK/cg.out" "$INSTR_KEEP/$(basename "$1").$2.cg"
    callgrind_annotate "$WORK/cg.out" 2>/dev/null |
        awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}

for bin in "$@"; do
    base=$(total "$bin" none)
    for w in $WORKLOADS; do
        t=$(total "$bin" "$w")
        echo "$bin $w $(( (t - base) / N ))"
    done
done
