#!/usr/bin/env bash
# A gateway group on this machine (docs/gateway.md), against a one-node Ceph cluster
# (tests/ceph/cluster; CEPH_CLUSTER_SCRIPT names another copy of it). Root only (the
# cluster's daemons); without root it says so and fails.
# Two nvmf-target processes, gw-a and gw-b, serve the same subsystem NQN on their own tcp
# port of 127.0.0.1, RAM namespaces in ANA group 2 (preferred gw-a) and 3 (preferred gw-b),
# lease GW_LEASE seconds (default 6). Each check reads the ANA log through each port with
# the nvmf tool, and:
#   - the steady state: group 2 optimized through gw-a and non-optimized through gw-b,
#     group 3 the other way round; gateway_status (and nvmf-targetctl gateway status)
#     says who holds what;
#   - kill -9 gw-a: gw-b reports group 2 optimized within lease + interval (+1 s of
#     polling); the time is printed;
#   - gw-a restarted: group 2 moves back (failback time printed);
#   - SIGTERM to gw-b: gw-a takes group 3 within one interval (+1 s): gw-b released its
#     locks at its stop (time printed);
#   - the cluster's OSD frozen (SIGSTOP): each gateway turns its groups non-optimized by
#     itself before its lease could have ended at the cluster (time printed), and takes
#     them back once the OSD runs again;
#   - a bad nvmf_gateway is refused with its message (--check and at start); a missing
#     ceph.conf stops the start naming it; a reload changing nvmf_gateway is refused
#     saying it takes a restart;
#   - a cluster no one answers at start: the target starts and serves, its groups
#     non-optimized, gateway status says the cluster is unreachable and the log why.
# Each check prints "ok - what" or "FAIL - what"; exit 1 at the end if any failed.
# BUILD=build/asan runs the sanitizer build (a report in any log fails).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
TGT="$ROOT/$BUILD/nvmf-target"
NVMF="$ROOT/$BUILD/nvmf"
CTL="$ROOT/$BUILD/nvmf-targetctl"
CLUSTER=${CEPH_CLUSTER_SCRIPT:-$ROOT/tests/ceph/cluster}
NQN=nqn.2024-01.io.nvmf-rdma:gateway
LEASE=${GW_LEASE:-6}
INTERVAL_MS=$((LEASE * 1000 / 3))
FAILED=0
PIDS=()

ok()  { echo "ok - $*"; }
bad() { echo "FAIL - $*"; FAILED=1; }

if [ "$(id -u)" != 0 ]; then
    echo "gateway_test: needs root (the Ceph cluster's daemons), as tests/local/ceph_cluster_test.sh"
    exit 1
fi
[ -x "$CLUSTER" ] || { echo "gateway_test: no cluster script $CLUSTER (CEPH_CLUSTER_SCRIPT)"; exit 1; }

ST=$(mktemp -d /tmp/nvmf-gateway.XXXXXX)
cleanup() {
    for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
    [ -n "${OSD_PID:-}" ] && kill -CONT "$OSD_PID" 2>/dev/null
    "$CLUSTER" stop "$ST/ceph" > /dev/null 2>&1
    rm -rf "$ST"
}
trap cleanup EXIT

out=$("$CLUSTER" start "$ST/ceph" 2> "$ST/cluster.err") || {
    cat "$ST/cluster.err"
    bad "the Ceph cluster starts"
    exit 1
}
eval "$out"
ok "the Ceph cluster starts ($CEPH_CONF)"
OSD_PID=$(cat "$ST/ceph/run/osd.0.pid")

read -r EPH_LO _ < /proc/sys/net/ipv4/ip_local_port_range
BASE=$((10000 + RANDOM % (EPH_LO > 12000 ? EPH_LO - 12000 : 1000)))
declare -A PORT=([a]=$BASE [b]=$((BASE + 1)) [c]=$((BASE + 2)))

# write_config NAME [CEPH_CONF [LEASE]]: gw-NAME's config in $ST/NAME.json.
write_config() {
    local n=$1 conf=${2:-$CEPH_CONF} lease=${3:-$LEASE}
    cat > "$ST/$n.json" <<JSON
{"nvmf_target": {"hugepages": false, "threads": 1},
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1",
                                  "trsvcid": "${PORT[$n]}", "trtype": "tcp"},
            "subsystems": ["$NQN"],
            "ana_groups": [{"grpid": 2, "ana": {"state": "optimized"}},
                           {"grpid": 3, "ana": {"state": "optimized"}}]}],
 "subsystems": [{"nqn": "$NQN", "attr": {"allow_any_host": "1", "serial": "gateway01"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "16M",
                   "ana_grpid": 2, "device": {"uuid": "6c1d0a52-7f0e-4c35-9a43-0d2b8e5f1b01"}},
                  {"nsid": 2, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "16M",
                   "ana_grpid": 3, "device": {"uuid": "6c1d0a52-7f0e-4c35-9a43-0d2b8e5f1b02"}}]}],
 "nvmf_gateway": {"name": "gw-$n", "group": "test", "ceph_conf": "$conf",
                  "keyring": "$CEPH_KEYRING", "pool": "rbd", "lease_seconds": $lease,
                  "ana_groups": [{"grpid": 2, "preferred": "gw-a"},
                                 {"grpid": 3, "preferred": "gw-b"}]}}
JSON
}

declare -A PID READY
# start NAME: gw-NAME runs and says ready (its log $ST/NAME.log, appended).
start() {
    local n=$1 i
    touch "$ST/$n.log"
    "$TGT" -c "$ST/$n.json" --rpc-socket "$ST/$n.sock" >> "$ST/$n.log" 2>&1 &
    PID[$n]=$!
    PIDS+=("$!")
    for i in $(seq 100); do
        [ "$(grep -c 'nvmf-target: core: ready' "$ST/$n.log")" -gt "${READY[$n]:-0}" ] && {
            READY[$n]=$(grep -c 'nvmf-target: core: ready' "$ST/$n.log")
            return 0
        }
        kill -0 "${PID[$n]}" 2>/dev/null || break
        sleep 0.1
    done
    tail -20 "$ST/$n.log"
    return 1
}

# state NAME GRPID: the group's state in the ANA log read through gw-NAME's port.
state() {
    timeout 10 "$NVMF" ana-log -t tcp -a 127.0.0.1 -s "${PORT[$1]}" -n "$NQN" --json 2> /dev/null |
        jq -r --argjson g "$2" '.paths[0].groups[] | select(.grpid == $g) | .state' 2> /dev/null
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_state NAME GRPID STATE SECS: polls until it is so; prints the ms it took, or fails.
wait_state() {
    local t0 end s
    t0=$(now_ms)
    end=$((t0 + $4 * 1000))
    while :; do
        s=$(state "$1" "$2")
        [ "$s" = "$3" ] && { echo $(($(now_ms) - t0)); return 0; }
        [ "$(now_ms)" -ge "$end" ] && { echo "never (last: ${s:-no answer})"; return 1; }
        sleep 0.1
    done
}

steady() {
    wait_state a 2 optimized "$1" > /dev/null && wait_state b 3 optimized "$1" > /dev/null &&
        wait_state a 3 non-optimized "$1" > /dev/null && wait_state b 2 non-optimized "$1" > /dev/null
}

for n in a b; do write_config $n; done
start a || bad "gw-a starts"
start b || bad "gw-b starts"
if steady 20; then
    ok "steady state: group 2 optimized through gw-a, non-optimized through gw-b; group 3 the other way"
else
    bad "steady state (a: 2=$(state a 2) 3=$(state a 3); b: 2=$(state b 2) 3=$(state b 3))"
    tail -20 "$ST/a.log" "$ST/b.log"
fi

# The holder another gateway took is seen at the next round (one interval).
want="gw-a true 2 true gw-a optimized 3 false gw-b non-optimized "
for i in $(seq $((INTERVAL_MS / 100 + 20))); do
    st=$("$CTL" -s "$ST/a.sock" call gateway_status)
    got=$(jq -r '.name, .reachable, (.groups[] | "\(.grpid) \(.held) \(.holder) \(.state)")' <<< "$st" | tr '\n' ' ')
    [ "$got" = "$want" ] && break
    sleep 0.1
done
if [ "$got" = "$want" ]; then
    ok "gateway_status on gw-a: holds group 2, gw-b holds group 3, cluster reachable"
else
    bad "gateway_status on gw-a: $st"
fi
for i in $(seq $((INTERVAL_MS / 100 + 20))); do
    "$CTL" -s "$ST/b.sock" gateway status > "$ST/status.txt" 2>&1
    grep -Eq '^ +2 +non-optimized +no +gw-a +gw-a ' "$ST/status.txt" && break
    sleep 0.1
done
if grep -q '^gateway gw-b of group test: pool rbd, lease '"$LEASE"' s, cluster reachable$' "$ST/status.txt" &&
    grep -Eq '^ +3 +optimized +yes +gw-b +gw-b ' "$ST/status.txt" &&
    grep -Eq '^ +2 +non-optimized +no +gw-a +gw-a ' "$ST/status.txt"; then
    ok "nvmf-targetctl gateway status on gw-b"
else
    cat "$ST/status.txt"
    bad "nvmf-targetctl gateway status on gw-b"
fi

# ---- failover: gw-a killed ----
kill -9 "${PID[a]}"
wait "${PID[a]}" 2> /dev/null
bound=$((LEASE + (INTERVAL_MS + 999) / 1000 + 1))
if t=$(wait_state b 2 optimized $((bound + 5))); then
    echo "# failover after kill -9: group 2 optimized through gw-b after $t ms (lease $LEASE s, interval $INTERVAL_MS ms)"
    [ "$t" -le $((bound * 1000)) ] && ok "kill -9 gw-a: gw-b takes group 2 within lease + interval ($t ms)" ||
        bad "kill -9 gw-a: gw-b took group 2 after $t ms, more than $bound s"
else
    bad "kill -9 gw-a: gw-b never took group 2 ($t)"
    tail -20 "$ST/b.log"
fi
grep -q "gateway: ANA group 2: optimized on this gateway (gw-b): lock taken: its preferred gateway gw-a is not alive" "$ST/b.log" &&
    ok "gw-b logs the takeover once, with its reason" || bad "gw-b's log of the takeover"

# ---- failback: gw-a restarted ----
t0=$(now_ms)
start a || bad "gw-a restarts"
if wait_state a 2 optimized $((LEASE * 3 + 5)) > /dev/null && t=$(wait_state b 2 non-optimized 5); then
    echo "# failback after restart: group 2 optimized through gw-a again $(($(now_ms) - t0)) ms after the restart"
    ok "gw-a restarted: group 2 moves back"
else
    bad "gw-a restarted: group 2 did not move back (a: $(state a 2), b: $(state b 2))"
    tail -20 "$ST/a.log" "$ST/b.log"
fi
grep -q "given back to its preferred gateway gw-a (failback)" "$ST/b.log" &&
    ok "gw-b logs the failback" || bad "gw-b's log of the failback"

# ---- planned stop: gw-b SIGTERM ----
kill -TERM "${PID[b]}"
if t=$(wait_state a 3 optimized $((LEASE + 5))); then
    wait "${PID[b]}" 2> /dev/null
    echo "# failover after SIGTERM: group 3 optimized through gw-a after $t ms"
    [ "$t" -le $((INTERVAL_MS + 1500)) ] && ok "SIGTERM gw-b: gw-a takes group 3 within one interval ($t ms): locks released at the stop" ||
        bad "SIGTERM gw-b: gw-a took group 3 after $t ms, more than an interval: were the locks released?"
else
    bad "SIGTERM gw-b: gw-a never took group 3"
fi
grep -q "gateway gw-b stops: its locks are released" "$ST/b.log" && ok "gw-b says it released its locks" ||
    bad "gw-b's log of its stop"
start b || bad "gw-b restarts"
steady $((LEASE * 3 + 5)) && ok "gw-b restarted: back to the steady state" || bad "gw-b restarted: steady state"

# ---- cut off from the cluster: the OSD frozen ----
kill -STOP "$OSD_PID"
t0=$(now_ms)
ta=$(wait_state a 2 non-optimized $((LEASE + 5)))
ra=$?
tb=$(wait_state b 3 non-optimized $((LEASE + 5)))
rb=$?
echo "# OSD frozen: gw-a dropped group 2 after $ta ms, gw-b group 3 after $(($(now_ms) - t0)) ms (lease $LEASE s)"
if [ $ra = 0 ] && [ $rb = 0 ] && [ "$ta" -lt $((LEASE * 1000)) ]; then
    ok "cut off from the cluster: both gateways go non-optimized before the lease ($ta ms < $LEASE s)"
else
    bad "cut off from the cluster: gw-a $ta, gw-b $tb"
fi
"$CTL" -s "$ST/a.sock" gateway status > "$ST/status.txt" 2>&1
grep -q 'cluster unreachable: ' "$ST/status.txt" && ok "gateway status says the cluster is unreachable" ||
    { cat "$ST/status.txt"; bad "gateway status while cut off"; }
grep -q "ANA group 2: non-optimized on this gateway (gw-a): no lock renewal for" "$ST/a.log" &&
    ok "gw-a logs why it dropped group 2" || bad "gw-a's log of the drop"
kill -CONT "$OSD_PID"
steady $((LEASE * 4 + 10)) && ok "the OSD back: the groups are optimized again where they belong" ||
    bad "after the OSD came back (a: 2=$(state a 2) 3=$(state a 3); b: 2=$(state b 2) 3=$(state b 3))"

# ---- a reload that changes nvmf_gateway is refused ----
write_config a "$CEPH_CONF" $((LEASE + 1))
"$CTL" -s "$ST/a.sock" config reload > "$ST/reload.out" 2>&1
grep -q "nvmf_gateway.lease_seconds differs from the running target's; the gateway group's settings take a restart" "$ST/reload.out" &&
    ok "config reload changing nvmf_gateway is refused: it takes a restart" ||
    { cat "$ST/reload.out"; bad "config reload changing nvmf_gateway"; }
write_config a

# ---- configuration mistakes ----
sed 's/"lease_seconds": [0-9]*/"lease_seconds": 1/' "$ST/a.json" > "$ST/bad.json"
"$TGT" --check -c "$ST/bad.json" > "$ST/bad.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "nvmf_gateway.lease_seconds: 1 is not a lease in seconds (3-120)" "$ST/bad.out" &&
    ok "a bad nvmf_gateway is refused by --check with its path" || { cat "$ST/bad.out"; bad "--check of a bad nvmf_gateway (exit $rc)"; }
write_config c /nonexistent/ceph.conf
timeout 20 "$TGT" -c "$ST/c.json" --no-rpc-socket > "$ST/c0.log" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "nvmf_gateway.ceph_conf: /nonexistent/ceph.conf: No such file or directory" "$ST/c0.log" &&
    ok "a missing ceph.conf stops the start, named" || { cat "$ST/c0.log"; bad "missing ceph.conf (exit $rc)"; }

# ---- a cluster no one answers at start ----
sed 's/^mon host = .*/mon host = v2:127.0.0.1:1/' "$CEPH_CONF" > "$ST/dead.conf"
write_config c "$ST/dead.conf"
start c || bad "a gateway whose cluster does not answer starts anyway"
s2=$(state c 2)
s3=$(state c 3)
[ "$s2" = non-optimized ] && [ "$s3" = non-optimized ] &&
    ok "cluster unreachable at start: the target serves, its groups non-optimized" ||
    bad "cluster unreachable at start: group 2 $s2, group 3 $s3"
for i in $(seq $((LEASE * 3 * 10))); do
    grep -q "cannot reach the Ceph cluster" "$ST/c.log" && break
    sleep 0.1
done
grep -q "gateway: error: cannot reach the Ceph cluster ($ST/dead.conf): .*every group stays non-optimized here, retrying every" "$ST/c.log" &&
    ok "the log says the cluster cannot be reached and that it retries" || { tail -5 "$ST/c.log"; bad "log of the unreachable cluster"; }
"$CTL" -s "$ST/c.sock" gateway status 2>&1 | grep -q 'cluster unreachable: cannot reach the Ceph cluster' &&
    ok "gateway status says so" || bad "gateway status of the unreachable cluster"
kill -TERM "${PID[c]}"
if timeout $((LEASE * 2 + 5)) tail --pid="${PID[c]}" -f /dev/null; then
    ok "it stops on SIGTERM"
else
    bad "SIGTERM with an unreachable cluster did not stop it within $((LEASE * 2 + 5)) s"
fi

for n in a b; do
    kill -TERM "${PID[$n]}" 2> /dev/null && wait "${PID[$n]}"
    rc=$?
    [ $rc = 0 ] && ok "gw-$n stops cleanly" || bad "gw-$n exit $rc"
done
# The sanitizer build (BUILD=build/asan): any report in any gateway's log fails.
if grep -l 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$ST"/*.log 2> /dev/null; then
    bad "sanitizer reports in the logs above"
else
    ok "no sanitizer report in the gateways' logs"
fi
exit $FAILED
