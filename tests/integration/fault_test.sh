# Backend faults seen by the stock kernel host: build/tests/nvmf-target-fault (the daemon
# with the test-only fault injection of tests/fault, rules from NVMF_FAULT) serves two
# file namespaces over rxe; reads of a bad range fail as Unrecovered Read Error, writes
# of another range as Capacity Exceeded, Flush as Write Fault, the error log names them;
# I/O elsewhere reads back what was written, and short transfers on namespace 2 are
# continued.
# (That build/nvmf-target has no fault injection is checked on the build machine, by
# make install-check.) Kept short: every program started in the emulated guest costs.

FAULT_TGT="$NVMF_ROOT/build/tests/nvmf-target-fault"
SUB=nqn.2026-11.io.nvmf-rdma:fault
STATE=/tmp/fault-test
# 512-byte blocks. Namespace 1: 64 MiB; reads of LBA 65536-65791 (128 KiB at 32 MiB)
# fail with EIO, writes of LBA 98304-98559 (128 KiB at 48 MiB) with ENOSPC, every flush
# with EIO. Namespace 2: 16 MiB; every read and write system call of the target moves
# at most 1000 bytes.
BAD_READ=65536 BAD_WRITE=98304
FAULTS="nsid=1,op=read,lba=65536-65791,fail=EIO;nsid=1,op=write,lba=98304-98559,fail=ENOSPC"
FAULTS="$FAULTS;nsid=1,op=flush,fail=EIO;nsid=2,short=1000"

dev_of() { nvme_dev_for "$SUB" "$1"; }   # dev_of NSID: the block device of namespace NSID of $SUB

# The newest error log entry as "LBA NSID SQID STATUS COUNT" (STATUS without the phase
# bit, in hex, as nvme-cli's JSON gives it shifted).
newest_error() {
    nvme error-log "/dev/$(nvme_ctrl_for $SUB)" -e 1 -o json |
        jq -r '.errors[0] | "\(.lba) \(.nsid) \(.sqid) \(.status_field) \(.error_count)"' |
        { read -r lba nsid sqid st count; printf '%s %s %s 0x%x %s\n' "$lba" "$nsid" "$sqid" "$st" "$count"; }
}

# expect_entry LBA NSID STATUS [MIN_COUNT]: the newest error log entry is of an I/O queue
# with these (and an error count of at least MIN_COUNT).
expect_entry() {
    local lba nsid sqid st count
    read -r lba nsid sqid st count < <(newest_error)
    echo "newest error log entry: lba $lba nsid $nsid sqid $sqid status $st count $count"
    expect_eq "error log LBA" "$lba" "$1"
    expect_eq "error log NSID" "$nsid" "$2"
    expect_eq "error log status" "$st" "$3"
    [ "${sqid:-0}" -ge 1 ] || fail "error log SQID $sqid is not an I/O queue"
    [ "${count:-0}" -ge "${4:-1}" ] || fail "error count $count, want at least ${4:-1}"
}

# The fault-injecting target that every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $STATE
    rm -f $STATE/ns1.img $STATE/ns2.img $STATE/target.rc $STATE/config.json.created.json
    cat > $STATE/config.json <<JSON
{"ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4420", "trtype": "rdma"},
            "subsystems": ["$SUB"]}],
 "subsystems": [{"nqn": "$SUB", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "$STATE/ns1.img"}, "nvmf_create": true, "nvmf_size_bytes": "64M"},
                  {"nsid": 2, "enable": 1, "device": {"path": "$STATE/ns2.img"}, "nvmf_create": true, "nvmf_size_bytes": "16M"}]}]}
JSON
    ( NVMF_FAULT="$FAULTS" "$FAULT_TGT" -c $STATE/config.json --no-rpc-socket > $STATE/target.log 2>&1 &
      echo $! > $STATE/target.pid; wait $!; echo $? > $STATE/target.rc ) &
    wait_for 20 grep -q 'nvmf-target: core: ready' $STATE/target.log || { cat $STATE/target.log; fail "not ready"; }
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    nvme disconnect -n $SUB > /dev/null 2>&1
    nvmf_target_stop $STATE
    rm -f $STATE/ns1.img $STATE/ns2.img     # the guest's /tmp is memory
}

test_00_fault_target_starts_with_the_rules_and_the_host_connects() {
    cat $STATE/target.log
    grep -qF "nvmf-target-fault: fault injection: $FAULTS" $STATE/target.log || fail "the rules are not announced"
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB > /dev/null || fail "nvme connect"
    wait_for 15 dev_of 1 && wait_for 15 dev_of 2 || fail "namespaces 1 and 2 did not appear"
    echo "ns1 $(dev_of 1), ns2 $(dev_of 2), controller $(nvme_ctrl_for $SUB)"
}

test_01_read_of_the_bad_range_fails_as_unrecovered_read_error() {
    local dev; dev=$(dev_of 1) || fail "no namespace 1"
    # Passthrough: no retries; nvme-cli names the status.
    if nvme read "$dev" -s $((BAD_READ + 100)) -c 7 -z 4096 -d /dev/null > $STATE/read.out 2>&1; then
        cat $STATE/read.out; fail "nvme read of the bad range succeeded"
    fi
    cat $STATE/read.out
    grep -qi 'unrecovered read error' $STATE/read.out || fail "nvme read does not report Unrecovered Read Error"
    # Through the block layer, after the kernel's retries: a medium error (BLK_STS_MEDIUM
    # is ENODATA), and its log names the status.
    if dd if="$dev" of=/dev/null bs=4096 skip=$((BAD_READ * 512 / 4096 + 8)) count=1 iflag=direct 2> $STATE/dd.err; then
        fail "dd read of the bad range succeeded"
    fi
    cat $STATE/dd.err
    grep -q 'No data available' $STATE/dd.err || fail "dd did not get ENODATA (a medium error)"
    dmesg > $STATE/dmesg.txt
    grep -E "LBA $((BAD_READ + 64)), 8 blocks|medium error" $STATE/dmesg.txt | tail -n 4
    grep -q "LBA $((BAD_READ + 64)), 8 blocks, .*(sct 0x2 / sc 0x81)" $STATE/dmesg.txt ||
        fail "the kernel did not log the read's Unrecovered Read Error status (sct 0x2 / sc 0x81)"
    # Just below and above the range reads work.
    dd if="$dev" of=/dev/null bs=4096 skip=$((BAD_READ * 512 / 4096 - 1)) count=1 iflag=direct 2>/dev/null ||
        fail "read just below the bad range failed"
    dd if="$dev" of=/dev/null bs=4096 skip=$(((BAD_READ + 256) * 512 / 4096)) count=1 iflag=direct 2>/dev/null ||
        fail "read just above the bad range failed"
}

test_02_error_log_names_the_failed_read() {
    # The dd read of test_01, LBA 65600: Unrecovered Read Error (SCT 2h, SC 81h). The
    # kernel retried it (DNR clear), each attempt logged: at least 1 + 1 entries.
    expect_entry $((BAD_READ + 64)) 1 0x281 2
}

test_03_write_into_the_enospc_range_fails_with_capacity_exceeded() {
    local dev; dev=$(dev_of 1) || fail "no namespace 1"
    if nvme write "$dev" -s $((BAD_WRITE + 8)) -c 7 -z 4096 -d /dev/zero > $STATE/write.out 2>&1; then
        cat $STATE/write.out; fail "nvme write into the ENOSPC range succeeded"
    fi
    cat $STATE/write.out
    grep -qi 'capacity exceeded' $STATE/write.out || fail "nvme write does not report Capacity Exceeded"
    expect_entry $((BAD_WRITE + 8)) 1 0x4081      # Capacity Exceeded with DNR (4000h)
    if dd if=/dev/zero of="$dev" bs=4096 seek=$((BAD_WRITE * 512 / 4096)) count=1 oflag=direct 2> $STATE/dd.err; then
        fail "dd write into the ENOSPC range succeeded"
    fi
    cat $STATE/dd.err
    grep -q 'No space left on device' $STATE/dd.err || fail "dd did not get ENOSPC"
    dmesg | grep -q "LBA $BAD_WRITE, 8 blocks, .*(sct 0x0 / sc 0x81) DNR" ||
        fail "the kernel did not log the write's Capacity Exceeded with DNR"
}

test_04_flush_fails_when_the_backend_flush_fails() {
    local dev; dev=$(dev_of 1) || fail "no namespace 1"
    if nvme flush "$dev" -n 1 > $STATE/flush.out 2>&1; then
        cat $STATE/flush.out; fail "nvme flush succeeded although the backend's flush fails"
    fi
    cat $STATE/flush.out
    grep -qi 'write fault' $STATE/flush.out || fail "nvme flush does not report Write Fault"
    expect_entry 0 1 0x280
}

# dd_round_trip DEV 4K_BLOCK: 1 MiB of $STATE/pattern written there (O_DIRECT) reads back.
dd_round_trip() {
    dd if=$STATE/pattern of="$1" bs=1M seek=$(($2 / 256)) oflag=direct 2>/dev/null || fail "dd write at 4k block $2"
    dd if="$1" of=$STATE/back bs=1M skip=$(($2 / 256)) count=1 iflag=direct 2>/dev/null || fail "dd read at 4k block $2"
    cmp $STATE/pattern $STATE/back || fail "data at 4k block $2 of $1 differs"
}

test_05_io_outside_the_bad_ranges_verifies() {
    local dev; dev=$(dev_of 1) || fail "no namespace 1"
    head -c 1048576 /dev/urandom > $STATE/pattern
    dd_round_trip "$dev" $((30 * 256))     # 30 MiB: below the read range (32 MiB)
    dd_round_trip "$dev" $((40 * 256))     # 40 MiB: between the read and the write range
}

test_06_short_transfers_are_continued_and_the_data_lands_in_place() {
    # Namespace 2: every read and write the target makes moves at most 1000 bytes, so
    # each 1 MiB command takes 1049 of them.
    local dev; dev=$(dev_of 2) || fail "no namespace 2"
    dd_round_trip "$dev" $((5 * 256))
    cmp -n 1048576 -i 0:$((5 << 20)) $STATE/pattern $STATE/ns2.img || fail "the file does not hold the data at 5 MiB"
}

test_07_disconnect_and_sigterm_exit_0() {
    nvme disconnect -n $SUB > /dev/null || fail "nvme disconnect"
    nvmf_target_stop $STATE || fail "target did not exit"
    tail -n 5 $STATE/target.log
    expect_eq "exit status" "$(cat $STATE/target.rc)" 0
    rm -f $STATE/ns1.img $STATE/ns2.img     # the guest's /tmp is memory
}
