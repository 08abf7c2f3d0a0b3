#!/usr/bin/env bash
# Where the time goes, per workload: our target (RAM namespace) under fio through the
# kernel host, profiled with perf (cpu-clock sampling, call graphs) in the guest.
#   tests/vm/run -t 900 bench/profile-guest.sh [TARGET_JSON [rdma|tcp]]
# Writes $NVMF_RESULTS/profile-WORKLOAD-{target,system}.txt: the target process's top
# symbols, and the whole guest's (the kernel's rxe and host work included), plus the
# IOPS/MB/s fio saw while perf ran.
set -uo pipefail
. "$NVMF_ROOT/tests/integration/lib.sh"
NQN=nqn.2026-11.io.nvmf-rdma:profile
TJSON=${1:-{\}} TR=${2:-rdma}
case $TR in rdma|tcp) ;; *) echo "profile: transport must be rdma or tcp, got '$TR'" >&2; exit 2 ;; esac
# tcp: THP off, as bench/guest.sh does (6.1's hardened usercopy and loopback TCP).
[ $TR = tcp ] && echo never > /sys/kernel/mm/transparent_hugepage/enabled
D=/tmp/profile; mkdir -p $D
cat > $D/config.json <<JSON
{"nvmf_target": $TJSON,
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$NVMF_TRADDR", "trsvcid": "4420", "trtype": "$TR"},
            "subsystems": ["$NQN"]}],
 "subsystems": [{"nqn": "$NQN", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": 134217728}]}]}
JSON
nvmf_target_start $D || exit 1
pid=$(cat $D/target.pid)
nvme connect -t $TR -a "$NVMF_TRADDR" -s 4420 -n $NQN > /dev/null || exit 1
wait_for 15 nvme_dev_for $NQN || exit 1
dev=$(nvme_dev_for $NQN)
dd if=/dev/zero of=$dev bs=1M count=128 oflag=direct status=none
for wl in "4k-randread-qd32 randread 4k 32" "4k-randread-qd1 randread 4k 1" "128k-read-qd8 read 128k 8" "128k-write-qd8 write 128k 8"; do
    set -- $wl
    fio --name=p --filename=$dev --ioengine=libaio --direct=1 --rw=$2 --bs=$3 --iodepth=$4 \
        --time_based --runtime=25 --output-format=terse --terse-version=3 > $D/fio.txt &
    fpid=$!
    sleep 3
    # Both at once, well inside the fio run: the target process, and the whole guest.
    perf record -q -e cpu-clock -F 999 -g -p $pid -o $D/t.data -- sleep 8 2>/dev/null &
    ppid=$!
    perf record -q -e cpu-clock -F 499 -a -o $D/s.data -- sleep 8 2>/dev/null
    wait $ppid; wait $fpid
    {
        echo "# $1 ($TR): fio read IOPS $(awk -F';' '{print $8}' $D/fio.txt), KB/s $(awk -F';' '{print $7}' $D/fio.txt); write IOPS $(awk -F';' '{print $49}' $D/fio.txt), KB/s $(awk -F';' '{print $48}' $D/fio.txt)"
        echo "## target process: user space vs kernel"
        perf report -i $D/t.data --stdio --no-children --sort dso -g none 2>/dev/null | grep -E '^ +[0-9]'
        echo "## target process: symbols"
        perf report -i $D/t.data --stdio --no-children --sort symbol -g none --percent-limit 1 2>/dev/null | grep -E '^ +[0-9]'
        echo "## target process: kernel entry points (callers)"
        perf report -i $D/t.data --stdio --children --sort symbol -g none --percent-limit 8 2>/dev/null | grep -E '^ +[0-9]'
    } > "$NVMF_RESULTS/profile-$1-target.txt"
    {
        echo "# $1: whole guest, 8 s"
        perf report -i $D/s.data --stdio --no-children --sort comm -g none 2>/dev/null | grep -E '^ +[0-9]'
        perf report -i $D/s.data --stdio --no-children --sort comm,symbol -g none --percent-limit 1 2>/dev/null | grep -E '^ +[0-9]'
    } > "$NVMF_RESULTS/profile-$1-system.txt"
    cat "$NVMF_RESULTS/profile-$1-target.txt" "$NVMF_RESULTS/profile-$1-system.txt"
done
nvme disconnect -n $NQN > /dev/null
nvmf_target_stop $D
