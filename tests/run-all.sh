#!/bin/sh
# run-all.sh - install the dependencies, build, and run every test
# (make check: the unit suites and tests/e2e). Prints the summary and
# exits non-zero when anything fails. Arguments go to configure.
set -u

cd "$(dirname "$0")/.."
docker/install-deps.sh || exit 1
docker/build.sh "$@" || exit 1

status=0
make -j"$(nproc 2>/dev/null || echo 2)" check || status=$?

echo
echo "=== test summary ==="
if [ -f test-suite.log ]; then
    sed -n '1,/^\.\. contents::/p' test-suite.log | grep -E '^# ' || true
fi
for log in tests/unit/*.log tests/e2e/*.log; do
    [ -f "$log" ] || continue
    case "$log" in *test-suite.log) continue ;; esac
    res=$(grep -m1 -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "${log%.log}.trs" \
          2>/dev/null || true)
    [ -n "$res" ] || res=$(sed -n 's/^:test-result: //p' "${log%.log}.trs" \
          2>/dev/null | head -1)
    printf '%-40s %s\n' "${log%.log}" "$res"
done
if [ "$status" -ne 0 ]; then
    echo
    echo "FAILED: see test-suite.log and tests/*/*.log"
    [ -f test-suite.log ] && cat test-suite.log
    exit "$status"
fi
echo "all tests passed"
