#!/bin/sh
# run-all.sh - install the dependencies, build, and run every test
# (make check: the unit suites and tests/e2e; then the Debian package,
# tests/package/deb.sh; the container image's runtime stage over this
# build, docker/image-test.sh --short, skipped where no container engine
# exists; `make dist`, whose hook refuses a tarball missing a file git
# tracks). Prints the tail of each failing test's log, then a summary;
# exits non-zero when anything fails. SHARDLOCAL_LONG_TESTS=1 adds the long
# checks (the package installed into a fresh Debian 12, the whole image
# built by its Dockerfile).
# Arguments go to configure (e.g. tests/run-all.sh --enable-asan).
set -u

cd "$(dirname "$0")/.."
docker/install-deps.sh || exit 1
docker/build.sh "$@" || exit 1

status=0
make -j"$(nproc 2>/dev/null || echo 2)" check || status=$?

# The Debian package: built from the tree, lintian, installed into a
# scratch root and smoke-tested (a minute or so); the image's runtime stage
# over this build (half a minute; skipped without an engine).
# SHARDLOCAL_LONG_TESTS=1 makes them the long checks: apt install into a
# fresh Debian 12 (mmdebstrap), and the whole image built from its
# Dockerfile (a few minutes). Exit 77 is a skip.
extra_result() {    # extra_result NAME COMMAND...: run it, note its result
    name=$1; shift
    "$@" > "tests/$name.log" 2>&1
    rc=$?
    case $rc in
    0)  echo "PASS" > "tests/$name.result" ;;
    77) echo "SKIP" > "tests/$name.result" ;;
    *)  echo "FAIL" > "tests/$name.result"; status=1
        echo; echo "=== tests/$name.log (last 40 lines) ==="
        tail -n 40 "tests/$name.log" ;;
    esac
}
long=
[ "${SHARDLOCAL_LONG_TESTS:-0}" = 1 ] && long=--long
extra_result package tests/package/deb.sh $long
extra_result dist sh -c 'make dist && rm -f shardlocal-*.tar.gz'
if [ -n "$long" ]; then
    extra_result image docker/image-test.sh
else
    extra_result image docker/image-test.sh --short
fi

# result_of LOG: the :test-result: automake recorded for LOG's test.
result_of() {
    sed -n 's/^:test-result: //p' "${1%.log}.trs" 2>/dev/null | head -1
}

logs=$(ls tests/unit/*.log tests/unit/*/*.log tests/e2e/*.log tests/fuzz/*.log \
    tests/soak/*.log 2>/dev/null | grep -v test-suite)
for log in $logs; do
    case $(result_of "$log") in
    FAIL|ERROR|XPASS)
        echo
        echo "=== $log (last 40 lines) ==="
        tail -n 40 "$log"
        ;;
    esac
done

echo
echo "=== test summary ==="
for log in $logs; do
    printf '%-40s %s\n' "${log%.log}" "$(result_of "$log")"
done
for r in tests/package.result tests/dist.result tests/image.result; do
    [ -f "$r" ] && printf '%-40s %s\n' "${r%.result}" "$(cat "$r")"
done
if [ -f test-suite.log ]; then
    sed -n '1,/^\.\. contents::/p' test-suite.log | grep -E '^# ' || true
fi
# One plain closing line over the test programs make check ran.
if [ -f test-suite.log ]; then
    pass=$(sed -n 's/^# PASS: *//p' test-suite.log | head -n 1)
    fail=$(sed -n 's/^# FAIL: *//p' test-suite.log | head -n 1)
    err=$(sed -n 's/^# ERROR: *//p' test-suite.log | head -n 1)
    # The package (and image) checks count as one test each.
    for r in tests/package.result tests/dist.result tests/image.result; do
        case $(cat "$r" 2>/dev/null) in
        PASS) pass=$(( ${pass:-0} + 1 )) ;;
        FAIL) fail=$(( ${fail:-0} + 1 )) ;;
        esac
    done
    echo "tests: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed"
fi
if [ "$status" -ne 0 ]; then
    echo "FAILED (make check exit status $status): see test-suite.log"
    exit "$status"
fi
echo "all tests passed"
