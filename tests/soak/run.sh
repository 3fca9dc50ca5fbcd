#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - the fault-and-load soak (soak.py) against the built server, on
# loopback and a temp data directory: rounds of mixed writes (PutItem,
# UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems on a table
# with a GSI, partitions splitting and checkpointing all the time) ended
# by kill -9 at a random moment, each followed by a restart and the
# checks (acknowledged writes there, the GSI and the vector index
# matching their table, transactions whole; the vector index again after
# a live burst).
#
# Usage: tests/soak/run.sh [SECONDS [SEED]]   (default $SOAK_SECONDS, else 20)
# make check runs the short CI mode (20 s); the long mode, e.g. an hour:
#   tests/soak/run.sh 3600
# A failure prints its seed; run.sh SECONDS SEED replays the same choices
# (the kills' timing differs from run to run). Exit 77 without boto3.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
bin=$(cd "$builddir" && pwd)/shardlocal
secs=${1:-${SOAK_SECONDS:-20}}

if [ ! -x "$bin" ]; then
    echo "soak: $bin not built"; echo "0 passed, 0 failed, 1 skipped"; exit 77
fi
PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import boto3' 2>/dev/null; then
        PY=$p
        break
    fi
done
if [ -z "$PY" ]; then
    echo "soak: no python3 with boto3"; echo "0 passed, 0 failed, 1 skipped"; exit 77
fi
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_DYNAMODB
AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null \
AWS_EC2_METADATA_DISABLED=true \
    exec "$PY" "$srcdir/tests/soak/soak.py" "$bin" "$secs" ${2:+"$2"}
