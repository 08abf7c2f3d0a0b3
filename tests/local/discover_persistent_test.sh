#!/usr/bin/env bash
# `nvmf discover --persistent` against build/nvmf-target over NVMe/TCP on 127.0.0.1 (no
# VM, no root; make local-check): the tool prints the log, then, as ports are added,
# linked and removed through the control socket, each change (Discovery Log Page Change
# events) with the entries added and removed; SIGINT and SIGTERM end it with exit 0 and
# the target frees its discovery controller; --changes N ends it after N changes; a
# target that goes away ends it with exit 1 and a message saying the connection was lost.
# Each check prints "ok - what" or "FAIL - what"; the script exits 1 at the end if any
# failed. BUILD=build/asan runs the sanitizer build.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
TGT="$ROOT/$BUILD/nvmf-target"
NVMF="$ROOT/$BUILD/nvmf"
CTL="$ROOT/$BUILD/nvmf-targetctl"
NQN=nqn.2024-01.io.nvmf-rdma:disc-persistent
for p in "$TGT" "$NVMF" "$CTL"; do
    [ -x "$p" ] || { echo "FAIL - $p is not built (make all first)"; exit 1; }
done
ST=$(mktemp -d /tmp/nvmf-disc-persistent.XXXXXX)
SOCK="$ST/ctl.sock"
PORT=
TGT_PID=
TOOL_PID=
FAILED=0
read -r EPH_LO _ < /proc/sys/net/ipv4/ip_local_port_range

cleanup() {
    [ -n "$TOOL_PID" ] && kill "$TOOL_PID" 2>/dev/null && wait "$TOOL_PID" 2>/dev/null
    [ -n "$TGT_PID" ] && kill "$TGT_PID" 2>/dev/null && wait "$TGT_PID" 2>/dev/null
    rm -rf "$ST"
}
trap cleanup EXIT

ok()  { echo "ok - $*"; }
bad() { echo "FAIL - $*"; FAILED=1; }
ctl() { timeout 30 "$CTL" -s "$SOCK" "$@"; }

write_config() {
    cat > "$ST/config.json" <<JSON
{"nvmf_target": {"hugepages": false, "threads": 1},
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$PORT",
                                  "trtype": "tcp", "treq": "not specified"},
            "subsystems": ["$NQN"]}],
 "subsystems": [{"nqn": "$NQN", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_block_size": 512,
                   "nvmf_size_bytes": "1M"}]}]}
JSON
}

# The target on a free port below the ephemeral range, with a control socket.
start_target() {
    local try i
    for try in 1 2 3 4 5 6 7 8; do
        PORT=$((10000 + RANDOM % (EPH_LO > 11000 ? EPH_LO - 10000 : 1000)))
        write_config
        rm -f "$SOCK"
        "$TGT" -c "$ST/config.json" --rpc-socket "$SOCK" > "$ST/target.log" 2>&1 &
        TGT_PID=$!
        for i in $(seq 100); do
            grep -q 'nvmf-target: core: ready' "$ST/target.log" 2> /dev/null && return 0
            kill -0 "$TGT_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill "$TGT_PID" 2>/dev/null; wait "$TGT_PID" 2>/dev/null
        TGT_PID=
    done
    cat "$ST/target.log"
    return 1
}

# start_tool ARGS...: nvmf discover --persistent in the background, output in $ST/out, $ST/err;
# returns once its events are asked for (Set Features AEC and AERs sent: the first log is
# printed before, so wait for it and a little more).
start_tool() {
    cat "$ST/err" >> "$ST/all.err" 2> /dev/null
    : > "$ST/out"; : > "$ST/err"
    timeout 120 "$NVMF" discover -t tcp -a 127.0.0.1 -s "$PORT" --persistent "$@" \
        > "$ST/out" 2> "$ST/err" &
    TOOL_PID=$!
    local i
    for i in $(seq 100); do
        grep -q "^Discovery Log Number of Records" "$ST/out" && { sleep 0.5; return 0; }
        grep -q '"genctr"' "$ST/out" && { sleep 0.5; return 0; }
        kill -0 "$TOOL_PID" 2>/dev/null || break
        sleep 0.1
    done
    return 1
}

# wait_out PATTERN [N]: until $ST/out has N (default 1) lines matching PATTERN (10 s).
wait_out() {
    local i
    for i in $(seq 100); do
        [ "$(grep -c -- "$1" "$ST/out")" -ge "${2:-1}" ] && return 0
        sleep 0.1
    done
    return 1
}

# stop_tool SIGNAL: send it, wait; its exit status in RC.
RC=
stop_tool() {
    kill -s "$1" "$TOOL_PID"
    wait "$TOOL_PID"
    RC=$?
    TOOL_PID=
}

free_port() {
    local p
    for p in $(seq $((PORT + 1)) $((PORT + 50))); do
        ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && { echo $p; return; }
    done
    echo $((PORT + 1))
}

if ! start_target; then
    bad "nvmf-target starts with a tcp port on 127.0.0.1 and a control socket"
    exit 1
fi

# ---- changes printed as they come, SIGINT ends it ----
if start_tool; then
    ok "discover --persistent prints the log first"
    P2=$(free_port)
    ctl port add 2 --traddr 127.0.0.1 --trsvcid "$P2" --trtype tcp --subsystem "$NQN" > /dev/null ||
        bad "port add 2"
    wait_out "^added: nvme subsystem $NQN at tcp 127.0.0.1:$P2 (port 2)$" &&
        grep -q "^Discovery log changed (Asynchronous Event), generation counter" "$ST/out" &&
        ok "a port added: 'Discovery log changed', the entry added, the log again" ||
        { cat "$ST/out" "$ST/err"; bad "port add 2 not printed as a change"; }
    wait_out "^Discovery Log Number of Records" 2 ||
        { cat "$ST/out"; bad "the whole log printed again after the change"; }
    ctl port unlink 2 "$NQN" > /dev/null 2>&1 || ctl port unlink 2 --subsystem "$NQN" > /dev/null ||
        bad "port unlink 2"
    wait_out "^removed: nvme subsystem $NQN at tcp 127.0.0.1:$P2 (port 2)$" &&
        ok "a subsystem unlinked from a port: the entry removed" ||
        { cat "$ST/out" "$ST/err"; bad "port unlink not printed as a change"; }
    ctl port remove 2 > /dev/null || bad "port remove 2"
    wait_out "^Discovery log changed" 3 &&
        ok "a port removed: printed as a change (its discovery entry gone)" ||
        { cat "$ST/out" "$ST/err"; bad "port remove not printed as a change"; }
    stop_tool INT; rc=$RC
    [ "$rc" = 0 ] && [ ! -s "$ST/err" ] && ok "SIGINT ends it with exit 0, nothing on stderr" ||
        { cat "$ST/err"; bad "SIGINT: exit $rc"; }
    sleep 0.5
    n_conn=$(grep -c "discovery.*connected from" "$ST/target.log")
    n_disc=$(grep -c "discovery.*disconnected" "$ST/target.log")
    [ "$n_conn" -ge 1 ] && [ "$n_conn" = "$n_disc" ] &&
        ok "the target freed the discovery controller ($n_conn connected, $n_disc disconnected)" ||
        { grep discovery "$ST/target.log"; bad "discovery controllers: $n_conn connected, $n_disc disconnected"; }
    grep -q "nqn.2014-08.org.nvmexpress.discovery.*KATO [1-9]" "$ST/target.log" &&
        ok "the persistent connection has a KATO (Keep Alive on)" ||
        { grep discovery "$ST/target.log"; bad "KATO of the persistent connection"; }
else
    cat "$ST/out" "$ST/err"; bad "discover --persistent prints the log first"
fi

# ---- SIGTERM, and --changes with --json ----
if start_tool; then
    stop_tool TERM; rc=$RC
    [ "$rc" = 0 ] && ok "SIGTERM ends it with exit 0" || { cat "$ST/err"; bad "SIGTERM: exit $rc"; }
else
    cat "$ST/out" "$ST/err"; bad "discover --persistent (SIGTERM run) starts"
fi
if start_tool --changes 1 --json; then
    P3=$(free_port)
    ctl port add 3 --traddr 127.0.0.1 --trsvcid "$P3" --trtype tcp --subsystem "$NQN" > /dev/null ||
        bad "port add 3"
    for i in $(seq 100); do kill -0 "$TOOL_PID" 2>/dev/null || break; sleep 0.1; done
    wait "$TOOL_PID"; rc=$?; TOOL_PID=
    docs=$(grep -c '"genctr"' "$ST/out")
    [ "$rc" = 0 ] && [ "$docs" = 2 ] && grep -q "\"trsvcid\": \"$P3\"" "$ST/out" &&
        ok "--changes 1 --json: two JSON documents (the log, then the changed log), exit 0" ||
        { cat "$ST/out" "$ST/err"; bad "--changes 1 --json: exit $rc, $docs documents"; }
    ctl port remove 3 > /dev/null || bad "port remove 3"
else
    cat "$ST/out" "$ST/err"; bad "discover --persistent --changes 1 --json starts"
fi

# ---- the target goes away ----
if start_tool; then
    kill "$TGT_PID"; wait "$TGT_PID" 2>/dev/null; TGT_PID=
    for i in $(seq 300); do kill -0 "$TOOL_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$TOOL_PID" 2>/dev/null; then
        bad "the tool still runs 30 s after the target went away"
    else
        wait "$TOOL_PID"; rc=$?; TOOL_PID=
        [ "$rc" = 1 ] && grep -q "connection was lost" "$ST/err" &&
            ok "the target gone: exit 1, '$(grep -m1 '^nvmf: ' "$ST/err" | cut -c1-110)...'" ||
            { cat "$ST/err"; bad "the target gone: exit $rc"; }
    fi
else
    cat "$ST/out" "$ST/err"; bad "discover --persistent (target stop run) starts"
fi

# ---- no sanitizer report (BUILD=build/asan) from the tool or the target ----
cat "$ST/err" >> "$ST/all.err"
if grep -q "Sanitizer\|runtime error" "$ST/all.err" "$ST/target.log"; then
    grep -A20 "Sanitizer\|runtime error" "$ST/all.err" "$ST/target.log" | head -60
    bad "a sanitizer report"
else
    ok "no sanitizer report from the tool or the target"
fi

# ---- usage ----
"$NVMF" discover -a 127.0.0.1 --persistent --hold 1 > /dev/null 2> "$ST/u.err"; rc=$?
[ "$rc" = 2 ] && grep -q "exclude each other" "$ST/u.err" && ok "--persistent with --hold: usage error" ||
    { cat "$ST/u.err"; bad "--persistent --hold: exit $rc"; }
"$NVMF" discover -a 127.0.0.1 --changes 2 > /dev/null 2> "$ST/u.err"; rc=$?
[ "$rc" = 2 ] && grep -q "needs --persistent" "$ST/u.err" && ok "--changes without --persistent: usage error" ||
    { cat "$ST/u.err"; bad "--changes alone: exit $rc"; }

exit $FAILED
