#!/usr/bin/env bash
# The benchmark, inside the test VM (bench/run starts it through tests/vm/run):
# OUR target (build/nvmf-target) and the kernel's target side by side, same backends, same
# workloads, rounds alternating the two targets, over one transport: RDMA (nvmet-rdma, on
# rxe0) or TCP (nvmet-tcp, over the guest's own address: the kernel's loopback path).
# With BENCH_BASELINE (another checkout's folder with a built build/nvmf-target) that target
# runs too, as a third system "baseline": its own port and NQNs, the same backends and
# BENCH_TARGET_JSON, in every round; each round rotates the order of the systems.
# With BENCH_TLS=1 (TCP, the 6.12 guest) our target and the kernel's are each measured
# twice, in the clear and over TLS 1.3 (systems "ours-tls" and "kernel-tls": their own
# ports and NQNs, one PSK, the keys in the .nvme keyring, tlshd doing the kernel's
# handshakes, nvme-cli 2.13 and tlshd from Debian 13 through tests/vm/tls-tools).
#   bench/guest.sh PARAMS_FILE          run (as root in the guest)
#   bench/guest.sh --list PARAMS_FILE   print the planned measurements (anywhere)
# PARAMS_FILE (written by bench/run) sets BENCH_ROUNDS, BENCH_SECS, BENCH_RAMP, BENCH_ONLY,
# BENCH_SIZE_MB, BENCH_NVMF_BACKENDS, BENCH_TARGET_JSON, BENCH_TRANSPORT (rdma, tcp),
# BENCH_BASELINE (empty: no baseline), BENCH_TLS (1: plain and TLS; empty: plain only) and
# BENCH_VM_CACHE (the host's tests/vm cache, where tests/vm/tls-tools finds its tools).
# Raw results go to $NVMF_RESULTS/bench/: raw.tsv (one value a line), plan.tsv, meta.tsv,
# ib-*.txt, fio/nvmf JSON of every run, and our target's log (target.log; the baseline's:
# baseline-target.log; with TLS also tlshd.log).
set -uo pipefail

list_only=0
[ "${1:-}" = --list ] && { list_only=1; shift; }
[ $# = 1 ] && [ -f "$1" ] || { echo "usage: $0 [--list] PARAMS_FILE" >&2; exit 2; }
. "$1"
ROUNDS=${BENCH_ROUNDS:-3} SECS=${BENCH_SECS:-7} RAMP=${BENCH_RAMP:-1} ONLY=${BENCH_ONLY:-}
SIZE_MB=${BENCH_SIZE_MB:-256} NVMF_BACKENDS=${BENCH_NVMF_BACKENDS:-mem}
TARGET_JSON=${BENCH_TARGET_JSON:-} TRANSPORT=${BENCH_TRANSPORT:-rdma} BASELINE=${BENCH_BASELINE:-}
TLS=${BENCH_TLS:-}
case $TRANSPORT in rdma|tcp) ;; *) echo "bench: BENCH_TRANSPORT must be rdma or tcp, got '$TRANSPORT'" >&2; exit 2 ;; esac
case $TLS in 0) TLS="" ;; "" | 1) ;; *) echo "bench: BENCH_TLS must be 1 or unset, got '$TLS'" >&2; exit 2 ;; esac
[ -n "$TLS" ] && [ $TRANSPORT != tcp ] && { echo "bench: BENCH_TLS=1 needs BENCH_TRANSPORT=tcp (TLS is NVMe/TCP's)" >&2; exit 2; }
# The systems measured, in round 1's order; USPACE: the processes of our target's program.
# A system NAME-tls is NAME's target over TLS (the same process, another port).
SYSTEMS="ours kernel" USPACE="ours"
[ -n "$BASELINE" ] && SYSTEMS="ours baseline kernel" USPACE="ours baseline"
if [ -n "$TLS" ]; then
    SYSTEMS="ours ours-tls kernel kernel-tls"
    [ -n "$BASELINE" ] && SYSTEMS="ours ours-tls baseline kernel kernel-tls"
fi
NSYS=$(echo $SYSTEMS | wc -w)
# order_for ROUND: the systems in round ROUND's order, SYSTEMS rotated by ROUND - 1, so each
# goes first in turn (two systems: ours first in odd rounds, the kernel's in even ones).
order_for() {
    local -a s=($SYSTEMS)
    local i out=""
    for ((i = 0; i < NSYS; i++)); do out+="${out:+ }${s[$(((i + $1 - 1) % NSYS))]}"; done
    echo "$out"
}

# --- the plan -------------------------------------------------------------------------
# workload  rw  bs  qd  metrics (the first ones are the headline metrics, in this order)
WORKLOADS="4k-randread-qd32 randread 4k 32 iops
4k-randwrite-qd32 randwrite 4k 32 iops
4k-randread-qd1 randread 4k 1 lat_mean_us,lat_p99_us,lat_p999_us
128k-read-qd8 read 128k 8 mbps
128k-write-qd8 write 128k 8 mbps"

# selected NAME: BENCH_ONLY is a comma-separated list of substrings; empty selects all.
selected() {
    [ -z "$ONLY" ] && return 0
    local IFS=, pat
    for pat in $ONLY; do
        [ -n "$pat" ] && [[ "$1" == *"$pat"* ]] && return 0
    done
    return 1
}

# PLAN: one line per test: tool backend workload rw bs qd metrics
PLAN=""
IB_PLAN=""
[ $TRANSPORT = rdma ] && for verb in read write; do
    selected "ib_${verb}_bw rdma 128k" && IB_PLAN="$IB_PLAN $verb"
done
# Tools: fio through the kernel host (fio), our initiator's nvmf perf (nvmf), and the same
# fio through libnvmf's fio engine (fioe: build/libnvmf-fio.so, one I/O queue, polling),
# so a fio number of ours compares with the kernel host's with nothing else changed.
for tool in fio nvmf fioe; do
    backends="mem file"
    [ $tool != fio ] && backends="$NVMF_BACKENDS"
    for be in $backends; do
        while read -r wl rw bs qd metrics; do
            selected "$tool $be $wl" && PLAN+="$tool $be $wl $rw $bs $qd $metrics"$'\n'
        done <<< "$WORKLOADS"
    done
done
PLAN=${PLAN%$'\n'}
ntests=0; [ -n "$PLAN" ] && ntests=$(printf '%s\n' "$PLAN" | wc -l)
TOTAL=$(( ntests * ROUNDS * NSYS + $(echo $IB_PLAN | wc -w) ))

if [ $list_only = 1 ]; then
    for verb in $IB_PLAN; do echo "ib_${verb}_bw rdma 128k"; done
    [ -n "$PLAN" ] && printf '%s\n' "$PLAN" | while read -r tool be wl _; do
        for r in $(seq "$ROUNDS"); do
            for t in $(order_for $r); do echo "$tool $be $wl round $r $t"; done
        done
    done
    exit 0
fi

# --- setup ------------------------------------------------------------------------------
. "$NVMF_ROOT/tests/integration/lib.sh"
NVMF="$NVMF_ROOT/build/nvmf"
declare -A TGT=([ours]="$NVMF_ROOT/build/nvmf-target" [baseline]="$BASELINE/build/nvmf-target")
OUT="$NVMF_RESULTS/bench"
W=/tmp/bench                                     # the guest's /tmp is a tmpfs
mkdir -p "$OUT" "$W" || { echo "bench: cannot create $OUT and $W"; exit 1; }
cd "$W"
RAW="$OUT/raw.tsv"
: > "$RAW"
printf '%s\n' "$PLAN" | tr ' ' '\t' > "$OUT/plan.tsv"
PFX=nqn.2026-11.io.nvmf-rdma:bench
declare -A PORT=([ours]=4420 [kernel]=4430 [baseline]=4440 [ours-tls]=4421 [kernel-tls]=4431)
declare -A NULLB=([kernel]=nullb_bench [kernel-tls]=nullb_bench_tls)
declare -A FILE=([ours]=$W/ours-file.img [kernel]=$W/kernel-file.img [baseline]=$W/baseline-file.img
                 [ours-tls]=$W/ours-tls-file.img [kernel-tls]=$W/kernel-tls-file.img)
# The kernel host's NQN on the TLS connections (the PSK identity names it), the key file.
TLS_HOST=nqn.2014-08.org.nvmexpress:uuid:bench-tls-host TLS_HOSTID=7c1e5d2a-0b4f-4e8a-9d36-b3a1f0c2e7d5
TLS_KEY=$W/tls.key
TLS_TOOLS="$NVMF_ROOT/tests/vm/tls-tools"
[ -n "${BENCH_VM_CACHE:-}" ] && export NVMF_VM_CACHE="$BENCH_VM_CACHE"
# Our target's files keep their names of before the baseline: target.json, target.log.
declare -A TFILE=([ours]=target [baseline]=baseline-target)
FAILED=0
COUNT=0
declare -A PID=()   # user-space system -> its process, while it runs
declare -A DEV=()   # "SYSTEM,BACKEND" -> the kernel host's block device of it
CONNECTED=""
TLSHD_PID=""

log() { echo "bench: $*"; }
meta() { printf '%s\t%s\n' "$1" "$2" >> "$OUT/meta.tsv"; }
: > "$OUT/meta.tsv"
meta guest_kernel "$(uname -r)"
meta guest_cpus "$(nproc)"
meta guest_cpu_model "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
meta guest_mem_mb "$(awk '/^MemTotal/ {print int($2/1024)}' /proc/meminfo)"
meta fio_version "$(fio --version 2>/dev/null)"
meta nvme_cli_version "$(nvme version 2>/dev/null | head -n1)"
meta perftest_version "$(ib_read_bw --version 2>/dev/null | head -n1)"
meta rounds "$ROUNDS"; meta secs "$SECS"; meta ramp_secs "$RAMP"; meta size_mib "$SIZE_MB"
meta only "$ONLY"; meta target_json "$TARGET_JSON"; meta transport "$TRANSPORT"
[ -n "$BASELINE" ] && meta baseline "$BASELINE"
if [ -n "$TLS" ]; then
    meta tls 1
    meta tls_nvme_cli_version "$(timeout 20 "$TLS_TOOLS" nvme version 2>/dev/null | head -n1)"
    meta tls_tlshd_version "$(timeout 20 "$TLS_TOOLS" tlshd --version 2>&1 | head -n1)"
    meta tls_records.kernel "kTLS both ways (tlshd hands each socket to the kernel's tls module)"
fi
# What this guest charges for a system call, an address-space switch (one CPU) and a
# wake-up of the other CPU (two): the steps a user-space target adds to a command's path,
# which the kernel target over loopback never takes (docs/performance.md, NVMe/TCP).
for cpus in 0 0,1; do
    if [ -x "$NVMF_ROOT/build/switch-cost" ] && taskset -c $cpus "$NVMF_ROOT/build/switch-cost" > "$OUT/switch-cost-$cpus.txt"; then
        while read -r k v; do meta "switch_cost.cpus_$cpus.$k" "$v"; done < "$OUT/switch-cost-$cpus.txt"
        log "on CPU(s) $cpus: $(tr '\n' ' ' < "$OUT/switch-cost-$cpus.txt")"
    else
        log "warning: build/switch-cost did not run on CPU(s) $cpus (make build/switch-cost)"
    fi
done
meta backend.mem.ours "RAM namespace (nvmf_backend ram, $SIZE_MB MiB)"
meta backend.mem.kernel "null_blk, memory_backed=1, $SIZE_MB MiB, 512 B blocks"
meta backend.file.ours "file backend, $SIZE_MB MiB file on the guest's /tmp (tmpfs), nvmf_buffered=1 (tmpfs has no O_DIRECT)"
meta backend.file.kernel "nvmet file namespace, $SIZE_MB MiB file on the guest's /tmp (tmpfs), buffered_io=1"
if [ -n "$BASELINE" ]; then
    meta backend.mem.baseline "as ours, the baseline's build"
    meta backend.file.baseline "as ours, the baseline's build"
fi
if [ -n "$TLS" ]; then
    for be in mem file; do
        meta backend.$be.ours-tls "as ours, its own namespace, on a TLS-only port"
        meta backend.$be.kernel-tls "as the kernel's, its own, on a TLS-only port"
    done
fi

nqn() { echo "$PFX-$1-$2"; }                   # nqn SYSTEM mem|file
port() { echo "${PORT[$1]}"; }
tname() {
    case $1 in
        ours) echo "OUR target" ;;
        ours-tls) echo "OUR target over TLS" ;;
        baseline) echo "BASELINE target" ;;
        kernel-tls) echo "kernel nvmet-$TRANSPORT over TLS" ;;
        *) echo "kernel nvmet-$TRANSPORT" ;;
    esac
}
proc() { echo "${1%-tls}"; }                    # proc SYSTEM: the target serving it
uspace() { [[ " $USPACE " == *" $(proc $1) "* ]]; }   # uspace SYSTEM: is it our target's program?
is_tls() { [[ $1 == *-tls ]]; }

alive() { [ -n "${PID[$1]:-}" ] && kill -0 "${PID[$1]}" 2>/dev/null; }   # alive ours|baseline
died() {   # died ours|baseline WHAT
    local st; wait "${PID[$1]}" 2>/dev/null; st=$?
    [ $st -gt 128 ] && st="$st (signal $((st - 128)))"
    log "ERROR: $(tname $1) (pid ${PID[$1]}) is not running any more ($2); exit status $st; last lines of its log:"
    tail -n 30 "$W/${TFILE[$1]}.log" | sed 's/^/    /'
    PID[$1]=""
    FAILED=1
}
# stop ours|baseline: SIGTERM (SIGKILL after 10 s); an exit status other than 0 fails the run.
stop() {
    local t=$1 p=${PID[$1]:-}
    [ -n "$p" ] || return 0
    if kill -0 "$p" 2>/dev/null; then
        kill -TERM "$p"
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill -0 "$p" 2>/dev/null && { log "warning: $(tname $t) ignored SIGTERM; killing it"; kill -KILL "$p"; }
        wait "$p" 2>/dev/null; local trc=$?
        [ $trc = 0 ] || { log "ERROR: $(tname $t) exited $trc on SIGTERM"; FAILED=1; }
    else
        died $t "found at teardown"
    fi
    PID[$t]=""
}

teardown() {
    local n
    for n in $CONNECTED; do
        timeout 60 nvme disconnect -n "$n" > /dev/null 2>&1 || log "warning: nvme disconnect -n $n failed"
    done
    CONNECTED=""
    for n in $USPACE; do stop $n; done
    knvmet_clear
    for n in "${NULLB[@]}"; do nullb_remove $n; done
    if [ -n "$TLSHD_PID" ]; then
        kill "$TLSHD_PID" 2>/dev/null
        "$TLS_TOOLS" keyctl clear %:.nvme > /dev/null 2>&1
        cp "$W/tlshd.log" "$OUT/tlshd.log" 2>/dev/null
    fi
    [ -f "$W/thp.saved" ] && sed -n 's/.*\[\(.*\)\].*/\1/p' "$W/thp.saved" > /sys/kernel/mm/transparent_hugepage/enabled
    rm -f "${FILE[@]}"
    for n in $USPACE; do
        [ -f "$W/${TFILE[$n]}.log" ] && cp "$W/${TFILE[$n]}.log" "$OUT/${TFILE[$n]}.log"
    done
}
trap 'rc=$?; teardown; [ $rc = 0 ] && [ $FAILED = 0 ] || exit 1' EXIT

# --- raw RDMA reference: perftest on rxe0, server and client in this guest ---------------
ib_bw() {   # ib_bw read|write
    local verb=$1 tool=ib_${1}_bw srv=$OUT/ib-$1-server.txt cli=$OUT/ib-$1-client.txt v="" try
    COUNT=$((COUNT + 1))
    timeout $((SECS + 90)) $tool -d rxe0 -R -F -s 131072 -D "$SECS" > "$srv" 2>&1 &
    local spid=$!
    for try in 1 2 3 4 5 6 7 8 9 10; do
        sleep 1
        timeout $((SECS + 60)) $tool -d rxe0 -R -F -s 131072 -D "$SECS" "$NVMF_TRADDR" > "$cli" 2>&1 && break
        kill -0 $spid 2>/dev/null || break
    done
    kill $spid 2>/dev/null
    wait $spid 2>/dev/null
    # "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"; perftest's MB is 2^20.
    v=$(awk '$1 == 131072 && NF >= 5 {printf "%.1f", $4 * 1.048576}' "$cli" | tail -n1)
    if [ -n "$v" ]; then
        printf 'ib\trdma\t%s_bw-128k\tref\t1\tmbps\t%s\n' "$verb" "$v" >> "$RAW"
        printf '[%3d/%d] %s rxe0 128k: %s MB/s\n' $COUNT $TOTAL $tool "$v"
    else
        printf 'ib\trdma\t%s_bw-128k\tref\t1\tFAILED\t%s\n' "$verb" "no result" >> "$RAW"
        printf '[%3d/%d] %s rxe0 128k: FAILED (client output in %s):\n' $COUNT $TOTAL $tool "$cli"
        sed 's/^/    /' "$cli" | tail -n 15
        FAILED=1
    fi
}
for verb in $IB_PLAN; do ib_bw $verb; done

[ -n "$PLAN" ] || { log "no target workload selected"; exit $FAILED; }
need_mem=0 need_file=0
printf '%s\n' "$PLAN" | awk '{print $2}' | grep -qx mem && need_mem=1
printf '%s\n' "$PLAN" | awk '{print $2}' | grep -qx file && need_file=1

# 6.1's hardened usercopy stops the guest (BUG in recv) when a TCP segment copied into a
# transparent huge page runs into the next one, which the host and target sharing one
# kernel over loopback make likely: THP off for the TCP run (tcp_test.sh does the same).
if [ $TRANSPORT = tcp ]; then
    cat /sys/kernel/mm/transparent_hugepage/enabled > "$W/thp.saved"
    echo never > /sys/kernel/mm/transparent_hugepage/enabled || { log "ERROR: cannot turn THP off"; exit 1; }
fi

# --- TLS: one PSK, tlshd for the kernel's handshakes ---------------------------------------
if [ -n "$TLS" ]; then
    grep -q '^tls ' /proc/modules || { log "ERROR: kernel TLS (module tls) is not loaded: BENCH_TLS needs the 6.12 guest"; exit 1; }
    "$TLS_TOOLS" nvme gen-tls-key --hmac=1 > "$TLS_KEY" 2> "$W/gen.err" && grep -q '^NVMeTLSkey-1:01:' "$TLS_KEY" ||
        { log "ERROR: nvme gen-tls-key failed:"; sed 's/^/    /' "$W/gen.err"; exit 1; }
    chmod 600 "$TLS_KEY"
    # tlshd links the .nvme keyring when it starts: nvme-tcp (loaded) made it.
    printf '[debug]\nloglevel=1\ntls=0\nnl=0\n[authenticate]\nkeyrings=.nvme\n' > "$W/tlshd.conf"
    "$TLS_TOOLS" tlshd -s -c "$W/tlshd.conf" > "$W/tlshd.log" 2>&1 &
    TLSHD_PID=$!
    sleep 1
    kill -0 $TLSHD_PID 2>/dev/null || { log "ERROR: tlshd did not start:"; sed 's/^/    /' "$W/tlshd.log"; TLSHD_PID=""; exit 1; }
    log "TLS: one PSK (SHA-256) for $TLS_HOST, tlshd running (pid $TLSHD_PID)"
fi
# tls_insert SUBNQN: nvme-cli derives the TLS PSK of TLS_HOST for SUBNQN into .nvme (the
# version 0 identity, compat layout: what the kernel host and nvmet-tcp look up).
tls_insert() {
    "$TLS_TOOLS" nvme check-tls-key --keydata="$(cat "$TLS_KEY")" --hostnqn="$TLS_HOST" --subsysnqn="$1" \
        --insert > "$W/insert.txt" 2>&1 || { log "ERROR: nvme check-tls-key --insert for $1 failed:"; sed 's/^/    /' "$W/insert.txt"; return 1; }
}

# --- OUR target (and the baseline's) -----------------------------------------------------
subsys_json() {   # subsys_json ours|ours-tls|baseline BACKEND
    # A TLS subsystem admits the one host whose PSK it has.
    local access='"attr": {"allow_any_host": "1"}'
    is_tls $1 && access="\"allowed_hosts\": [\"$TLS_HOST\"], \"attr\": {\"allow_any_host\": \"0\"}"
    if [ "$2" = mem ]; then
        echo "{\"nqn\": \"$(nqn $1 mem)\", $access, \"namespaces\": [{\"nsid\": 1, \"enable\": 1, \"nvmf_backend\": \"ram\", \"nvmf_size_bytes\": \"${SIZE_MB}M\"}]}"
    else
        echo "{\"nqn\": \"$(nqn $1 file)\", $access, \"namespaces\": [{\"nsid\": 1, \"enable\": 1, \"device\": {\"path\": \"${FILE[$1]}\"}, \"nvmf_backend\": \"file\", \"nvmf_create\": true, \"nvmf_buffered\": true, \"nvmf_size_bytes\": \"${SIZE_MB}M\"}]}"
    fi
}
# start_target ours|baseline: writes its configuration (the same but for port and NQNs),
# starts it and waits until it is ready; exits the script when it is not. With TLS, ours
# also serves the ours-tls subsystems on a second, TLS-only port (docs/tls.md), with the
# PSK as nvme-cli 2.13 derives it (libnvme's compat layout, nvmf_tls_key_compat).
start_target() {
    local t=$1 f=${TFILE[$1]} subs="" names="" tnames="" hosts="" tport="" be
    for be in mem file; do
        [ $be = mem ] && [ $need_mem = 0 ] && continue
        [ $be = file ] && [ $need_file = 0 ] && continue
        subs="${subs:+$subs, }$(subsys_json $t $be)"
        names="${names:+$names, }\"$(nqn $t $be)\""
        if [ -n "$TLS" ] && [ $t = ours ]; then
            subs="$subs, $(subsys_json ours-tls $be)"
            tnames="${tnames:+$tnames, }\"$(nqn ours-tls $be)\""
        fi
    done
    if [ -n "$tnames" ]; then
        hosts=" \"hosts\": [{\"nqn\": \"$TLS_HOST\", \"nvmf_tls_key_file\": \"$TLS_KEY\", \"nvmf_tls_key_compat\": true}],"
        tport=", {\"portid\": 2, \"addr\": {\"adrfam\": \"ipv4\", \"traddr\": \"$NVMF_TRADDR\", \"trsvcid\": \"$(port ours-tls)\", \"trtype\": \"tcp\", \"tsas\": \"tls1.3\", \"treq\": \"required\"}, \"subsystems\": [$tnames]}"
    fi
    {
        echo "{"
        [ -n "$TARGET_JSON" ] && echo " \"nvmf_target\": $TARGET_JSON,"
        [ -n "$hosts" ] && echo "$hosts"
        echo " \"ports\": [{\"portid\": 1, \"addr\": {\"adrfam\": \"ipv4\", \"traddr\": \"$NVMF_TRADDR\", \"trsvcid\": \"$(port $t)\", \"trtype\": \"$TRANSPORT\"}, \"subsystems\": [$names]}$tport],"
        echo " \"subsystems\": [$subs]"
        echo "}"
    } > "$W/$f.json"
    cp "$W/$f.json" "$OUT/$f.json"
    if [ $t = ours ]; then
        log "starting OUR target: build/nvmf-target -c target.json (log: target.log in the results)"
    else
        log "starting BASELINE target: ${TGT[$t]} -c $f.json (log: $f.log in the results)"
    fi
    # Each its own control socket: a second target on the default path stops at start.
    "${TGT[$t]}" -c "$W/$f.json" --rpc-socket "$W/$f.sock" > "$W/$f.log" 2>&1 &
    PID[$t]=$!
    # target_up SYSTEM: ready, or exited (then reported below).
    target_up() { grep -Eq 'nvmf-target: (core: )?ready' "$W/${TFILE[$1]}.log" || ! alive $1; }
    if ! wait_for 30 target_up $t || ! alive $t; then
        log "ERROR: $(tname $t) did not become ready ($(alive $t && echo 'still starting after 30 s' || echo 'it exited')); its log:"
        sed 's/^/    /' "$W/$f.log"
        alive $t || PID[$t]=""
        exit 1
    fi
}
for t in $USPACE; do start_target $t; done

# --- kernel nvmet -----------------------------------------------------------------------
# knvmet_file_subsys NQN FILE: a subsystem with one buffered file namespace (tmpfs has no
# O_DIRECT, so buffered_io must be set before the namespace is enabled).
knvmet_file_subsys() {
    local s="$NVMET_CFS/subsystems/$1"
    mkdir "$s" || return 1
    echo 1 > "$s/attr_allow_any_host" || return 1
    mkdir "$s/namespaces/1" || return 1
    echo -n "$2" > "$s/namespaces/1/device_path" || return 1
    echo 1 > "$s/namespaces/1/buffered_io" || return 1
    echo 1 > "$s/namespaces/1/enable"
}
# knvmet_subsystems kernel|kernel-tls: that system's subsystems (own null_blk, own file);
# prints their NQNs.
knvmet_subsystems() {
    local t=$1 nb
    if [ $need_mem = 1 ]; then
        nb=$(nullb_create ${NULLB[$t]} "$SIZE_MB") || { log "ERROR: null_blk ${NULLB[$t]} ($SIZE_MB MiB) could not be created" >&2; return 1; }
        knvmet_add_subsys "$(nqn $t mem)" "$nb" 1 || { log "ERROR: kernel nvmet subsystem on $nb failed" >&2; return 1; }
        echo "$(nqn $t mem)"
    fi
    if [ $need_file = 1 ]; then
        truncate -s "${SIZE_MB}M" "${FILE[$t]}" || { log "ERROR: cannot create ${FILE[$t]}" >&2; return 1; }
        knvmet_file_subsys "$(nqn $t file)" "${FILE[$t]}" || { log "ERROR: kernel nvmet file namespace on ${FILE[$t]} (buffered_io=1) failed" >&2; return 1; }
        echo "$(nqn $t file)"
    fi
}
kern_nqns=$(knvmet_subsystems kernel) || exit 1
KNVMET_TRTYPE=$TRANSPORT knvmet_add_port 9 "$NVMF_TRADDR" "$(port kernel)" $kern_nqns || { log "ERROR: kernel nvmet port $(port kernel) failed"; exit 1; }
if [ -n "$TLS" ]; then
    kern_nqns=$(knvmet_subsystems kernel-tls) || exit 1
    # nvmet takes the security attributes only while no subsystem is linked to the port.
    KNVMET_TRTYPE=tcp knvmet_add_port 10 "$NVMF_TRADDR" "$(port kernel-tls)" &&
        echo tls1.3 > $NVMET_CFS/ports/10/addr_tsas && echo required > $NVMET_CFS/ports/10/addr_treq ||
        { log "ERROR: kernel nvmet TLS port $(port kernel-tls) (addr_tsas tls1.3, addr_treq required) failed"; exit 1; }
    for n in $kern_nqns; do
        ln -s $NVMET_CFS/subsystems/$n $NVMET_CFS/ports/10/subsystems/$n || { log "ERROR: linking $n to the TLS port failed"; exit 1; }
    done
fi

# --- kernel host: connect to every system, precondition -----------------------------------
# connect_system SYSTEM BACKEND: the kernel host connects, DEV[SYSTEM,BACKEND] is its block
# device, written once in full; 1 (the reason logged) when that fails.
connect_system() {
    local t=$1 be=$2 n dev start
    n=$(nqn $t $be)
    # A short controller-loss timeout: if a target dies, I/O fails instead of hanging.
    # Over TLS: nvme-cli 2.13 (2.3 has no --tls), the PSK from the .nvme keyring, and a host
    # ID of its own (the kernel refuses a second host NQN under the host ID of the plain
    # connections).
    local connect=(nvme connect -t $TRANSPORT)
    if is_tls $t; then
        tls_insert "$n" || return 1
        connect=("$TLS_TOOLS" nvme connect -t tcp -q "$TLS_HOST" -I "$TLS_HOSTID" --tls)
    fi
    if ! timeout 60 "${connect[@]}" -a "$NVMF_TRADDR" -s $(port $t) -n "$n" -l 10 -c 1 > "$W/connect.txt" 2>&1; then
        log "ERROR: nvme connect to $(tname $t) ($be backend, $n, port $(port $t)) failed:"
        sed 's/^/    /' "$W/connect.txt"
        is_tls $t && { tail -n 5 "$W/tlshd.log"; dmesg | tail -n 5; } 2>/dev/null | sed 's/^/    /'
        grep -q 'does not support the requested algorithm' "$W/tlshd.log" 2>/dev/null &&
            log "(kTLS found no AES-GCM: the guest must load gcm and ghash_generic, tests/vm/guest-init)"
        uspace $t && ! alive $(proc $t) && died $(proc $t) "during connect"
        return 1
    fi
    CONNECTED="$CONNECTED $n"
    if ! wait_for 20 nvme_dev_for "$n"; then
        log "ERROR: no block device appeared for $(tname $t) ($be backend, $n)"
        return 1
    fi
    dev=$(nvme_dev_for "$n")
    start=$SECONDS
    if ! dd if=/dev/zero of="$dev" bs=1M count="$SIZE_MB" oflag=direct status=none; then
        log "ERROR: preconditioning write of $SIZE_MB MiB on $(tname $t) ($be, $dev) failed"
        return 1
    fi
    DEV[$t,$be]=$dev
    log "$(tname $t), $be backend: $n is $dev; wrote all $SIZE_MB MiB once ($((SECONDS - start)) s)"
}
for be in mem file; do
    [ $be = mem ] && [ $need_mem = 0 ] && continue
    [ $be = file ] && [ $need_file = 0 ] && continue
    for t in $SYSTEMS; do
        # A TLS system the kernel host cannot reach leaves its fio runs failed; the rest run.
        connect_system $t $be || { is_tls $t || exit 1; FAILED=1; }
    done
done
# How many sockets of this kernel run kTLS (the kernel host's, nvmet-tcp's and ours when
# OpenSSL handed a direction to the kernel), and in software or on a device.
if [ -n "$TLS" ] && [ -r /proc/net/tls_stat ]; then
    meta tls_stat_after_connect "$(awk '$1 ~ /^TlsCurr/ {printf "%s%s=%s", sep, $1, $2; sep=" "}' /proc/net/tls_stat)"
    log "kTLS sockets: $(awk '$1 ~ /^TlsCurr/ {printf "%s=%s ", $1, $2}' /proc/net/tls_stat)"
fi

# --- measurements -----------------------------------------------------------------------
# fio_job RW BS QD JSONOUT FIO_ARGS...: one timed fio job with the bench's settings, its
# JSON in JSONOUT; prints "metric value" lines (read or write side, as RW says), or fails.
fio_job() {
    local rw=$1 bs=$2 qd=$3 out=$4
    shift 4
    timeout $((SECS + RAMP + 60)) fio --name=bench "$@" \
        --rw="$rw" --bs="$bs" --iodepth="$qd" --size="${SIZE_MB}M" --runtime="$SECS" --ramp_time="$RAMP" \
        --time_based --norandommap --randrepeat=0 --percentile_list=99:99.9 \
        --output-format=json --output="$out" > "$out.err" 2>&1 || return 1
    local dir=read; case "$rw" in *write) dir=write ;; esac
    jq -r --arg d $dir '.jobs[0] as $j | if $j.error != 0 then error("fio error \($j.error)") else $j[$d] |
        "iops \(.iops)\nmbps \(.bw_bytes / 1e6)\nlat_mean_us \(.clat_ns.mean / 1e3)\nlat_p99_us \(.clat_ns.percentile["99.000000"] / 1e3)\nlat_p999_us \(.clat_ns.percentile["99.900000"] / 1e3)" end' "$out"
}
# run_fio TARGET BACKEND RW BS QD JSONOUT: fio through the kernel host (libaio, direct).
run_fio() {
    fio_job "$3" "$4" "$5" "$6" --filename="${DEV[$1,$2]}" --ioengine=libaio --direct=1
}
# run_fioe TARGET BACKEND RW BS QD JSONOUT: the same fio through libnvmf's fio engine (one
# controller, one I/O queue) instead of the kernel host; not over TLS (the engine takes no
# --tls-compat key).
run_fioe() {
    is_tls $1 && { echo "the fio engine does not run over TLS here" >&2; return 1; }
    local n; n=$(nqn $1 $2)
    fio_job "$3" "$4" "$5" "$6" --thread=1 --ioengine=external:"$NVMF_ROOT/build/libnvmf-fio.so" \
        --filename="trtype=$TRANSPORT traddr=$NVMF_TRADDR trsvcid=$(port $1) subnqn=${n//:/\\:} ns=1"
}
# run_nvmf TARGET BACKEND RW BS QD JSONOUT: our initiator, one I/O queue (over TLS with
# the PSK in nvme-cli 2.13's layout, as the keyring and our target's host entry have it).
run_nvmf() {
    local tls=()
    is_tls $1 && tls=(-q "$TLS_HOST" --tls-key-file "$TLS_KEY" --tls-compat)
    timeout $((SECS + 60)) "$NVMF" perf -t $TRANSPORT "${tls[@]}" -a "$NVMF_TRADDR" -s $(port $1) -n "$(nqn $1 $2)" --rw "$3" \
        --bs "$4" --qd "$5" --queues 1 --time "$SECS" --size "${SIZE_MB}M" --json > "$6" 2> "$6.err" || return 1
    jq -r 'if .errors != 0 then error("\(.errors) I/O errors") else
        "iops \(.iops)\nmbps \(.mbps)\nlat_mean_us \(.lat_us.mean)\nlat_p99_us \(.lat_us.p99)\nlat_p999_us \(.lat_us.p999)" end' "$6"
}
fmt_headline() {   # fmt_headline METRICS VALUESFILE
    local m out=""
    for m in ${1//,/ }; do
        local v; v=$(awk -v m=$m '$1 == m {print $2}' "$2")
        case $m in
            iops) out+="$(printf '%.0f IOPS' "$v")" ;;
            mbps) out+="$(printf '%.1f MB/s' "$v")" ;;
            lat_mean_us) out+="$(printf 'mean %.1f us' "$v")" ;;
            lat_p99_us) out+="$(printf ', p99 %.1f us' "$v")" ;;
            lat_p999_us) out+="$(printf ', p99.9 %.1f us' "$v")" ;;
        esac
    done
    echo "$out"
}

mkdir -p "$OUT/runs"
while read -r tool be wl rw bs qd metrics; do
    for r in $(seq "$ROUNDS"); do
        for t in $(order_for $r); do
            COUNT=$((COUNT + 1))
            label=$(printf '[%3d/%d] %s %s %s round %d %s' $COUNT $TOTAL $tool $be $wl $r $t)
            if uspace $t && ! alive $(proc $t); then
                echo "$label: SKIPPED ($(tname $(proc $t)) is not running)"
                printf '%s\t%s\t%s\t%s\t%d\tFAILED\t%s\n' $tool $be $wl $t $r "target not running" >> "$RAW"
                continue
            fi
            if [ $tool = fioe ] && is_tls $t; then
                echo "$label: SKIPPED (the fio engine is not measured over TLS)"
                printf '%s\t%s\t%s\t%s\t%d\tFAILED\t%s\n' $tool $be $wl $t $r "not over TLS" >> "$RAW"
                continue
            fi
            if [ $tool = fio ] && [ -z "${DEV[$t,$be]:-}" ]; then
                echo "$label: SKIPPED (the kernel host is not connected to $(tname $t))"
                printf '%s\t%s\t%s\t%s\t%d\tFAILED\t%s\n' $tool $be $wl $t $r "not connected" >> "$RAW"
                continue
            fi
            js="$OUT/runs/$tool-$be-$wl-r$r-$t.json"
            t0=$SECONDS
            if run_$tool $t $be $rw $bs $qd "$js" > "$W/values" 2> "$W/values.err" && [ -s "$W/values" ]; then
                awk -v p="$tool\t$be\t$wl\t$t\t$r" '{print p "\t" $1 "\t" $2}' "$W/values" >> "$RAW"
                echo "$label: $(fmt_headline $metrics "$W/values")  ($((SECONDS - t0)) s)"
            else
                echo "$label: FAILED ($((SECONDS - t0)) s)"
                cat "$W/values.err" "$js.err" 2>/dev/null | tail -n 10 | sed 's/^/    /'
                printf '%s\t%s\t%s\t%s\t%d\tFAILED\t%s\n' $tool $be $wl $t $r "$tool failed" >> "$RAW"
                FAILED=1
            fi
            if uspace $t && ! alive $(proc $t) && [ -n "${PID[$(proc $t)]:-}" ]; then
                died $(proc $t) "after $tool $be $wl round $r"
            fi
        done
    done
done <<< "$PLAN"

# Where our target built its TLS records: it logs each secure channel with the cipher
# suite and "records ..." (tcp/target/tls.c); the meta says how many channels did what.
if [ -n "$TLS" ]; then
    sed -n 's/.*TLS 1\.3 secure channel (\([A-Z0-9_]*\),.*; records \(.*\))$/\1: records \2/p' "$W/target.log" |
        sort | uniq -c | sed 's/^ *\([0-9]*\) /\1 channel(s), /' | paste -sd';' > "$W/tls-records"
    meta tls_records.ours "$(sed 's/;/; /g' "$W/tls-records")"
    log "OUR target's secure channels: $(cat "$W/tls-records")"
fi

dead=0
for t in $USPACE; do
    [ -n "${PID[$t]:-}" ] && continue
    log "ERROR: $(tname $t) died during the run; the remaining measurements of it were skipped"
    dead=1
done
[ $dead = 0 ] || exit 1
log "measurements done, $SECONDS s since the script started"
meta guest_script_seconds $SECONDS
[ $FAILED = 0 ] || log "ERROR: some measurements failed (see FAILED above)"
exit $FAILED
