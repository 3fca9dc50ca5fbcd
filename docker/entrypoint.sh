#!/bin/sh
# SPDX-License-Identifier: MIT
# entrypoint.sh - the container's entry point: every environment variable
# SHARDLOCAL_<NAME>=<value> becomes the flag --<name>=<value> (lower case,
# '_' -> '-'; SHARDLOCAL_CONFIG first, since later flags win over the
# file), then the container's arguments, which win over both. An unknown
# name stops the server with one line naming the flag (exit status 2).
set -eu

flags=""
if [ -n "${SHARDLOCAL_CONFIG:-}" ]; then
    flags="--config=$SHARDLOCAL_CONFIG"
fi
# env prints NAME=value lines; values with newlines are not settings.
for name in $(env | sed -n 's/^SHARDLOCAL_\([A-Z0-9_]*\)=.*/\1/p' | sort -u)
do
    [ "$name" = CONFIG ] && continue
    flag=$(printf '%s' "$name" | tr 'A-Z_' 'a-z-')
    eval "value=\${SHARDLOCAL_$name}"
    # shellcheck disable=SC2154
    flags="$flags
--$flag=$value"
done
# One flag per line: values may hold spaces, never newlines.
IFS='
'
# shellcheck disable=SC2086
exec /usr/bin/shardlocal $flags "$@"
