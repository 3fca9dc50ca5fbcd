#!/bin/sh
# serve.sh - install the dependencies, build, then run shardlocal on
# 127.0.0.1:8000 with its data in ./data. Extra arguments go to shardlocal
# (e.g. docker/serve.sh --in-memory --log-level debug).
set -eu

cd "$(dirname "$0")/.."
docker/install-deps.sh
docker/build.sh
exec ./shardlocal --host 127.0.0.1 --port 8000 --data-dir ./data "$@"
