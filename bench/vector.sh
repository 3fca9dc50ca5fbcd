#!/bin/sh
# SPDX-License-Identifier: MIT
# vector.sh - the vector index benchmark (bench/vector.c): builds it, then
# runs it on 100,000 vectors of 768 dimensions (the long mode, minutes to
# tens of minutes on a small machine: the graph's build dominates) or,
# with --small, on 5,000 of 128 (seconds). Prints build time, memory,
# p50/p99 latency of graph and exact search, and recall@10 at the
# server's candidate list and around it.
#
# Usage: bench/vector.sh [--small] [extra bench/vector flags]
set -eu
cd "$(dirname "$0")/.."
make -s bench/vector >/dev/null
if [ "${1:-}" = "--small" ]; then
    shift
    exec ./bench/vector -n 5000 -d 128 -q 100 -e 128,256,384 "$@"
fi
exec ./bench/vector -n 100000 -d 768 -q 100 -e 128,256,384 "$@"
