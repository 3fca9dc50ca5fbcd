#!/bin/sh
# build.sh - build shardlocal from a fresh clone: autoreconf, configure,
# make. Arguments go to configure, e.g. docker/build.sh --enable-asan.
set -eu

cd "$(dirname "$0")/.."
autoreconf -fi
./configure "$@"
make -j"$(nproc 2>/dev/null || echo 2)"
