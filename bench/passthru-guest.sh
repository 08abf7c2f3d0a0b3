#!/usr/bin/env bash
# The passthru benchmark, inside the 6.12 guest with QEMU's drive of tests/vm/passthru-drive
# (bench/passthru-run starts it): fio through the kernel host over NVMe/TCP against OUR
# target serving the same drive two ways, one at a time (each takes the drive for itself):
#   passthru   the whole drive as a passthru subsystem (device.path /dev/nvme0; the
#              namespace's I/O through io_uring NVMe passthrough on /dev/ng0nX)
#   namespace  the drive's nsid 1 (/dev/nvme0nX) as a namespace, "nvmf_backend": "nvme"
# With BENCH_PT_KERNEL=1 also the kernel's nvmet-tcp the same two ways (kernel-passthru,
# kernel-namespace: nvmet's passthru and its bdev namespace), as the reference.
# Rounds alternate the order of the systems (each one first in turn). Workloads: 4 KiB
# randread and randwrite at queue depth 32, 128 KiB sequential reads at queue depth 8,
# over nsid 1 (128 MiB, 512-byte blocks), written whole first so reads hit data.
#   bench/passthru-guest.sh PARAMS_FILE   (as root in the guest)
# PARAMS_FILE sets BENCH_ROUNDS, BENCH_SECS, BENCH_RAMP, BENCH_PT_KERNEL. Results in
# $NVMF_RESULTS/bench-passthru/: raw.tsv (round system workload iops mbps lat_mean_us
# lat_p99_us), each fio JSON, the targets' logs.
set -uo pipefail
[ $# = 1 ] && [ -f "$1" ] || { echo "usage: $0 PARAMS_FILE" >&2; exit 2; }
. "$1"
ROUNDS=${BENCH_ROUNDS:-3} SECS=${BENCH_SECS:-7} RAMP=${BENCH_RAMP:-1}
SYSTEMS="passthru namespace"
[ "${BENCH_PT_KERNEL:-}" = 1 ] && SYSTEMS="passthru namespace kernel-passthru kernel-namespace"
NSYS=$(echo $SYSTEMS | wc -w)
WORKLOADS="4k-randread-qd32 randread 4k 32
4k-randwrite-qd32 randwrite 4k 32
128k-read-qd8 read 128k 8"

. "$NVMF_ROOT/tests/integration/lib.sh"
OUT="$NVMF_RESULTS/bench-passthru" W=/tmp/bench-passthru
mkdir -p "$OUT" "$W" || exit 1
RAW=$OUT/raw.tsv
printf 'round\tsystem\tworkload\tiops\tmbps\tlat_mean_us\tlat_p99_us\n' > $RAW
ADDR=$NVMF_TRADDR PORT=4470 KPORT=4471
NQN=nqn.2026-12.io.nvmf-rdma:bench-pt
FAILED=0
log() { echo "bench-passthru: $*"; }
die() { log "ERROR: $*"; exit 1; }

sysfs_is /sys/class/nvme/nvme0/transport pcie && [ -c /dev/nvme0 ] || die "no emulated NVMe drive at /dev/nvme0"
DRIVE_NS1=""
for b in /sys/block/nvme0n*; do sysfs_is $b/nsid 1 && DRIVE_NS1=/dev/${b##*/}; done
[ -b "$DRIVE_NS1" ] || die "the drive has no block device of nsid 1"
log "drive /dev/nvme0 ($(cat /sys/class/nvme/nvme0/model | xargs)), nsid 1 at $DRIVE_NS1; systems: $SYSTEMS"
echo never > /sys/kernel/mm/transparent_hugepage/enabled   # as tcp_test.sh: loopback TCP
# Precondition: every block written once.
dd if=/dev/urandom of=$W/chunk bs=1M count=4 status=none
for i in $(seq 0 4 124); do dd if=$W/chunk of=$DRIVE_NS1 bs=1M seek=$i oflag=direct status=none; done

# start SYSTEM: the target serving SYSTEM, and the host connected; its block device in DEV.
# (Not run as $(start ...): the target's waiting subshell keeps bash's saved copy of the
# substitution's pipe open, and the substitution would wait for the target to end.)
start() {
    case $1 in
        passthru|namespace)
            local sub
            if [ $1 = passthru ]; then
                sub='"namespaces": [], "passthru": [{"device": {"path": "/dev/nvme0"}, "enable": 1, "admin_timeout": 0, "io_timeout": 0, "clear_ids": 1}]'
            else
                sub="\"namespaces\": [{\"nsid\": 1, \"enable\": 1, \"device\": {\"path\": \"$DRIVE_NS1\"}, \"nvmf_backend\": \"nvme\"}]"
            fi
            mkdir -p $W/$1
            cat > $W/$1/config.json <<JSON
{"ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$ADDR", "trsvcid": "$PORT", "trtype": "tcp"},
            "subsystems": ["$NQN-$1"]}],
 "subsystems": [{"nqn": "$NQN-$1", "attr": {"allow_any_host": "1"}, $sub}]}
JSON
            nvmf_target_start $W/$1 > $W/$1/start.out 2>&1 || { cat $W/$1/start.out; return 1; }
            cat $W/$1/target.log >> $OUT/$1-target.log ;;
        kernel-passthru)
            local s=$NVMET_CFS/subsystems/$NQN-$1
            mkdir $s && echo 1 > $s/attr_allow_any_host && echo -n /dev/nvme0 > $s/passthru/device_path &&
                echo 1 > $s/passthru/enable || return 1
            KNVMET_TRTYPE=tcp knvmet_add_port 47 $ADDR $KPORT $NQN-$1 || return 1 ;;
        kernel-namespace)
            knvmet_add_subsys $NQN-$1 $DRIVE_NS1 1 || return 1
            KNVMET_TRTYPE=tcp knvmet_add_port 47 $ADDR $KPORT $NQN-$1 || return 1 ;;
    esac
    local p=$PORT; [[ $1 == kernel-* ]] && p=$KPORT
    log "$1: serving; connecting the host"
    timeout 60 nvme connect -t tcp -a $ADDR -s $p -n $NQN-$1 > /dev/null || { log "$1: nvme connect failed" ; return 1; }
    wait_for 20 nvme_dev_for $NQN-$1 1 || { log "$1: no namespace 1 on the host" ; return 1; }
    DEV=$(nvme_dev_for $NQN-$1 1)
}
stop() {
    nvme disconnect -n $NQN-$1 > /dev/null 2>&1
    wait_for 20 eval "! nvme_dev_for $NQN-$1 1"
    case $1 in
        kernel-*) knvmet_clear ;;
        *) nvmf_target_stop $W/$1
           [ "$(cat $W/$1/target.rc 2>/dev/null)" = 0 ] || { log "ERROR: $1's target exited $(cat $W/$1/target.rc 2>/dev/null)"; FAILED=1; }
           cp $W/$1/target.log $OUT/$1-target-round.log 2>/dev/null ;;
    esac
}
order_for() {   # order_for ROUND: SYSTEMS rotated by ROUND - 1
    local -a s=($SYSTEMS); local i out=""
    for ((i = 0; i < NSYS; i++)); do out+="${out:+ }${s[$(((i + $1 - 1) % NSYS))]}"; done
    echo "$out"
}

for r in $(seq $ROUNDS); do
    for sys in $(order_for $r); do
        start $sys || { log "ERROR: round $r: $sys did not start"; FAILED=1; stop $sys; continue; }
        dev=$DEV
        log "round $r: $sys on $dev"
        while read -r wl rw bs qd; do
            j=$OUT/fio-r$r-$sys-$wl.json
            timeout $((SECS + RAMP + 120)) fio --name=$wl --filename=$dev --ioengine=libaio --direct=1 \
                --rw=$rw --bs=$bs --iodepth=$qd --time_based --runtime=$SECS --ramp_time=$RAMP \
                --size=128M --randrepeat=0 --norandommap --output-format=json --output=$j > /dev/null 2>&1 ||
                { log "ERROR: round $r: fio $wl on $sys failed"; FAILED=1; continue; }
            python3 - "$j" "$r" "$sys" "$wl" >> $RAW <<'PY' || { log "ERROR: round $r: no result in $j"; FAILED=1; }
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
p99 = d["clat_ns"].get("percentile", {}).get("99.000000", 0) / 1000
print("\t".join([sys.argv[2], sys.argv[3], sys.argv[4], "%.0f" % d["iops"],
                 "%.1f" % (d["bw_bytes"] / 1e6), "%.0f" % (d["lat_ns"]["mean"] / 1000), "%.0f" % p99]))
PY
            log "round $r $sys $wl: $(tail -n1 $RAW | cut -f4-7 | tr '\t' ' ') (iops MB/s mean p99 us)"
        done <<< "$WORKLOADS"
        stop $sys
    done
done
exit $FAILED
