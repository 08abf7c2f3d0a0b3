#!/usr/bin/env bash
# The main job, inside the test VM: our target serves configs/file.json over RDMA (rxe0),
# the stock Linux host discovers and connects with nvme-cli, and fio writes and verifies
# data on the namespace. Run by `make demo` through tests/vm/run.
set -uo pipefail
cd "$NVMF_ROOT"
CONFIG=$(realpath "${1:-configs/file.json}")
NQN=$(sed -n 's/.*"nqn": *"\(nqn[^"]*\)".*/\1/p' "$CONFIG" | head -n1)
step() { echo; echo "=== $*"; }

step "start: build/nvmf-target -c ${1:-configs/file.json}"
TGT="$NVMF_ROOT/build/nvmf-target"
cd /tmp   # the guest's / is read-only; fio keeps its verify state in the working folder
"$TGT" -c "$CONFIG" > /tmp/target.log 2>&1 &
tpid=$!
for _ in $(seq 100); do grep -q 'nvmf-target: core: ready' /tmp/target.log && break; sleep 0.2; done
cat /tmp/target.log
grep -q 'nvmf-target: core: ready' /tmp/target.log || { echo "target did not start"; exit 1; }

step "nvme discover -t rdma -a $NVMF_TRADDR -s 4420"
nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 || exit 1

step "nvme connect -t rdma -a $NVMF_TRADDR -s 4420 -n $NQN"
nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n "$NQN" || exit 1
dev=""
for _ in $(seq 50); do
    # Namespace 1 of the subsystem (the first listed); a config may add others (e.g. null).
    for b in $(ls -d /sys/block/nvme*n* 2>/dev/null | sort -V); do
        case "$b" in *c[0-9]*) continue ;; esac
        [ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$NQN" ] && [ "$(cat "$b/nsid" 2>/dev/null)" = 1 ] &&
            dev=/dev/$(basename "$b") && break
    done
    [ -n "$dev" ] && break
    sleep 0.2
done
[ -n "$dev" ] || { echo "no block device for $NQN"; exit 1; }
nvme list

step "fio: 4 KiB random writes, QD32, then crc32c verify of everything written, on $dev"
fio --name=main-job --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=4k \
    --iodepth=32 --size=64M --verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting
rc=$?

step "fio: 4 KiB random reads, QD32, 15 s"
fio --name=randread --filename="$dev" --ioengine=libaio --direct=1 --rw=randread --bs=4k \
    --iodepth=32 --size=64M --runtime=15 --time_based --group_reporting | grep -E 'IOPS|lat.*avg'

step "nvme disconnect; SIGTERM to the target"
nvme disconnect -n "$NQN"
kill -TERM $tpid; wait $tpid; trc=$?
tail -n 2 /tmp/target.log
echo
if [ $rc = 0 ] && [ $trc = 0 ]; then echo "MAIN JOB PASSED: fio wrote and verified 64 MiB through our target"; else echo "MAIN JOB FAILED (fio $rc, target $trc)"; exit 1; fi
