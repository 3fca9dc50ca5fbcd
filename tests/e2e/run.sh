#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - end-to-end suites with real clients (boto3, AWS CLI v1/v2, JS SDK
# v3) against a freshly started shardlocal. Run by `make check`.
#
# Environment: top_srcdir/top_builddir (set by make). SHARDLOCAL_ENDPOINT,
# if set, targets an already running server instead of starting one.
# E2E_SUITES (default "py py-old cli cli-auth js throttle") picks suites.
# Exit 0 pass, 1 fail, 77 when nothing at all could run.

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
srcdir=$(cd "$srcdir" && pwd)
builddir=$(cd "$builddir" && pwd)
E2E=$srcdir/tests/e2e
SUITES=${E2E_SUITES:-"py py-old cli cli-auth js throttle"}

# Dummy credentials: the clients sign, the local server does not check.
AWS_ACCESS_KEY_ID=AKIDEXAMPLE
AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY
AWS_DEFAULT_REGION=us-east-1
AWS_REGION=us-east-1
AWS_PAGER=
AWS_CONFIG_FILE=/dev/null
AWS_SHARED_CREDENTIALS_FILE=/dev/null
AWS_EC2_METADATA_DISABLED=true
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_DEFAULT_REGION AWS_REGION \
    AWS_PAGER AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE \
    AWS_EC2_METADATA_DISABLED
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_DYNAMODB

tmp=$(mktemp -d "${TMPDIR:-/tmp}/shardlocal-e2e.XXXXXX") || exit 1
results=$tmp/results
: > "$results"
server_pid=

cleanup() {
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null
        i=0
        while kill -0 "$server_pid" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1; i=$((i + 1))
        done
        kill -KILL "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# health URL -> 0 when GET / answers 200
health() {
    "$PY" - "$1" <<'PYEOF' >/dev/null 2>&1
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1] + "/", timeout=2) as r:
    sys.exit(0 if r.status == 200 else 1)
PYEOF
}

# Pick the Pythons that can import boto3: pyenv's (new) first, Debian's.
PY=
PY_OLD=
for p in python3 /usr/bin/python3; do
    command -v "$p" >/dev/null 2>&1 || continue
    "$p" -c 'import boto3' >/dev/null 2>&1 || continue
    if [ -z "$PY" ]; then
        PY=$p
    elif [ "$("$p" -c 'import sys; print(sys.executable)')" != \
           "$("$PY" -c 'import sys; print(sys.executable)')" ]; then
        PY_OLD=$p
    fi
done
if [ -z "$PY" ]; then
    echo "run.sh: no python3 with boto3" >&2
    # The JS suite could still run, but we need python for the harness.
    echo "0 passed, 0 failed, 0 skipped"
    exit 77
fi

# --- start the server --------------------------------------------------------
if [ -z "$SHARDLOCAL_ENDPOINT" ]; then
    bin=$builddir/shardlocal
    if [ ! -x "$bin" ]; then
        echo "run.sh: $bin not built" >&2
        exit 77
    fi
    mkdir "$tmp/data"
    # Four workers: the transaction-conflict tests hold one in a pause
    # while others must answer, even on a loaded 2-CPU machine.
    "$bin" --port 0 --host 127.0.0.1 --port-file "$tmp/port" --threads 4 \
        --data-dir "$tmp/data" > "$tmp/server.log" 2>&1 &
    server_pid=$!
    i=0
    while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do
        if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
        sleep 0.05; i=$((i + 1))
    done
    if [ ! -s "$tmp/port" ]; then
        echo "run.sh: server did not write $tmp/port; its log:" >&2
        cat "$tmp/server.log" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
    sleep 0.05      # the port file may be written before the final newline
    port=$(tr -dc 0-9 < "$tmp/port")
    SHARDLOCAL_ENDPOINT=http://127.0.0.1:$port
    i=0
    until health "$SHARDLOCAL_ENDPOINT"; do
        i=$((i + 1))
        if [ $i -ge 100 ] || ! kill -0 "$server_pid" 2>/dev/null; then
            echo "run.sh: GET / never answered 200; server log:" >&2
            cat "$tmp/server.log" >&2
            echo "0 passed, 1 failed"
            exit 1
        fi
        sleep 0.05
    done
    SHARDLOCAL_BIN=$bin
    export SHARDLOCAL_BIN
fi
export SHARDLOCAL_ENDPOINT
echo "run.sh: testing $SHARDLOCAL_ENDPOINT"

# --- suites ------------------------------------------------------------------
# A hung server must not hang `make check`: cap each suite.
LIMIT=
if command -v timeout >/dev/null 2>&1; then
    LIMIT="timeout ${E2E_SUITE_TIMEOUT:-600}"
fi
# Every tests/e2e/test_*.py runs in the py suites; the ones below start
# their own servers or need a newer client, so only the py suite runs them
# (test_throttling, test_bursts and test_keyhash have their own "throttle"
# line in the summary).
PY_OWN_SERVER="test_protocol test_durability test_lifecycle test_throttling"
PY_OWN_SERVER="$PY_OWN_SERVER test_demo test_disk_full test_connections"
PY_OWN_SERVER="$PY_OWN_SERVER test_bursts test_keyhash test_streams_clock"
PY_OWN_SERVER="$PY_OWN_SERVER test_live_view test_pytest_plugin test_node_helper"
PY_OWN_SERVER="$PY_OWN_SERVER test_backup_durability test_pitr"
PY_OWN_SERVER="$PY_OWN_SERVER test_vector_durability test_vector_lifecycle"
PY_MODULES=
for f in "$E2E"/test_*.py; do
    m=$(basename "$f" .py)
    case " $PY_OWN_SERVER " in
    *" $m "*) ;;
    *) PY_MODULES="$PY_MODULES $m" ;;
    esac
done

run_py() {   # label python modules...
    label=$1; py=$2; shift 2
    echo "=== $label ($py)"
    (cd "$E2E" && $LIMIT "$py" -u e2e_runner.py "$label" "$@") \
        > "$tmp/$label.out" 2>&1
    cat "$tmp/$label.out"
    line=$(grep '^E2E-RESULT ' "$tmp/$label.out" | tail -n 1)
    if [ -n "$line" ]; then
        echo "$line" >> "$results"
    else
        echo "E2E-RESULT $label 0 1 0" >> "$results"
    fi
}

for s in $SUITES; do
    case $s in
    py)
        run_py py "$PY" $PY_MODULES test_protocol test_durability \
            test_lifecycle test_demo test_disk_full test_connections \
            test_streams_clock test_live_view test_pytest_plugin \
            test_node_helper test_backup_durability test_pitr \
            test_vector_durability test_vector_lifecycle ;;
    py-old)
        if [ -n "$PY_OLD" ]; then
            run_py py-old "$PY_OLD" $PY_MODULES
        else
            echo "=== py-old: no second python with boto3, skipped"
        fi ;;
    cli)
        run_py cli "$PY" cli_test ;;
    cli-auth)       # the CLIs against servers of their own (--auth)
        run_py cli-auth "$PY" cli_signatures ;;
    throttle)       # its own line in the summary: DynamoDB's throttling
        run_py throttle "$PY" test_throttling test_bursts test_keyhash ;;
    js)
        echo "=== js"
        if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
            echo "node/npm missing: js suite skipped"
            echo "E2E-RESULT js 0 0 1" >> "$results"
            continue
        fi
        jsdir=$E2E/js
        if [ ! -d "$jsdir/node_modules/@aws-sdk/client-dynamodb" ] ||
           [ ! -d "$jsdir/node_modules/@aws-sdk/client-dynamodb-streams" ] ||
           [ ! -d "$jsdir/node_modules/@aws-sdk/lib-dynamodb" ]; then
            if [ ! -w "$jsdir" ]; then      # e.g. distcheck's read-only tree
                mkdir "$tmp/js" && cp "$jsdir"/*.mjs "$jsdir"/package*.json \
                    "$tmp/js/" && jsdir=$tmp/js
            fi
            if ! (cd "$jsdir" && npm install --no-audit --no-fund \
                    >"$tmp/npm.log" 2>&1); then
                cat "$tmp/npm.log"
                echo "npm install failed: js suite skipped"
                echo "E2E-RESULT js 0 0 1" >> "$results"
                continue
            fi
        fi
        (cd "$jsdir" && $LIMIT node --test --test-reporter=tap \
            --test-timeout=60000 ./*.test.mjs) \
            > "$tmp/js.out" 2>&1
        js_rc=$?
        cat "$tmp/js.out"
        p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$tmp/js.out" | tail -n 1)
        f=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$tmp/js.out" | tail -n 1)
        k=$(sed -n 's/^# skipped \([0-9]*\)$/\1/p' "$tmp/js.out" | tail -n 1)
        p=${p:-0}; f=${f:-0}; k=${k:-0}
        if [ "$js_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
        echo "E2E-RESULT js $p $f $k" >> "$results" ;;
    *)
        echo "run.sh: unknown suite $s" >&2
        echo "E2E-RESULT $s 0 1 0" >> "$results" ;;
    esac
done

# The server must have survived everything, and stop cleanly on SIGTERM.
if [ -n "$server_pid" ]; then
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "run.sh: the server died during the run; its log:" >&2
        tail -n 50 "$tmp/server.log" >&2
        echo "E2E-RESULT server-alive 0 1 0" >> "$results"
    else
        kill -TERM "$server_pid"
        i=0
        while kill -0 "$server_pid" 2>/dev/null && [ $i -lt 100 ]; do
            sleep 0.05; i=$((i + 1))
        done
        if kill -0 "$server_pid" 2>/dev/null; then
            echo "run.sh: the server ignored SIGTERM for 5 s" >&2
            echo "E2E-RESULT server-shutdown 0 1 0" >> "$results"
        else
            wait "$server_pid"
            rc=$?
            server_pid=
            if [ "$rc" -ne 0 ]; then
                echo "run.sh: the server exited $rc after SIGTERM" >&2
                echo "E2E-RESULT server-shutdown 0 1 0" >> "$results"
            fi
            # A sanitizer build reports errors on stderr without always
            # stopping the server: any report fails the run.
            if grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:" \
                    "$tmp/server.log" 2>/dev/null; then
                echo "run.sh: the server reported sanitizer errors:" >&2
                grep -A30 "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:" \
                    "$tmp/server.log" | head -n 80 >&2
                echo "E2E-RESULT server-sanitizer 0 1 0" >> "$results"
            fi
        fi
    fi
fi

echo "=== summary"
awk '{ printf "%-8s %d passed, %d failed, %d skipped\n", $2, $3, $4, $5 }' \
    "$results"
total=$(awk '{ p += $3; f += $4; k += $5 }
    END { printf "%d passed, %d failed, %d skipped", p, f, k }' "$results")
echo "$total"
failed=$(awk '{ f += $4 } END { print f + 0 }' "$results")
passed=$(awk '{ p += $3 } END { print p + 0 }' "$results")
[ "$failed" -eq 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
exit 0
