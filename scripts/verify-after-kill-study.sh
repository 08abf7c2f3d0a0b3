#!/usr/bin/env bash
# Guest script (tests/vm/run): does a 64 KiB fio write+verify over 4 MiB fail after a
# 128 KiB QD64 fio writer was stopped, on our target and on the kernel's nvmet-rdma, with
# the same kind of backing (RAM: our ram backend vs null_blk memory_backed; file: our file
# backend vs a loop device, both on a file in the guest's /tmp)?
#   flock /tmp/vm.lock tests/vm/run -t 700 scripts/verify-after-kill-study.sh [ROUNDS] [VARIANTS] [BACKENDS] [PASSES]
# VARIANTS and BACKENDS are comma-separated (the harness splits its arguments on spaces).
# Variants, each round: connect, writer, stop it as the variant says, verify job, disconnect:
#   main-nowait   kill -9 fio's pid (the parent; its job is a forked child), verify 0.5 s later
#   all-nowait    kill -9 the parent and the job process, verify at once (no wait at all)
#   all-inflight0 kill -9 both, wait until both are gone and the block layer's inflight is 0
#   nokill        the writer runs out its 2 s runtime; wait for it, then verify
# The killed writers have a 30 s runtime: a job process that outlives fio's parent is still
# writing when the verify job runs (each round kills it by pid afterwards).
# Prints one line per round and a table at the end (also in $NVMF_RESULTS/study.txt).
R=${1:-4}
VARIANTS=${2:-main-nowait,all-nowait,all-inflight0,nokill}; VARIANTS=${VARIANTS//,/ }
BACKENDS=${3:-ram,file}; BACKENDS=${BACKENDS//,/ }
PASSES=${4:-2}
. "$NVMF_ROOT/tests/integration/lib.sh"
S=/tmp/study; mkdir -p $S/fio
OUT=${NVMF_RESULTS:-/tmp}/study.txt; : > "$OUT"
OURS_RAM=nqn.2026-11.io.nvmf-rdma:study-ram OURS_FILE=nqn.2026-11.io.nvmf-rdma:study-file
K_RAM=nqn.2026-11.io.nvmf-rdma:kstudy-ram K_FILE=nqn.2026-11.io.nvmf-rdma:kstudy-file
PORT_OURS=4420 PORT_K=4430
SIZE=$((128 << 20))
log() { echo "[$SECONDS] $*" | tee -a "$OUT"; }
log "study: rounds=$R variants='$VARIANTS' backends='$BACKENDS' passes=$PASSES fio=$(fio --version) kernel=$(uname -r) multipath=$(cat /sys/module/nvme_core/parameters/multipath)"

ours_start() {
    rm -f $S/ours.img
    cat > $S/config.json <<JSON
{"hosts": [],
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "treq": "not specified",
            "trsvcid": "$PORT_OURS", "trtype": "rdma"}, "param": {"inline_data_size": "8192"},
            "referrals": [], "subsystems": ["$OURS_RAM", "$OURS_FILE"]}],
 "subsystems": [
  {"nqn": "$OURS_RAM", "allowed_hosts": [], "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": $SIZE, "nvmf_block_size": 4096}]},
  {"nqn": "$OURS_FILE", "allowed_hosts": [], "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "$S/ours.img"}, "nvmf_backend": "file",
                   "nvmf_create": true, "nvmf_size_bytes": $SIZE}]}]}
JSON
    nvmf_target_start $S || { log "our target did not start"; exit 2; }
}
ours_stop() { nvmf_target_stop $S; rm -f $S/ours.img; }

k_start() {
    local nb n=$NVMET_CFS/subsystems/$K_FILE/namespaces/1
    nb=$(nullb_create kstudy $((SIZE >> 20)) 4096) || { log "null_blk failed"; exit 2; }
    truncate -s $SIZE $S/k.img
    knvmet_add_subsys $K_RAM "$nb" || { log "nvmet ram subsystem failed"; exit 2; }
    # nvmet's file backend on the same tmpfs file kind as ours; tmpfs has no O_DIRECT, so
    # buffered_io=1 (our file backend uses buffered I/O on tmpfs too).
    mkdir $NVMET_CFS/subsystems/$K_FILE && echo 1 > $NVMET_CFS/subsystems/$K_FILE/attr_allow_any_host &&
        mkdir $n && echo -n $S/k.img > $n/device_path && echo 1 > $n/buffered_io && echo 1 > $n/enable ||
        { log "nvmet file subsystem failed"; exit 2; }
    knvmet_add_port 9 "$NVMF_TRADDR" $PORT_K $K_RAM $K_FILE || { log "nvmet port failed"; exit 2; }
}
k_stop() { knvmet_clear; nullb_remove kstudy; rm -f $S/k.img; }

# Sum of "reads writes" in flight over every nvme block device (head and hidden paths).
inflight() {
    local f s=0 a b
    for f in /sys/block/nvme*/inflight; do
        [ -e "$f" ] || continue
        read -r a b < "$f"; s=$((s + a + b))
    done
    echo $s
}
inflight_detail() { local f; for f in /sys/block/nvme*/inflight; do [ -e "$f" ] && echo -n "$(basename $(dirname $f)):$(tr -s ' ' < $f | sed 's/^ //')  "; done; }
alive() { kill -0 "$1" 2>/dev/null && [ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" != Z ]; }

declare -A N F
round() {   # round TARGET BACKEND VARIANT I
    local tgt=$1 be=$2 var=$3 i=$4 nqn port dev
    case $tgt/$be in
        ours/ram) nqn=$OURS_RAM port=$PORT_OURS ;; ours/file) nqn=$OURS_FILE port=$PORT_OURS ;;
        kernel/ram) nqn=$K_RAM port=$PORT_K ;; kernel/file) nqn=$K_FILE port=$PORT_K ;;
    esac
    nvme connect -t rdma -a "$NVMF_TRADDR" -s $port -n $nqn > /dev/null || { log "connect $nqn failed"; return; }
    wait_for 15 nvme_dev_for $nqn || { log "no device for $nqn"; return; }
    dev=$(nvme_dev_for $nqn)
    local tag=$tgt-$be-$var-$i wfio=$S/fio/$tgt-$be-$var-$i
    local rt=30; [ $var = nokill ] && rt=2
    fio --name=writer --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite --bs=128k \
        --iodepth=64 --time_based --runtime=$rt --randrepeat=0 --output=$wfio.writer.txt &
    local fpid=$! child="" t0 note=""
    local delay=$((1 + RANDOM % 3)) ts=$SECONDS
    # fio starts slowly under TCG: count the delay from the writer's first I/O in flight.
    local k; for k in $(seq 300); do [ "$(inflight)" != 0 ] && break; sleep 0.1; done
    note="io_after=$((SECONDS - ts))s"
    if [ $var != nokill ]; then
        sleep $delay
        child=$(pgrep -P $fpid | head -n1)
        if [ $var = main-nowait ]; then
            kill -9 $fpid
        else
            kill -9 $child $fpid
        fi
        note="$note kill@+${delay}s child=$child inflight_at_kill=$(inflight) ($(inflight_detail))"
        [ $var = main-nowait ] && { sleep 0.5; note="$note child_alive_after_0.5s=$(alive "$child" && echo yes || echo no)"; }
        if [ $var = all-inflight0 ]; then
            t0=$(date +%s%N)
            wait $fpid 2>/dev/null
            while alive "$child"; do sleep 0.01; done
            until [ "$(inflight)" = 0 ]; do sleep 0.01; done
            note="$note waited_ms=$((($(date +%s%N) - t0) / 1000000))"
        fi
    else
        wait $fpid
        note="$note writer rc=$?"
    fi
    note="$note child_alive_at_verify=$(alive "$child" && echo yes || echo no) inflight_at_verify=$(inflight)"
    fio --name=verify --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite --bs=64k --size=4M \
        --iodepth=16 --verify=crc32c --do_verify=1 --randrepeat=0 --output=$wfio.verify.txt 2> $wfio.verify.err
    local vrc=$? bad
    cp $wfio.* "${NVMF_RESULTS:-/tmp}/" 2>/dev/null
    bad=$(grep -hcE 'verify: bad|verify failed|bad magic|crc32c.*(fail|mismatch)' $wfio.verify.txt $wfio.verify.err | awk '{s+=$1} END {print s+0}')
    local key=$tgt/$be/$var
    N[$key]=$((${N[$key]:-0} + 1))
    if [ $vrc != 0 ] || [ "$bad" != 0 ]; then
        F[$key]=$((${F[$key]:-0} + 1))
        log "MISMATCH $tag rc=$vrc bad_msgs=$bad $note"
        grep -hE 'verify|magic|crc32c|err=|fio:' $wfio.verify.err $wfio.verify.txt | head -n 6 | sed 's/^/    | /' | tee -a "$OUT"
    else
        log "ok       $tag $note verify_took=$(grep -o "run=[0-9-]*msec" $wfio.verify.txt | head -n1)"
    fi
    # Leave nothing running for the next round (an orphaned job process in main-nowait).
    [ -n "$child" ] && kill -9 $child 2>/dev/null
    wait $fpid 2>/dev/null
    while alive "$child"; do sleep 0.05; done
    nvme disconnect -n $nqn > /dev/null
}

# Both targets run for the whole boot (ports 4420 and 4430); rounds alternate between them.
ours_start; k_start
for pass in $(seq $PASSES); do
    for var in $VARIANTS; do
        for be in $BACKENDS; do
            for i in $(seq $R); do
                for tgt in ours kernel; do round $tgt $be $var "p$pass.$i"; done
            done
        done
    done
    log "--- pass $pass done"
done
ours_stop; k_stop

log ""
log "target  backend  variant        rounds  mismatches"
for tgt in ours kernel; do for be in $BACKENDS; do for var in $VARIANTS; do
    k=$tgt/$be/$var
    log "$(printf '%-7s %-8s %-14s %6s  %10s' $tgt $be $var ${N[$k]:-0} ${F[$k]:-0})"
done; done; done
cp -r $S/fio "${NVMF_RESULTS:-/tmp}/" 2>/dev/null
exit 0
