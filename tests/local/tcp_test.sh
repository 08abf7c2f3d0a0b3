#!/usr/bin/env bash
# End to end over NVMe/TCP on this machine, no VM and no root (make local-check):
# build/nvmf-target serves a RAM namespace on a tcp-only port of 127.0.0.1 (an
# unprivileged port), and libnvmf's `nvmf` tool talks to it with -t tcp: discover,
# identify and ana-log, verified writes and reads from 512 B to 1 MiB (in-capsule, one
# R2T, several H2CData/C2HData PDUs, a transfer split by MDTS) with digests off and on,
# Copy read back and Verify (nvmf copy, verify) with their refusals' status names,
# a perf run with no error, one stopped by SIGINT (its report, exit 130), the same with SQ flow control disabled (--disable-sqflow:
# reads end with a C2HData carrying SUCCESS and no CapsuleResp; the discovery log says the
# port supports it), connect/disconnect cycles (the target frees every
# controller), a target restart and a target that stops under a write (the error names
# the I/O queue's transport error, not the keep-alive thread's); bad input (unknown subsystem NQN, a port nobody
# listens on, digests without -t tcp, an unknown transport, the discovery NQN given to
# read, write, perf, ana-log or identify --ns) fails with a clear message;
# start-up: the listener logged once, a bind to a port
# another socket holds explained (ephemeral range) with no shutdown noise after it, as a
# control socket that cannot be made, the shipped configs/tcp.json valid, a port in the
# ephemeral range warned of (one line naming it and the range) while one outside it is
# not, inline_data_size's range message the tcp one, a misspelt key refused by its path
# with the key it was meant to be, and an unused nvmetcli key with a value said once;
# through the control socket and SIGHUP: a port added on an address a running port holds is refused naming that port,
# and a refused reload logs no "closed after its last command" for the namespace it had
# staged; SIGTERM while a host reading 1 MiB blocks is stopped (SIGSTOP): the target
# waits for the answers it cannot deliver (bounded) and exits 0, the resumed host gets a
# connection error, and writes acknowledged around the stop read back after a restart (a
# file namespace); the programs' --version; reservations from two hosts (nvmf resv-*: one
# reserves, the other is refused a write, the report shows both), port add with ANA group
# states, a multipath read with no usable path (its message names each path's ANA state)
# and the operator's reservation clear over the control socket; a target under
# prlimit --fsize: a write past the limit fails (Write Fault, DNR; the log names EFBIG)
# and the target serves on; with "persist": false, its SIGTERM after a namespace add
# warns of the live change not saved, naming it.
# Each check prints "ok - what" or "FAIL - what" and the script exits 1 at the end if any
# failed (it never stops halfway, so one run shows every failure). The three programs'
# usage errors (an unknown option, one without its value) name the program and the
# option, exit 2. BUILD=build/asan runs
# the sanitizer build.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
TGT="$ROOT/$BUILD/nvmf-target"
NVMF="$ROOT/$BUILD/nvmf"
NQN=nqn.2024-01.io.nvmf-rdma:tcp-local
DISC_NQN=nqn.2014-08.org.nvmexpress.discovery
CTL="$ROOT/$BUILD/nvmf-targetctl"
ST=$(mktemp -d /tmp/nvmf-tcp-local.XXXXXX)
PORT=
FILE_NS=        # set: a file namespace too (the stop test reads it back after a restart)
TGT_PID=
EPH_PID=
HOLDER=
FS_PID=
FAILED=0
# The kernel's ephemeral port range: the main target's ports are chosen below it (an
# outgoing connection may take a port inside it), one test chooses a port inside it.
read -r EPH_LO EPH_HI < /proc/sys/net/ipv4/ip_local_port_range

cleanup() {
    [ -n "$TGT_PID" ] && kill "$TGT_PID" 2>/dev/null && wait "$TGT_PID" 2>/dev/null
    [ -n "$EPH_PID" ] && kill "$EPH_PID" 2>/dev/null && wait "$EPH_PID" 2>/dev/null
    [ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null && wait "$HOLDER" 2>/dev/null
    [ -n "$FS_PID" ] && kill "$FS_PID" 2>/dev/null && wait "$FS_PID" 2>/dev/null
    rm -rf "$ST"
}
trap cleanup EXIT

ok()   { echo "ok - $*"; }
bad()  { echo "FAIL - $*"; FAILED=1; }
# check WHAT COMMAND...: ok when the command succeeds.
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
# Every tool call is bounded: a hang is a failure, never a stuck make.
nvmf() { timeout 120 "$NVMF" "$@"; }
tcp()  { nvmf "$1" -t tcp -a 127.0.0.1 -s "$PORT" "${@:2}"; }

# write_config [FILE [PORT]]: the test's config (default $ST/config.json on $PORT).
write_config() {
    local port=${2:-$PORT}
    # With FILE_NS set, namespace 2 is a file ($ST/ns.img): its data outlives a restart.
    local ns2=
    [ -n "$FILE_NS" ] && ns2=',
                  {"nsid": 2, "enable": 1, "nvmf_backend": "file", "nvmf_block_size": 512,
                   "nvmf_size_bytes": "64M", "nvmf_create": true,
                   "device": {"path": "'"$ST"'/ns.img", "uuid": "6c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a02"}}'
    cat > "${1:-$ST/config.json}" <<JSON
{"nvmf_target": {"hugepages": false, "threads": 2, "mdts": 8},
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$port",
                                  "trtype": "tcp", "treq": "not specified"},
            "subsystems": ["$NQN"]}],
 "subsystems": [{"nqn": "$NQN", "attr": {"allow_any_host": "1", "serial": "tcplocal01",
                                         "model": "nvmf tcp local"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_block_size": 512,
                   "nvmf_size_bytes": "64M",
                   "device": {"uuid": "6c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a01"}}$ns2,
                  {"nsid": 3, "enable": 1, "nvmf_backend": "ram", "nvmf_block_size": 512,
                   "nvmf_size_bytes": "16M", "resv": {"enable": "1"},
                   "device": {"uuid": "6c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a03"}}]}]}
JSON
}

# Start the target on a free port (a random one below the ephemeral range; another is
# tried when it is taken).
start_target() {
    local try
    for try in 1 2 3 4 5 6 7 8; do
        [ -n "$PORT" ] && [ "$try" = 1 ] || PORT=$((10000 + RANDOM % (EPH_LO > 11000 ? EPH_LO - 10000 : 1000)))
        write_config
        "$TGT" -c "$ST/config.json" --no-rpc-socket > "$ST/target.log" 2>&1 &
        TGT_PID=$!
        local i
        for i in $(seq 100); do
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

stop_target() {
    kill "$TGT_PID" && wait "$TGT_PID"
    local rc=$?
    TGT_PID=
    return $rc
}

# Connects and disconnects in the target's log: every controller made was freed.
count() { grep -c "$1" "$ST/target.log"; }

if ! start_target; then
    bad "nvmf-target starts with a tcp port on 127.0.0.1"
    exit 1
fi
ok "nvmf-target listens on tcp 127.0.0.1:$PORT"

# ---- the programs' versions: one string, from util/version.h ----
v_tgt=$("$TGT" --version 2>&1); v_nvmf=$("$NVMF" --version 2>&1); v_ctl=$("$CTL" --version 2>&1)
if [[ $v_tgt =~ ^nvmf-target\ [0-9] ]] && [ "$v_nvmf" = "nvmf ${v_tgt#nvmf-target }" ] &&
   [ "$v_ctl" = "nvmf-targetctl ${v_tgt#nvmf-target }" ]; then
    ok "nvmf, nvmf-targetctl and nvmf-target --version print the same version ($v_tgt)"
else
    bad "--version: '$v_tgt' / '$v_nvmf' / '$v_ctl'"
fi

# ---- usage errors: one line "PROG: ..." naming the option (never getopt's own, which
# begins with argv[0] as typed), exit 2; started by path as here ----
# usage_err WANT PROGRAM ARGS...: exit 2 and WANT is the first line on stderr.
usage_err() {
    local want=$1 out rc; shift
    out=$("$@" 2>&1 > /dev/null < /dev/null); rc=$?
    [ $rc = 2 ] && [ "$(echo "$out" | head -1)" = "$want" ] && ok "$(basename "$1") ${*:2}: '$want', exit 2" ||
        { echo "$out" | head -3; bad "$(basename "$1") ${*:2}: exit $rc, wanted '$want'"; }
}
usage_err "nvmf-target: unknown option '-x'" "$TGT" -x
usage_err "nvmf-target: unknown option '--bogus'" "$TGT" --bogus
usage_err "nvmf-target: option '-c' needs a value" "$TGT" -c
usage_err "nvmf-target: option '--log-level' needs a value" "$TGT" -c "$ST/config.json" --log-level
usage_err "nvmf-target: option '--check' takes no value" "$TGT" --check=1
usage_err "nvmf-targetctl: unknown option '-x'" "$CTL" -x
usage_err "nvmf-targetctl: option '-s' needs a value" "$CTL" -s
usage_err "nvmf: read: unknown option '-x'" "$NVMF" read -x
usage_err "nvmf: read: option '-a' needs a value" "$NVMF" read -a

# ---- discovery and admin ----
if tcp discover > "$ST/disc.txt" 2> "$ST/disc.err"; then
    grep -q "^trtype:  tcp" "$ST/disc.txt" && grep -q "^subnqn:  $NQN" "$ST/disc.txt" &&
        grep -q "^trsvcid: $PORT" "$ST/disc.txt" && grep -q "^sectype: none" "$ST/disc.txt" &&
        ok "discover lists $NQN at tcp 127.0.0.1:$PORT" ||
        { cat "$ST/disc.txt"; bad "discover entries"; }
else
    cat "$ST/disc.err"; bad "discover over tcp"
fi
check "discover --json names trtype tcp" \
    sh -c "$(printf '%q ' "$NVMF") discover -t tcp -a 127.0.0.1 -s $PORT --json | grep -q '\"trtype\" *: *\"tcp\"'"
if tcp identify -n "$NQN" > "$ST/id.txt"; then
    grep -Eq '^sn +: tcplocal01' "$ST/id.txt" && grep -Eq '^mn +: nvmf tcp local' "$ST/id.txt" &&
        ok "identify shows the subsystem's serial and model" || { cat "$ST/id.txt"; bad "identify fields"; }
else
    bad "identify over tcp"
fi
if tcp identify -n "$NQN" --ns 1 > "$ST/idns.txt"; then
    grep -Eq '^nsze +: (131072|0x20000)' "$ST/idns.txt" && ok "identify --ns 1: 131072 blocks" ||
        { cat "$ST/idns.txt"; bad "identify namespace size"; }
else
    bad "identify --ns over tcp"
fi
check "ana-log over tcp" sh -c "$(printf '%q ' "$NVMF") ana-log -t tcp -a 127.0.0.1 -s $PORT -n $NQN > /dev/null"

# ---- verified data at every size, digests off and on ----
# 512 and 4 KiB: in-capsule (8 KiB capsules); 12 KiB: one R2T; 128 KiB and 1 MiB: several
# PDUs each way; 3 MiB: split by MDTS (1 MiB) into three commands.
off=0
for size in 512 4096 8192 12288 131072 1048576 3145728; do
    head -c $size /dev/urandom > "$ST/in"
    for dg in "" "-g" "-G" "-g -G"; do
        # shellcheck disable=SC2086
        if tcp write $dg -n "$NQN" --offset $off -i "$ST/in" 2> "$ST/w.err" &&
           tcp read $dg -n "$NQN" --offset $off --length $size -o "$ST/out" 2> "$ST/r.err" &&
           cmp -s "$ST/in" "$ST/out"; then
            ok "write then read $size bytes at $off, digests '${dg:-none}': data intact"
        else
            cat "$ST/w.err" "$ST/r.err"; bad "write then read $size bytes, digests '${dg:-none}'"
        fi
        off=$((off + size + 512))
    done
done

# ---- Copy and Verify (composed by the target from its backend's reads and writes) ----
# Blocks 120000.. of namespace 1 (64 MiB), past what the tests above and below write.
head -c 8192 /dev/urandom > "$ST/cp.in"
if tcp write -n "$NQN" --slba 120000 -i "$ST/cp.in" 2> "$ST/cp.err" &&
   tcp copy -n "$NQN" --range 120008:8 --range 120000:8 --sdlba 120100 > "$ST/cp.out" 2>> "$ST/cp.err" &&
   grep -q '^copy of namespace 1: success$' "$ST/cp.out" &&
   tcp read -n "$NQN" --slba 120100 --nlb 16 -o "$ST/cp.back" 2>> "$ST/cp.err" &&
   { tail -c 4096 "$ST/cp.in"; head -c 4096 "$ST/cp.in"; } > "$ST/cp.want" &&
   cmp -s "$ST/cp.want" "$ST/cp.back"; then
    ok "copy of two ranges reads back swapped at --sdlba"
else
    cat "$ST/cp.err"; bad "copy then read over tcp"
fi
check "verify of 16 blocks succeeds" sh -c "$(printf '%q ' "$NVMF") verify -t tcp -a 127.0.0.1 -s $PORT -n $NQN --slba 120000 --nlb 16 > /dev/null"
tcp verify -n "$NQN" --slba 131071 --nlb 2 > /dev/null 2> "$ST/vf.err"
rc=$?
[ $rc = 1 ] && grep -q 'verify of namespace 1: LBA_RANGE' "$ST/vf.err" &&
    ok "verify past the end: LBA_RANGE (exit 1)" || { cat "$ST/vf.err"; bad "verify past the end (exit $rc)"; }
ranges=()
for i in $(seq 0 128); do ranges+=(--range "$i:1"); done
tcp copy -n "$NQN" "${ranges[@]}" --sdlba 120200 > /dev/null 2> "$ST/cpl.err"
rc=$?
[ $rc = 1 ] && grep -q 'copy of namespace 1: CMD_SIZE_LIMIT_EXCEEDED' "$ST/cpl.err" &&
    ok "copy of 129 ranges (MSRC 127): CMD_SIZE_LIMIT_EXCEEDED (exit 1)" ||
    { cat "$ST/cpl.err"; bad "copy over MSRC (exit $rc)"; }
oncs=$(sed -n 's/^oncs *: //p' "$ST/id.txt")
[ -n "$oncs" ] && [ $((oncs & 0x180)) = $((0x180)) ] && grep -q '^ocfs *: 0x1$' "$ST/id.txt" &&
    grep -q '^msrc *: 127$' "$ST/idns.txt" &&
    ok "identify: ONCS Verify and Copy ($oncs), OCFS 0x1, MSRC 127" ||
    { cat "$ST/id.txt" "$ST/idns.txt"; bad "identify's Copy and Verify fields"; }

# ---- a load with no error ----
if tcp perf -n "$NQN" --rw randrw --bs 4k --qd 32 --queues 2 --time 2 --size 16M > "$ST/perf.txt" 2>&1 &&
   grep -Eq 'errors: 0$' "$ST/perf.txt"; then
    ok "perf randrw 4k qd32 on 2 queues: no error"
else
    cat "$ST/perf.txt"; bad "perf over tcp"
fi
if tcp perf -g -G -n "$NQN" --rw write --bs 128k --qd 8 --time 1 --size 16M > "$ST/perf2.txt" 2>&1 &&
   grep -Eq 'errors: 0$' "$ST/perf2.txt"; then
    ok "perf write 128k qd8 with both digests: no error"
else
    cat "$ST/perf2.txt"; bad "perf with digests over tcp"
fi

# ---- perf stopped by Ctrl-C: the report of the time it ran, exit status 130 ----
# Run directly (not through timeout, which would stand between the signal and perf); a
# background job of a script starts with SIGINT ignored, and perf's handler must take it.
"$NVMF" perf -t tcp -a 127.0.0.1 -s "$PORT" -n "$NQN" --time 30 --size 16M > "$ST/perfint.txt" 2>&1 &
perf_pid=$!
sleep 2
kill -INT "$perf_pid"
for i in $(seq 150); do kill -0 "$perf_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$perf_pid" 2>/dev/null; then
    kill -KILL "$perf_pid"; wait "$perf_pid" 2>/dev/null
    bad "perf --time 30 given SIGINT after 2 s still runs 15 s later"
else
    wait "$perf_pid"; perf_rc=$?
    if [ "$perf_rc" = 130 ] &&
       grep -Eq '^randread: bs=4096 qd=32 queues=1 ns=1 time=[0-9.]+s \(interrupted after [0-9]+\.[0-9] s\)$' "$ST/perfint.txt" &&
       grep -Eq '^  ios: [1-9][0-9]*, errors: 0$' "$ST/perfint.txt" &&
       grep -Eq '^  IOPS: [1-9][0-9]*, bandwidth: ' "$ST/perfint.txt" &&
       grep -Eq '^  latency \(us\): mean ' "$ST/perfint.txt"; then
        ok "perf stopped by SIGINT after 2 s prints its report (IOPS > 0, interrupted) and exits 130"
    else
        cat "$ST/perfint.txt"; bad "perf stopped by SIGINT: exit $perf_rc, report above"
    fi
fi

# ---- reservations from two hosts with the nvmf tool (namespace 3 has resv.enable) ----
# Each host its own NQN and host ID (the registrant); the reservation is cleared at the
# end. A namespace of its own: the rest of the script runs on namespaces as before.
H1=(-q nqn.2014-08.org.example:resv-h1 -I 11111111-2222-4333-8444-555555555555)
H2=(-q nqn.2014-08.org.example:resv-h2 -I aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee)
head -c 512 /dev/urandom > "$ST/blk"
if tcp resv-register -n "$NQN" --ns 3 "${H1[@]}" --nrkey 0xabcd > "$ST/resv.out" 2>&1 &&
   tcp resv-acquire -n "$NQN" --ns 3 "${H1[@]}" --crkey 0xabcd --rtype 1 >> "$ST/resv.out" 2>&1 &&
   tcp resv-register -n "$NQN" --ns 3 "${H2[@]}" --nrkey 0x1234 >> "$ST/resv.out" 2>&1 &&
   grep -q '^resv-acquire of namespace 3: success$' "$ST/resv.out"; then
    ok "host 1 registers and takes Write Exclusive, host 2 registers (nvmf resv-*)"
else
    cat "$ST/resv.out"; bad "resv-register / resv-acquire over tcp"
fi
tcp write -n "$NQN" --ns 3 "${H2[@]}" --slba 100 -i "$ST/blk" > /dev/null 2> "$ST/resv-w.err"
rc=$?
[ $rc = 1 ] && grep -q "RESERVATION_CONFLICT (sct 0x0, sc 0x83, DNR)" "$ST/resv-w.err" &&
    ok "host 2's write is refused with Reservation Conflict (exit 1)" ||
    { cat "$ST/resv-w.err"; bad "host 2's write under host 1's reservation (exit $rc)"; }
tcp write -n "$NQN" --ns 3 "${H1[@]}" --slba 100 -i "$ST/blk" > /dev/null 2>&1 &&
    tcp read -n "$NQN" --ns 3 "${H2[@]}" --slba 100 --nlb 1 -o "$ST/blk.back" 2>/dev/null &&
    cmp -s "$ST/blk" "$ST/blk.back" &&
    ok "the holder writes, host 2 reads it back (Write Exclusive lets others read)" ||
    bad "holder's write / other host's read under Write Exclusive"
if tcp resv-report -n "$NQN" --ns 3 "${H2[@]}" > "$ST/resv-rep.txt" 2>&1 &&
   grep -q '^rtype     : 1 (write-exclusive)$' "$ST/resv-rep.txt" &&
   grep -q '^regctl    : 2$' "$ST/resv-rep.txt" &&
   grep -q '^  hostid     : 11111111-2222-4333-8444-555555555555$' "$ST/resv-rep.txt" &&
   grep -q '^  hostid     : aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee$' "$ST/resv-rep.txt" &&
   grep -q '^  rkey       : 0xabcd$' "$ST/resv-rep.txt" && grep -q '^  rkey       : 0x1234$' "$ST/resv-rep.txt"; then
    ok "resv-report shows the type and both registrants with their keys"
else
    cat "$ST/resv-rep.txt"; bad "resv-report over tcp"
fi
tcp resv-release -n "$NQN" --ns 3 "${H1[@]}" --rrela 1 --crkey 0xabcd > /dev/null 2>&1 &&
    tcp write -n "$NQN" --ns 3 "${H2[@]}" --slba 100 -i "$ST/blk" > /dev/null 2>&1 &&
    tcp resv-report -n "$NQN" --ns 3 "${H1[@]}" --json | grep -q '"regctl": 0' &&
    ok "resv-release --rrela 1 clears: host 2 writes again, no registrant left" ||
    bad "resv-release clear over tcp"

# ---- fused Compare and Write (nvmf compare-write): one that wins, one that loses ----
head -c 1024 /dev/urandom > "$ST/caw.old"
head -c 1024 /dev/urandom > "$ST/caw.new"
head -c 1024 /dev/urandom > "$ST/caw.other"
if tcp write -n "$NQN" --slba 300 -i "$ST/caw.old" > /dev/null 2>&1 &&
   tcp compare-write -n "$NQN" --slba 300 --nlb 2 --compare "$ST/caw.old" --input "$ST/caw.new" \
       > "$ST/caw.out" 2>&1 &&
   tcp read -n "$NQN" --slba 300 --nlb 2 -o "$ST/caw.back" 2> /dev/null &&
   cmp -s "$ST/caw.new" "$ST/caw.back"; then
    ok "compare-write: the blocks held --compare, --input is read back"
else
    cat "$ST/caw.out"; bad "compare-write that should win"
fi
tcp compare-write -n "$NQN" --slba 300 --nlb 2 --compare "$ST/caw.old" --input "$ST/caw.other" \
    > /dev/null 2> "$ST/caw.err"
rc=$?
if [ $rc = 1 ] && grep -q "COMPARE_FAILED (sct 0x2, sc 0x85, DNR)" "$ST/caw.err" &&
   tcp read -n "$NQN" --slba 300 --nlb 2 -o "$ST/caw.back" 2> /dev/null &&
   cmp -s "$ST/caw.new" "$ST/caw.back"; then
    ok "compare-write: a miscompare names COMPARE_FAILED, exits 1 and writes nothing"
else
    cat "$ST/caw.err"; bad "compare-write that should lose (exit $rc)"
fi

# ---- SQ flow control disabled (Connect CATTR bit 2, as nvme connect --disable-sqflow) ----
# The port advertises it (TREQ bit 2, which connect-all follows); with it a successful read
# ends with a C2HData carrying SUCCESS and no CapsuleResp: had the host missed the
# completion, the read would time out; had the target sent the wrong data, cmp fails.
grep -q "^treq:    not specified, sq flow control disable supported" "$ST/disc.txt" &&
    ok "discover: treq says sq flow control disable supported" ||
    { cat "$ST/disc.txt"; bad "discover treq bit 2"; }
off=48M
for size in 512 4096 131072 1048576 3145728; do
    head -c $size /dev/urandom > "$ST/in"
    for dg in "" "-g -G"; do
        # shellcheck disable=SC2086
        if tcp write --disable-sqflow $dg -n "$NQN" --offset $off -i "$ST/in" 2> "$ST/w.err" &&
           tcp read --disable-sqflow $dg -n "$NQN" --offset $off --length $size -o "$ST/out" 2> "$ST/r.err" &&
           cmp -s "$ST/in" "$ST/out"; then
            ok "--disable-sqflow: write then read $size bytes at $off, digests '${dg:-none}': data intact"
        else
            cat "$ST/w.err" "$ST/r.err"; bad "--disable-sqflow: write then read $size bytes, digests '${dg:-none}'"
        fi
    done
done
if tcp perf --disable-sqflow -n "$NQN" --rw randrw --bs 4k --qd 32 --queues 2 --time 2 --size 16M \
        > "$ST/perf3.txt" 2>&1 && grep -Eq 'errors: 0$' "$ST/perf3.txt"; then
    ok "--disable-sqflow: perf randrw 4k qd32 on 2 queues: no error"
else
    cat "$ST/perf3.txt"; bad "perf with --disable-sqflow"
fi

# ---- disconnect / reconnect ----
head -c 65536 /dev/urandom > "$ST/cyc"
tcp write -n "$NQN" --offset 32M -i "$ST/cyc" 2> /dev/null || bad "cycle data write"
for i in $(seq 20); do
    tcp read -n "$NQN" --offset 32M --length 65536 -o "$ST/cyc.out" 2> "$ST/cyc.err" &&
        cmp -s "$ST/cyc" "$ST/cyc.out" || { cat "$ST/cyc.err"; bad "connect cycle $i"; break; }
done
[ "$i" = 20 ] && ok "20 connect / read / disconnect cycles, data intact"
sleep 0.5
c=$(count ': host .* connected from'); d=$(count ': host .* disconnected')
if [ "$c" -gt 0 ] && [ "$c" = "$d" ]; then
    ok "the target freed every controller ($c connected, $d disconnected)"
else
    bad "controllers connected $c, disconnected $d"
fi

# ---- bad input: clear messages ----
tcp identify -n nqn.2024-01.io.nvmf-rdma:no-such-subsystem > /dev/null 2> "$ST/bad1.err"
rc=$?
[ $rc = 1 ] && grep -q 'rejects the subsystem NQN' "$ST/bad1.err" &&
    ok "unknown subsystem NQN: exit 1, '$(head -c 120 "$ST/bad1.err")...'" ||
    { cat "$ST/bad1.err"; bad "unknown subsystem NQN (exit $rc)"; }
# The discovery NQN given to an I/O or namespace subcommand: a usage error naming it,
# before connecting (the target logs no new controller), never the target's INVALID_FIELD.
c0=$(count ': host .* connected from')
head -c 512 /dev/urandom > "$ST/disc.in"
for cmd in "write -i $ST/disc.in" "read --length 512 -o $ST/disc.out" "perf --time 1" \
           "ana-log" "identify --ns 1"; do
    # shellcheck disable=SC2086
    tcp $cmd -n "$DISC_NQN" > /dev/null 2> "$ST/bad0.err"
    rc=$?
    [ $rc = 2 ] && grep -q "^nvmf: ${cmd%% *}: -n/--nqn $DISC_NQN is the discovery subsystem: it has no namespaces" "$ST/bad0.err" &&
        ok "${cmd%% *} -n the discovery NQN: exit 2, named" ||
        { cat "$ST/bad0.err"; bad "${cmd%% *} -n the discovery NQN (exit $rc)"; }
done
[ "$(count ': host .* connected from')" = "$c0" ] && ok "the discovery NQN refusals connected nothing" ||
    bad "a discovery NQN refusal connected"
# A port nobody listens on: bound to an ephemeral port, then closed.
closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
nvmf identify -t tcp -a 127.0.0.1 -s "$closed" -n "$NQN" > /dev/null 2> "$ST/bad2.err"
rc=$?
[ $rc = 1 ] && grep -q 'Connection refused' "$ST/bad2.err" &&
    ok "a port nobody listens on: exit 1, Connection refused" ||
    { cat "$ST/bad2.err"; bad "closed port (exit $rc)"; }
nvmf identify -g -a 127.0.0.1 -s "$PORT" -n "$NQN" > /dev/null 2> "$ST/bad3.err"
rc=$?
[ $rc = 2 ] && grep -q 'digests are NVMe/TCP' "$ST/bad3.err" &&
    ok "-g without -t tcp: usage error" || { cat "$ST/bad3.err"; bad "-g without -t tcp (exit $rc)"; }
nvmf identify -t fc -a 127.0.0.1 -s "$PORT" -n "$NQN" > /dev/null 2> "$ST/bad4.err"
rc=$?
[ $rc = 2 ] && grep -q "'fc' is not a transport" "$ST/bad4.err" &&
    ok "-t fc: usage error" || { cat "$ST/bad4.err"; bad "-t fc (exit $rc)"; }

# ---- start-up: what a new user meets ----
# The listener is named once (the transport no longer logs it a second time).
n=$(grep -c "listening on tcp 127.0.0.1:$PORT (port 1)" "$ST/target.log")
l=$(grep -c "listening on" "$ST/target.log")
[ "$n" = 1 ] && [ "$l" = 1 ] && ok "the listener is logged once" ||
    { grep "listening on" "$ST/target.log"; bad "listener logged $l times"; }
# The shipped quick-start config is valid as it is.
check "configs/tcp.json passes --check" sh -c "$(printf '%q ' "$TGT") -c '$ROOT/configs/tcp.json' --check > /dev/null"
# A port in the ephemeral range held by another socket: the bind failure says why, and
# a start that failed prints no shutdown or statistics lines.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' > "$ST/held" &
HOLDER=$!
for i in $(seq 50); do [ -s "$ST/held" ] && break; sleep 0.1; done
held=$(cat "$ST/held")
sed "s/\"trsvcid\": \"$PORT\"/\"trsvcid\": \"$held\"/" "$ST/config.json" > "$ST/busy.json"
timeout 30 "$TGT" -c "$ST/busy.json" --no-rpc-socket > "$ST/busy.out" 2> "$ST/busy.err"
rc=$?
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null
[ $rc = 1 ] && grep -q "port 1: bind 127.0.0.1:$held: Address already in use (.*ephemeral port range" "$ST/busy.err" &&
    ! grep -Eq 'shutdown:|poll group' "$ST/busy.err" &&
    ok "a port held by another socket: exit 1, '$(grep -m1 bind "$ST/busy.err")'" ||
    { cat "$ST/busy.err"; bad "bind failure (exit $rc)"; }

# The control socket cannot be made (no such directory): the same, the error alone.
sed "s/\"trsvcid\": \"$PORT\"/\"trsvcid\": \"$closed\"/" "$ST/config.json" > "$ST/ctl.json"
timeout 30 "$TGT" -c "$ST/ctl.json" --rpc-socket "$ST/no-such-dir/ctl.sock" > "$ST/ctl.out" 2> "$ST/ctl.err"
rc=$?
[ $rc = 1 ] && grep -q "control socket $ST/no-such-dir/ctl.sock: bind: No such file or directory" "$ST/ctl.err" &&
    ! grep -Eq 'shutdown:|poll group [0-9]|stopp' "$ST/ctl.err" "$ST/ctl.out" &&
    ok "a control socket that cannot be made: exit 1, the error and no statistics line" ||
    { cat "$ST/ctl.out" "$ST/ctl.err"; bad "control socket failure (exit $rc)"; }

# inline_data_size out of range on a tcp port: the message gives the tcp port's range.
sed 's/"treq": "not specified"}/"treq": "not specified"}, "param": {"inline_data_size": "20000"}/' \
    "$ST/config.json" > "$ST/inline.json"
"$TGT" -c "$ST/inline.json" --check > /dev/null 2> "$ST/inline.err"
rc=$?
[ $rc = 1 ] && grep -q 'ports\[0\].param.inline_data_size: "20000" is not an inline data size (1024-16384 on a tcp port' "$ST/inline.err" &&
    ok "inline_data_size 20000 on a tcp port: the tcp range in the message" ||
    { cat "$ST/inline.err"; bad "inline_data_size range message (exit $rc)"; }
# A misspelt key stops the load by its path, with the key it was meant to be.
sed 's/"allow_any_host": "1"/"allow_any_hots": "1"/' "$ST/config.json" > "$ST/typo.json"
"$TGT" -c "$ST/typo.json" --check > /dev/null 2> "$ST/typo.err"
rc=$?
[ $rc = 1 ] && grep -q "subsystems\[0\].attr.allow_any_hots: unknown key; did you mean 'allow_any_host'?" "$ST/typo.err" &&
    ok "a misspelt key: refused by its path, with a suggestion" ||
    { cat "$ST/typo.err"; bad "misspelt key (exit $rc)"; }
# An nvmetcli key this target does not use, with a value: valid, and said once.
sed 's/"allow_any_host": "1"/"allow_any_host": "1", "ieee_oui": "0x001b21"/' "$ST/config.json" > "$ST/oui.json"
"$TGT" -c "$ST/oui.json" --check > "$ST/oui.out" 2> "$ST/oui.err"
rc=$?
[ $rc = 0 ] && grep -q "configuration is valid" "$ST/oui.out" &&
    [ "$(grep -c 'subsystems\[0\].attr.ieee_oui: "0x001b21" is not used' "$ST/oui.err")" = 1 ] &&
    ok "attr.ieee_oui with a value: valid, one line saying it is not used" ||
    { cat "$ST/oui.out" "$ST/oui.err"; bad "ieee_oui note (exit $rc)"; }
# The main target's port is below the ephemeral range: no warning.
if [ "$PORT" -lt "$EPH_LO" ]; then
    ! grep -q 'ephemeral port range' "$ST/target.log" &&
        ok "a port below the ephemeral range ($PORT): no warning" ||
        { grep ephemeral "$ST/target.log"; bad "warning for port $PORT outside $EPH_LO-$EPH_HI"; }
else
    bad "the test's port $PORT is not below the ephemeral range $EPH_LO-$EPH_HI"
fi

# ---- a second target with a control socket, on a port in the ephemeral range ----
EPH_SOCK="$ST/ctl.sock"
ctl() { timeout 30 "$CTL" -s "$EPH_SOCK" "$@"; }
EPORT=
for try in 1 2 3 4 5 6 7 8; do
    # 40 ports above it stay in the range: ports 3 and 4 are added there below.
    EPORT=$((EPH_LO + RANDOM % (EPH_HI - EPH_LO - 40)))
    write_config "$ST/eph.json" "$EPORT"
    "$TGT" -c "$ST/eph.json" --rpc-socket "$EPH_SOCK" > "$ST/eph.log" 2>&1 &
    EPH_PID=$!
    for i in $(seq 100); do
        grep -q 'nvmf-target: core: ready' "$ST/eph.log" && break 2
        kill -0 "$EPH_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill "$EPH_PID" 2>/dev/null; wait "$EPH_PID" 2>/dev/null
    EPH_PID=
done
if [ -z "$EPH_PID" ]; then
    cat "$ST/eph.log"; bad "a target on a port in the ephemeral range starts"
else
    n=$(grep -c "ephemeral port range" "$ST/eph.log")
    [ "$n" = 1 ] && grep -q "warning: port 1 (tcp 127.0.0.1:$EPORT): $EPORT is in the kernel's ephemeral port range $EPH_LO-$EPH_HI" "$ST/eph.log" &&
        ok "a port in the ephemeral range: one warning, '$(grep -m1 ephemeral "$ST/eph.log" | cut -c1-110)...'" ||
        { cat "$ST/eph.log"; bad "ephemeral range warning for port $EPORT ($n lines)"; }
    # --check says it too, before anything is opened.
    "$TGT" -c "$ST/eph.json" --check > "$ST/ephc.out" 2> "$ST/ephc.err"
    rc=$?
    [ $rc = 0 ] && grep -q "configuration is valid" "$ST/ephc.out" &&
        grep -q "^nvmf-target: core: warning: port 1 (tcp 127.0.0.1:$EPORT): $EPORT is in the kernel's ephemeral port range" "$ST/ephc.err" &&
        ok "--check of that config: valid, with the same warning" ||
        { cat "$ST/ephc.out" "$ST/ephc.err"; bad "--check warning for the ephemeral port (exit $rc)"; }
    # port add on an address port 1 holds: refused naming port 1, not a bare bind error.
    for addr in 127.0.0.1 0.0.0.0; do
        ctl port add 2 --traddr $addr --trsvcid "$EPORT" --trtype tcp > /dev/null 2> "$ST/padd.err"
        rc=$?
        [ $rc != 0 ] && grep -q "port: $addr:$EPORT overlaps port 1 (tcp 127.0.0.1:$EPORT), which listens there already" "$ST/padd.err" &&
            ok "port add $addr:$EPORT: refused naming port 1" || { cat "$ST/padd.err"; bad "port add on port 1's address (exit $rc)"; }
    done
    # A port added live in the range: the same warning, on targetctl's stderr too.
    added=
    for p in $(seq $((EPORT + 1)) $((EPORT + 20))); do
        [ $p -le $EPH_HI ] || break
        ctl port add 3 --traddr 127.0.0.1 --trsvcid $p --trtype tcp > "$ST/padd3.out" 2> "$ST/padd3.err" && { added=$p; break; }
    done
    if [ -n "$added" ]; then
        grep -q "^nvmf-targetctl: warning: port 3 (tcp 127.0.0.1:$added): $added is in the kernel's ephemeral port range" "$ST/padd3.err" &&
            grep -q "^port 3 added" "$ST/padd3.out" &&
            ok "port add in the ephemeral range: added, and the warning on targetctl's stderr" ||
            { cat "$ST/padd3.out" "$ST/padd3.err"; bad "port add in the ephemeral range: the warning"; }
        ctl port remove 3 > /dev/null || bad "port remove 3"
    else
        cat "$ST/padd3.err"; bad "port add 3 in the ephemeral range"
    fi
    # port add with ANA group states: the port serves them from the start.
    aport=
    for p in $(seq $((EPORT + 21)) $((EPORT + 40))); do
        [ $p -le $EPH_HI ] || break
        ctl port add 4 --traddr 127.0.0.1 --trsvcid $p --trtype tcp --subsystem "$NQN" \
            --ana-state 1:non-optimized --ana-state 2:inaccessible > "$ST/padd4.out" 2> "$ST/padd4.err" && { aport=$p; break; }
    done
    if [ -n "$aport" ]; then
        ctl ana list 4 > "$ST/ana4.txt" 2>&1
        grep -Eq '^ +4 +1 +non-optimized +yes ' "$ST/ana4.txt" && grep -Eq '^ +4 +2 +inaccessible +yes ' "$ST/ana4.txt" &&
            nvmf ana-log -t tcp -a 127.0.0.1 -s "$aport" -n "$NQN" > "$ST/ana4.log" 2>&1 &&
            grep -qi 'non-optimized' "$ST/ana4.log" &&
            ok "port add --ana-state 1:non-optimized --ana-state 2:inaccessible: ana list and the host's ANA log say so" ||
            { cat "$ST/ana4.txt" "$ST/ana4.log"; bad "port add with ANA states"; }
        # Multipath with no usable path: the error names each path and its ANA state.
        ctl ana set 4 1 persistent-loss > /dev/null && ctl ana set 1 1 inaccessible > /dev/null ||
            bad "ana set for the no-path test"
        nvmf read -t tcp -a 127.0.0.1 -a 127.0.0.1 -s "$EPORT" -s "$aport" -n "$NQN" --slba 0 --nlb 1 \
            --path-timeout 500 -o /dev/null 2> "$ST/nopath.err"
        rc=$?
        [ $rc = 1 ] && grep -q "^nvmf: read of 1 blocks at lba 0: no usable path: namespace 1: no usable path for 500 ms: path 0 (127.0.0.1:$EPORT) inaccessible, path 1 (127.0.0.1:$aport) persistent-loss" "$ST/nopath.err" &&
            ! grep -q "No route to host" "$ST/nopath.err" &&
            ok "multipath read with every path inaccessible/persistent-loss: exit 1 naming each path's ANA state" ||
            { cat "$ST/nopath.err"; bad "multipath read without a usable path (exit $rc)"; }
        ctl ana set 1 1 optimized > /dev/null || bad "ana set 1 1 optimized"
        ctl port remove 4 > /dev/null || bad "port remove 4"
    else
        cat "$ST/padd4.err"; bad "port add 4 with --ana-state"
    fi
    # A reservation a host left behind, cleared by the operator (logged, naming it).
    etcp() { nvmf "$1" -t tcp -a 127.0.0.1 -s "$EPORT" -n "$NQN" "${@:2}"; }
    etcp resv-register "${H1[@]}" --ns 3 --nrkey 7 > /dev/null 2>&1 &&
        etcp resv-acquire "${H1[@]}" --ns 3 --crkey 7 --rtype 2 > /dev/null 2>&1 ||
        bad "host 1 reserves (Exclusive Access) on the second target"
    etcp read "${H2[@]}" --ns 3 --slba 0 --nlb 1 -o /dev/null 2> "$ST/eresv.err" &&
        bad "host 2 reads under host 1's Exclusive Access"
    if ctl namespace reservation "$NQN" 3 clear > "$ST/clear.out" 2>&1 &&
       grep -q "^namespace 3 of $NQN: cleared exclusive-access held by host 11111111-2222-4333-8444-555555555555 and 1 registration(s), generation " "$ST/clear.out" &&
       grep -q "warning: subsystem $NQN, namespace 3: reservation cleared by the operator: exclusive-access held by host 11111111-2222-4333-8444-555555555555 (no controller connected), 1 registrant(s) removed" "$ST/eph.log" &&
       etcp read "${H2[@]}" --ns 3 --slba 0 --nlb 1 -o /dev/null 2>/dev/null &&
       ctl namespace reservation "$NQN" 3 | grep -q '^no registrants$'; then
        ok "namespace reservation NQN 3 clear: ended, logged at warning naming the holder, host 2 reads again"
    else
        cat "$ST/clear.out"; grep -i reserv "$ST/eph.log"; bad "the operator's reservation clear"
    fi
    # An rdma port on the same address and port number is no overlap (rdma_cm's own port
    # space): it gets as far as the transport (not running on a machine without RDMA).
    if ctl port add 2 --traddr 127.0.0.1 --trsvcid "$EPORT" --trtype rdma > /dev/null 2> "$ST/padd.err"; then
        ok "port add rdma 127.0.0.1:$EPORT beside tcp port 1: added"
        ctl port remove 2 > /dev/null || bad "port remove 2"
    elif grep -q "the rdma transport is not running here" "$ST/padd.err"; then
        ok "port add rdma 127.0.0.1:$EPORT beside tcp port 1: not an overlap (no rdma here)"
    else
        cat "$ST/padd.err"; bad "port add rdma on port 1's address"
    fi
    # A refused reload: namespace 2 staged, then port 2's bind fails (another socket holds
    # its address), so everything is undone.
    python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' > "$ST/held2" &
    HOLDER=$!
    for i in $(seq 50); do [ -s "$ST/held2" ] && break; sleep 0.1; done
    held=$(cat "$ST/held2")
    python3 - "$ST/eph.json" "$held" <<'PY'
import json, sys
path, held = sys.argv[1], sys.argv[2]
c = json.load(open(path))
s = c["subsystems"][0]
s["namespaces"].append({"nsid": 2, "enable": 1, "nvmf_backend": "ram", "nvmf_block_size": 512,
                        "nvmf_size_bytes": "16M"})
c["ports"].append({"portid": 2, "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": held,
                   "trtype": "tcp"}, "subsystems": [s["nqn"]]})
json.dump(c, open(path, "w"))
PY
    kill -HUP "$EPH_PID"
    for i in $(seq 100); do grep -q 'reload (SIGHUP)' "$ST/eph.log" && break; sleep 0.1; done
    kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null; HOLDER=
    grep -q "error: reload (SIGHUP): ports\[1\] (port 2): bind 127.0.0.1:$held: Address already in use.*(nothing was changed)" "$ST/eph.log" &&
        ok "a reload whose new port cannot bind is refused, nothing changed" ||
        { cat "$ST/eph.log"; bad "refused reload"; }
    # A real removal afterwards: once its close is logged, the staged one's was too.
    ctl namespace remove "$NQN" 1 > /dev/null || bad "namespace remove over the control socket"
    for i in $(seq 100); do grep -q "namespace 1 closed after its last command" "$ST/eph.log" && break; sleep 0.1; done
    grep -q "namespace 1 closed after its last command" "$ST/eph.log" &&
        ! grep -q "namespace 2 closed" "$ST/eph.log" &&
        ok "refused reload: no 'closed after its last command' for the staged namespace 2" ||
        { cat "$ST/eph.log"; bad "the log after a refused reload"; }
    # A file namespace whose backing file is deleted while served: disable and remove are
    # refused naming it (its data is only in the open file), the host still reads it
    # back, and --force closes it.
    etcp() { nvmf "$1" -t tcp -a 127.0.0.1 -s "$EPORT" "${@:2}"; }
    head -c 65536 /dev/urandom > "$ST/gone.data"
    if ctl namespace add "$NQN" --path "$ST/gone.img" --size 4M --create --nsid 7 > /dev/null &&
       etcp write -n "$NQN" --ns 7 --offset 0 -i "$ST/gone.data" 2> /dev/null; then
        rm "$ST/gone.img"
        ctl namespace disable "$NQN" 7 > /dev/null 2> "$ST/gone.err"
        rc=$?
        ctl namespace remove "$NQN" 7 > /dev/null 2>> "$ST/gone.err"
        rc2=$?
        want="namespace 7: its backing file $ST/gone.img has been deleted; closing it discards its data: restore it (e.g. ln /proc/$EPH_PID/fd/[0-9]* $ST/gone.img) or pass --force"
        [ $rc != 0 ] && [ $rc2 != 0 ] && [ "$(grep -c "$want" "$ST/gone.err")" = 2 ] &&
            etcp read -n "$NQN" --ns 7 --offset 0 --length 65536 -o "$ST/gone.out" 2> /dev/null &&
            cmp -s "$ST/gone.data" "$ST/gone.out" &&
            ok "deleted backing file: disable and remove refused naming it, the data still read back" ||
            { cat "$ST/gone.err"; bad "disable/remove of a namespace whose file was deleted ($rc, $rc2)"; }
        ctl namespace disable "$NQN" 7 --force > /dev/null 2> "$ST/gone.err" &&
            ctl namespace remove "$NQN" 7 > /dev/null 2>> "$ST/gone.err" &&
            ok "deleted backing file: disable --force, then remove, go through" ||
            { cat "$ST/gone.err"; bad "disable --force of a namespace whose file was deleted"; }
    else
        bad "namespace add of a created file and a write to it"
    fi
    kill "$EPH_PID" && wait "$EPH_PID" || bad "the second target stops with exit 0"
    EPH_PID=
    grep -Ei 'AddressSanitizer|LeakSanitizer|runtime error' "$ST/eph.log" && bad "sanitizer report in the second target's log"
fi

# ---- log levels: every line through the log, at its level ----
# A target at --log-level error, and one whose nvmf_target.log_level names every component
# error: a start (subsystem, namespace, listener, poll groups, ready), a config reload
# refused over the control socket, a SIGTERM stop (statistics, stopped). Nothing on
# stdout; on stderr only error lines, each with its prefix and component, and the
# refused reload among them with its reason.
COMPS='(core|rdma|tcp|auth|control|backend)'
LL_SOCK="$ST/ll.sock"
ll_run() { # ll_run NAME [ARGS...]: the target of $ST/NAME.json through the above
    local name=$1 try i pid rc; shift
    for try in 1 2 3 4 5; do
        write_config "$ST/$name.json" $((10000 + RANDOM % (EPH_LO > 11000 ? EPH_LO - 10000 : 1000)))
        [ "$name" = llcfg ] && python3 - "$ST/$name.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["nvmf_target"]["log_level"] = {k: "error" for k in ("core", "rdma", "tcp", "auth", "control", "backend")}
json.dump(c, open(sys.argv[1], "w"))
PY
        "$TGT" -c "$ST/$name.json" --rpc-socket "$LL_SOCK" "$@" > "$ST/$name.out" 2> "$ST/$name.err" &
        pid=$!
        for i in $(seq 100); do
            timeout 10 "$CTL" -s "$LL_SOCK" subsystem list > /dev/null 2>&1 && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$pid" 2>/dev/null && break
        wait "$pid" 2>/dev/null
        pid=
    done
    [ -n "$pid" ] || { cat "$ST/$name.err"; bad "$name: the target starts"; return; }
    echo '{"ports": 7}' > "$ST/$name.json"
    timeout 30 "$CTL" -s "$LL_SOCK" config reload > /dev/null 2>&1 && bad "$name: a broken file reloaded"
    kill "$pid"; wait "$pid"; rc=$?
    [ $rc = 0 ] && [ ! -s "$ST/$name.out" ] &&
        ! grep -Evq "^nvmf-target: $COMPS: error: " "$ST/$name.err" &&
        grep -q "^nvmf-target: control: error: reload (control socket): $ST/$name.json: ports: expected an array, got 7 (nothing was changed)$" "$ST/$name.err" &&
        ok "$name: error lines only, each with its prefix; the refused config reload among them" ||
        { echo "exit $rc; stdout:"; cat "$ST/$name.out"; echo "stderr:"; cat "$ST/$name.err"; bad "$name: the log at level error"; }
}
ll_run llopt --log-level error
ll_run llcfg

# ---- target restart: the next connect works ----
if stop_target; then
    ok "nvmf-target stops on SIGTERM with exit 0"
else
    bad "nvmf-target stop"
fi
# Every line the target wrote, from its start to its stop, went through the log.
grep -Evq "^nvmf-target: $COMPS: " "$ST/target.log" &&
    { grep -Ev "^nvmf-target: $COMPS: " "$ST/target.log"; bad "lines of the target's log without prefix and component"; } ||
    ok "every line of the target's log has its prefix and component"
grep -Ei 'AddressSanitizer|LeakSanitizer|runtime error' "$ST/target.log" && bad "sanitizer report in the target's log"
if start_target && tcp identify -n "$NQN" > /dev/null; then
    ok "after a target restart the host connects again"
else
    bad "reconnect after a target restart"
fi
# ---- the target goes away in the middle of a write ----
# The write's input is a FIFO: its first 4 MiB (one chunk of the tool) are written, then
# the tool waits for more
# while the target stops and the keep-alive thread (every KATO/2, 2.5 s) fails on the
# closed connection, which ends the association; the next chunk fails. Its message names
# the I/O queue and a transport's reason (its own, or the admin queue's that ended the
# association), never the other thread's "Keep Alive".
mkfifo "$ST/fifo"
( tcp write -n "$NQN" --offset 40M --length 8M -i "$ST/fifo" > /dev/null 2> "$ST/drop.err"
  echo $? > "$ST/drop.rc" ) &
WRITER=$!
exec 7> "$ST/fifo"
head -c 4194304 /dev/urandom >&7
for i in $(seq 100); do [ "$(count ': host .* connected from')" -gt "$(count ': host .* disconnected')" ] && break; sleep 0.1; done
sleep 0.5
stop_target || bad "nvmf-target stop under a write"
sleep 3
head -c 4194304 /dev/urandom >&7 2> /dev/null
exec 7>&-
wait "$WRITER"
rc=$(cat "$ST/drop.rc")
if [ "$rc" = 1 ] && grep -Eq '^nvmf: write of [0-9]+ blocks at lba [0-9]+: .*: I/O queue 1: (admin queue: )?(connection closed by the controller|recv: |send: )' "$ST/drop.err" &&
   ! grep -q 'Keep Alive' "$ST/drop.err"; then
    ok "the target stops under a write: exit 1, '$(grep '^nvmf: write' "$ST/drop.err")'"
else
    cat "$ST/drop.err"; bad "the target stops under a write (exit $rc)"
fi
start_target || bad "nvmf-target restarts"
stop_target || bad "nvmf-target stop after restart"
grep -Ei 'AddressSanitizer|LeakSanitizer|runtime error' "$ST/target.log" && bad "sanitizer report in the target's log"

# ---- SIGTERM while a host does not read its answers ----
# A host reads 1 MiB blocks of the RAM namespace at a queue depth whose data is more
# than the largest receive buffer the host's kernel may grow (tcp_rmem) plus 16 MiB,
# and is stopped (SIGSTOP): its answers cannot all be delivered. Meanwhile other hosts
# write 128 KiB blocks of the file namespace (2), one connection each. Then SIGTERM. The
# target must not count those answers delivered when its kernel took them: it waits for
# them (bounded at 5 s, and says so, unless the stopped host's keep-alive timeout ends
# its association first) and exits 0; the host, resumed, ends with a connection error,
# no hang; every write a host saw acknowledged reads back after a restart.
FILE_NS=1
rmem_max=$(awk '{print $3}' /proc/sys/net/ipv4/tcp_rmem)
qd=$((rmem_max / 1048576 + 16))
[ $qd -gt 120 ] && qd=120
if start_target; then
    head -c 8M /dev/urandom > "$ST/pre"
    tcp write -n "$NQN" --ns 2 --offset 0 -i "$ST/pre" 2> "$ST/pre.err" ||
        { cat "$ST/pre.err"; bad "write 8 MiB before the stop"; }
    # The tool itself, not a wrapper, is the process stopped (bounded below).
    "$NVMF" perf -t tcp -a 127.0.0.1 -s "$PORT" -n "$NQN" --ns 1 --rw randread --bs 1M --qd $qd \
        --time 60 --size 8M > "$ST/stall.txt" 2>&1 &
    READER=$!
    # Its controller (the second "connected from": the write above made the first).
    for i in $(seq 100); do [ "$(grep -c 'connected from' "$ST/target.log")" -ge 2 ] && break; sleep 0.1; done
    # Writers, one block at a time from 16 MiB on; a block is listed once acknowledged.
    ( i=0
      while [ $i -lt 300 ]; do
          head -c 131072 /dev/urandom > "$ST/blk.$i"
          tcp write -n "$NQN" --ns 2 --offset $((16 * 1048576 + i * 131072)) -i "$ST/blk.$i" 2> /dev/null || break
          echo $i >> "$ST/acked"
          i=$((i + 1))
      done ) &
    WRITER=$!
    # Stopped once the target holds answers it cannot deliver: a target socket with more
    # than 64 KiB unacknowledged (the writers' answers are a few bytes). On a loaded
    # machine the reader may take seconds to start its I/O: stopped and resumed until then.
    stalled=
    for i in $(seq 40); do
        sleep 0.25
        kill -STOP "$READER"
        sleep 0.25
        ss -tnH state established "( sport = :$PORT )" | awk '$2 > 65536 { f = 1 } END { exit !f }' &&
            { stalled=1; break; }
        kill -CONT "$READER"
    done
    [ -n "$stalled" ] || bad "the stopped reader left no answers undelivered in 10 s (ss: $(ss -tnH "( sport = :$PORT )" | tr '\n' ' '))"
    for i in $(seq 100); do [ "$(cat "$ST/acked" 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.1; done
    kill -TERM "$TGT_PID"
    timeout 60 tail --pid="$TGT_PID" -f /dev/null || kill -KILL "$TGT_PID"
    wait "$TGT_PID"
    rc=$?
    TGT_PID=
    kill -CONT "$READER"
    timeout 60 tail --pid="$READER" -f /dev/null || kill -KILL "$READER"
    wait "$READER"
    rrc=$?
    wait "$WRITER"
    [ $rc = 0 ] && ok "SIGTERM with a host that does not read: exit 0" || bad "SIGTERM with a stopped host: exit $rc"
    grep -Eq 'shutdown: 1 queue\(s\) still had commands in flight after 5000 ms|keep-alive timeout' "$ST/target.log" &&
        ok "the target waited for the stopped host's answers (qd $qd): '$(grep -Em1 'still had commands|keep-alive timeout' "$ST/target.log" | cut -c1-100)...'" ||
        { tail -5 "$ST/target.log"; bad "the target did not wait for answers not yet delivered (qd $qd)"; }
    [ $rrc = 1 ] && grep -Eq 'errors: [1-9][0-9]*$' "$ST/stall.txt" &&
        grep -Eq 'connection lost|connection closed by the controller' "$ST/stall.txt" &&
        ok "the resumed host: a connection error, no hang ($(grep -Eo 'errors: [0-9]+' "$ST/stall.txt"))" ||
        { cat "$ST/stall.txt"; bad "the resumed host (exit $rrc)"; }
    grep -Ei 'AddressSanitizer|LeakSanitizer|runtime error' "$ST/target.log" && bad "sanitizer report in the target's log"
    n=$(cat "$ST/acked" 2>/dev/null | wc -l)
    if start_target; then
        # A failure says whether the read failed (its message) or read other data.
        if tcp read -n "$NQN" --ns 2 --offset 0 --length 8M -o "$ST/pre.out" 2> "$ST/pre.rerr"; then
            cmp -s "$ST/pre" "$ST/pre.out" && ok "after the restart: the 8 MiB written before the stop read back" ||
                bad "8 MiB after the restart: other data ($(cmp "$ST/pre" "$ST/pre.out" | head -1))"
        else
            bad "8 MiB after the restart: the read failed: $(cat "$ST/pre.rerr")"
        fi
        lost=0
        for i in $(cat "$ST/acked"); do
            if ! tcp read -n "$NQN" --ns 2 --offset $((16 * 1048576 + i * 131072)) --length 131072 -o "$ST/blk.out" \
                2> "$ST/blk.rerr"; then
                echo "block $i: the read failed: $(cat "$ST/blk.rerr")"; lost=$((lost + 1))
            elif ! cmp -s "$ST/blk.$i" "$ST/blk.out"; then
                echo "block $i: other data"; lost=$((lost + 1))
            fi
        done
        [ "$n" -ge 3 ] && [ $lost = 0 ] && ok "after the restart: all $n writes acknowledged around the stop read back" ||
            bad "writes acknowledged around the stop: $lost of $n lost"
        # A second target on the same file: refused at start, naming the file and the
        # first target's pid; the first one's data untouched.
        write_config "$ST/second.json" $((PORT + 1))
        timeout 30 "$TGT" -c "$ST/second.json" --no-rpc-socket > "$ST/second.log" 2>&1
        rc=$?
        [ $rc = 1 ] && grep -q "$ST/ns.img is in use by another process (pid $TGT_PID)" "$ST/second.log" &&
            tcp read -n "$NQN" --ns 2 --offset 0 --length 8M -o "$ST/pre.out" 2> /dev/null && cmp -s "$ST/pre" "$ST/pre.out" &&
            ok "a second target on the same file: refused naming it and pid $TGT_PID, the data intact" ||
            { cat "$ST/second.log"; bad "a second target on the same file (exit $rc)"; }
        stop_target || bad "nvmf-target stop after the stop test"
        grep -Ei 'AddressSanitizer|LeakSanitizer|runtime error' "$ST/target.log" && bad "sanitizer report in the target's log"
        # The file it created (nvmf_create) deleted: the next start never creates it empty.
        rm -f "$ST/ns.img"
        timeout 30 "$TGT" -c "$ST/config.json" --no-rpc-socket > "$ST/missing.log" 2>&1
        rc=$?
        [ $rc = 1 ] && [ ! -e "$ST/ns.img" ] &&
            grep -q "ns.img: created or served by this target (nvmf_create) since .*, now missing: refusing to create an empty one" "$ST/missing.log" &&
            ok "its created file deleted, the next start refuses it by name and creates nothing" ||
            { cat "$ST/missing.log"; bad "a start with its created file deleted (exit $rc)"; }
    else
        bad "restart with a file namespace"
    fi
else
    bad "nvmf-target starts with a file namespace"
fi

# ---- a write past the file size limit (ulimit -f) fails; the target lives on ----
# The target started under prlimit --fsize=4 MiB, a file namespace of 16 MiB made
# beforehand: a write at 8 MiB fails with EFBIG (SIGXFSZ is ignored, it would kill the
# daemon), the host gets Write Fault with DNR, the log names the file and the errno, and
# a read and a write under the limit work after it.
truncate -s 16M "$ST/fsize.img"
FS_PID=
for try in 1 2 3 4 5; do
    FS_PORT=$((10000 + RANDOM % (EPH_LO > 11000 ? EPH_LO - 10000 : 1000)))
    cat > "$ST/fsize.json" <<JSON
{"nvmf_target": {"hugepages": false, "threads": 1, "persist": false},
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$FS_PORT",
                                  "trtype": "tcp", "treq": "not specified"},
            "subsystems": ["$NQN"]}],
 "subsystems": [{"nqn": "$NQN", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "file", "nvmf_block_size": 512,
                   "device": {"path": "$ST/fsize.img", "uuid": "6c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a09"}}]}]}
JSON
    prlimit --fsize=4194304 "$TGT" -c "$ST/fsize.json" --rpc-socket "$ST/fsize.sock" > "$ST/fsize.log" 2>&1 &
    FS_PID=$!
    for i in $(seq 100); do
        grep -q 'nvmf-target: core: ready' "$ST/fsize.log" && break 2
        kill -0 "$FS_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill "$FS_PID" 2>/dev/null; wait "$FS_PID" 2>/dev/null
    FS_PID=
done
if [ -z "$FS_PID" ]; then
    cat "$ST/fsize.log"; bad "a target under prlimit --fsize starts"
else
    fs() { nvmf "$1" -t tcp -a 127.0.0.1 -s "$FS_PORT" -n "$NQN" "${@:2}"; }
    head -c 65536 /dev/urandom > "$ST/fsize.in"
    fs write --offset 8M -i "$ST/fsize.in" > /dev/null 2> "$ST/fsize.err"
    rc=$?
    [ $rc = 1 ] && grep -q '^nvmf: write of 128 blocks at lba 16384: WRITE_FAULT (sct 0x2, sc 0x80, DNR)' "$ST/fsize.err" &&
        ok "a write past RLIMIT_FSIZE fails (exit 1): '$(head -1 "$ST/fsize.err" | cut -c1-110)'" ||
        { cat "$ST/fsize.err"; bad "a write past RLIMIT_FSIZE (exit $rc)"; }
    sleep 0.2
    kill -0 "$FS_PID" 2>/dev/null && ok "the target is still running after it (no SIGXFSZ)" ||
        { wait "$FS_PID"; echo "exit $?"; cat "$ST/fsize.log"; bad "the target died of a write past RLIMIT_FSIZE"; FS_PID=; }
    grep -q "nvmf-target: backend: error: subsystem $NQN: namespace 1 (file $ST/fsize.img): write of 65536 bytes at byte 8388608 failed: File too large (errno 27); the host gets WRITE_FAULT|DNR" "$ST/fsize.log" &&
        ok "its log names the namespace, the file and EFBIG" ||
        { cat "$ST/fsize.log"; bad "the log line of the write past RLIMIT_FSIZE"; }
    if [ -n "$FS_PID" ] && fs write --offset 1M -i "$ST/fsize.in" 2> "$ST/fsize.err" &&
       fs read --offset 1M --length 65536 -o "$ST/fsize.out" 2>> "$ST/fsize.err" && cmp -s "$ST/fsize.in" "$ST/fsize.out"; then
        ok "after it, a write and a read under the limit work"
    else
        cat "$ST/fsize.err"; bad "a write and read under the limit after the failed one"
    fi
    # Its config has "persist": false: a live change is not saved, and the stop says so.
    if [ -n "$FS_PID" ]; then
        timeout 30 "$CTL" -s "$ST/fsize.sock" namespace add "$NQN" --ram 1M --nsid 2 > /dev/null ||
            bad "namespace add over the control socket (persist false)"
        kill "$FS_PID"; wait "$FS_PID" || bad "the target under prlimit --fsize stops with exit 0"
        grep -q "^nvmf-target: control: warning: stopping with 1 live change not saved to $ST/fsize.json (the next start loads the file without them): namespace_add (nqn $NQN, nsid 2) (config save before a stop keeps them)$" "$ST/fsize.log" &&
            ok "SIGTERM with a live change not saved (persist false): one warning naming it" ||
            { tail -5 "$ST/fsize.log"; bad "the stop's warning of unsaved live changes"; }
    fi
fi

if [ $FAILED = 0 ]; then echo "tcp local test: PASSED"; else echo "tcp local test: FAILED"; fi
exit $FAILED
