#!/bin/sh
# build.sh - build shardlocal: autoreconf, configure, make. Arguments go to
# configure (e.g. docker/build.sh --enable-asan). A tree already configured
# with the same arguments only runs make (whose rules rerun automake and
# config.status when Makefile.am or configure.ac change).
set -eu

cd "$(dirname "$0")/.."
args="$*"
stamp=config.args
if [ ! -f Makefile ] || [ ! -f config.status ] || [ ! -f "$stamp" ] ||
        [ "$(cat "$stamp")" != "$args" ] || [ configure.ac -nt configure ]; then
    autoreconf -fi
    ./configure "$@"
    printf '%s\n' "$args" >"$stamp"
fi
make -j"$(nproc 2>/dev/null || echo 2)"
