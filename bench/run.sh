#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - throughput benchmark. Builds what it needs, then runs every
# workload (bench/wrk/*.lua: put, get, query, update, mix) against every
# target in one invocation and prints req/s with the ratio to the canned
# HTTP ceiling (bench/canned: libmicrohttpd answering a fixed GetItem).
#
# Targets: canned, shardlocal (--in-memory), shardlocal-disk (temp data
# dir; both --throttle off), shardlocal-power (shardlocal-disk with
# --durability power-loss, not run by default), shardlocal-thr (temp data dir, throttling on
# but never triggered), base-disk (another shardlocal binary, -b, run as
# shardlocal-disk: a before/after comparison in one run), and moto
# (moto_server) and dynalite (npx dynalite) when installed. Servers and
# wrk are pinned to different CPUs with taskset.
#
# Usage: bench/run.sh [-d SECONDS] [-c CONNECTIONS] [-w "put get ..."]
#                     [-t "canned shardlocal ..."] [-b OTHER_SHARDLOCAL]
# Environment: BENCH_KEYS (10000), BENCH_VALUE_BYTES (100), BENCH_STREAM
# (a StreamViewType: the tables get a DynamoDB stream, to measure its
# cost; unset: none), DYNALITE_DIR
# (where node_modules/dynalite lives, default /tmp/dyn).
# Exit 77 when wrk is missing.

set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1

DURATION=10
CONNS=32
WORKLOADS="put get query update mix"
TARGETS="canned shardlocal shardlocal-disk shardlocal-thr moto dynalite"
BASE_BIN=""
while getopts "d:c:w:t:b:h" opt; do
    case $opt in
    d) DURATION=$OPTARG ;;
    c) CONNS=$OPTARG ;;
    w) WORKLOADS=$OPTARG ;;
    t) TARGETS=$OPTARG ;;
    b) BASE_BIN=$OPTARG
       case " $TARGETS " in *" base-disk "*) ;; *) TARGETS="$TARGETS base-disk" ;; esac ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
    esac
done
BENCH_KEYS=${BENCH_KEYS:-10000}
BENCH_VALUE_BYTES=${BENCH_VALUE_BYTES:-100}
DYNALITE_DIR=${DYNALITE_DIR:-/tmp/dyn}
export BENCH_KEYS BENCH_VALUE_BYTES

if ! command -v wrk >/dev/null 2>&1; then
    echo "bench: wrk not found (apt-get install wrk)" >&2
    exit 77
fi

WORK=$(mktemp -d /tmp/shardlocal-bench.XXXXXX)
RESULTS=$WORK/results
: >"$RESULTS"
PID=""
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# --- build -------------------------------------------------------------

if [ ! -f Makefile ]; then
    docker/build.sh || exit 1
fi
make -s bench/canned || { echo "bench: cannot build bench/canned" >&2; exit 1; }
if ! make -s shardlocal; then
    echo "bench: cannot build shardlocal: its targets are skipped" >&2
    rm -f shardlocal
fi

# --- CPU pinning: servers on the first half, wrk on the second --------

NCPU=$(nproc 2>/dev/null || echo 1)
if [ "$NCPU" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
    HALF=$((NCPU / 2))
    SRV_CPUS="0-$((HALF - 1))"
    WRK_CPUS="$HALF-$((NCPU - 1))"
    SRV_THREADS=$HALF
    WRK_THREADS=$((NCPU - HALF))
    PIN_SRV="taskset -c $SRV_CPUS"
    PIN_WRK="taskset -c $WRK_CPUS"
else
    SRV_THREADS=1
    WRK_THREADS=1
    PIN_SRV=""
    PIN_WRK=""
    echo "bench: 1 CPU or no taskset: server and wrk share CPUs" >&2
fi
[ "$WRK_THREADS" -gt "$CONNS" ] && WRK_THREADS=$CONNS

# --- helpers -----------------------------------------------------------

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_ready() {         # wait_ready PORT: until GET / answers (max 20 s)
    i=0
    while [ $i -lt 200 ]; do
        curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
        kill -0 "$PID" 2>/dev/null || return 1
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

ddb() {                # ddb PORT OP JSON: one API call, body on stdout
    curl -s "http://127.0.0.1:$1/" \
        -H 'Content-Type: application/x-amz-json-1.0' \
        -H "X-Amz-Target: DynamoDB_20120810.$2" \
        -H 'Authorization: AWS4-HMAC-SHA256 Credential=BENCH/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \
        -H 'X-Amz-Date: 20250101T000000Z' \
        --data-binary "$3"
}

wait_active() {        # wait_active PORT TABLE (max 30 s)
    i=0
    while [ $i -lt 300 ]; do
        ddb "$1" DescribeTable "{\"TableName\":\"$2\"}" |
            grep -Eq '"TableStatus": *"ACTIVE"' && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# start_target NAME: sets PORT and PID, returns non-zero if unavailable.
start_target() {
    PORT=$(free_port)
    case $1 in
    canned)
        $PIN_SRV bench/canned --port "$PORT" --threads "$SRV_THREADS" \
            2>"$WORK/$1.log" &
        ;;
    shardlocal)
        [ -x ./shardlocal ] || return 1
        $PIN_SRV ./shardlocal --port "$PORT" --in-memory --throttle off \
            --threads "$SRV_THREADS" --log-level warn 2>"$WORK/$1.log" &
        ;;
    shardlocal-disk|base-disk)
        bin=./shardlocal
        [ "$1" = base-disk ] && bin=$BASE_BIN
        [ -n "$bin" ] && [ -x "$bin" ] || return 1
        rm -rf "$WORK/data"; mkdir -p "$WORK/data"
        $PIN_SRV "$bin" --port "$PORT" --data-dir "$WORK/data" \
            --throttle off \
            --threads "$SRV_THREADS" --log-level warn 2>"$WORK/$1.log" &
        ;;
    shardlocal-power)
        # --durability power-loss: every commit fsynced (compare with
        # shardlocal-disk, the default process-crash durability).
        [ -x ./shardlocal ] || return 1
        rm -rf "$WORK/data"; mkdir -p "$WORK/data"
        $PIN_SRV ./shardlocal --port "$PORT" --data-dir "$WORK/data" \
            --throttle off --durability power-loss \
            --threads "$SRV_THREADS" --log-level warn 2>"$WORK/$1.log" &
        ;;
    shardlocal-thr)
        # Throttling on, with limits so high that it never triggers: the
        # cost of metering and admission alone (compare with
        # shardlocal-disk, which runs with --throttle off).
        [ -x ./shardlocal ] || return 1
        rm -rf "$WORK/data"; mkdir -p "$WORK/data"
        $PIN_SRV ./shardlocal --port "$PORT" --data-dir "$WORK/data" \
            --throttle on --partition-rcu 1000000000 \
            --partition-wcu 1000000000 \
            --ondemand-initial-rru 1000000000 \
            --ondemand-initial-wru 1000000000 \
            --ondemand-table-max-rru 1000000000 \
            --ondemand-table-max-wru 1000000000 \
            --threads "$SRV_THREADS" --log-level warn 2>"$WORK/$1.log" &
        ;;
    moto)
        command -v moto_server >/dev/null 2>&1 || return 1
        $PIN_SRV moto_server -p "$PORT" >"$WORK/$1.log" 2>&1 &
        ;;
    dynalite)
        if [ -x "$DYNALITE_DIR/node_modules/.bin/dynalite" ]; then
            $PIN_SRV "$DYNALITE_DIR/node_modules/.bin/dynalite" \
                --port "$PORT" >"$WORK/$1.log" 2>&1 &
        elif [ -x node_modules/.bin/dynalite ]; then
            $PIN_SRV node_modules/.bin/dynalite --port "$PORT" \
                >"$WORK/$1.log" 2>&1 &
        else
            return 1
        fi
        ;;
    *)
        echo "bench: unknown target $1" >&2
        return 1
        ;;
    esac
    PID=$!
    wait_ready "$PORT" || { stop_target; return 1; }
}

stop_target() {
    [ -n "$PID" ] || return 0
    kill "$PID" 2>/dev/null
    wait "$PID" 2>/dev/null
    PID=""
}

# Tables and data every workload needs (not for canned).
load_data() {
    stream=
    [ -z "${BENCH_STREAM:-}" ] ||
        stream=",\"StreamSpecification\":{\"StreamEnabled\":true,\"StreamViewType\":\"$BENCH_STREAM\"}"
    ddb "$1" CreateTable '{"TableName":"bench_hash","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]'"$stream}" >/dev/null
    ddb "$1" CreateTable '{"TableName":"bench_range","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]'"$stream}" >/dev/null
    wait_active "$1" bench_hash && wait_active "$1" bench_range || return 1
    q=0
    while [ $q -lt 10 ]; do
        s=0
        while [ $s -lt 10 ]; do
            ddb "$1" PutItem "{\"TableName\":\"bench_range\",\"Item\":{\"pk\":{\"S\":\"q$q\"},\"sk\":{\"N\":\"$s\"},\"v\":{\"S\":\"$(printf '%*s' 100 '' | tr ' ' v)\"}}}" >/dev/null
            s=$((s + 1))
        done
        q=$((q + 1))
    done
    # Fill most of the key space for get/update/mix.
    $PIN_WRK wrk -t"$WRK_THREADS" -c"$CONNS" -d3s -s bench/wrk/put.lua \
        "http://127.0.0.1:$1/" >/dev/null 2>&1
}

# run_wrk TARGET WORKLOAD PORT: append "target workload rps errors".
run_wrk() {
    out=$($PIN_WRK wrk -t"$WRK_THREADS" -c"$CONNS" -d"${DURATION}s" \
          -s "bench/wrk/$2.lua" "http://127.0.0.1:$3/" 2>&1)
    rps=$(printf '%s\n' "$out" | awk '/^Requests\/sec:/ {printf "%d", $2}')
    errs=$(printf '%s\n' "$out" | awk '/Non-2xx or 3xx responses:/ {print $5}')
    [ -n "$rps" ] || rps=0
    [ -n "$errs" ] || errs=0
    echo "$1 $2 $rps $errs" >>"$RESULTS"
    printf '  %-16s %-8s %8s req/s  %s errors\n' "$1" "$2" "$rps" "$errs"
}

# --- run ---------------------------------------------------------------

echo "bench: ${DURATION}s per run, $CONNS connections, server CPUs" \
     "${SRV_CPUS:-all} ($SRV_THREADS threads), wrk CPUs ${WRK_CPUS:-all}"
RAN=""
for t in $TARGETS; do
    if ! start_target "$t"; then
        echo "bench: $t not available, skipped"
        continue
    fi
    if [ "$t" != canned ] && ! load_data "$PORT"; then
        echo "bench: $t: could not create the tables, skipped"
        stop_target
        continue
    fi
    RAN="$RAN $t"
    for w in $WORKLOADS; do
        run_wrk "$t" "$w" "$PORT"
    done
    stop_target
done

# --- table -------------------------------------------------------------

echo
printf '%-8s' "req/s"
for t in $RAN; do printf ' %22s' "$t"; done
echo
for w in $WORKLOADS; do
    printf '%-8s' "$w"
    ceil=$(awk -v w="$w" '$1 == "canned" && $2 == w {print $3}' "$RESULTS")
    for t in $RAN; do
        awk -v t="$t" -v w="$w" -v c="${ceil:-0}" '
            $1 == t && $2 == w {
                cell = $3
                if (c > 0 && t != "canned") cell = sprintf("%d (%.0f%%)", $3, 100 * $3 / c)
                if ($4 > 0) cell = cell " !" $4
                printf " %22s", cell
            }' "$RESULTS"
    done
    echo
done
echo
echo "(n%) = share of the canned HTTP ceiling; !N = N non-2xx responses"
