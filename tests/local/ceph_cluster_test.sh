#!/usr/bin/env bash
# tests/ceph/cluster, the one-node Ceph cluster the tests share, on this machine (make
# local-check; needs root and Debian's ceph packages, which scripts/install-deps installs:
# without them the test FAILS, saying so):
#   - start prints exactly one eval-able line CEPH_CONF=... CEPH_KEYRING=...; status
#     says running (exit 0); `ceph -s` answers HEALTH_OK with 1 OSD up;
#   - an object written with `rados put` reads back the same (rados get); an RBD image
#     written by `rbd bench --io-type write` and one by `rbd import` (random 4 MiB)
#     exports the same bytes (rbd export);
#   - the OSD's osd_client_watch_timeout is CEPH_WATCH_TIMEOUT (10 s by default), and a
#     client killed while it watches an object loses its watch within 15 s;
#   - a second start in the running DIR is refused, naming the running daemon; a
#     non-empty DIR that is not ours is refused and left untouched;
#   - stop: status says stopped (exit 3), none of the DIR's daemons is left, a second stop
#     succeeds; a DIR whose daemons were killed (stale) is wiped and started again.
# Each check prints "ok - what" or "FAIL - what"; exit 1 at the end if any failed.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER=$ROOT/tests/ceph/cluster
ST=$(mktemp -d /tmp/ceph-cluster-test.XXXXXX)
DIR=$ST/cluster
FAILED=0

ok() { echo "ok - $*"; }
bad() {
	echo "FAIL - $*"
	FAILED=1
}
# expect WHAT FILE PATTERN: ok when FILE has a line matching PATTERN (else shown).
expect() {
	if grep -qE -- "$3" "$2"; then ok "$1"; else
		bad "$1 (wanted /$3/ in:)"
		sed 's/^/    /' "$2" | head -20
	fi
}
finish() {
	[ $FAILED = 0 ] && echo "ceph cluster test: PASSED" || echo "ceph cluster test: FAILED"
	exit $FAILED
}

cleanup() {
	"$CLUSTER" stop "$DIR" 2> /dev/null
	rm -rf "$ST"
}
trap cleanup EXIT

if [ "$(id -u)" != 0 ]; then
	bad "needs root (the Ceph daemons and tools): run it as root"
	finish
fi
for t in ceph-mon ceph-osd ceph rados rbd ceph-authtool monmaptool uuidgen ss; do
	if ! command -v $t > /dev/null; then
		bad "$t is missing: run scripts/install-deps (as root) to install the Ceph packages"
		finish
	fi
done
if ! /usr/bin/python3 -c 'import rados' 2> /dev/null; then
	bad "python3-rados is missing: run scripts/install-deps (as root) to install the Ceph packages"
	finish
fi

# The DIR's daemons still alive: pids whose command line names DIR's ceph.conf.
leftovers() {
	local p c
	for p in /proc/[0-9]*; do
		c=$(tr '\0' ' ' 2> /dev/null < "$p/cmdline") || continue
		case "$c" in *"-c $DIR/ceph.conf "*) echo "${p#/proc/}: $c" ;; esac
	done
}

# start: one line on stdout, eval-able.
t0=$(date +%s.%N)
"$CLUSTER" start "$DIR" > "$ST/out" 2> "$ST/err"
rc=$?
t1=$(date +%s.%N)
if [ $rc != 0 ]; then
	bad "start $DIR (exit $rc):"
	sed 's/^/    /' "$ST/err" | tail -40
	finish
fi
ok "start in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
if [ "$(wc -l < "$ST/out")" = 1 ] &&
	grep -qx "CEPH_CONF=$DIR/ceph.conf CEPH_KEYRING=$DIR/ceph.client.admin.keyring" "$ST/out"; then
	ok "start prints exactly the CEPH_CONF=... CEPH_KEYRING=... line"
else
	bad "start's stdout:"
	sed 's/^/    /' "$ST/out"
fi
eval "$(cat "$ST/out")"
export CEPH_CONF CEPH_KEYRING

st=$("$CLUSTER" status "$DIR")
rc=$?
[ "$st" = running ] && [ $rc = 0 ] && ok "status: running, exit 0" || bad "status said '$st', exit $rc"

timeout 20 ceph -s > "$ST/s" 2>&1
expect "ceph -s answers HEALTH_OK" "$ST/s" "health: HEALTH_OK"
expect "ceph -s: 1 OSD up" "$ST/s" "1 osds: 1 up"

# RADOS objects.
head -c 100000 /dev/urandom > "$ST/obj"
if timeout 20 rados -p rbd put obj1 "$ST/obj" && timeout 20 rados -p rbd get obj1 "$ST/obj.back" &&
	cmp -s "$ST/obj" "$ST/obj.back"; then
	ok "rados put/get: the object reads back the same"
else
	bad "rados put/get of 100000 bytes"
fi

# RBD images.
if timeout 20 rbd create --size 64M img1 &&
	timeout 30 rbd bench --io-type write --io-size 64K --io-total 8M img1 > "$ST/bench" 2>&1; then
	expect "rbd bench --io-type write on an image" "$ST/bench" "elapsed:.*ops: 128 "
else
	bad "rbd create / rbd bench --io-type write:"
	sed 's/^/    /' "$ST/bench" 2> /dev/null | tail -5
fi
head -c 4194304 /dev/urandom > "$ST/img"
if timeout 30 rbd import --no-progress "$ST/img" img2 &&
	timeout 30 rbd export --no-progress img2 "$ST/img.back" && cmp -s "$ST/img" "$ST/img.back"; then
	ok "rbd import/export: 4 MiB read back the same"
else
	bad "rbd import/export of 4 MiB"
fi
timeout 20 ceph daemon osd.0 config get osd_client_watch_timeout > "$ST/wt" 2>&1
expect "osd_client_watch_timeout is 10 s (CEPH_WATCH_TIMEOUT)" "$ST/wt" '"osd_client_watch_timeout": "10"'

# A client killed while it watches an object (as librbd watches an image's header) loses
# its watch within CEPH_WATCH_TIMEOUT (10 s) plus a ping, not Ceph's default 30 s.
mkfifo "$ST/fifo"
rados -p rbd watch obj1 < "$ST/fifo" > "$ST/watch" 2>&1 &
WATCH_PID=$!
exec 3> "$ST/fifo"
for ((i = 0; i < 50; i++)); do
	timeout 20 rados -p rbd listwatchers obj1 2> /dev/null | grep -q watcher= && break
	sleep 0.2
done
if timeout 20 rados -p rbd listwatchers obj1 2> /dev/null | grep -q watcher=; then
	kill -KILL $WATCH_PID
	wait $WATCH_PID 2> /dev/null
	t0=$(date +%s.%N)
	for ((i = 0; i < 30; i++)); do
		timeout 20 rados -p rbd listwatchers obj1 2> /dev/null | grep -q watcher= || break
		sleep 0.5
	done
	t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if timeout 20 rados -p rbd listwatchers obj1 2> /dev/null | grep -q watcher=; then
		bad "a killed client's watch is still there $t s later"
	else
		ok "a killed client's watch is gone $t s later (CEPH_WATCH_TIMEOUT 10 s)"
	fi
else
	bad "rados watch: no watcher seen:"
	sed 's/^/    /' "$ST/watch"
	kill -KILL $WATCH_PID 2> /dev/null
fi
exec 3>&-

# A second start in the running DIR is refused.
"$CLUSTER" start "$DIR" > "$ST/out2" 2> "$ST/err2"
rc=$?
if [ $rc != 0 ] && [ ! -s "$ST/out2" ]; then ok "a second start is refused (exit $rc)"; else
	bad "a second start in a running DIR: exit $rc, stdout: $(cat "$ST/out2")"
fi
expect "the refusal says a cluster runs there" "$ST/err2" "a cluster already runs in $DIR \(osd.0, pid [0-9]+\)"
[ "$("$CLUSTER" status "$DIR")" = running ] && ok "the refused start left the cluster running" ||
	bad "the refused start stopped the cluster"

# A DIR that is not ours is refused and left as it was.
mkdir "$ST/foreign" && echo precious > "$ST/foreign/data"
"$CLUSTER" start "$ST/foreign" > /dev/null 2> "$ST/err3"
rc=$?
[ $rc != 0 ] && ok "a foreign DIR is refused (exit $rc)" || bad "a foreign DIR was used"
expect "the refusal names the DIR" "$ST/err3" "$ST/foreign is not empty and holds no cluster of ours"
[ "$(ls -A "$ST/foreign")" = data ] && [ "$(cat "$ST/foreign/data")" = precious ] &&
	ok "the foreign DIR is untouched" || bad "the foreign DIR was changed: $(ls -A "$ST/foreign")"

# stop.
t0=$(date +%s.%N)
"$CLUSTER" stop "$DIR" 2> "$ST/err4"
rc=$?
t1=$(date +%s.%N)
[ $rc = 0 ] && ok "stop in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" ||
	bad "stop: exit $rc: $(cat "$ST/err4")"
st=$("$CLUSTER" status "$DIR")
rc=$?
[ "$st" = stopped ] && [ $rc = 3 ] && ok "status: stopped, exit 3" || bad "status after stop said '$st', exit $rc"
left=$(leftovers)
[ -z "$left" ] && ok "no daemon of the DIR left" || bad "daemons left after stop: $left"
"$CLUSTER" stop "$DIR" && ok "a second stop succeeds" || bad "a second stop failed"

# A stale DIR (daemons killed) is wiped and reused.
"$CLUSTER" start "$DIR" > "$ST/out5" 2> "$ST/err5" || bad "start after stop failed: $(tail -5 "$ST/err5")"
kill -KILL "$(cat "$DIR/run/osd.0.pid")" "$(cat "$DIR/run/mon.a.pid")" 2> /dev/null
sleep 0.2
"$CLUSTER" start "$DIR" > "$ST/out6" 2> "$ST/err6"
rc=$?
[ $rc = 0 ] && ok "a stale DIR (daemons killed) starts again" || {
	bad "start in a stale DIR: exit $rc:"
	sed 's/^/    /' "$ST/err6" | tail -20
}
expect "the stale DIR was wiped" "$ST/err6" "reusing $DIR \(its daemons are gone\): wiping it"
timeout 20 rados -p rbd stat obj1 > "$ST/stat" 2>&1
expect "the reused cluster is a new one (the old object is gone)" "$ST/stat" "No such file or directory"
timeout 20 ceph -s > "$ST/s2" 2>&1
expect "the reused cluster answers HEALTH_OK" "$ST/s2" "health: HEALTH_OK"
"$CLUSTER" stop "$DIR"
left=$(leftovers)
[ -z "$left" ] && ok "no daemon left at the end" || bad "daemons left at the end: $left"

finish
