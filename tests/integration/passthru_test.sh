# A passthru subsystem: our target (build/nvmf-target) exports the guest's emulated NVMe
# drive whole (nvmetcli's "passthru": {"device": {"path": "/dev/nvme0"}}, no namespaces of
# its own), as the kernel's nvmet passthru does, to the stock Linux host over NVMe/TCP.
# The drive is QEMU's nvme (serial nvmfpt0001, tests/vm/passthru-drive): nsid 1 of 512-byte
# blocks, nsid 2 of 4096-byte blocks with 8 bytes of metadata inline (extended LBA); the
# 6.12 boot of make vm-check has it (suite-6.12). nvme-cli 2.3 (Debian 12's, `nvme`) and
# 2.13 (Debian 13's, through tests/vm/tls-tools) send Identify, SMART and error logs, Get
# and Set Features, Format, Write Zeroes, Dataset Management, Copy, Verify and Compare
# through it; fio's crc32c verify and raw io-passthru move data; `nvmf compare-write`
# processes race on one block. Every write is read back through the fabric and straight
# from the drive (our target holds the namespaces' block devices O_EXCL, which stops mounts
# and other exclusive opens, not plain reads; admin commands to /dev/nvme0 still work).
# Bad exports are refused by name: a missing path, a namespace instead of the controller,
# a drive another target exports, a drive with a mounted filesystem.
#
# PT_TARGET=kernel runs the same checks against the kernel's nvmet passthru (configfs),
# the reference: `make vm-passthru PT_TARGET=kernel` (suite-passthru). Where the kernel
# differs (it refuses Format and fused commands, hides metadata formats, exports a drive
# whose namespace is mounted; its refusals are configfs writes, not a config file), the
# check says what the kernel does instead, and asserts that.

PT_TARGET=${PT_TARGET:-ours}
PT_STATE=/tmp/passthru-test
PT_SUB=nqn.2026-12.io.nvmf-rdma:passthru
PT_PORT=4460
PT_DRIVE=/dev/nvme0
PT_SERIAL=nvmfpt0001
PT_NVMF="$NVMF_ROOT/build/nvmf"
PT_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:9a7f0000-0000-4000-8000-00000000a7f0

# nvme-cli 2.3 (the stock host's) and 2.13. 2.13 takes -v as --verbose and -o as
# --output-format: long options only (`-v 0x150` set the threshold to 0 there, silently).
n23() { timeout 120 nvme "$@"; }
n213() { timeout 120 "$NVMF_ROOT/tests/vm/tls-tools" nvme "$@"; }

# pt_drive_blk NSID: the drive's own block device of namespace NSID (/dev/nvme0nX: the
# kernel scans namespaces asynchronously, so X need not be NSID).
pt_drive_blk() {
    local b
    for b in /sys/block/nvme0n*; do
        sysfs_is "$b/nsid" "$1" && { echo "/dev/${b##*/}"; return 0; }
    done
    return 1
}
# pt_drive_ng NSID: the drive's generic char device of namespace NSID (/dev/ng0nX).
pt_drive_ng() { local b; b=$(pt_drive_blk "$1") || return 1; echo "/dev/ng${b#/dev/nvme}"; }
# pt_dev NSID: the fabrics host's block device of namespace NSID; pt_ng NSID its char device.
pt_dev() { nvme_dev_for $PT_SUB "$1"; }
pt_ng() { local d; d=$(pt_dev "$1") || return 1; echo "/dev/ng${d#/dev/nvme}"; }
# pt_ctrl: /dev/nvmeN, the fabrics host's controller of the subsystem.
pt_ctrl() { local c; c=$(nvme_ctrl_for $PT_SUB) || return 1; echo "/dev/$c"; }
pt_no_dev() { ! pt_dev 1; }
# pt_kernel WHAT: in the kernel reference run, say what nvmet does instead (the caller
# asserts it and returns).
pt_kernel() { [ "$PT_TARGET" = kernel ] && echo "kernel reference: $*"; }

# pt_read DEV LBA COUNT [BS]: COUNT blocks of BS (512) bytes at LBA, O_DIRECT, to stdout.
pt_read() { dd if="$1" bs="${4:-512}" skip="$2" count="$3" iflag=direct status=none; }
# pt_same_on_both LBA COUNT FILE: blocks LBA.. of nsid 1 hold FILE through the fabric and
# on the drive itself.
pt_same_on_both() {
    local dev drv
    dev=$(pt_dev 1) && drv=$(pt_drive_blk 1) || fail "namespace 1 missing (fabric $(pt_dev 1), drive $(pt_drive_blk 1))"
    cmp <(pt_read "$dev" "$1" "$2") "$3" || fail "blocks $1..+$2 read through the fabric ($dev) differ from $3"
    cmp <(pt_read "$drv" "$1" "$2") "$3" || fail "blocks $1..+$2 read from the drive ($drv) differ from $3"
}
# pt_smart FIELD DEV: the decimal value of a SMART log line ("Data Units Written").
pt_smart() { n23 smart-log "$2" | sed -n "s/^$1[[:space:]]*: \([0-9]*\).*/\1/p"; }

pt_config() {   # pt_config FILE SUBNQN SVCID DEVICE_PATH
    cat > "$1" <<JSON
{"ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$NVMF_TRADDR", "trsvcid": "$3", "trtype": "tcp"},
            "subsystems": ["$2"]}],
 "subsystems": [{"nqn": "$2", "attr": {"allow_any_host": "1"}, "namespaces": [],
                 "passthru": [{"device": {"path": "$4"}, "enable": 1, "admin_timeout": 0,
                               "io_timeout": 0, "clear_ids": 1}]}]}
JSON
}

pt_connect() {
    n23 connect -t tcp -a "$NVMF_TRADDR" -s $PT_PORT -n $PT_SUB -q $PT_HOSTNQN > $PT_STATE/connect.out 2>&1 ||
        { cat $PT_STATE/connect.out; dmesg | tail -5; return 1; }
    wait_for 20 pt_dev 1 || { echo "namespace 1 did not appear"; return 1; }
    wait_for 20 pt_dev 2 || { echo "namespace 2 did not appear"; return 1; }
}
pt_disconnect() { nvme disconnect -n $PT_SUB > /dev/null 2>&1; wait_for 20 pt_no_dev; }

pt_kernel_start() {
    local s=$NVMET_CFS/subsystems/$PT_SUB
    mkdir "$s" || return 1
    echo 1 > "$s/attr_allow_any_host"
    echo -n $PT_DRIVE > "$s/passthru/device_path" || return 1
    echo 1 > "$s/passthru/clear_ids" || return 1
    echo 1 > "$s/passthru/enable" || { dmesg | tail -3; return 1; }
    KNVMET_TRTYPE=tcp knvmet_add_port 46 "$NVMF_TRADDR" $PT_PORT $PT_SUB
}

# pt_refused NAME DEVICE_PATH: a second target on a passthru config exporting DEVICE_PATH
# must exit non-zero before it is ready; its output in $PT_STATE/NAME/target.log.
pt_refused() {
    local d=$PT_STATE/$1 rc
    rm -rf "$d"; mkdir -p "$d"
    pt_config "$d/config.json" "$PT_SUB-$1" 4461 "$2"
    ( "$NVMF_TARGET_BIN" -c "$d/config.json" --rpc-socket "$d/rpc.sock" > "$d/target.log" 2>&1 &
      echo $! > "$d/target.pid"; wait $!; echo $? > "$d/target.rc" ) &
    wait_for 30 test -s "$d/target.rc" || {
        grep -q 'core: ready' "$d/target.log" && nvmf_target_stop "$d"
        cat "$d/target.log"; fail "$1: a target exporting $2 started (it must refuse)"; }
    rc=$(cat "$d/target.rc")
    cat "$d/target.log"
    [ "$rc" != 0 ] || fail "$1: the target exited 0 on a config it must refuse"
    ! grep -q 'core: ready' "$d/target.log" || fail "$1: the target said it was ready"
}

setup_file() {
    rm -rf $PT_STATE; mkdir -p $PT_STATE
    # The drive: the guest's first NVMe controller, on PCIe, with its two namespaces.
    sysfs_is /sys/class/nvme/nvme0/transport pcie && [ -c $PT_DRIVE ] ||
        fail "no emulated NVMe drive at $PT_DRIVE (boot with tests/vm/passthru-drive's QEMU arguments)"
    local sn; read -r sn < /sys/class/nvme/nvme0/serial
    expect_eq "the drive's serial" "$sn" $PT_SERIAL
    # Loopback TCP, host and target in one guest: no huge pages under the buffers
    # (tcp_test.sh says why: 6.1's usercopy check; harmless on 6.12).
    cat /sys/kernel/mm/transparent_hugepage/enabled > $PT_STATE/thp.saved
    echo never > /sys/kernel/mm/transparent_hugepage/enabled || fail "THP off"
    if [ "$PT_TARGET" = kernel ]; then
        pt_kernel_start || fail "nvmet passthru of $PT_DRIVE"
    else
        pt_config $PT_STATE/config.json $PT_SUB $PT_PORT $PT_DRIVE
        nvmf_target_start $PT_STATE || fail "target did not start"
    fi
    pt_connect || fail "connect"
}

teardown_file() {
    pt_disconnect
    if [ "$PT_TARGET" = kernel ]; then knvmet_clear; else nvmf_target_stop $PT_STATE; fi
    local m; for m in $PT_STATE/mnt; do mountpoint -q $m && umount $m; done
    # The threshold this file sets, back to QEMU's default (343 K).
    nvme set-feature $PT_DRIVE -f 4 -v 0x157 > /dev/null 2>&1
    if [ -s $PT_STATE/thp.saved ]; then
        sed -n 's/.*\[\(.*\)\].*/\1/p' $PT_STATE/thp.saved > /sys/kernel/mm/transparent_hugepage/enabled
    fi
    true
}

test_00_the_drive_and_its_namespaces_are_in_the_guest() {
    local b1 b2
    b1=$(pt_drive_blk 1) || fail "the drive has no block device of nsid 1: $(ls /sys/block)"
    b2=$(pt_drive_blk 2) || fail "the drive has no block device of nsid 2"
    [ -b "$b1" ] && [ -c "$(pt_drive_ng 1)" ] && [ -c "$(pt_drive_ng 2)" ] ||
        fail "device nodes missing: $(ls -l /dev/nvme0* /dev/ng0* 2>&1)"
    sysfs_is /sys/block/${b1#/dev/}/queue/logical_block_size 512 || fail "nsid 1 is not of 512-byte blocks"
    sysfs_is /sys/block/${b1#/dev/}/size 262144 || fail "nsid 1 is not 128 MiB"
    # Extended-LBA metadata: the PCIe host gives nsid 2 no capacity, only its char device.
    sysfs_is /sys/block/${b2#/dev/}/size 0 || fail "nsid 2 has a block capacity"
    n23 id-ns $PT_DRIVE -n 2 > $PT_STATE/drive-ns2.txt || fail "id-ns of the drive's nsid 2"
    grep -q '^flbas *: 0x15$' $PT_STATE/drive-ns2.txt && grep -q 'ms:8 *lbads:12 .*in use' $PT_STATE/drive-ns2.txt ||
        { cat $PT_STATE/drive-ns2.txt; fail "nsid 2 is not 4096 + 8 bytes extended"; }
}

test_01_identify_controller_is_the_drives_under_our_nqn() {
    local c; c=$(pt_ctrl) || fail "not connected"
    local v
    for v in n23 n213; do
        $v id-ctrl $c > $PT_STATE/id-ctrl-$v.txt || fail "$v id-ctrl"
        grep -q "^sn *: $PT_SERIAL *\$" $PT_STATE/id-ctrl-$v.txt || fail "$v: sn is not the drive's: $(grep '^sn' $PT_STATE/id-ctrl-$v.txt)"
        grep -q '^mn *: QEMU NVMe Ctrl' $PT_STATE/id-ctrl-$v.txt || fail "$v: mn is not the drive's"
        grep -q "^subnqn *: $PT_SUB\$" $PT_STATE/id-ctrl-$v.txt || fail "$v: subnqn is not the subsystem's"
        # The drive's ONCS 0x15d: Compare, DSM, Write Zeroes and Copy (bits 0, 2, 3, 8) pass.
        local oncs; oncs=$(sed -n 's/^oncs *: //p' $PT_STATE/id-ctrl-$v.txt)
        [ $((oncs & 0x10d)) = $((0x10d)) ] || fail "$v: oncs $oncs lacks the drive's Compare, DSM, Write Zeroes or Copy"
        grep -q '^cntrltype *: 1$' $PT_STATE/id-ctrl-$v.txt || fail "$v: not an I/O controller"
    done
    # A fabrics controller: SGLs with keyed/offset support the drive has not, and IOCCSZ.
    grep -q '^ioccsz *: [1-9]' $PT_STATE/id-ctrl-n23.txt || fail "ioccsz 0: not a fabrics Identify"
}

test_02_identify_namespace_gives_the_drives_formats_and_no_ids() {
    local v
    for v in n23 n213; do
        $v id-ns "$(pt_dev 1)" > $PT_STATE/id-ns1-$v.txt || fail "$v id-ns nsid 1"
        grep -q '^nsze *: 0x40000$' $PT_STATE/id-ns1-$v.txt || fail "$v: nsid 1 nsze: $(grep ^nsze $PT_STATE/id-ns1-$v.txt)"
        grep -q '^flbas *: 0$' $PT_STATE/id-ns1-$v.txt || fail "$v: nsid 1 flbas"
        grep -q 'ms:0 *lbads:9 .*in use' $PT_STATE/id-ns1-$v.txt || fail "$v: nsid 1 not 512-byte blocks"
        grep -q 'ms:0 *lbads:12 ' $PT_STATE/id-ns1-$v.txt || fail "$v: nsid 1 does not offer a 4096-byte format"
        $v id-ns "$(pt_ctrl)" -n 2 > $PT_STATE/id-ns2-$v.txt || fail "$v id-ns nsid 2"
        grep -q '^nsze *: 0x3fe0$' $PT_STATE/id-ns2-$v.txt || fail "$v: nsid 2 nsze"
        if pt_kernel "nvmet passthru hides metadata formats (FLBAS bit 4 and every LBAF's MS cleared)"; then
            grep -q '^flbas *: 0x5$' $PT_STATE/id-ns2-$v.txt || fail "$v: nvmet's nsid 2 flbas"
        else
            # Extended LBA travels in the data buffer: a fabric carries it, so it is served.
            grep -q '^flbas *: 0x15$' $PT_STATE/id-ns2-$v.txt && grep -q 'ms:8 *lbads:12 .*in use' $PT_STATE/id-ns2-$v.txt ||
                { cat $PT_STATE/id-ns2-$v.txt; fail "$v: nsid 2 is not 4096 + 8 extended"; }
        fi
    done
    # clear_ids: no EUI-64, NGUID or UUID through the fabric.
    grep -q '^nguid *: 0*$' $PT_STATE/id-ns1-n23.txt && grep -q '^eui64 *: 0*$' $PT_STATE/id-ns1-n23.txt ||
        fail "nsid 1 has ids through the fabric"
    n23 ns-descs "$(pt_dev 1)" > $PT_STATE/ns-descs.txt || fail "ns-descs"
    ! grep -Eq '^(uuid|nguid|eui64)' $PT_STATE/ns-descs.txt || { cat $PT_STATE/ns-descs.txt; fail "a namespace id descriptor through the fabric with clear_ids 1"; }
}

test_03_data_written_through_the_fabric_is_on_the_drive() {
    local dev; dev=$(pt_dev 1) || fail "not connected"
    head -c 1048576 /dev/urandom > $PT_STATE/1m
    dd if=$PT_STATE/1m of="$dev" bs=64k seek=32 oflag=direct status=none || fail "write 1 MiB at 2 MiB"
    pt_same_on_both 4096 2048 $PT_STATE/1m
    # And the other way: written on the drive, read through the fabric.
    head -c 65536 /dev/urandom > $PT_STATE/64k
    dd if=$PT_STATE/64k of="$(pt_drive_blk 1)" bs=64k seek=64 oflag=direct status=none || fail "write on the drive"
    cmp <(pt_read "$dev" 8192 128) $PT_STATE/64k || fail "a write on the drive is not read through the fabric"
}

test_04_smart_log_counts_the_fabric_hosts_writes() {
    local c; c=$(pt_ctrl) || fail "not connected"
    local w0 w1 r0 d0
    w0=$(pt_smart 'Data Units Written' $c) && [ -n "$w0" ] || fail "smart-log through the fabric"
    d0=$(pt_smart 'Data Units Written' $PT_DRIVE)
    expect_eq "Data Units Written through the fabric and on the drive" "$w0" "$d0"
    n213 smart-log $c > $PT_STATE/smart-213.txt || fail "nvme-cli 2.13 smart-log"
    grep -q "^Data Units Written[[:space:]]*: $w0 " $PT_STATE/smart-213.txt || fail "2.13 reads another count"
    # 8 MiB = 16 384 blocks of 512 bytes: 16.4 data units (1000 blocks each; QEMU rounds up).
    dd if=/dev/urandom of="$(pt_dev 1)" bs=1M count=8 seek=16 oflag=direct status=none || fail "write 8 MiB"
    w1=$(pt_smart 'Data Units Written' $c)
    [ "$w1" -ge $((w0 + 16)) ] && [ "$w1" -le $((w0 + 18)) ] ||
        fail "Data Units Written went from $w0 to $w1 over 8 MiB (want +16..+18)"
    r0=$(pt_smart 'host_write_commands' $c)
    [ "$r0" -gt 0 ] || fail "host_write_commands is 0"
}

test_05_error_log_reads() {
    local v
    for v in n23 n213; do
        $v error-log "$(pt_ctrl)" -e 4 > $PT_STATE/errlog-$v.txt || { cat $PT_STATE/errlog-$v.txt; fail "$v error-log"; }
        grep -q 'Error Log Entries for device' $PT_STATE/errlog-$v.txt || fail "$v: no error log"
    done
}

test_06_set_feature_temperature_threshold_reaches_the_drive() {
    local c; c=$(pt_ctrl) || fail "not connected"
    n23 set-feature $c -f 4 -v 0x150 > /dev/null || fail "2.3 set-feature 4"
    n23 get-feature $c -f 4 | grep -q 'Current value:0x00000150' || fail "2.3 get-feature 4 through the fabric"
    n23 get-feature $PT_DRIVE -f 4 | grep -q 'Current value:0x00000150' || fail "the drive's threshold is not 0x150"
    n213 set-feature $c --feature-id=4 --value=0x152 > /dev/null || fail "2.13 set-feature 4"
    n213 get-feature $c --feature-id=4 | grep -q 'Current value:0x00000152' || fail "2.13 get-feature 4"
    n23 get-feature $PT_DRIVE -f 4 | grep -q 'Current value:0x00000152' || fail "the drive's threshold is not 0x152"
    n23 set-feature $c -f 4 -v 0x157 > /dev/null || fail "threshold back"
}

test_07_write_zeroes_and_deallocate_read_back_zeroes() {
    local dev; dev=$(pt_dev 1) || fail "not connected"
    head -c 8192 /dev/zero > $PT_STATE/zero8k
    local v lba
    for v in n23 n213; do
        [ $v = n23 ] && lba=16384 || lba=16400
        head -c 8192 /dev/urandom | dd of="$dev" bs=8k seek=$((lba / 16)) oflag=direct status=none || fail "pattern"
        $v write-zeroes "$dev" --start-block=$lba --block-count=15 > /dev/null || fail "$v write-zeroes"
        pt_same_on_both $lba 16 $PT_STATE/zero8k
    done
    # DLFEAT 1: a deallocated block reads as zeroes.
    grep -q '^dlfeat *: 1$' $PT_STATE/id-ns1-n23.txt || fail "the namespace's DLFEAT is not 1"
    for v in n23 n213; do
        [ $v = n23 ] && lba=16512 || lba=16528
        head -c 8192 /dev/urandom | dd of="$dev" bs=8k seek=$((lba / 16)) oflag=direct status=none || fail "pattern"
        $v dsm "$dev" --ad --slbs=$lba --blocks=16 > /dev/null || fail "$v dsm deallocate"
        pt_same_on_both $lba 16 $PT_STATE/zero8k
    done
}

test_08_copy_verify_and_compare() {
    local dev; dev=$(pt_dev 1) || fail "not connected"
    head -c 4096 /dev/urandom > $PT_STATE/4k
    dd if=$PT_STATE/4k of="$dev" bs=4k seek=2500 oflag=direct status=none || fail "pattern at LBA 20000"
    n23 copy "$dev" --sdlba=21000 --slbs=20000 --blocks=7 > /dev/null || fail "2.3 copy"
    pt_same_on_both 21000 8 $PT_STATE/4k
    n213 copy "$dev" --sdlba=22000 --slbs=20000 --blocks=7 > /dev/null || fail "2.13 copy"
    pt_same_on_both 22000 8 $PT_STATE/4k
    local v out
    for v in n23 n213; do
        $v verify "$dev" --start-block=21000 --block-count=7 > /dev/null || fail "$v verify"
        out=$($v verify "$dev" --start-block=262140 --block-count=7 2>&1) && fail "$v: verify past the end succeeded"
        echo "$out" | grep -q 'LBA Out of Range' || fail "$v: verify past the end: $out"
        $v compare "$dev" --start-block=22000 --block-count=7 --data-size=4096 --data=$PT_STATE/4k > /dev/null ||
            fail "$v compare of equal data"
        out=$($v compare "$dev" --start-block=22001 --block-count=7 --data-size=4096 --data=$PT_STATE/4k 2>&1) &&
            fail "$v: compare of different data succeeded"
        echo "$out" | grep -q 'Compare Failure' || fail "$v: compare of different data: $out"
    done
}

test_09_fio_crc32c_verify_through_the_fabric() {
    local dev; dev=$(pt_dev 1) || fail "not connected"
    local bs
    for bs in 4k 128k; do
        timeout 300 fio --name=pt --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=$bs \
            --offset=32M --size=16M --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 \
            --randrepeat=0 --output=$PT_STATE/fio-$bs.txt > /dev/null 2>&1 ||
            { tail -20 $PT_STATE/fio-$bs.txt; fail "fio verify bs=$bs"; }
        grep -q 'err= 0' $PT_STATE/fio-$bs.txt || fail "fio bs=$bs reported errors"
    done
    # What fio left there is on the drive too.
    cmp <(pt_read "$dev" 32 16 1M) <(pt_read "$(pt_drive_blk 1)" 32 16 1M) ||
        fail "the fio region differs between the fabric and the drive"
}

test_10_metadata_namespace_moves_data_and_metadata_inline() {
    local ng dng
    ng=$(pt_ng 2) && [ -c "$ng" ] || fail "no char device of nsid 2 on the host: $(ls /dev/ng*)"
    dng=$(pt_drive_ng 2) || fail "no drive char device of nsid 2"
    # One block: 4096 bytes of data then its 8 bytes of metadata (extended LBA).
    head -c 4104 /dev/urandom > $PT_STATE/blk+md
    n23 io-passthru "$ng" --opcode=1 --namespace-id=2 --data-len=4104 --write --input-file=$PT_STATE/blk+md \
        --cdw10=5 --cdw12=0 > $PT_STATE/iop-w.out 2>&1 || { cat $PT_STATE/iop-w.out; fail "write of LBA 5 with metadata"; }
    n23 io-passthru "$dng" --opcode=2 --namespace-id=2 --data-len=4104 --read --raw-binary \
        --cdw10=5 --cdw12=0 > $PT_STATE/drive-read 2> /dev/null || fail "read of LBA 5 on the drive"
    cmp $PT_STATE/drive-read $PT_STATE/blk+md || fail "data + metadata on the drive differ from what the host wrote"
    if pt_kernel "nvmet passthru hides the metadata format, but passes the 4104-byte transfer"; then :; fi
    n23 io-passthru "$ng" --opcode=2 --namespace-id=2 --data-len=4104 --read --raw-binary \
        --cdw10=5 --cdw12=0 > $PT_STATE/fabric-read 2> /dev/null || fail "read of LBA 5 through the fabric"
    cmp $PT_STATE/fabric-read $PT_STATE/blk+md || fail "data + metadata read through the fabric differ"
    n213 io-passthru "$ng" --opcode=2 --namespace-id=2 --data-len=4104 --read --raw-binary \
        --cdw10=5 --cdw12=0 > $PT_STATE/fabric-read2 2> /dev/null || fail "2.13 read of LBA 5 through the fabric"
    cmp $PT_STATE/fabric-read2 $PT_STATE/blk+md || fail "2.13: data + metadata read through the fabric differ"
}

# Fused Compare and Write (docs/target.md): the drive has none (FUSES 0, and the Linux
# passthrough refuses fused commands), so the target runs each pair itself, atomically.
# Four `nvmf` hosts race on one block for five rounds: each compares with what the block
# held and writes its own block; exactly one wins each round, and the block is the winner's.
test_11_compare_write_contention_has_one_winner_per_round() {
    local cw=(-t tcp -a "$NVMF_TRADDR" -s $PT_PORT -n $PT_SUB --slba 30000 --nlb 1)
    head -c 512 /dev/urandom > $PT_STATE/cw-cur
    "$PT_NVMF" write -t tcp -a "$NVMF_TRADDR" -s $PT_PORT -n $PT_SUB --slba 30000 -i $PT_STATE/cw-cur \
        > $PT_STATE/cw-init.out 2>&1 || { cat $PT_STATE/cw-init.out; fail "nvmf write of the block"; }
    if pt_kernel "nvmet refuses any fused command with Invalid Field"; then
        "$PT_NVMF" compare-write "${cw[@]}" --compare $PT_STATE/cw-cur --input $PT_STATE/cw-cur \
            > $PT_STATE/cw-k.out 2>&1 && fail "nvmet took a fused pair"
        grep -q INVALID_FIELD $PT_STATE/cw-k.out || fail "nvmet: $(cat $PT_STATE/cw-k.out)"
        return 0
    fi
    local round i winners winner
    for round in 1 2 3 4 5; do
        for i in 1 2 3 4; do head -c 512 /dev/urandom > $PT_STATE/cw-$i; done
        for i in 1 2 3 4; do
            ( "$PT_NVMF" compare-write "${cw[@]}" --compare $PT_STATE/cw-cur --input $PT_STATE/cw-$i \
                > $PT_STATE/cw-$i.out 2>&1; echo $? > $PT_STATE/cw-$i.rc ) &
        done
        wait
        winners=0 winner=""
        for i in 1 2 3 4; do
            case $(cat $PT_STATE/cw-$i.rc) in
                0) winners=$((winners + 1)) winner=$i ;;
                1) grep -q COMPARE_FAILED $PT_STATE/cw-$i.out ||
                       fail "round $round, host $i: not a miscompare: $(cat $PT_STATE/cw-$i.out)" ;;
                *) fail "round $round, host $i: exit $(cat $PT_STATE/cw-$i.rc): $(cat $PT_STATE/cw-$i.out)" ;;
            esac
        done
        expect_eq "winners in round $round" $winners 1
        cmp <(pt_read "$(pt_drive_blk 1)" 30000 1) $PT_STATE/cw-$winner || fail "round $round: the block is not the winner's"
        cp $PT_STATE/cw-$winner $PT_STATE/cw-cur
    done
    # The fabric host's page cache is not in the way: it never read LBA 30000 buffered.
    cmp <(pt_read "$(pt_dev 1)" 30000 1) $PT_STATE/cw-cur || fail "the last winner's block through the fabric"
}

# Format NVM (LBCC, NCC in the drive's effects log): the host rescans and sees 4096-byte
# blocks, the drive says so too; back to 512 the same way.
test_12_format_to_4096_byte_blocks_and_back() {
    local dev; dev=$(pt_dev 1) || fail "not connected"
    local out
    if pt_kernel "nvmet passthru refuses Format NVM (not on its admin allow list)"; then
        out=$(n23 format "$dev" --lbaf=4 --force 2>&1) && fail "nvmet passed a Format"
        echo "$out" | grep -q 'Invalid Command Opcode' || fail "nvmet's Format: $out"
        return 0
    fi
    local b=/sys/block/${dev#/dev/}/queue/logical_block_size
    n23 format "$dev" --lbaf=4 --force > $PT_STATE/fmt1.out 2>&1 || { cat $PT_STATE/fmt1.out; fail "2.3 format --lbaf=4"; }
    n23 id-ns $PT_DRIVE -n 1 | grep -q '^flbas *: 0x4$' || fail "the drive's nsid 1 is not in format 4"
    wait_for 20 sysfs_is $b 4096 || fail "the host's $dev has $(cat $b)-byte blocks after the format"
    head -c 8192 /dev/urandom > $PT_STATE/8k
    dd if=$PT_STATE/8k of="$dev" bs=4k seek=10 oflag=direct status=none || fail "write in 4096-byte blocks"
    cmp <(pt_read "$dev" 10 2 4096) $PT_STATE/8k || fail "read back in 4096-byte blocks"
    n213 format "$dev" --lbaf=0 --force > $PT_STATE/fmt2.out 2>&1 || { cat $PT_STATE/fmt2.out; fail "2.13 format --lbaf=0"; }
    n23 id-ns $PT_DRIVE -n 1 | grep -q '^flbas *: 0$' || fail "the drive's nsid 1 is not back in format 0"
    wait_for 20 sysfs_is $b 512 || fail "the host's $dev has $(cat $b)-byte blocks after formatting back"
    sysfs_is /sys/block/${dev#/dev/}/size 262144 || fail "the host's $dev is not 128 MiB after the formats"
    head -c 4096 /dev/urandom > $PT_STATE/4k2
    dd if=$PT_STATE/4k2 of="$dev" bs=4k seek=10 oflag=direct status=none || fail "write in 512-byte blocks"
    pt_same_on_both 80 8 $PT_STATE/4k2
}

test_13_a_missing_device_path_is_refused_by_name() {
    pt_kernel "nvmet refuses to enable a passthru of a missing path" && {
        local s=$NVMET_CFS/subsystems/$PT_SUB-missing
        mkdir $s && echo -n /dev/nvme7 > $s/passthru/device_path || fail "configfs"
        ! echo 1 2> /dev/null > $s/passthru/enable || { rmdir $s; fail "nvmet enabled a missing path"; }
        rmdir $s; return 0; }
    pt_refused missing /dev/nvme7
    grep -q '/dev/nvme7' $PT_STATE/missing/target.log || fail "the message does not name /dev/nvme7"
}

test_14_a_namespace_path_is_refused_naming_the_controller() {
    local b1; b1=$(pt_drive_blk 1) || fail "no drive namespace"
    pt_kernel "nvmet refuses a namespace's block device as a passthru path" && {
        local s=$NVMET_CFS/subsystems/$PT_SUB-ns
        mkdir $s && echo -n $b1 > $s/passthru/device_path || fail "configfs"
        ! echo 1 2> /dev/null > $s/passthru/enable || { rmdir $s; fail "nvmet enabled $b1"; }
        rmdir $s; return 0; }
    pt_refused nspath $b1
    grep -q "$b1" $PT_STATE/nspath/target.log || fail "the message does not name $b1"
    grep -Eq '/dev/nvme0([^n0-9]|$)' $PT_STATE/nspath/target.log || fail "the message does not name the controller /dev/nvme0"
}

test_15_a_drive_another_target_exports_is_refused() {
    pt_kernel "nvmet refuses a second subsystem's passthru of the same controller" && {
        local s=$NVMET_CFS/subsystems/$PT_SUB-second
        mkdir $s && echo -n $PT_DRIVE > $s/passthru/device_path || fail "configfs"
        ! echo 1 2> /dev/null > $s/passthru/enable || { echo 0 > $s/passthru/enable; rmdir $s; fail "nvmet exported $PT_DRIVE twice"; }
        rmdir $s; dmesg | grep -i 'passthru' | tail -n 2; return 0; }
    pt_refused second $PT_DRIVE
    grep -q "$PT_DRIVE" $PT_STATE/second/target.log || fail "the message does not name $PT_DRIVE"
    grep -Eiq 'in use|exported|held|busy|locked' $PT_STATE/second/target.log || fail "the message does not say the drive is in use"
    # The first target still serves.
    head -c 4096 /dev/urandom > $PT_STATE/after
    dd if=$PT_STATE/after of="$(pt_dev 1)" bs=4k seek=3000 oflag=direct status=none || fail "write after the refused second target"
    pt_same_on_both 24000 8 $PT_STATE/after
}

# pt_load_ext4: Debian builds ext4 as a module, and the guest cannot autoload (its
# /lib/modules is the host's): loaded from the guest kernel's tree that job.env names.
pt_load_ext4() {
    grep -q '^ext4 ' /proc/modules && return 0
    local kdir; kdir=$(sed -n "s/^KERNEL_DIR='\(.*\)'\$/\1/p" "$NVMF_RESULTS/job.env")
    [ -d "$kdir" ] && modprobe -d "$kdir" ext4
}

test_16_a_drive_with_a_mounted_filesystem_is_refused() {
    local b1; b1=$(pt_drive_blk 1) || fail "no drive namespace"
    pt_load_ext4 || fail "could not load ext4"
    mkdir -p $PT_STATE/mnt
    if [ "$PT_TARGET" = ours ]; then
        # While our target runs it holds the namespaces O_EXCL: no mount.
        ! mount "$b1" $PT_STATE/mnt 2> /dev/null || { umount $PT_STATE/mnt; fail "mounted $b1 while the target exports the drive"; }
    fi
    pt_disconnect || fail "disconnect"
    if [ "$PT_TARGET" = kernel ]; then knvmet_clear; else nvmf_target_stop $PT_STATE || fail "target did not stop"; fi
    mkfs.ext4 -q -F "$b1" || fail "mkfs on $b1"
    mount "$b1" $PT_STATE/mnt || fail "mount $b1"
    if pt_kernel "nvmet passthru does not look at who uses the drive's namespaces: it exports one with a mounted filesystem"; then
        pt_kernel_start || { knvmet_clear; umount $PT_STATE/mnt; fail "nvmet refused a drive with a mounted namespace"; }
        knvmet_clear; umount $PT_STATE/mnt; return 0
    fi
    pt_refused mounted $PT_DRIVE
    umount $PT_STATE/mnt
    grep -q "$b1" $PT_STATE/mounted/target.log || fail "the message does not name $b1"
    grep -Eiq 'mounted|in use|held|busy' $PT_STATE/mounted/target.log || fail "the message does not say $b1 is in use"
}
