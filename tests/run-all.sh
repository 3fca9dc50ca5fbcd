#!/bin/sh
# run-all.sh - install the dependencies, build, and run every test
# (make check: the unit suites and tests/e2e). Prints the tail of each
# failing test's log, then a summary; exits non-zero when anything fails.
# Arguments go to configure (e.g. tests/run-all.sh --enable-asan).
set -u

cd "$(dirname "$0")/.."
docker/install-deps.sh || exit 1
docker/build.sh "$@" || exit 1

status=0
make -j"$(nproc 2>/dev/null || echo 2)" check || status=$?

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
if [ -f test-suite.log ]; then
    sed -n '1,/^\.\. contents::/p' test-suite.log | grep -E '^# ' || true
fi
# One plain closing line over the test programs make check ran.
if [ -f test-suite.log ]; then
    pass=$(sed -n 's/^# PASS: *//p' test-suite.log | head -n 1)
    fail=$(sed -n 's/^# FAIL: *//p' test-suite.log | head -n 1)
    err=$(sed -n 's/^# ERROR: *//p' test-suite.log | head -n 1)
    echo "tests: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed"
fi
if [ "$status" -ne 0 ]; then
    echo "FAILED (make check exit status $status): see test-suite.log"
    exit "$status"
fi
echo "all tests passed"
