# A block device namespace follows its device (docs/operating.md, "Resizing"), and the
# SMART log counts data in thousands of 512-byte units, with the stock kernel host: a
# loop device grown under the target (truncate + losetup -c, as an lvextend would) reaches
# the host without a disable and enable, at once on `namespace resize NQN NSID` without a
# size, and at the host's next Identify Namespace (nvme ns-rescan); a device that shrank
# is followed too, and logged as an error.

STATE=/tmp/device-size-test
CTL="$NVMF_ROOT/build/nvmf-targetctl -s $STATE/rpc.sock"
SUB=nqn.2026-12.io.nvmf-rdma:devsize
IMG=$STATE/disk.img
MIB=1048576

# The loop device over $IMG, made by setup_file.
loopdev() { cat $STATE/loopdev; }
# sectors_are DEV N: the host sees DEV as N 512-byte sectors now.
sectors_are() { sysfs_is "/sys/block/${1##*/}/size" "$2"; }
sectors_of() { cat "/sys/block/${1##*/}/size"; }
# data_units FIELD DEV: the SMART log's data_units_read or data_units_written as nvme-cli
# reads it from DEV.
data_units() {
    nvme smart-log "$2" -o json | grep -oE "\"$1\" *: *\"?[0-9]+" | grep -oE '[0-9]+$'
}
# size_device MIB: the backing file becomes MIB MiB and the loop device learns it.
size_device() { truncate -s "$1"M $IMG && losetup -c "$(loopdev)"; }

setup_file() {
    mkdir -p $STATE
    rm -f $IMG $STATE/loopdev
    truncate -s 64M $IMG
    local dev; dev=$(losetup -f --show $IMG) || return 1
    echo "$dev" > $STATE/loopdev
    cat > $STATE/config.json <<JSON
{"ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4420", "trtype": "rdma"},
            "subsystems": ["$SUB"]}],
 "subsystems": [{"nqn": "$SUB", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "$dev"}, "nvmf_backend": "bdev"}]}]}
JSON
    nvmf_target_start $STATE || return 1
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB > /dev/null || return 1
    wait_for 15 nvme_dev_for $SUB
}

teardown_file() {
    nvme disconnect -n $SUB > /dev/null 2>&1
    nvmf_target_stop $STATE
    [ -s $STATE/loopdev ] && losetup -d "$(loopdev)" 2>/dev/null
    rm -f $IMG
}

test_01_smart_data_units_are_thousands_of_512_byte_units_rounded_up() {
    local dev; dev=$(nvme_dev_for $SUB) || fail "not connected"
    expect_eq "Data Units Written of a new controller" "$(data_units data_units_written $dev)" 0
    dd if=/dev/urandom of=$dev bs=1M count=1 oflag=direct status=none || fail "dd write"
    # 1 MiB = 2048 units of 512 B: 2.048 thousand, rounded up.
    expect_eq "Data Units Written after 1 MiB" "$(data_units data_units_written $dev)" 3
    dd if=/dev/urandom of=$dev bs=512 count=1 seek=4096 oflag=direct status=none || fail "dd write"
    expect_eq "Data Units Written after 1 MiB + 512 B" "$(data_units data_units_written $dev)" 3
}

test_02_grown_device_reaches_the_host_on_resize_without_a_size() {
    local dev; dev=$(nvme_dev_for $SUB) || fail "not connected"
    sectors_are $dev $((64 * 2048)) || fail "host sees $(sectors_of $dev) sectors, not 64 MiB"
    head -c 4M /dev/urandom > $STATE/pat
    dd if=$STATE/pat of=$dev bs=1M oflag=direct status=none || fail "dd write"
    size_device 96 || fail "grow the loop device"
    $CTL namespace resize $SUB 1 | tee $STATE/resize.txt || fail "namespace resize without a size"
    grep -q "resized to $((96 * MIB)) bytes" $STATE/resize.txt || fail "answer does not give the new size"
    wait_for 20 sectors_are $dev $((96 * 2048)) ||
        fail "host still sees $(sectors_of $dev) sectors after the device grew"
    grep -F "namespace 1 ($(loopdev)): the device grew from $((64 * MIB)) to $((96 * MIB)) bytes" \
        $STATE/target.log || fail "the growth is not in the log"
    cmp <(dd if=$dev bs=1M count=4 iflag=direct status=none) $STATE/pat || fail "data moved"
    dd if=$STATE/pat of=$dev bs=1M seek=90 oflag=direct status=none || fail "write past the old end"
    cmp <(dd if=$dev bs=1M skip=90 count=4 iflag=direct status=none) $STATE/pat ||
        fail "past the old end reads back wrong"
}

test_03_grown_device_reaches_the_host_at_its_next_identify() {
    local dev ctrl; dev=$(nvme_dev_for $SUB) || fail "not connected"
    ctrl=$(nvme_ctrl_for $SUB) || fail "no controller"
    size_device 128 || fail "grow the loop device"
    # No call to the target: the host's rescan sends Identify Namespace, which reads the
    # device's size again (as nvmet does).
    nvme ns-rescan /dev/$ctrl || fail "ns-rescan"
    wait_for 20 sectors_are $dev $((128 * 2048)) ||
        fail "host still sees $(sectors_of $dev) sectors after its rescan"
    cmp <(dd if=$dev bs=1M skip=90 count=4 iflag=direct status=none) $STATE/pat || fail "data moved"
}

test_04_shrunk_device_is_followed_and_logged_as_an_error() {
    local dev; dev=$(nvme_dev_for $SUB) || fail "not connected"
    size_device 80 || fail "shrink the loop device"
    $CTL namespace resize $SUB 1 || fail "namespace resize without a size"
    wait_for 20 sectors_are $dev $((80 * 2048)) ||
        fail "host still sees $(sectors_of $dev) sectors after the device shrank"
    grep -F "core: error: subsystem $SUB: namespace 1 ($(loopdev)): the device shrank from $((128 * MIB)) to $((80 * MIB)) bytes" \
        $STATE/target.log || fail "the shrink is not logged as an error"
    cmp <(dd if=$dev bs=1M count=4 iflag=direct status=none) $STATE/pat || fail "data moved"
}
