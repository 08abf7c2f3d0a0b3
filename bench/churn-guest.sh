#!/usr/bin/env bash
# Namespace churn, inside the test VM (make bench-churn runs it through tests/vm/run):
# fio's 4 KiB random-write IOPS (QD32, crc32c verify) on namespace 1 of our target while
# namespace 2 of the same subsystem is added and removed through nvmf-targetctl 20 times
# (each add and remove waited for until the kernel host has seen it), beside the same
# fio for as long without the cycles. Rounds alternate the two; medians are reported.
#   bench/churn-guest.sh [ROUNDS] [MODE]   (as root in the guest; default 3 rounds each)
# MODE "hidden" adds and removes namespace 2 disabled: the same calls, sockets and
# target work, but nothing for the host to rescan; it tells the target's share of the
# cost from the host's (in this VM both run on the same two emulated CPUs).
set -uo pipefail
ROUNDS=${1:-3} MODE=${2:-visible}
. "$NVMF_ROOT/tests/integration/lib.sh"
W=/tmp/churn
SUB=nqn.2026-12.io.nvmf-rdma:churn
CTL="$NVMF_ROOT/build/nvmf-targetctl -s $W/rpc.sock"
mkdir -p $W
cd $W          # the guest's / is read-only
cat > $W/config.json <<JSON
{"ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4420", "trtype": "rdma"},
            "subsystems": ["$SUB"]}],
 "subsystems": [{"nqn": "$SUB", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "512M"}]}]}
JSON
nvmf_target_start $W || { echo "target did not start"; exit 1; }
nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB > /dev/null || { echo "connect failed"; exit 1; }
wait_for 15 nvme_dev_for $SUB || { echo "no namespace"; exit 1; }
DEV=$(nvme_dev_for $SUB)

has_ns2() {
    local b
    for b in /sys/block/nvme*n*; do
        case "$(basename "$b")" in *c[0-9]*) continue ;; esac
        [ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = $SUB ] && [ "$(cat "$b/nsid" 2>/dev/null)" = 2 ] && return 0
    done
    return 1
}
no_ns2() { ! has_ns2; }

# fio_start SECS: the workload in the background for SECS seconds; its pid in FIO_PID.
fio_start() {
    rm -f $W/fio.json
    fio --name=churn --filename=$DEV --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=32 \
        --size=256M --verify=crc32c --verify_backlog=1024 --verify_fatal=1 --time_based --runtime="$1" \
        --randrepeat=0 --verify_state_save=0 --output-format=json --output=$W/fio.json &
    FIO_PID=$!
}
# fio_iops: write IOPS of the last run (waited for by the caller: a $(...) subshell
# cannot wait for it), 0 when the job reported an error (a verify failure is one).
# Stopped by SIGINT, fio still writes its results.
fio_iops() {
    awk '/"error" *:/ { gsub(/[^0-9]/, "", $3); if ($3 != "0") bad = 1 }
         /"write" *:/ { w = 1 }
         w && /"iops" *:/ { gsub(/[^0-9.]/, "", $3); iops = int($3); w = 0 }
         END { print bad ? 0 : iops + 0 }' $W/fio.json
}

with=() without=() secs=()
for r in $(seq "$ROUNDS"); do
    # With the cycles: fio runs until they are done.
    start=$SECONDS
    fio_start 600
    sleep 2
    for i in $(seq 1 20); do
        if [ "$MODE" = hidden ]; then
            $CTL namespace add $SUB --null 64M --nsid 2 --disabled > /dev/null &&
            $CTL namespace remove $SUB 2 > /dev/null && sleep 4
        else
            $CTL namespace add $SUB --null 64M --nsid 2 > /dev/null && wait_for 30 has_ns2 &&
            $CTL namespace remove $SUB 2 > /dev/null && wait_for 30 no_ns2
        fi || { echo "cycle $i failed"; kill $FIO_PID; exit 1; }
    done
    took=$((SECONDS - start))
    kill -INT $FIO_PID
    wait $FIO_PID
    with+=("$(fio_iops)")
    secs+=("$took")
    # Without: the same time.
    fio_start "$took"
    wait $FIO_PID
    without+=("$(fio_iops)")
    echo "round $r: ${took} s: with cycles ${with[-1]} IOPS, without ${without[-1]} IOPS"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mw=$(median "${with[@]}") mo=$(median "${without[@]}")
echo "median of $ROUNDS rounds ($MODE): with 20 add/remove cycles $mw IOPS, without $mo IOPS" \
     "(ratio $(awk -v a="$mw" -v b="$mo" 'BEGIN { printf "%.2f", b ? a / b : 0 }'))"
grep -c 'closed after its last command' $W/target.log | sed 's/^/namespaces closed after their last command: /'
nvme disconnect -n $SUB > /dev/null
nvmf_target_stop $W
for v in "${with[@]}" "${without[@]}"; do [ "$v" -gt 0 ] || { echo "a fio run failed its verify"; exit 1; }; done
