#!/bin/sh
# install-deps.sh - install shardlocal's build and test dependencies on
# Debian 12 (run as root, or with sudo available). Skips apt entirely when
# everything is already present, so repeated runs are fast. The build
# dependencies must install; the test and benchmark tools (boto3, the AWS
# CLI, Node, wrk, valgrind, clang for tests/fuzz, strace,
# faketime for a client whose clock is off, Chromium for the
# live view's browser tests, the Debian packaging tools, pytest) only warn
# when apt cannot install them.
# --build-only installs the build dependencies alone (the container
# image's build stage).
set -eu

BUILD="build-essential autoconf automake pkg-config libmicrohttpd-dev
libjansson-dev libsqlite3-dev libssl-dev zlib1g-dev libgmp-dev check
libsubunit-dev"
TOOLS="python3-boto3 awscli nodejs npm wrk valgrind clang libclang-rt-dev strace
chromium dpkg-dev debhelper fakeroot lintian python3-pytest python3-venv
python3-setuptools python3-wheel faketime"
if [ "${1:-}" = "--build-only" ]; then
    TOOLS=""
fi

# present PKG: installed as a Debian package, or (for tools) available
# some other way, e.g. Node's own npm. Debian's python3-boto3 (boto3 1.26)
# and awscli (CLI v2) must be the Debian packages: the e2e run tests them
# beside any newer boto3 and CLI v1 a pyenv python carries.
present() {
    if dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
            grep -q "install ok installed"; then
        return 0
    fi
    case "$1" in
    nodejs)        command -v node >/dev/null 2>&1 ;;
    npm)           command -v npm >/dev/null 2>&1 ;;
    wrk)           command -v wrk >/dev/null 2>&1 ;;
    valgrind)      command -v valgrind >/dev/null 2>&1 ;;
    *)             return 1 ;;
    esac
}

missing_build=""
missing_tools=""
for p in $BUILD; do
    present "$p" || missing_build="$missing_build $p"
done
for p in $TOOLS; do
    present "$p" || missing_tools="$missing_tools $p"
done

if [ -z "$missing_build$missing_tools" ]; then
    echo "install-deps: all dependencies present"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "install-deps: run as root (missing:$missing_build$missing_tools)" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
if [ -n "$missing_build" ]; then
    echo "install-deps: installing:$missing_build"
    # shellcheck disable=SC2086
    $SUDO apt-get install -y --no-install-recommends $missing_build
fi
if [ -n "$missing_tools" ]; then
    echo "install-deps: installing:$missing_tools"
    # shellcheck disable=SC2086
    $SUDO apt-get install -y --no-install-recommends $missing_tools ||
        echo "install-deps: warning: could not install:$missing_tools" \
             "(tests needing them will be skipped)" >&2
fi
