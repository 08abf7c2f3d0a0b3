#!/usr/bin/env bash
# Inside the test VM: 4 KiB random read, QD32, against OUR target (RAM namespace) and the
# kernel's nvmet-rdma (memory-backed null_blk), through our initiator (`nvmf perf`) and
# through the kernel host (fio, libaio, direct). Rounds alternate the targets; medians.
# Run: tests/vm/run -t 900 bench/initiator-compare-guest.sh [ROUNDS] [SECONDS]
set -uo pipefail
. "$NVMF_ROOT/tests/integration/lib.sh"
ROUNDS=${1:-3} SECS=${2:-10}
NVMF="$NVMF_ROOT/build/nvmf" TGT="$NVMF_ROOT/build/nvmf-target"
OURS=nqn.2026-11.io.nvmf-rdma:bench-ours KERN=nqn.2026-11.io.nvmf-rdma:bench-kernel
cd /tmp
cat > /tmp/bench.json <<JSON
{"ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$NVMF_TRADDR", "trsvcid": "4420", "trtype": "rdma"},
            "subsystems": ["$OURS"]}],
 "subsystems": [{"nqn": "$OURS", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": 268435456}]}]}
JSON
"$TGT" -c /tmp/bench.json > /tmp/bench-target.log 2>&1 &
tpid=$!
wait_for 20 grep -q 'nvmf-target: ready' /tmp/bench-target.log || { cat /tmp/bench-target.log; exit 1; }
nb=$(nullb_create nullb_bench 256) && knvmet_add_subsys $KERN "$nb" 1 && knvmet_add_port 9 "$NVMF_TRADDR" 4430 $KERN || exit 1
nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $OURS > /dev/null && nvme connect -t rdma -a "$NVMF_TRADDR" -s 4430 -n $KERN > /dev/null || exit 1
wait_for 15 nvme_dev_for $OURS && wait_for 15 nvme_dev_for $KERN || exit 1
# Fill the first 64 MiB so reads hit written data on both.
for n in $OURS $KERN; do dd if=/dev/zero of=$(nvme_dev_for $n) bs=1M count=64 oflag=direct status=none; done

port() { [ $1 = ours ] && echo 4420 || echo 4430; }
nqn()  { [ $1 = ours ] && echo $OURS || echo $KERN; }
run_nvmf() {
    "$NVMF" perf -a "$NVMF_TRADDR" -s $(port $1) -n $(nqn $1) --rw randread --bs 4k --qd 32 --queues 1 \
        --time $SECS --size 64M --json 2>/dev/null | grep -o '"iops" *: *[0-9.]*' | head -n1 | grep -o '[0-9.]*$'
}
run_fio() {
    fio --name=b --filename=$(nvme_dev_for $(nqn $1)) --ioengine=libaio --direct=1 --rw=randread --bs=4k \
        --iodepth=32 --size=64M --runtime=$SECS --time_based --output-format=terse --terse-version=3 |
        awk -F';' '{print $8}'
}
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
: > /tmp/res.txt
for r in $(seq $ROUNDS); do
    order="ours kernel"; [ $((r % 2)) = 0 ] && order="kernel ours"
    for t in $order; do
        echo "round $r $t nvmf $(run_nvmf $t)" | tee -a /tmp/res.txt
        echo "round $r $t fio $(run_fio $t)" | tee -a /tmp/res.txt
    done
done
echo
echo "4 KiB randread QD32, ${SECS}s runs, median of $ROUNDS alternating rounds (IOPS):"
printf '%-22s %12s %12s\n' "" "our target" "kernel nvmet"
for tool in nvmf fio; do
    o=$(awk -v t=ours -v k=$tool '$3==t && $4==k {print $5}' /tmp/res.txt | median)
    k=$(awk -v t=kernel -v k=$tool '$3==t && $4==k {print $5}' /tmp/res.txt | median)
    label="nvmf perf (libnvmf)"; [ $tool = fio ] && label="fio (kernel host)"
    printf '%-22s %12.0f %12.0f\n' "$label" "$o" "$k"
done
nvme disconnect -n $OURS > /dev/null; nvme disconnect -n $KERN > /dev/null
kill -TERM $tpid; wait $tpid
knvmet_clear; nullb_remove nullb_bench
