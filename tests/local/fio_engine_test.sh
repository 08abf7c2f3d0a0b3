#!/usr/bin/env bash
# The libnvmf fio engine (build/libnvmf-fio.so, fio/engine.c) end to end on this machine,
# no VM and no root (make local-check): build/nvmf-target serves RAM namespaces on a
# tcp port of 127.0.0.1 and the installed fio runs jobs through the engine:
#   - 4 KiB random writes verified with crc32c (fio's own verify pass after the writes),
#     then a separate read job verifying what is on the namespace, then the same read
#     after part of it was overwritten without verify headers: it must fail (so the read
#     pass really checks the data);
#   - fio's JSON output file holds fio's JSON only (the engine's lines go to stderr);
#   - writes with fsync (Flush) and trims (Dataset Management deallocate);
#   - the same with NVMe/TCP digests, as SPDK's digest_enable=BOTH and as the separate
#     hdr_digest/data_digest flags (the target logs the digests each queue negotiated);
#   - four jobs (numjobs=4, each on its own quarter), each on its own I/O queue of one
#     shared controller (the target sees one controller and 4 I/O queues), and several
#     jobs refused when nr_io_queues leaves one without a queue;
#   - an NVMe status (a write past the target's RLIMIT_FSIZE on a file namespace: Write
#     Fault) fails the job with EIO, the status named in one log line;
#   - the target given with the engine's options instead of the filename;
#   - TLS and bidirectional DH-HMAC-CHAP with the secrets from the environment, and
#     their refusals (no TLS key for a TLS port, a wrong secret);
#   - a job across the target killed (SIGKILL) and started again on the same port, with
#     ctrl_loss_tmo/reconnect_delay: no error, every block verified (last: the RAM
#     namespaces of the restarted target are empty);
#   - bad input: no filename, a garbled filename, an unknown key, an inactive NSID, an
#     unreachable target, a block size that is not a multiple of the namespace's, fio
#     without thread=1, a secret on the command line (there is no such option): each
#     fails (exit != 0) with its message, never a crash or a hang (every fio is bounded
#     by timeout).
# Each check prints "ok - what" or "FAIL - what"; the script exits 1 at the end if any
# failed. The engine must have been built: a missing engine is a failure, not a skip.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
TGT="$ROOT/$BUILD/nvmf-target"
ENGINE="$ROOT/$BUILD/libnvmf-fio.so"
NQN=nqn.2024-01.io.nvmf-rdma:fio-local
ST=$(mktemp -d /tmp/nvmf-fio-local.XXXXXX)
PORT=
TGT_PID=
FAILED=0
read -r EPH_LO _ < /proc/sys/net/ipv4/ip_local_port_range

cleanup() {
    [ -n "$TGT_PID" ] && kill "$TGT_PID" 2> /dev/null && wait "$TGT_PID" 2> /dev/null
    rm -rf "$ST"
}
trap cleanup EXIT

ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; FAILED=1; }

command -v fio > /dev/null || { bad "fio is installed (scripts/install-deps)"; exit 1; }
[ -x "$TGT" ] || { bad "$TGT is built (make all)"; exit 1; }
[ -f "$ENGINE" ] || {
    bad "$ENGINE is built (make all; fio's headers come from scripts/install-deps)"
    exit 1
}

# The secure subsystem: host $HOST only, with DH-HMAC-CHAP (bidirectional) on a TLS port.
NQN2=nqn.2024-01.io.nvmf-rdma:fio-secure
HOST=nqn.2014-08.org.nvmexpress:uuid:5a5a5a5a-5a5a-4a5a-8a5a-5a5a5a5a5a5a
command -v nvme > /dev/null || { bad "nvme-cli (gen-tls-key, gen-dhchap-key) is installed"; exit 1; }
TLSKEY=$(nvme gen-tls-key -m 1) && HKEY=$(nvme gen-dhchap-key -m 1 -n "$HOST") &&
    CKEY=$(nvme gen-dhchap-key -m 1 -n "$NQN2") && WRONG=$(nvme gen-dhchap-key -m 1 -n "$HOST") ||
    { bad "nvme gen-tls-key / gen-dhchap-key"; exit 1; }

write_config() {
    umask 077
    cat > "$ST/config.json" <<JSON
{"nvmf_target": {"hugepages": false, "threads": 2, "mdts": 8},
 "hosts": [{"nqn": "$HOST", "nvmf_tls_key": "$TLSKEY",
            "dhchap": {"key": "$HKEY", "ctrl_key": "$CKEY", "hash": "hmac(sha256)", "dhgroup": "ffdhe2048"}}],
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$PORT",
                                  "trtype": "tcp", "treq": "not specified"},
            "subsystems": ["$NQN"]},
           {"portid": 2, "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$((PORT + 1))",
                                  "trtype": "tcp", "treq": "not specified", "tsas": "tls1.3"},
            "subsystems": ["$NQN2"]}],
 "subsystems": [{"nqn": "$NQN2", "attr": {"allow_any_host": "0", "serial": "fiolocal02"},
                 "allowed_hosts": ["$HOST"],
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_block_size": 512,
                   "nvmf_size_bytes": "8M", "device": {"uuid": "7c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a11"}}]},
   {"nqn": "$NQN", "attr": {"allow_any_host": "1", "serial": "fiolocal01",
                                         "model": "nvmf fio local"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_block_size": 512,
                   "nvmf_size_bytes": "32M",
                   "device": {"uuid": "7c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a01"}},
                  {"nsid": 2, "enable": 1, "nvmf_backend": "ram", "nvmf_block_size": 4096,
                   "nvmf_size_bytes": "16M",
                   "device": {"uuid": "7c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a02"}},
                  {"nsid": 3, "enable": 1, "nvmf_backend": "file", "nvmf_block_size": 512,
                   "device": {"path": "$ST/ns3.img", "uuid": "7c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a03"}}]}]}
JSON
}

start_target() {
    local try i
    for try in 1 2 3 4 5 6 7 8; do
        PORT=$((10000 + RANDOM % (EPH_LO > 11000 ? EPH_LO - 10000 : 1000)))
        write_config
        # Namespace 3 is a 16 MiB file the target may write only below 12 MiB
        # (RLIMIT_FSIZE): a write above fails with an NVMe status (Write Fault).
        truncate -s 16M "$ST/ns3.img"
        prlimit --fsize=$((12 << 20)) "$TGT" -c "$ST/config.json" --no-rpc-socket \
            > "$ST/target.log" 2>&1 &
        TGT_PID=$!
        for i in $(seq 100); do
            grep -q 'nvmf-target: core: ready' "$ST/target.log" && return 0
            kill -0 "$TGT_PID" 2> /dev/null || break
            sleep 0.1
        done
        kill "$TGT_PID" 2> /dev/null
        wait "$TGT_PID" 2> /dev/null
        TGT_PID=
    done
    cat "$ST/target.log"
    return 1
}

# The target in SPDK's filename form; fio splits filenames at ':', so the NQN's is escaped.
fname() { echo "trtype=tcp adrfam=IPv4 traddr=127.0.0.1 trsvcid=$PORT subnqn=${NQN//:/\\:} ns=${1:-1}"; }

# runfio OUT ARGS...: fio through the engine (thread=1 unless ARGS say otherwise), bounded;
# output and errors in OUT; returns fio's exit status.
runfio() {
    local out=$1
    shift
    # In $ST: fio leaves its verify state files in the current directory.
    (cd "$ST" && timeout 120 fio --ioengine=external:"$ENGINE" --thread=1 --group_reporting=0 "$@") \
        > "$out" 2>&1
}

# expect_ok WHAT OUT ARGS...: fio exits 0 and reports no error.
expect_ok() {
    local what=$1 out=$2
    shift 2
    if runfio "$out" "$@" && grep -q 'err= 0' "$out" && ! grep -Eq 'err= *[1-9]|verify:' "$out"; then
        ok "$what"
    else
        tail -20 "$out"
        bad "$what"
    fi
}

# expect_fail WHAT MESSAGE ARGS...: fio exits non-zero (not killed by timeout, no signal)
# and its output holds MESSAGE (a fixed string).
expect_fail() {
    local what=$1 msg=$2 rc
    shift 2
    runfio "$ST/fail.out" "$@"
    rc=$?
    if [ $rc != 0 ] && [ $rc -lt 124 ] && grep -qF -- "$msg" "$ST/fail.out"; then
        ok "$what: exit $rc: $(grep -m1 -F -- "$msg" "$ST/fail.out" | cut -c1-240)"
    else
        tail -20 "$ST/fail.out"
        bad "$what: exit $rc, wanted != 0 (no timeout or signal) and '$msg'"
    fi
}

if ! start_target; then
    bad "nvmf-target starts with a tcp port on 127.0.0.1"
    exit 1
fi
ok "nvmf-target listens on tcp 127.0.0.1:$PORT"

FN=$(fname 1)
COMMON=(--bs=4k --iodepth=16 --size=16M --randrepeat=1)

# ---- write + verify, then read back and verify ----
expect_ok "randwrite 16 MiB verify=crc32c (write pass and fio's verify pass)" "$ST/w.out" \
    --name=w --filename="$FN" --rw=randwrite --verify=crc32c --do_verify=1 "${COMMON[@]}"
grep -Eq 'write: IOPS=' "$ST/w.out" && grep -Eq 'read: IOPS=' "$ST/w.out" &&
    ok "the write job wrote and read back (verify reads)" || { cat "$ST/w.out"; bad "write job's read/write lines"; }
expect_ok "a separate read job verifies all 16 MiB (crc32c headers of the writes)" "$ST/r.out" \
    --name=r --filename="$FN" --rw=read --verify=crc32c "${COMMON[@]}"
grep -Eq 'read: IOPS=.*BW=' "$ST/r.out" && grep -q 'io=16.0MiB' "$ST/r.out" &&
    ok "the read job read 16 MiB" || { cat "$ST/r.out"; bad "read job's io= line"; }
# Overwrite 1 MiB without verify headers: the read verify must now fail.
expect_ok "plain write of the first 1 MiB (no verify headers)" "$ST/o.out" \
    --name=o --filename="$FN" --rw=write --bs=4k --size=1M --iodepth=4
expect_fail "read verify after the overwrite finds the bad data" "verify: bad magic header" \
    --name=r2 --filename="$FN" --rw=read --verify=crc32c "${COMMON[@]}"

# ---- JSON output stays JSON: the engine's own lines go to stderr, not into fio's log ----
runfio "$ST/j.err" --name=j --filename="$FN" --rw=randread --bs=4k --iodepth=4 --size=1M \
    --output-format=json --output="$ST/j.json"
if jq -e '.jobs[0].error == 0 and .jobs[0].read.io_bytes > 0' "$ST/j.json" > /dev/null 2>&1; then
    ok "--output-format=json --output=FILE: FILE is fio's JSON alone"
else
    head -5 "$ST/j.json"
    bad "--output-format=json: the output file does not parse as fio's JSON"
fi

# ---- trims (Dataset Management) and syncs (Flush) ----
expect_ok "writes with fsync=4 (a Flush every 4 writes)" "$ST/fs.out" \
    --name=fs --filename="$FN" --rw=randwrite --fsync=4 --bs=4k --iodepth=4 --size=1M --offset=20M
grep -Eq 'sync.*: IOPS|fsync/fdatasync/sync_file_range:' "$ST/fs.out" && grep -Eq 'sync \(usec\)|sync percentiles' "$ST/fs.out" &&
    ok "fio counted the syncs" || { cat "$ST/fs.out"; bad "fs: no sync statistics"; }
expect_ok "randtrim of 1 MiB (deallocate)" "$ST/tr.out" \
    --name=tr --filename="$FN" --rw=randtrim --bs=64k --iodepth=4 --size=1M --offset=20M
grep -Eq 'trim: IOPS=' "$ST/tr.out" && ok "fio counted the trims" || { cat "$ST/tr.out"; bad "tr: no trim line"; }

# ---- digests ----
expect_ok "digest_enable=BOTH: randwrite verify=crc32c" "$ST/d1.out" \
    --name=d1 --filename="$FN" --digest_enable=BOTH --rw=randwrite --verify=crc32c "${COMMON[@]}"
expect_ok "hdr_digest=1 data_digest=1: read verify" "$ST/d2.out" \
    --name=d2 --filename="$FN" --hdr_digest=1 --data_digest=1 --rw=randread --verify=crc32c \
    "${COMMON[@]}" --verify_only=0 --do_verify=1 --size=1M --offset=1M
expect_ok "digest_enable=HEADER,DATA with 64 KiB I/O" "$ST/d3.out" \
    --name=d3 --filename="$FN" --digest_enable=HEADER,DATA --rw=randwrite --verify=crc32c \
    --bs=64k --iodepth=8 --size=8M
# The controller grants exactly the digests asked for, or the connect fails.
for d in d1 d2 d3; do
    grep -q "^nvmf: connected to $NQN at 127.0.0.1:$PORT (tcp): .*digests header+data$" "$ST/$d.out" &&
        ok "$d connected with header and data digests" || { cat "$ST/$d.out"; bad "$d: digests line"; }
done
grep -q "digests none$" "$ST/w.out" && ok "without digest options: digests none" ||
    { cat "$ST/w.out"; bad "w: digests line"; }
expect_fail "digest_enable=SOME is refused" "digest_enable 'SOME' is not NONE, HEADER, DATA, BOTH" \
    --name=d4 --filename="$FN" --digest_enable=SOME --rw=read "${COMMON[@]}"

# ---- several jobs, one controller, a queue each ----
expect_ok "numjobs=4, each its own 4 MiB, randwrite verify=crc32c" "$ST/n.out" \
    --name=n --filename="$FN" --numjobs=4 --size=4M --offset_increment=4M --rw=randwrite \
    --verify=crc32c --bs=4k --iodepth=8
n=$(grep -c 'err= 0' "$ST/n.out")
[ "$n" = 4 ] && ok "four job reports without error" || { cat "$ST/n.out"; bad "$n job reports, wanted 4"; }
# One controller for the four threads (one connect line), asked for 4 I/O queues.
n=$(grep -c '^nvmf: connected to' "$ST/n.out")
[ "$n" = 1 ] && grep -q '^nvmf: connected to .* 4 I/O queues of 128 entries' "$ST/n.out" &&
    ok "the four threads share one controller with 4 I/O queues" ||
    { cat "$ST/n.out"; bad "$n connect lines, wanted one with 4 I/O queues"; }
expect_ok "two job sections and numjobs=2 at once (4 threads): randread" "$ST/m.out" \
    --name=a --filename="$FN" --numjobs=2 --rw=randread --bs=4k --iodepth=4 --size=4M \
    --name=b --filename="$FN" --rw=randread --bs=4k --iodepth=4 --size=4M --offset=8M
n=$(grep -c 'err= 0' "$ST/m.out")
[ "$n" = 3 ] && ok "three job reports without error" || { cat "$ST/m.out"; bad "$n job reports, wanted 3"; }
expect_fail "numjobs=3 with nr_io_queues=2: the third has no queue" "no free I/O queue" \
    --name=q --filename="$FN" --numjobs=3 --nr_io_queues=2 --rw=randread --bs=4k --size=1M
expect_ok "io_queue_size=8 with iodepth=32 (the engine answers busy, fio waits)" "$ST/qs.out" \
    --name=qs --filename="$FN" --io_queue_size=8 --iodepth=32 --rw=randwrite --verify=crc32c \
    --bs=4k --size=4M

# ---- an NVMe status fails the I/O with EIO, logged once ----
expect_fail "writes past the target's file size limit: EIO" "Input/output error" \
    --name=st --filename="$(fname 3)" --rw=write --bs=4k --iodepth=8 --offset=13M --size=1M
n=$(grep -c 'NVMe status' "$ST/fail.out")
[ "$n" = 1 ] && grep -q "^nvmf: st: write of 4096 bytes at offset 13631488 of namespace 3 on $NQN at 127.0.0.1:$PORT (tcp): NVMe status 0x4280 WRITE_FAULT" "$ST/fail.out" &&
    ok "the NVMe status is logged once, named: '$(grep 'NVMe status' "$ST/fail.out" | cut -c1-150)'" ||
    { cat "$ST/fail.out"; bad "$n NVMe status lines, wanted one naming WRITE_FAULT"; }
expect_ok "writes below the limit on the same namespace work" "$ST/st2.out" \
    --name=st2 --filename="$(fname 3)" --rw=write --verify=crc32c --bs=4k --iodepth=8 --size=1M

# ---- the engine's options instead of the filename ----
expect_ok "--traddr/--trsvcid/--subnqn/--ns with a plain filename" "$ST/e.out" \
    --name=e --filename=nvmf --trtype=tcp --traddr=127.0.0.1 --trsvcid="$PORT" \
    --subnqn="$NQN" --ns=1 --rw=randread --verify=crc32c --size=1M --offset=4M --bs=4k

# ---- secrets from the environment: TLS and DH-HMAC-CHAP ----
SFN="trtype=tcp traddr=127.0.0.1 trsvcid=$((PORT + 1)) subnqn=${NQN2//:/\\:} hostnqn=${HOST//:/\\:} ns=1"
NVMF_TLS_KEY=$TLSKEY NVMF_DHCHAP_SECRET=$HKEY NVMF_DHCHAP_CTRL_SECRET=$CKEY \
    expect_ok "TLS and bidirectional DH-HMAC-CHAP, secrets from the environment: randwrite verify" \
    "$ST/sec.out" --name=sec --filename="$SFN" --rw=randwrite --verify=crc32c --bs=4k --iodepth=8 --size=4M
grep -q "^nvmf: connected to $NQN2 .*digests none, TLS$" "$ST/sec.out" && ok "that connect used TLS" ||
    { cat "$ST/sec.out"; bad "sec: TLS in the connect line"; }
NVMF_DHCHAP_SECRET=$HKEY expect_fail "the TLS port without NVMF_TLS_KEY" "cannot connect to $NQN2" \
    --name=s1 --filename="$SFN" --rw=read --size=1M
NVMF_TLS_KEY=$TLSKEY NVMF_DHCHAP_SECRET=$WRONG expect_fail "a wrong DH-HMAC-CHAP secret" \
    "cannot connect to $NQN2" --name=s2 --filename="$SFN" --rw=read --size=1M
grep -q 'KEYREJECTED\|Key was rejected\|AUTH_Failure\|authentication' "$ST/fail.out" &&
    ok "its message says the authentication failed" || { cat "$ST/fail.out"; bad "s2: authentication in the message"; }
NVMF_TLS_KEY=$TLSKEY expect_fail "NVMF_TLS_KEY with trtype=rdma" "NVMF_TLS_KEY is set but trtype is rdma" \
    --name=s3 --filename="traddr=127.0.0.1 subnqn=x" --rw=read --size=1M

# ---- bad input ----
expect_fail "no filename" "names no traddr" --name=nofile --rw=read --size=1M
expect_fail "a garbled filename" "'traddr' is not key=value" \
    --name=g --filename="trtype=tcp traddr" --rw=read --size=1M
expect_fail "an unknown key" "unknown key 'colour'" \
    --name=u --filename="$FN colour=blue" --rw=read --size=1M
expect_fail "an inactive NSID" "namespace 9 is not active" \
    --name=i --filename="$(fname 9)" --rw=read --size=1M
expect_fail "an unreachable target" "cannot connect to $NQN at 127.0.0.1:1 (tcp)" \
    --name=x --filename="trtype=tcp traddr=127.0.0.1 trsvcid=1 subnqn=${NQN//:/\\:}" --rw=read --size=1M
expect_fail "bs=512 on a 4096-byte-block namespace" \
    "read block size 512 is not a multiple of namespace 2's logical block size (4096 bytes)" \
    --name=b --filename="$(fname 2)" --rw=read --bs=512 --size=1M
expect_fail "fio without thread=1" "fio must run with thread=1" \
    --name=t --filename="$FN" --thread=0 --rw=read --size=1M
expect_fail "a secret on the command line is no option" "dhchap_secret" \
    --name=s --filename="$FN" --dhchap_secret=DHHC-1:00:x: --rw=read --size=1M

# ---- the target killed and restarted during a job: automatic reconnect ----
# Last: the restarted target's RAM namespaces start empty.
# Namespace 3 is a file, so what was written before the kill is there after the restart.
# The job writes 4 MiB at 400 IOPS (about 2.5 s) with crc32c headers and reads it all
# back verifying; the target is killed (SIGKILL: no goodbye) after 0.8 s and started
# again on the same port 1 s later. The commands in flight wait and are sent again.
restart_target_same_port() {
    local i
    prlimit --fsize=$((12 << 20)) "$TGT" -c "$ST/config.json" --no-rpc-socket \
        > "$ST/target2.log" 2>&1 &
    TGT_PID=$!
    for i in $(seq 100); do
        grep -q 'nvmf-target: core: ready' "$ST/target2.log" && return 0
        sleep 0.1
    done
    return 1
}
runfio "$ST/k.out" --name=k --filename="$(fname 3)" --rw=write --bs=4k --iodepth=4 --size=4M \
    --rate_iops=400 --verify=crc32c --do_verify=1 --ctrl_loss_tmo=30 --reconnect_delay=1 &
FIO_PID=$!
sleep 0.8
kill -9 "$TGT_PID" && wait "$TGT_PID" 2> /dev/null
TGT_PID=
sleep 1
restart_target_same_port && ok "the target is back on port $PORT" || bad "the target restarts"
wait "$FIO_PID"
rc=$?
if [ $rc = 0 ] && grep -q 'err= 0' "$ST/k.out" && ! grep -Eq 'verify:|err= *[1-9]' "$ST/k.out"; then
    ok "a job across a target kill and restart (ctrl_loss_tmo=30 reconnect_delay=1): no error, every block verified"
else
    tail -20 "$ST/k.out"
    bad "the job across the restart: exit $rc"
fi
grep -q "^nvmf: $NQN at 127.0.0.1:$PORT (tcp): reconnected 1 time during the run" "$ST/k.out" &&
    ok "the engine says it reconnected once" || { tail -5 "$ST/k.out"; bad "no reconnect line from the engine"; }
grep -q 'controller 1 .*disconnected\|connected from' "$ST/target2.log" &&
    ok "the engine's controller reconnected to the new target" ||
    { cat "$ST/target2.log"; bad "no connection on the restarted target"; }
expect_fail "reconnect_delay=-1 (fio checks no lower bound)" "reconnect_delay=-1: seconds from 0 to 86400" \
    --name=rn --filename="$FN" --ctrl_loss_tmo=15 --reconnect_delay=-1 --rw=read --size=1M
expect_fail "ctrl_loss_tmo=-2" "ctrl_loss_tmo=-2: seconds from -1 to 86400 (-1: for ever)" \
    --name=cn --filename="$FN" --ctrl_loss_tmo=-2 --rw=read --size=1M
expect_fail "reconnect_delay without ctrl_loss_tmo" \
    "reconnect_delay is for automatic reconnect: set ctrl_loss_tmo too" \
    --name=rd --filename="$FN" --reconnect_delay=1 --rw=read --size=1M

# The target is still serving and freed every controller (no association left behind).
kill -0 "$TGT_PID" 2> /dev/null && ok "the target is still running" || bad "the target died"

[ $FAILED = 0 ] && echo "fio_engine_test: all passed" || echo "fio_engine_test: FAILED"
exit $FAILED
