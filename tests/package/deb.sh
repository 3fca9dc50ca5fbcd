#!/bin/sh
# SPDX-License-Identifier: MIT
# deb.sh - build the Debian package from this tree and test what it
# installs. Run by tests/run-all.sh (CI); by hand: tests/package/deb.sh.
#
#   default (CI, a minute or two): dpkg-buildpackage -us -uc -b in a clean
#     copy of the tree (DEB_BUILD_OPTIONS=nocheck: make check already ran),
#     lintian with no error allowed, then the package unpacked into a
#     scratch root: the files, the conffile, the unit, the man page, and a
#     smoke test of the installed binary with the installed config;
#   --long (a few minutes, needs mmdebstrap and Debian's mirror): also
#     `apt install ./shardlocal_*.deb` into a fresh Debian 12 made by
#     mmdebstrap, as a new user would, run the unit's ExecStart as the
#     unit's User with its data in /var/lib/shardlocal, and purge; then,
#     where podman runs containers, the same install in a Debian 12
#     container booting systemd: apt starts the unit, which serves,
#     restarts with its tables and stops with status 0.
#
# Leaves the .deb in $DEB_OUT if set. Prints one "ok"/"not ok" line per
# check and "N passed, N failed"; exits 0, 1 on a failure, 77 when the
# Debian tools (dpkg-buildpackage, debhelper) are missing.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
long=0
[ "${1:-}" = "--long" ] && long=1

for t in dpkg-buildpackage dh fakeroot; do
    if ! command -v "$t" >/dev/null 2>&1; then
        echo "deb.sh: $t missing (apt install dpkg-dev debhelper fakeroot):" \
             "skipped"
        exit 77
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/shardlocal-deb.XXXXXX") || exit 1
server_pid=
chroot_dir=
box=                                # the systemd container and its image
cleanup() {
    [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null
    if [ -n "$chroot_dir" ]; then
        umount "$chroot_dir/proc" 2>/dev/null
    fi
    if [ -n "$box" ]; then
        podman rm -f "$box" >/dev/null 2>&1
        podman rmi -f "localhost/$box" >/dev/null 2>&1
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }
check() {   # check DESCRIPTION COMMAND...: ok when the command succeeds
    d=$1; shift
    if "$@" >"$tmp/check.out" 2>&1; then ok "$d"; else
        bad "$d"; sed 's/^/    /' "$tmp/check.out" | tail -n 20
    fi
}
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ] || exit 1
    exit 0
}

# --- build -------------------------------------------------------------------
# A copy of the tracked files only: an in-place build's products must not
# reach the package, and dh_auto_clean must not touch the developer's tree.
version=$(cd "$top" && dpkg-parsechangelog -S Version) || exit 1
src=$tmp/src/shardlocal-$version
mkdir -p "$src"
if git -C "$top" rev-parse --show-prefix 2>/dev/null | grep -qx ''; then
    (cd "$top" && git ls-files -z --cached --others --exclude-standard |
        xargs -0 tar cf -) | (cd "$src" && tar xf -)
else                                # a release tarball: already clean
    (cd "$top" && tar cf - --exclude=./_build .) | (cd "$src" && tar xf -)
fi
echo "deb.sh: building shardlocal $version in $src"
start=$(date +%s)
if (cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=2" \
        dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
    ok "dpkg-buildpackage -us -uc -b ($(( $(date +%s) - start )) s)"
else
    bad "dpkg-buildpackage -us -uc -b"
    tail -n 40 "$tmp/build.log"
    finish
fi
deb=$(ls "$tmp"/src/shardlocal_"$version"_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
    bad "a shardlocal_${version}_*.deb was built"
    finish
fi
echo "deb.sh: $(basename "$deb"), $(du -k "$deb" | cut -f1) KB"
if [ -n "${DEB_OUT:-}" ]; then
    cp "$deb" "$DEB_OUT/"
fi

if command -v lintian >/dev/null 2>&1; then
    lintian --fail-on error "$deb" >"$tmp/lintian.out" 2>&1
    lrc=$?
    sed 's/^/    lintian: /' "$tmp/lintian.out"
    if [ "$lrc" -eq 0 ] && ! grep -q '^E: ' "$tmp/lintian.out"; then
        ok "lintian: no errors"
    else
        bad "lintian: errors"
    fi
else
    echo "deb.sh: lintian missing: its check skipped"
fi

# --- the package's contents, in a scratch root ---------------------------------
root=$tmp/root
dpkg-deb -x "$deb" "$root" && dpkg-deb -e "$deb" "$root/DEBIAN"
bin=$root/usr/bin/shardlocal
check "/usr/bin/shardlocal is an executable" test -x "$bin"
check "--version says $version" sh -c \
    "'$bin' --version | grep -qx 'shardlocal $version'"
check "/etc/shardlocal/shardlocal.conf is a conffile" \
    grep -qx /etc/shardlocal/shardlocal.conf "$root/DEBIAN/conffiles"
check "the config keeps its data in /var/lib/shardlocal" \
    grep -qx 'data-dir = /var/lib/shardlocal' \
    "$root/etc/shardlocal/shardlocal.conf"
unit=$(ls "$root"/lib/systemd/system/shardlocal.service \
          "$root"/usr/lib/systemd/system/shardlocal.service 2>/dev/null |
       head -n 1)
check "a systemd unit shardlocal.service" test -n "$unit"
check "the unit runs the installed config as the user shardlocal" sh -c \
    "grep -qx 'User=shardlocal' '$unit' && grep -qx 'ExecStart=/usr/bin/shardlocal --config /etc/shardlocal/shardlocal.conf' '$unit' && grep -qx 'StateDirectory=shardlocal' '$unit'"
# The unit's syntax, where systemd-analyze exists: any complaint but the
# binary's absence from this machine (it is in the scratch root) fails.
if command -v systemd-analyze >/dev/null 2>&1; then
    cp "$unit" "$tmp/shardlocal.service"
    systemd-analyze verify --man=no "$tmp/shardlocal.service" \
        >"$tmp/verify.out" 2>&1
    check "systemd-analyze verify: the unit parses cleanly" sh -c \
        "! grep -v 'Command /usr/bin/shardlocal is not executable' '$tmp/verify.out' | grep ."
fi
check "postinst creates the system user" grep -q 'adduser --system' \
    "$root/DEBIAN/postinst"
check "postinst enables the unit" grep -q 'deb-systemd-helper' \
    "$root/DEBIAN/postinst"
check "Depends: adduser" sh -c \
    "dpkg-deb -f '$deb' Depends | grep -q adduser"
man=$root/usr/share/man/man1/shardlocal.1.gz
check "the man page shardlocal(1)" test -s "$man"
# Every flag --help lists is in the man page (both come from one table).
missing=
for f in $("$bin" --help | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p'); do
    esc=$(printf '%s' "$f" | sed 's/-/\\\\-/g')
    zcat "$man" | grep -q "fB$esc\\\\fR" || missing="$missing $f"
done
check "the man page names every flag of --help" test -z "$missing"
[ -n "$missing" ] && echo "    missing:$missing"
if command -v groff >/dev/null 2>&1; then
    check "the man page renders without warnings" sh -c \
        "zcat '$man' | groff -man -ww -z -Tutf8 2>&1 | (! grep .)"
fi

# --- smoke test: the installed binary with the installed config -----------------
PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import boto3' 2>/dev/null
    then PY=$p; break; fi
done

# serve ROOT_PREFIX ARGS...: start a server, set $url; data in $tmp/data
serve() {
    rm -f "$tmp/port"
    "$@" --port 0 --port-file "$tmp/port" >"$tmp/server.log" 2>&1 &
    server_pid=$!
    i=0
    while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.05; i=$((i + 1))
    done
    sleep 0.05
    url=http://127.0.0.1:$(tr -dc 0-9 < "$tmp/port" 2>/dev/null)
}
stop() {
    kill -TERM "$server_pid" 2>/dev/null
    wait "$server_pid"
    rc=$?
    server_pid=
    return $rc
}
smoke() {   # smoke URL STEP: STEP=write creates a table and an item,
            # STEP=read finds them again (after a restart)
    "$PY" - "$1" "$2" <<'PYEOF'
import sys, boto3
url, step = sys.argv[1], sys.argv[2]
c = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                 aws_access_key_id="x", aws_secret_access_key="x")
if step == "write":
    c.create_table(TableName="smoke", BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk",
                                          "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    c.put_item(TableName="smoke", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
assert c.list_tables()["TableNames"] == ["smoke"], c.list_tables()
item = c.get_item(TableName="smoke", Key={"pk": {"S": "a"}},
                  ConsistentRead=True)["Item"]
assert item == {"pk": {"S": "a"}, "n": {"N": "1"}}, item
PYEOF
}

if [ -z "$PY" ]; then
    echo "deb.sh: no python3 with boto3: the smoke test is skipped"
else
    mkdir "$tmp/data"
    serve "$bin" --config "$root/etc/shardlocal/shardlocal.conf" \
        --data-dir "$tmp/data"
    check "the installed binary serves with the installed config" \
        smoke "$url" write
    check "it stops cleanly on SIGTERM" stop
    serve "$bin" --config "$root/etc/shardlocal/shardlocal.conf" \
        --data-dir "$tmp/data"
    check "its tables survive a restart" smoke "$url" read
    check "it stops cleanly again" stop
fi

# --- --long: apt install into a fresh Debian 12 -------------------------------
if [ "$long" -eq 1 ]; then
    if ! command -v mmdebstrap >/dev/null 2>&1; then
        bad "--long needs mmdebstrap (apt install mmdebstrap)"
        finish
    fi
    chroot_dir=$tmp/debian12
    echo "deb.sh: making a Debian 12 root with mmdebstrap"
    if ! mmdebstrap --variant=apt --quiet bookworm "$chroot_dir" \
            >"$tmp/mmdebstrap.log" 2>&1; then
        bad "mmdebstrap bookworm"; tail -n 20 "$tmp/mmdebstrap.log"; finish
    fi
    cp "$deb" "$chroot_dir/tmp/"
    mount -t proc proc "$chroot_dir/proc"
    # mmdebstrap leaves no package lists: update first, as on a new host.
    check "apt install ./$(basename "$deb") on a fresh Debian 12" \
        chroot "$chroot_dir" sh -c "apt-get update -q && cd /tmp &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y ./$(basename "$deb")"
    if [ "$fail" -ne 0 ]; then
        umount "$chroot_dir/proc"
        finish
    fi
    check "the system user shardlocal exists" \
        chroot "$chroot_dir" getent passwd shardlocal
    check "/var/lib/shardlocal belongs to shardlocal, mode 750" sh -c \
        "chroot '$chroot_dir' stat -c '%U:%G %a' /var/lib/shardlocal | grep -qx 'shardlocal:shardlocal 750'"
    check "the unit is enabled" test -L \
        "$chroot_dir/etc/systemd/system/multi-user.target.wants/shardlocal.service"
    # The unit's ExecStart, as its User (no systemd runs in a chroot);
    # --port 0 so a server on this machine's port 8000 does not collide.
    rm -f "$tmp/port"
    chroot "$chroot_dir" setpriv --reuid shardlocal --regid shardlocal \
        --init-groups /usr/bin/shardlocal \
        --config /etc/shardlocal/shardlocal.conf --port 0 \
        --port-file /var/lib/shardlocal/port >"$tmp/server.log" 2>&1 &
    server_pid=$!
    i=0
    while [ ! -s "$chroot_dir/var/lib/shardlocal/port" ] && [ $i -lt 100 ]
    do sleep 0.05; i=$((i + 1)); done
    sleep 0.05
    url=http://127.0.0.1:$(tr -dc 0-9 < "$chroot_dir/var/lib/shardlocal/port")
    if [ -n "$PY" ]; then
        check "the service user's server answers" smoke "$url" write
    fi
    check "its tables are in /var/lib/shardlocal" test -d \
        "$chroot_dir/var/lib/shardlocal/tables"
    check "it stops cleanly" stop
    check "apt purge removes it and its data" chroot "$chroot_dir" sh -c \
        "apt-get purge -y shardlocal && test ! -e /var/lib/shardlocal && test ! -e /usr/bin/shardlocal"
    umount "$chroot_dir/proc"
fi

# --- --long: the unit under systemd, in a container that boots it -------------
# A chroot runs no systemd; a podman container can boot one. Its network is
# the host's, so a drop-in adds --port 0 --port-file to the unit's
# ExecStart (a server on this machine's port 8000 must not collide).
sd_ready() {    # systemd in the container has finished booting
    i=0
    until podman exec "$box" systemctl is-system-running 2>/dev/null |
            grep -qx 'running\|degraded'; do
        i=$((i + 1)); [ $i -ge 150 ] && return 1; sleep 0.2
    done
}
sd_port() {     # the port the unit's server wrote, as $url
    i=0; port=
    while [ -z "$port" ] && [ $i -lt 100 ]; do
        port=$(podman exec "$box" cat /var/lib/shardlocal/port 2>/dev/null |
               tr -dc 0-9)
        i=$((i + 1)); [ -z "$port" ] && sleep 0.1
    done
    url=http://127.0.0.1:$port
    [ -n "$port" ]
}
sd_stopped_cleanly() {
    podman exec "$box" systemctl stop shardlocal &&
    podman exec "$box" systemctl show shardlocal -p Result \
        -p ExecMainStatus | sort | tr '\n' ' ' |
        grep -qx 'ExecMainStatus=0 Result=success '
}
if [ "$long" -eq 1 ] && [ -n "$PY" ]; then
    if ! command -v podman >/dev/null 2>&1 || ! podman info >/dev/null 2>&1
    then
        echo "deb.sh: no podman here: the unit under systemd is not tested"
        finish
    fi
    box=shardlocal-deb-systemd-$$
    echo "deb.sh: making a Debian 12 image with systemd (mmdebstrap)"
    if ! mmdebstrap --variant=minbase --quiet --format=tar \
            --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
            --include=systemd,systemd-sysv \
            --dpkgopt='path-exclude=/usr/share/doc/*' \
            --dpkgopt='path-exclude=/usr/share/man/*' bookworm - 2>"$tmp/sd.log" |
            podman import - "localhost/$box" >>"$tmp/sd.log" 2>&1; then
        bad "a Debian 12 image with systemd"; tail -n 20 "$tmp/sd.log"
        finish
    fi
    # Hosts with a hybrid cgroup hierarchy or tight rlimits need runc and
    # explicit limits: use what boots.
    for o in "" "--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024"
    do
        podman rm -f "$box" >/dev/null 2>&1
        # shellcheck disable=SC2086
        podman run -d --name "$box" $o --network host --systemd=always \
            -v "$(dirname "$deb"):/deb:ro" "localhost/$box" /sbin/init \
            >"$tmp/sd.log" 2>&1 && sd_ready && break
    done
    check "a Debian 12 container boots systemd" sd_ready
    if [ "$fail" -ne 0 ]; then cat "$tmp/sd.log"; finish; fi
    podman exec "$box" sh -c 'mkdir -p /etc/systemd/system/shardlocal.service.d &&
        printf "[Service]\nExecStart=\nExecStart=%s\n" "/usr/bin/shardlocal --config /etc/shardlocal/shardlocal.conf --port 0 --port-file /var/lib/shardlocal/port" \
        >/etc/systemd/system/shardlocal.service.d/port.conf'
    check "apt install ./$(basename "$deb") under systemd" \
        podman exec "$box" sh -c "apt-get update -q &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y /deb/$(basename "$deb")"
    check "apt install started the unit" \
        podman exec "$box" systemctl is-active shardlocal
    if sd_port; then
        check "the unit's server answers" smoke "$url" write
    else
        bad "the unit's server wrote its port"
    fi
    podman exec "$box" rm -f /var/lib/shardlocal/port
    podman exec "$box" systemctl restart shardlocal
    if sd_port; then
        check "systemctl restart: its tables are still there" \
            smoke "$url" read
    else
        bad "the restarted unit's server wrote its port"
    fi
    check "systemctl stop: it exits 0" sd_stopped_cleanly
fi
finish
