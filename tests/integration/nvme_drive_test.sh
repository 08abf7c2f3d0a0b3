# The Linux drive of a passthru subsystem (subsystem/nvme-drive-linux.c) on a real NVMe
# controller: QEMU's emulated drive of tests/vm/passthru-drive (serial nvmfpt0001, nsid 1
# of 512-byte blocks), which the 6.12 boot of `make vm-check` has (suite-6.12). With
#   -device nvme-subsys,id=ptsubsys,nqn=... and subsys=ptsubsys on the nvme device
# the namespace is a multipath head (nvme0n1 over the hidden path nvme0c0n1, ng0n1 the
# head's char device): the same tests pass (6.1 and 6.12, plain; 6.12, multipath).
# build/tests/nvme-drive-check (tests/local/nvme-drive-check.c) does the work, one step
# per test, and prints what it saw.

CHECK="$NVMF_ROOT/build/tests/nvme-drive-check"

# The controller whose serial is nvmfpt0001 (QEMU's drive above), as /dev/nvmeX.
pt_ctrl() {
    local c
    for c in /sys/class/nvme/nvme*; do
        [ "$(tr -d " " < "$c/serial" 2>/dev/null)" = nvmfpt0001 ] && { echo "/dev/${c##*/}"; return 0; }
    done
    return 1
}

setup_file() {
    [ -x "$CHECK" ] || { echo "no $CHECK (make all, with subsystem/nvme-drive.c)"; return 1; }
    wait_for 10 pt_ctrl || { echo "no NVMe controller with serial nvmfpt0001: boot with tests/vm/passthru-drive's QEMU arguments"; return 1; }
    wait_for 10 test -e "$(pt_ctrl)n1"
}

# step NAME: run one step of nvme-drive-check on the drive, its output in the log.
step() {
    local out; out=$("$CHECK" "$(pt_ctrl)" "$1" 2>&1); local rc=$?
    echo "$out" | sed 's/^/    /'
    [ $rc -eq 0 ] || fail "nvme-drive-check $1: $(echo "$out" | grep FAIL | head -n 3)"
}

test_01_a_namespace_is_refused_naming_its_controller() { step refusals; }
test_02_an_open_drive_is_held_exclusively_until_closed() { step exclusive; }
# A device-mapper target over the namespace holds it: the open is refused naming the
# holder, and succeeds once it is gone.
# nsid 1's block device (6.12 scans namespaces in parallel: it need not be n1; nsid 2's
# extended-LBA format gives the block layer no capacity, so dm cannot map it).
pt_ns1() {
    local b
    for b in /sys/block/$(basename "$(pt_ctrl)")n*; do
        [ "$(cat "$b/nsid" 2>/dev/null)" = 1 ] && { echo "${b##*/}"; return 0; }
    done
    return 1
}
test_03_a_namespace_held_by_device_mapper_is_refused_naming_the_holder() {
    local ctrl; ctrl=$(pt_ctrl)
    local ns1; ns1=$(pt_ns1) || fail "no block device of nsid 1"
    local sectors; sectors=$(cat "/sys/block/$ns1/size")
    dmsetup create pt_hold --table "0 $sectors linear /dev/$ns1 0" || fail "dmsetup create"
    "$CHECK" "$ctrl" open > open.log 2>&1; local rc=$?
    local out; out=$(head -n 1 open.log)  # the refusal; "FAIL" follows
    local dm; dm=$(ls "/sys/block/$ns1/holders")
    dmsetup remove pt_hold
    echo "    $out"
    [ $rc -ne 0 ] || fail "opened while dm holds /dev/$ns1"
    expect_eq "refusal" "$out" "/dev/$ns1 is mounted or held by another user (holders: $dm)"
    "$CHECK" "$ctrl" open > /dev/null 2>&1 || fail "no open once the holder is gone"
}

test_04_admin_commands_return_the_drive_status_and_result() { step admin; }
test_05_io_through_io_uring_passthrough_reads_back_what_it_wrote() { step io; }
