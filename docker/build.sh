#!/bin/sh
# build.sh - build shardlocal: autoreconf, configure, make. Arguments go to
# configure (e.g. docker/build.sh --enable-asan). A tree already configured
# with the same arguments (config.status --config) only runs make, whose
# rules rerun automake and config.status when Makefile.am changes.
set -eu

cd "$(dirname "$0")/.."
if [ ! -f Makefile ] || [ ! -x config.status ] ||
        [ "$(./config.status --config 2>/dev/null)" != "$*" ] ||
        [ configure.ac -nt configure ]; then
    autoreconf -fi
    ./configure "$@"
fi
make -j"$(nproc 2>/dev/null || echo 2)"
