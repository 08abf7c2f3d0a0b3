#!/usr/bin/env bash
# End to end with Ceph RBD namespaces (docs/ceph.md), on this machine, as root: a one-node
# cluster (tests/ceph/cluster, or $CEPH_CLUSTER_SCRIPT), build/nvmf-target serving an rbd
# image on a tcp port of 127.0.0.1, libnvmf's nvmf tool and build/tests/nvmf-io as the host:
# patterns written through the target are the bytes `rbd export` gives; an image made by
# `rbd import` and added live (nvmf-targetctl namespace add --rbd) reads back through the
# target; Write Zeroes and Deallocate (also of part of an object) read back zeroes, here
# and in `rbd export`; Flush succeeds; fused Compare and Write (librbd's own inside an
# object, the target's across two) writes on a match and nothing on a miscompare; `rbd resize` elsewhere reaches a connected host
# without it asking (the Changed Namespace List, then Identify's NSZE); config save
# writes the nvmf_rbd_* keys back, and a reload that changes one is refused by its name
# (another image is another namespace);
# errors are one line naming the cause and leave the target serving: no such image, no
# such pool, a cluster nobody answers for (in about 10 s), a wrong key (authentication
# failed), a second namespace on the same image, reservations on an rbd namespace
# (refused: per-gateway state); a namespace whose client the cluster blocklisted (another
# gateway broke its lock) answers Asymmetric Access Inaccessible; a namespace
# removed while a host writes to it closes after its last command, no crash; SIGTERM
# exits 0; with the OSD frozen a write is not answered (no cache in the gateway answers
# it), once answered it is in the image after the target's kill -9; with the cluster
# stopped SIGTERM still ends the target (the close is bounded). Each check prints "ok - what" or "FAIL - what"; exit 1 if any failed. Without
# root or the cluster script it fails, saying which.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
TGT="$ROOT/$BUILD/nvmf-target"
NVMF="$ROOT/$BUILD/nvmf"
IO="$ROOT/$BUILD/tests/nvmf-io"
CTL="$ROOT/$BUILD/nvmf-targetctl"
CLUSTER=${CEPH_CLUSTER_SCRIPT:-$ROOT/tests/ceph/cluster}
NQN=nqn.2024-01.io.nvmf-rdma:rbd-local
FAILED=0
TGT_PID=
PERF_PID=

if [ "$(id -u)" != 0 ]; then
    echo "FAIL - rbd_test needs root (the Ceph daemons of tests/ceph/cluster)"
    exit 1
fi
if [ ! -x "$CLUSTER" ]; then
    echo "FAIL - no cluster script $CLUSTER (set CEPH_CLUSTER_SCRIPT)"
    exit 1
fi
ST=$(mktemp -d /tmp/nvmf-rbd-local.XXXXXX)

cleanup() {
    [ -n "$PERF_PID" ] && kill "$PERF_PID" 2>/dev/null && wait "$PERF_PID" 2>/dev/null
    [ -n "$TGT_PID" ] && kill "$TGT_PID" 2>/dev/null && wait "$TGT_PID" 2>/dev/null
    "$CLUSTER" stop "$ST/ceph" >/dev/null 2>&1
    rm -rf "$ST"
}
trap cleanup EXIT

ok()   { echo "ok - $*"; }
bad()  { echo "FAIL - $*"; FAILED=1; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
nvmf() { timeout 120 "$NVMF" "$1" -t tcp -a 127.0.0.1 -s "$PORT" -n "$NQN" "${@:2}"; }
io()   { timeout 60 "$IO" 127.0.0.1 "$PORT" "$NQN" "$@"; }
ctl()  { timeout 60 "$CTL" -s "$ST/ctl.sock" "$@"; }

if ! out=$("$CLUSTER" start "$ST/ceph" 2> "$ST/cluster.log"); then
    cat "$ST/cluster.log"
    bad "the cluster starts"
    exit 1
fi
eval "$out" # CEPH_CONF=... CEPH_KEYRING=...
ok "the cluster starts ($CEPH_CONF)"
rbdc() { timeout 60 rbd -c "$CEPH_CONF" --keyring "$CEPH_KEYRING" "$@"; }

check "rbd create rbd/img1 (64 MiB)" rbdc create --size 64M rbd/img1

# The backend's unit tests that need a cluster (make unit runs them without one, "not run").
if out=$(NVMF_TEST_CEPH_CONF=$CEPH_CONF NVMF_TEST_CEPH_KEYRING=$CEPH_KEYRING \
         timeout 120 "$ROOT/$BUILD/unit-tests" subsystem/backend-rbd 2>&1) &&
   grep -q 'tests: [0-9]* passed, 0 failed, 0 not run' <<< "$out"; then
    ok "unit tests of subsystem/backend-rbd against this cluster ($(grep -o 'tests: [^;]*' <<< "$out"))"
else
    bad "unit tests of subsystem/backend-rbd against this cluster: $(tail -n 5 <<< "$out")"
fi

# rbd_ns POOL IMAGE [NSID [EXTRA]]: a namespace object for IMAGE, with this cluster's keys.
rbd_ns() {
    echo '{"nsid": '"${3:-1}"', "enable": 1, "nvmf_backend": "rbd", "nvmf_rbd_pool": "'"$1"'",
           "nvmf_rbd_image": "'"$2"'", "nvmf_rbd_conf": "'"$CEPH_CONF"'",
           "nvmf_rbd_keyring": "'"$CEPH_KEYRING"'"'"${4:-}"'}'
}

write_config() {
    cat > "$ST/config.json" <<JSON
{"nvmf_target": {"hugepages": false, "threads": 2, "rpc_socket": "$ST/ctl.sock"},
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$PORT",
                                  "trtype": "tcp", "treq": "not specified"},
            "subsystems": ["$NQN"]}],
 "subsystems": [{"nqn": "$NQN", "attr": {"allow_any_host": "1"},
                 "namespaces": [$(rbd_ns rbd "${1:-img1}")]}]}
JSON
}

start_target() {
    local try i
    read -r eph_lo _ < /proc/sys/net/ipv4/ip_local_port_range
    for try in 1 2 3 4 5; do
        PORT=$((10000 + RANDOM % (eph_lo > 11000 ? eph_lo - 10000 : 1000)))
        write_config "$@"
        "$TGT" -c "$ST/config.json" > "$ST/target.log" 2>&1 &
        TGT_PID=$!
        for i in $(seq 300); do
            grep -q 'nvmf-target: core: ready' "$ST/target.log" && return 0
            kill -0 "$TGT_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill "$TGT_PID" 2>/dev/null; wait "$TGT_PID" 2>/dev/null
        TGT_PID=
    done
    cat "$ST/target.log"
    return 1
}

if ! start_target; then
    bad "the target starts with an rbd namespace"
    exit 1
fi
ok "the target starts with an rbd namespace"
check "its log names the image and its size" \
    grep -q 'rbd rbd/img1: 67108864 bytes' "$ST/target.log"

# ---- data: through the target == rbd export ----
head -c $((1 << 20)) /dev/urandom > "$ST/pat"
head -c 4096 /dev/urandom > "$ST/pat4k"
if nvmf write --offset 1M -i "$ST/pat" 2> "$ST/w.err" &&
   nvmf write --offset 4190208 -i "$ST/pat4k" 2>> "$ST/w.err" && # across objects 0 and 1
   nvmf read --offset 1M --length 1M -o "$ST/pat.back" 2> "$ST/r.err" &&
   cmp -s "$ST/pat" "$ST/pat.back"; then
    ok "1 MiB written through the target reads back"
else
    bad "1 MiB written through the target reads back: $(cat "$ST/w.err" "$ST/r.err")"
fi
check "flush succeeds" io 1 flush
if rbdc export rbd/img1 "$ST/exp" > /dev/null 2>&1 &&
   cmp -s "$ST/pat" <(dd if="$ST/exp" bs=1M skip=1 count=1 2>/dev/null) &&
   cmp -s "$ST/pat4k" <(dd if="$ST/exp" bs=4096 skip=1023 count=1 2>/dev/null); then
    ok "rbd export has the bytes written through the target"
else
    bad "rbd export has the bytes written through the target"
fi

# ---- fused Compare and Write: one block is rbd_aio_compare_and_write (atomic at the OSD),
# four (LBA 16382-16385, across objects 1 and 2) the target's read-compare-write ----
for at in 100 16382; do
    n=1; [ $at = 16382 ] && n=4
    head -c $((n * 512)) /dev/urandom > "$ST/caw.new"
    if nvmf read --slba $at --nlb $n -o "$ST/caw.old" 2> "$ST/caw.err" &&
       nvmf compare-write --slba $at --nlb $n --compare "$ST/caw.old" -i "$ST/caw.new" 2>> "$ST/caw.err" &&
       nvmf read --slba $at --nlb $n -o "$ST/caw.back" 2>> "$ST/caw.err" && cmp -s "$ST/caw.back" "$ST/caw.new"
    then
        ok "compare and write at LBA $at ($n blocks): a match writes"
    else
        bad "compare and write at LBA $at ($n blocks): a match writes: $(cat "$ST/caw.err")"
    fi
    if ! nvmf compare-write --slba $at --nlb $n --compare "$ST/caw.old" -i "$ST/caw.old" 2> "$ST/caw.err" &&
       grep -q COMPARE_FAILED "$ST/caw.err" &&
       nvmf read --slba $at --nlb $n -o "$ST/caw.back" 2>> "$ST/caw.err" && cmp -s "$ST/caw.back" "$ST/caw.new"
    then
        ok "compare and write at LBA $at ($n blocks): a miscompare is COMPARE_FAILED and writes nothing"
    else
        bad "compare and write at LBA $at ($n blocks): a miscompare: $(cat "$ST/caw.err")"
    fi
done

# ---- Write Zeroes and Deallocate read back zeroes (rbd_aio_write_zeroes) ----
# 2048 + 16 blocks of the 1 MiB pattern (LBA 2048..4095): zero 16 at 2048, deallocate 8 in
# the middle of the object (a partial object: rbd_aio_discard would leave it).
head -c 8192 /dev/zero > "$ST/z8k"
head -c 4096 /dev/zero > "$ST/z4k"
if io 1 zeroes 2048 16 2> "$ST/z.err" && io 1 dealloc 3000 8 2>> "$ST/z.err" &&
   nvmf read --slba 2048 --nlb 16 -o "$ST/z.back" 2>> "$ST/z.err" &&
   nvmf read --slba 3000 --nlb 8 -o "$ST/d.back" 2>> "$ST/z.err" &&
   cmp -s "$ST/z.back" "$ST/z8k" && cmp -s "$ST/d.back" "$ST/z4k" &&
   nvmf read --slba 2064 --nlb 8 -o "$ST/kept" 2>> "$ST/z.err" &&
   cmp -s "$ST/kept" <(dd if="$ST/pat" bs=512 skip=16 count=8 2>/dev/null); then
    ok "write zeroes and deallocate read back zeroes, the rest as written"
else
    bad "write zeroes and deallocate read back zeroes: $(cat "$ST/z.err")"
fi
if rbdc export rbd/img1 "$ST/exp2" > /dev/null 2>&1 &&
   cmp -s "$ST/z4k" <(dd if="$ST/exp2" bs=512 skip=3000 count=8 2>/dev/null); then
    ok "rbd export has the deallocated blocks as zeroes"
else
    bad "rbd export has the deallocated blocks as zeroes"
fi

# ---- rbd import, added live ----
head -c $((8 << 20)) /dev/urandom > "$ST/imp"
check "rbd import of 8 MiB" rbdc import --no-progress "$ST/imp" rbd/img2
if ctl namespace add "$NQN" --nsid 2 --rbd rbd/img2 --rbd-conf "$CEPH_CONF" \
        --rbd-keyring "$CEPH_KEYRING" --rbd-client admin > "$ST/add.out" 2>&1; then
    ok "nvmf-targetctl namespace add --rbd, live: $(cat "$ST/add.out")"
else
    bad "nvmf-targetctl namespace add --rbd, live: $(cat "$ST/add.out")"
fi
if nvmf read --ns 2 --offset 0 --length 8M -o "$ST/imp.back" 2> "$ST/imp.err" &&
   cmp -s "$ST/imp" "$ST/imp.back"; then
    ok "the imported image reads back through the target"
else
    bad "the imported image reads back through the target: $(cat "$ST/imp.err")"
fi

# ---- rbd resize elsewhere reaches a connected host ----
io 1 await-change 20 > "$ST/chg.out" 2> "$ST/chg.err" &
AW=$!
for i in $(seq 100); do grep -q ready "$ST/chg.out" && break; sleep 0.1; done
rbdc resize --size 96M rbd/img1 > /dev/null 2>&1 || bad "rbd resize"
if wait "$AW" && grep -qx 'changed 1' "$ST/chg.out" && grep -qx 'nsze 196608' "$ST/chg.out"; then
    ok "rbd resize: the host's Changed Namespace List names it, Identify says 96 MiB"
else
    bad "rbd resize reaches the host: $(cat "$ST/chg.out" "$ST/chg.err")"
fi
check "the target logs the growth" grep -q 'grew from 67108864 to 100663296 bytes' "$ST/target.log"
if nvmf identify --ns 1 --json 2>/dev/null | grep -q '"nsze" *: *196608'; then
    ok "a new host sees the new size"
else
    bad "a new host sees the new size"
fi

# ---- errors: one line naming the cause; the target serves on ----
# add_err OBJECT WANT WHAT: namespace_add of OBJECT fails with a message holding WANT.
add_err() {
    local t0=$SECONDS
    if ctl call namespace_add '{"nqn": "'"$NQN"'", "namespace": '"$1"'}' > "$ST/e.out" 2>&1; then
        bad "$3: added"
    elif grep -qF "$2" "$ST/e.out"; then
        ok "$3 ($((SECONDS - t0)) s): $(grep -F "$2" "$ST/e.out" | head -1 | cut -c1-150)"
    else
        bad "$3: $(cat "$ST/e.out")"
    fi
}
add_err "$(rbd_ns rbd nosuch 5)" "rbd rbd/nosuch: no such image" "no such image"
add_err "$(rbd_ns nopool img1 5)" "rbd nopool/img1: no such pool" "no such pool"
add_err "$(rbd_ns rbd img1 5 ', "nvmf_rbd_namespace": "nons"')" \
    "rbd rbd/nons/img1: pool rbd has no RADOS namespace nons" "no such RADOS namespace"
sed 's/^\([[:space:]]*mon[_ ]host[[:space:]]*=\).*/\1 v2:127.0.0.1:1/' "$CEPH_CONF" > "$ST/dead.conf"
add_err "$(rbd_ns rbd img1 5 | sed "s|$CEPH_CONF|$ST/dead.conf|")" \
    "cannot reach the cluster in $ST/dead.conf as client.admin: no monitor answered within 10 s" \
    "a cluster nobody answers for"
printf '[client.admin]\n\tkey = AQBKmlVlAAAAABAAo2e2JMQ1x3kq8oVBqFqO6w==\n' > "$ST/bad.keyring"
add_err "$(rbd_ns rbd img1 5 | sed "s|$CEPH_KEYRING|$ST/bad.keyring|")" \
    "authentication failed (client.admin, keyring $ST/bad.keyring)" "a wrong key"
add_err "$(rbd_ns rbd img1 5)" "rbd/img1 already backs namespace 1 of $NQN" \
    "a second namespace on the same image"
add_err "$(rbd_ns rbd img1 5 ', "resv": {"enable": "1"}')" \
    "reservations are per-gateway state" "reservations on an rbd namespace"
check "the target still serves after the errors" kill -0 "$TGT_PID"
if nvmf read --offset 4190208 --length 4096 -o "$ST/pat.back2" 2>/dev/null &&
   cmp -s "$ST/pat4k" "$ST/pat.back2"; then
    ok "reads still work after the errors"
else
    bad "reads still work after the errors"
fi
if grep -qiE 'AQBKmlVl|key *=' "$ST/target.log"; then
    bad "no key in the target's log"
else
    ok "no key in the target's log"
fi

# ---- a gateway fenced off (blocklisted) answers ANA Inaccessible ----
# Namespace 4 on its own image: its client (the only watcher) blocklisted, as when another
# gateway breaks our lock; the commands then fail with EBLOCKLISTED inside the target.
cephc() { timeout 60 ceph -c "$CEPH_CONF" --keyring "$CEPH_KEYRING" "$@"; }
rbdc create --size 16M rbd/fenced || bad "rbd create rbd/fenced"
if ctl call namespace_add '{"nqn": "'"$NQN"'", "namespace": '"$(rbd_ns rbd fenced 4)"'}' \
        > /dev/null 2>&1 && nvmf write --ns 4 --slba 0 -i "$ST/pat4k" 2> "$ST/f.err"; then
    watcher=$(rbdc status rbd/fenced | sed -n 's/.*watcher=\([^ ]*\) .*/\1/p' | head -1)
    if [ -n "$watcher" ] && cephc osd blocklist add "$watcher" > /dev/null 2>&1 &&
       ! nvmf write --ns 4 --slba 0 -i "$ST/pat4k" 2> "$ST/f.err" &&
       grep -q 'ANA_INACCESSIBLE' "$ST/f.err" &&
       ! nvmf read --ns 4 --slba 0 --nlb 1 -o /dev/null 2> "$ST/f2.err" &&
       grep -q 'ANA_INACCESSIBLE' "$ST/f2.err"; then
        ok "blocklisted: writes and reads get ANA Inaccessible ($(cat "$ST/f.err"))"
    else
        bad "blocklisted: ANA Inaccessible (watcher '$watcher'): $(cat "$ST/f.err" "$ST/f2.err" 2>/dev/null)"
    fi
    check "the target logs errno 108" grep -q 'namespace 4 (rbd rbd/fenced).*(errno 108)' "$ST/target.log"
    check "the other namespaces serve on" nvmf read --slba 0 --nlb 8 -o /dev/null
    ctl namespace remove "$NQN" 4 > /dev/null 2>&1 || bad "namespace 4 removed"
else
    bad "namespace 4 on rbd/fenced: $(cat "$ST/f.err")"
fi

# ---- config save round trip, reload of a changed rbd key ----
if ctl config save "$ST/saved.json" > /dev/null 2>&1 &&
   python3 - "$ST/saved.json" "$CEPH_CONF" "$CEPH_KEYRING" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
ns = {n["nsid"]: n for n in c["subsystems"][0]["namespaces"]}
for nsid, img in ((1, "img1"), (2, "img2")):
    n = ns[nsid]
    assert n["nvmf_backend"] == "rbd" and n["nvmf_rbd_pool"] == "rbd", n
    assert n["nvmf_rbd_image"] == img and n["nvmf_rbd_conf"] == sys.argv[2], n
    assert n["nvmf_rbd_keyring"] == sys.argv[3] and n["nvmf_rbd_client_id"] == "admin", n
    assert "path" not in n.get("device", {}) and "nvmf_size_bytes" not in n, n
EOF
then
    ok "config save writes the rbd keys back"
else
    bad "config save writes the rbd keys back"
fi
check "the saved config loads (--check)" "$TGT" -c "$ST/saved.json" --check
rbdc create --size 16M rbd/img3 || bad "rbd create rbd/img3"
write_config img3
# Another image under the same nsid is another namespace: a reload refuses it by the key,
# as it does a changed device.path, and changes nothing.
if ! ctl config reload > "$ST/reload.out" 2>&1 &&
   grep -qF 'nvmf_rbd_image differs (running "img1", file "img3")' "$ST/reload.out"; then
    ok "reload with another nvmf_rbd_image is refused naming the key"
else
    bad "reload with another nvmf_rbd_image: $(cat "$ST/reload.out")"
fi
if nvmf identify --ns 1 --json 2>/dev/null | grep -q '"nsze" *: *196608'; then
    ok "namespace 1 is still img1"
else
    bad "namespace 1 is still img1"
fi
write_config img1 # the file as the target runs it again

# ---- a namespace removed while a host writes to it ----
timeout 60 "$NVMF" perf -t tcp -a 127.0.0.1 -s "$PORT" -n "$NQN" --ns 2 --rw randwrite \
    --bs 4096 --qd 32 --time 8 --size 8M > "$ST/perf.out" 2>&1 &
PERF_PID=$!
sleep 2
if ctl namespace remove "$NQN" 2 > "$ST/rm.out" 2>&1; then
    ok "namespace 2 removed under writes"
else
    bad "namespace 2 removed under writes: $(cat "$ST/rm.out")"
fi
prc=0
wait "$PERF_PID" 2>/dev/null || prc=$?
PERF_PID=
# The writes were running when it went: perf saw them fail (Invalid Namespace).
check "perf was writing when it went (exit $prc: $(grep -m1 -iE 'error|fail|invalid' "$ST/perf.out" | cut -c1-100))" \
    [ "$prc" != 0 ]
for i in $(seq 100); do
    grep -q 'namespace 2 closed after its last command' "$ST/target.log" && break
    sleep 0.1
done
check "it closed after its last command" grep -q 'namespace 2 closed after its last command' "$ST/target.log"
check "the target survived it" kill -0 "$TGT_PID"
check "namespace 1 still reads" nvmf read --slba 0 --nlb 8 -o /dev/null

# ---- shutdown ----
kill -TERM "$TGT_PID"
rc=0
wait "$TGT_PID" || rc=$?
TGT_PID=
check "SIGTERM: the target exits 0 (exit $rc)" [ "$rc" = 0 ]

# ---- a write is answered once the OSD has it: librbd's cache is off (its default
# "writearound" answers a write at once and sends it after; a gateway killed meanwhile,
# or one whose image another gateway then serves, would lose a write the host saw done).
# The OSD is frozen (SIGSTOP) while the host flushes and writes: no answer may come
# before it runs again, then the write must be in the image. ----
OSD_PID=$(cat "$ST/ceph/run/osd.0.pid" 2>/dev/null)
if start_target && [ -n "$OSD_PID" ]; then
    io 1 flush 2> "$ST/hold.err"
    kill -STOP "$OSD_PID"
    io 1 write-hold 4096 165 512 > "$ST/hold.out" 2>> "$ST/hold.err" &
    HOLD_PID=$!
    sleep 3
    if grep -q written "$ST/hold.out"; then
        bad "a write is not answered while the OSD is frozen (it was: a cache answered it)"
    else
        ok "a write is not answered while the OSD is frozen"
    fi
    kill -CONT "$OSD_PID"
    for i in $(seq 300); do grep -q written "$ST/hold.out" && break; sleep 0.1; done
    check "it is answered once the OSD runs again" grep -q written "$ST/hold.out"
    kill -KILL "$TGT_PID"; wait "$TGT_PID" 2>/dev/null; TGT_PID=
    head -c $((512 * 512)) /dev/zero | tr '\0' '\245' > "$ST/kpat"
    if rbdc export rbd/img1 "$ST/kexp" > /dev/null 2>&1 &&
       cmp -s "$ST/kpat" <(dd if="$ST/kexp" bs=256K skip=8 count=1 2>/dev/null); then
        ok "the answered write is in the image after the target's kill -9"
    else
        bad "the answered write is in the image after the target's kill -9"
    fi
    kill "$HOLD_PID" 2>/dev/null; wait "$HOLD_PID" 2>/dev/null
else
    kill -CONT "$OSD_PID" 2>/dev/null
    bad "the target starts again (osd.0 pid '$OSD_PID')"
fi
# ---- the cluster gone: SIGTERM still ends the target (each image's close is bounded) ----
if start_target; then
    nvmf write --offset 0 -i "$ST/pat4k" 2>/dev/null # the image's exclusive lock is ours
    "$CLUSTER" stop "$ST/ceph" > /dev/null 2>&1
    t0=$SECONDS
    kill -TERM "$TGT_PID"
    for i in $(seq 600); do kill -0 "$TGT_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$TGT_PID" 2>/dev/null; then
        bad "SIGTERM with the cluster gone: the target still runs after 60 s"
        kill -KILL "$TGT_PID"
    else
        ok "SIGTERM with the cluster gone: the target exits in $((SECONDS - t0)) s"
    fi
    wait "$TGT_PID" 2>/dev/null; TGT_PID=
    check "its log says the close was left to the cluster" \
        grep -q 'the cluster did not answer the close within 5 s' "$ST/target.log"
else
    bad "the target starts for the cluster-gone stop"
fi
if grep -qiE 'AddressSanitizer|use-after-free|runtime error' "$ST/target.log"; then
    bad "no sanitizer report: $(grep -iE 'AddressSanitizer|runtime error' "$ST/target.log" | head -3)"
fi
[ "$FAILED" = 0 ] || { echo "--- target log"; tail -40 "$ST/target.log"; }
exit "$FAILED"
