#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - build every libFuzzer target (tests/fuzz/fuzz_*.c) with clang's
# -fsanitize=fuzzer,address,undefined over the server's sources, replay
# every regression case (tests/fuzz/regress/<target>.jsonl), then fuzz each
# target for SECONDS from its seeds (tests/fuzz/corpus/<target>.jsonl).
# Both files hold one input per line as a JSON string (its bytes as
# U+0000..U+00FF, so any input fits), with '#' comment lines.
# Exits non-zero on any finding (crash, sanitizer report, leak, timeout,
# or a target's own check), 77 when clang cannot build fuzzers.
#
# Usage: tests/fuzz/run.sh [SECONDS]   (default $FUZZ_SECONDS, else 5)
# make check runs it with the default: the short CI run. A long run:
#   tests/fuzz/run.sh 3600             # an hour per target
# Environment: FUZZ_CC (clang), FUZZ_JOBS (compile jobs: 2, 1 under make
# check), FUZZ_BUILD
# (where objects and binaries go; $top_builddir/tests/fuzz/build), and
# FUZZ_TARGETS (names, default every fuzz_*.c).
# Findings are written to $FUZZ_BUILD/findings/<target>/, and printed as
# the JSON line to add to tests/fuzz/regress/<target>.jsonl once fixed, so
# that every later run replays it. A new target is one file,
# tests/fuzz/fuzz_<name>.c defining LLVMFuzzerTestOneInput(), plus seeds in
# tests/fuzz/corpus/<name>.jsonl.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
srcdir=$(cd "$srcdir" && pwd)
builddir=$(cd "${top_builddir:-$srcdir}" && pwd)
FUZZ=$srcdir/tests/fuzz
SECONDS_EACH=${1:-${FUZZ_SECONDS:-5}}
CC=${FUZZ_CC:-clang}
# One compile job under make check, which runs other tests beside it.
JOBS=${FUZZ_JOBS:-$([ -n "${top_builddir:-}" ] && echo 1 || echo 2)}
BUILD=${FUZZ_BUILD:-$builddir/tests/fuzz/build}

skip() { echo "fuzz: $*: skipped"; echo "0 passed, 0 failed, 1 skipped"; exit 77; }

command -v "$CC" >/dev/null 2>&1 || skip "no $CC (apt-get install clang)"
command -v python3 >/dev/null 2>&1 || skip "no python3"
[ -f "$builddir/config.h" ] || skip "no config.h (run docker/build.sh)"
mkdir -p "$BUILD/obj" || exit 1
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return (int)(d[0] * 0) + (int)(n * 0); }\n' \
    > "$BUILD/probe.c"
"$CC" -fsanitize=fuzzer $SAN -o "$BUILD/probe" "$BUILD/probe.c" \
    >/dev/null 2>&1 || skip "$CC cannot link -fsanitize=fuzzer"

PKGS="jansson sqlite3 libcrypto zlib libzstd libmicrohttpd"
CFLAGS="-g -O1 -fno-omit-frame-pointer $SAN -fsanitize=fuzzer-no-link \
-std=c11 -pthread -D_GNU_SOURCE -I$srcdir -I$builddir $(pkg-config --cflags $PKGS)"
LIBS="$(pkg-config --libs $PKGS) -lgmp -lpthread -lm"

# --- build: the library's sources once, then one binary per target -------
cd "$srcdir" || exit 1
# server/: the request reader and the content codings (fuzz_http.c),
# signatures and address ranges (fuzz_sigv4.c); the rest of server/ needs
# sockets and threads.
SRCS=$(ls storage/*.c conf/*.c api/*.c api/*/*.c server/request.c \
       server/compress.c server/sigv4.c server/cidr.c 2>/dev/null |
       grep -v "/ui_page.c$")
sh api/admin/ui_embed.sh api/admin/ui > "$BUILD/ui_page.c" || exit 1
# Rebuild everything when any source, header or flag changed.
stamp=$( (echo "$CC $CFLAGS"; cat $SRCS storage/*.h conf/*.h api/*.h \
         api/*/*.h server/request.h server/compress.h server/sigv4.h \
         server/cidr.h "$BUILD/ui_page.c") | cksum)
if [ "$(cat "$BUILD/stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "fuzz: compiling the server's sources with $CC"
    rm -f "$BUILD"/obj/*.o
    # shellcheck disable=SC2086
    if ! printf '%s\n' $SRCS "$BUILD/ui_page.c" |
        xargs -P "$JOBS" -I{} sh -c \
            'o="$0/obj/$(echo "$1" | tr / _).o"; '"$CC"' '"$CFLAGS"' -c "$1" -o "$o"' \
            "$BUILD" {}; then
        echo "fuzz: compile failed"; echo "0 passed, 1 failed"; exit 1
    fi
    echo "$stamp" > "$BUILD/stamp"
fi

TARGETS=${FUZZ_TARGETS:-$(cd "$FUZZ" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')}
for t in $TARGETS; do
    if [ ! -x "$BUILD/fuzz_$t" ] || [ "$FUZZ/fuzz_$t.c" -nt "$BUILD/fuzz_$t" ] ||
            [ "$BUILD/stamp" -nt "$BUILD/fuzz_$t" ]; then
        # shellcheck disable=SC2086
        "$CC" $CFLAGS -fsanitize=fuzzer -o "$BUILD/fuzz_$t" "$FUZZ/fuzz_$t.c" \
            "$BUILD"/obj/*.o $LIBS || {
            echo "fuzz: cannot link fuzz_$t"; echo "0 passed, 1 failed"; exit 1; }
    fi
done

# unpack FILE.jsonl DIR: one file per input line of FILE into DIR.
unpack() {
    mkdir -p "$2" && python3 - "$1" "$2" <<'PYEOF'
import json, sys
n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    if line.strip() and not line.startswith("#"):
        n += 1
        with open("%s/%04d" % (sys.argv[2], n), "wb") as f:
            f.write(json.loads(line).encode("latin-1"))
PYEOF
}

# --- run ------------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
pass=0
fail=0
for t in $TARGETS; do
    bin=$BUILD/fuzz_$t
    out=$BUILD/findings/$t
    rm -rf "$out" "$BUILD/corpus-$t" "$BUILD/seeds-$t" "$BUILD/regress-$t"
    mkdir -p "$out" "$BUILD/corpus-$t" "$BUILD/seeds-$t" "$BUILD/regress-$t"
    [ -f "$FUZZ/regress/$t.jsonl" ] &&
        unpack "$FUZZ/regress/$t.jsonl" "$BUILD/regress-$t"
    [ -f "$FUZZ/corpus/$t.jsonl" ] &&
        unpack "$FUZZ/corpus/$t.jsonl" "$BUILD/seeds-$t"
    regress=$(ls "$BUILD/regress-$t"/* 2>/dev/null)
    if [ -n "$regress" ]; then
        # shellcheck disable=SC2086
        if ! "$bin" -runs=1 $regress > "$out/regress.log" 2>&1; then
            echo "fuzz: $t: a regression case fails again:"
            tail -n 40 "$out/regress.log"
            fail=$((fail + 1))
            continue
        fi
    fi
    # New inputs go to a scratch corpus; the seeds are only read.
    "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -max_len=8192 -print_final_stats=1 -artifact_prefix="$out/" \
        "$BUILD/corpus-$t" "$BUILD/seeds-$t" > "$out/fuzz.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz.log")
    if [ $rc -ne 0 ] || ls "$out" | grep -qv '\.log$'; then
        echo "fuzz: $t: FINDING (exit $rc) after ${runs:-?} runs; kept in $out"
        grep -m1 -A30 "ERROR:\|runtime error\|fuzz_$t:" "$out/fuzz.log" | head -n 40
        for f in "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-*; do
            [ -f "$f" ] || continue
            echo "fuzz: $t: regression line for tests/fuzz/regress/$t.jsonl:"
            python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1],"rb").read().decode("latin-1")))' "$f"
        done
        fail=$((fail + 1))
    else
        echo "fuzz: $t: clean, ${runs:-?} runs in ${SECONDS_EACH}s"
        pass=$((pass + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
