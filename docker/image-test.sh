#!/bin/sh
# SPDX-License-Identifier: MIT
# image-test.sh - build the container image (docker/Dockerfile) and smoke-
# test it where a container engine exists: build, report its size (the
# target is under 150 MB), run it, create a table with the AWS CLI, check
# the settings from the environment, the non-root user and the
# HEALTHCHECK, stop it (SIGTERM: exit 0), start it again on the same data
# volume, and remove it. Not part of CI (a few minutes, and CI must not
# need an engine): run it by hand, or tests/run-all.sh with
# SHARDLOCAL_LONG_TESTS=1.
#
# Engine: docker if its daemon answers, else podman (Debian's package
# works as root: builds use --isolation=chroot). Base image: $BASE
# (debian:12); when it is not present and cannot be pulled (no registry
# reachable), podman gets one made with mmdebstrap, as README.md shows.
# Exits 0 pass, 1 fail, 77 (skip) when no engine exists.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:-debian:12}
IMAGE=${IMAGE:-localhost/shardlocal:test}
MAX_MB=150

engine=
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    engine=docker
elif command -v podman >/dev/null 2>&1 && podman info >/dev/null 2>&1; then
    engine=podman
fi
if [ -z "$engine" ]; then
    echo "image-test: no container engine here (neither a docker daemon" \
         "nor podman answers): skipped"
    exit 77
fi
echo "image-test: using $engine"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ] || exit 1
    exit 0
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shardlocal-image.XXXXXX") || exit 1
name=shardlocal-image-test-$$
volume=shardlocal-image-test-$$
cleanup() {
    $engine rm -f "$name" >/dev/null 2>&1
    $engine volume rm -f "$volume" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# --- the base image ------------------------------------------------------------
if ! $engine image inspect "$BASE" >/dev/null 2>&1 &&
        ! $engine pull "$BASE" >"$tmp/pull.log" 2>&1; then
    if [ "$engine" = podman ] && command -v mmdebstrap >/dev/null 2>&1; then
        echo "image-test: no $BASE and no registry: making one with" \
             "mmdebstrap (Debian 12 minbase without docs, man pages and" \
             "locales, like debian:12-slim)"
        # merged-usr by hook rather than by the usrmerge package, which
        # would pull perl (55 MB) into every layer above.
        if ! mmdebstrap --variant=minbase --quiet --format=tar \
                --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
                --dpkgopt='path-exclude=/usr/share/man/*' \
                --dpkgopt='path-exclude=/usr/share/locale/*' \
                --dpkgopt='path-exclude=/usr/share/doc/*' \
                --dpkgopt='path-include=/usr/share/doc/*/copyright' \
                --dpkgopt='path-exclude=/usr/share/info/*' \
                bookworm - | podman import - "localhost/$BASE" \
                >"$tmp/base.log" 2>&1; then
            bad "a base image made with mmdebstrap"
            tail -n 20 "$tmp/base.log"
            finish
        fi
        BASE=localhost/$BASE
    else
        bad "base image $BASE: not present, cannot pull it" \
            "($(tail -n 1 "$tmp/pull.log"))"
        finish
    fi
fi
$engine image inspect "localhost/$BASE" >/dev/null 2>&1 &&
    BASE=localhost/$BASE

# --- build ----------------------------------------------------------------------
build="$engine build"
[ "$engine" = podman ] && build="podman build --format docker --isolation=chroot"
start=$(date +%s)
if $build --build-arg "BASE=$BASE" -f "$top/docker/Dockerfile" \
        -t "$IMAGE" "$top" >"$tmp/build.log" 2>&1; then
    ok "image built from $BASE ($(( $(date +%s) - start )) s)"
else
    bad "image build"; tail -n 40 "$tmp/build.log"; finish
fi
bytes=$($engine image inspect --format '{{.Size}}' "$IMAGE")
mb=$(( bytes / 1000000 ))
echo "image-test: $IMAGE is $mb MB ($bytes bytes)"
if [ "$mb" -lt "$MAX_MB" ]; then
    ok "image under $MAX_MB MB ($mb MB)"
else
    bad "image under $MAX_MB MB ($mb MB)"
fi

# --- run ------------------------------------------------------------------------
# podman as root under a hybrid cgroup hierarchy or tight rlimits (some CI
# sandboxes) needs runc and explicit limits: use what starts a container.
runopts=
if [ "$engine" = podman ]; then
    for o in "" "--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024"
    do
        # shellcheck disable=SC2086
        if podman run --rm $o --entrypoint true "$IMAGE" >/dev/null 2>&1
        then runopts=$o; break; fi
        runopts=none
    done
    if [ "$runopts" = none ]; then
        bad "podman can run a container here"
        podman run --rm --entrypoint true "$IMAGE" 2>&1 | tail -n 3
        finish
    fi
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
$engine volume create "$volume" >/dev/null
# Host networking on 127.0.0.1: works with every engine set-up here; the
# settings come from the environment as SHARDLOCAL_<FLAG>.
run_container() {
    # shellcheck disable=SC2086
    $engine run -d --name "$name" $runopts --network host \
        -v "$volume:/data" -e SHARDLOCAL_HOST=127.0.0.1 \
        -e "SHARDLOCAL_PORT=$port" -e SHARDLOCAL_THROTTLE_SCALE=0.01 \
        "$IMAGE" "$@" >/dev/null 2>"$tmp/run.err" ||
        { cat "$tmp/run.err"; return 1; }
}
wait_up() {
    i=0
    until python3 -c "import sys, urllib.request
sys.exit(urllib.request.urlopen('$url/', timeout=1).status != 200)" \
            2>/dev/null; do
        i=$((i + 1))
        if [ $i -ge 100 ]; then return 1; fi
        sleep 0.1
    done
}
if run_container && wait_up; then
    ok "the container serves GET / on $url"
else
    bad "the container serves GET /"; $engine logs "$name" 2>&1 | tail
    finish
fi

export AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_DEFAULT_REGION=us-east-1
export AWS_PAGER= AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
if command -v aws >/dev/null 2>&1; then
    if aws dynamodb create-table --endpoint-url "$url" --table-name Music \
            --billing-mode PAY_PER_REQUEST \
            --attribute-definitions AttributeName=Artist,AttributeType=S \
            --key-schema AttributeName=Artist,KeyType=HASH \
            >"$tmp/aws.log" 2>&1 &&
       aws dynamodb put-item --endpoint-url "$url" --table-name Music \
            --item '{"Artist":{"S":"Arvo Part"}}' >>"$tmp/aws.log" 2>&1; then
        ok "aws dynamodb create-table and put-item"
    else
        bad "aws dynamodb create-table and put-item"; cat "$tmp/aws.log"
    fi
else
    bad "the AWS CLI (aws) is needed: apt install awscli"
fi
list() {
    aws dynamodb list-tables --endpoint-url "$url" --output text 2>&1
}
case $(list) in
*Music*) ok "list-tables shows Music" ;;
*) bad "list-tables shows Music: $(list)" ;;
esac
if python3 -c "import json, sys, urllib.request
d = json.load(urllib.request.urlopen('$url/shardlocal'))
sys.exit(d['throttle']['scale'] != 0.01)"; then
    ok "SHARDLOCAL_THROTTLE_SCALE=0.01 reached the server"
else
    bad "SHARDLOCAL_THROTTLE_SCALE=0.01 reached the server"
fi
uid=$($engine exec "$name" id -u 2>/dev/null)
if [ "$uid" = 10001 ]; then ok "it runs as the user shardlocal (uid 10001)"
else bad "it runs as a non-root user (uid '$uid')"; fi
if [ "$engine" = podman ]; then
    check_health() { podman healthcheck run "$name"; }
else
    check_health() {
        docker exec "$name" bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"
    }
fi
if check_health >"$tmp/health.log" 2>&1; then ok "the HEALTHCHECK passes"
else bad "the HEALTHCHECK passes"; cat "$tmp/health.log"; fi

# SIGTERM: requests finish, the store closes, exit 0; the data volume
# keeps the table for the next container.
$engine stop -t 10 "$name" >/dev/null 2>&1
code=$($engine inspect --format '{{.State.ExitCode}}' "$name" 2>/dev/null)
if [ "$code" = 0 ]; then ok "it stops on SIGTERM with exit status 0"
else bad "it stops on SIGTERM with exit status 0 (got '$code')"; fi
$engine rm -f "$name" >/dev/null 2>&1
if run_container && wait_up && list | grep -q Music; then
    ok "a new container on the same volume still has the table"
else
    bad "a new container on the same volume still has the table"
fi
# A bad setting in the environment stops it with one line, status 2.
$engine rm -f "$name" >/dev/null 2>&1
# shellcheck disable=SC2086
out=$($engine run --rm $runopts --network host -e SHARDLOCAL_NO_SUCH=1 \
      "$IMAGE" 2>&1)
rc=$?
case "$rc:$out" in
2:*"unknown option '--no-such=1'"*) ok "an unknown SHARDLOCAL_ variable is refused (exit 2)" ;;
*) bad "an unknown SHARDLOCAL_ variable is refused: rc $rc, $out" ;;
esac
finish
