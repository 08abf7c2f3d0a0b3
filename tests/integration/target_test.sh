# Our target (build/nvmf-target) served over rxe to the stock kernel host (nvme-cli, fio).
# File, RAM and emulated NVMe drive namespaces; discovery; admin commands; verified I/O;
# bad input; reconnect; SIGTERM.

TGT="$NVMF_TARGET_BIN"
SUB_FILE=nqn.2026-11.io.nvmf-rdma:file
SUB_RAM=nqn.2026-11.io.nvmf-rdma:ram
SUB_NVME=nqn.2026-11.io.nvmf-rdma:drive
SUB_LOCKED=nqn.2026-11.io.nvmf-rdma:locked   # only nqn.2026-11.io.nvmf-rdma:someone-else may connect
STATE=/tmp/target-test
IMG=$STATE/backing.img

# The emulated drive (QEMU -device nvme, serial nvmfdrive01), if the VM has one.
pci_nvme_dev() {
    local b
    for b in /sys/block/nvme*n*; do
        sysfs_is "$b/device/transport" pcie && { echo "/dev/${b##*/}"; return 0; }
    done
    return 1
}

write_config() {
    local drive_ns="" drive_port=""
    if dev=$(pci_nvme_dev); then
        drive_ns=", {\"nqn\": \"$SUB_NVME\", \"allowed_hosts\": [], \"attr\": {\"allow_any_host\": \"1\"},
          \"namespaces\": [{\"nsid\": 1, \"enable\": 1, \"device\": {\"path\": \"$dev\"}, \"nvmf_backend\": \"nvme\"}]}"
        drive_port=", \"$SUB_NVME\""
    fi
    cat > $STATE/config.json <<JSON
{
  "hosts": [{"nqn": "nqn.2026-11.io.nvmf-rdma:someone-else"}],
  "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "treq": "not specified",
             "trsvcid": "4420", "trtype": "rdma"}, "param": {"inline_data_size": "8192"},
             "referrals": [], "subsystems": ["$SUB_FILE", "$SUB_RAM", "$SUB_LOCKED"$drive_port]},
            {"portid": 2, "addr": {"adrfam": "ipv6", "traddr": "::", "treq": "not specified",
             "trsvcid": "4421", "trtype": "rdma"}, "referrals": [], "subsystems": ["$SUB_RAM"]}],
  "subsystems": [
    {"nqn": "$SUB_FILE", "allowed_hosts": [], "attr": {"allow_any_host": "1", "serial": "filetest0001", "model": "nvmf-rdma file"},
     "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "$IMG", "uuid": "5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11",
                     "nguid": "ef90689c-6c46-d44c-89c1-4067801309a8"},
                     "nvmf_backend": "file", "nvmf_create": true, "nvmf_size_bytes": 268435456}]},
    {"nqn": "$SUB_RAM", "allowed_hosts": [], "attr": {"allow_any_host": "1"},
     "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": 134217728, "nvmf_block_size": 4096}]},
    {"nqn": "$SUB_LOCKED", "allowed_hosts": ["nqn.2026-11.io.nvmf-rdma:someone-else"], "attr": {"allow_any_host": "0"},
     "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "null", "nvmf_size_bytes": 1048576}]}
    $drive_ns
  ]
}
JSON
}

start_target() { nvmf_target_start $STATE; }
stop_target() { nvmf_target_stop $STATE; }

connect() {   # connect NQN
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n "$1" > /dev/null || return 1
    wait_for 15 nvme_dev_for "$1"
}

test_00_bad_config_stops_startup_before_touching_any_file() {
    mkdir -p $STATE
    rm -f $STATE/never.img
    # Namespace 1 is valid and would create its file; namespace 2 is broken.
    cat > $STATE/bad.json <<JSON
{"ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4420", "trtype": "rdma"},
            "subsystems": ["nqn.2026-11.io.nvmf-rdma:bad"]}],
 "subsystems": [{"nqn": "nqn.2026-11.io.nvmf-rdma:bad", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "$STATE/never.img"}, "nvmf_create": true, "nvmf_size_bytes": 1048576},
                  {"nsid": 0, "enable": 1, "device": {"path": "$STATE/other.img"}}]}]}
JSON
    "$TGT" -c $STATE/bad.json > $STATE/bad.log 2>&1
    local rc=$?
    cat $STATE/bad.log
    expect_eq "exit status on a bad config" $rc 1 || return 1
    grep -q 'subsystems\[0\].namespaces\[1\].nsid' $STATE/bad.log || fail "message does not name the JSON path"
    [ ! -e $STATE/never.img ] || fail "a backing file was created before the config was validated"
}

# The target every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $STATE
    rm -f $IMG $STATE/config.json.created.json  # a new image: not one the target lost
    write_config
    start_target || fail "target did not start"
}

# After the last test, whatever happened: no host connection or target left for the next
# file.
teardown_file() {
    local n
    for n in $SUB_FILE $SUB_RAM $SUB_NVME; do
        nvme disconnect -n $n > /dev/null 2>&1
    done
    stop_target
}

test_00_target_starts_with_file_ram_and_drive_namespaces() {
    cat $STATE/target.log
    grep -q 'nvmf-target: core: ready' $STATE/target.log || fail "the target did not say it is ready"
    [ -f $IMG ] || fail "backing file was not created"
}

test_01_nvme_discover_lists_each_subsystem_with_rdma_fields() {
    nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 > /tmp/disc.txt || fail "nvme discover failed"
    cat /tmp/disc.txt
    for n in $SUB_FILE $SUB_RAM; do
        grep -q "subnqn: *$n\$" /tmp/disc.txt || fail "no record for $n"
    done
    # A subsystem this host may not use is not in its discovery log.
    ! grep -q "subnqn: *$SUB_LOCKED" /tmp/disc.txt || fail "discovery lists $SUB_LOCKED to a host not allowed"
    # The wildcard listen address is reported as the address the host connected to.
    grep -q "traddr: *$NVMF_TRADDR" /tmp/disc.txt || fail "traddr is not $NVMF_TRADDR"
    grep -q 'trtype: *rdma' /tmp/disc.txt && grep -q 'rdma_qptype: *connected' /tmp/disc.txt &&
        grep -q 'rdma_cms: *rdma-cm' /tmp/disc.txt || fail "RDMA TSAS fields wrong"
    nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -o json > /tmp/disc.json || fail "json discover"
    local g1 g2; g1=$(grep -o '"genctr" *: *[0-9]*' /tmp/disc.json)
    nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -o json > /tmp/disc2.json
    g2=$(grep -o '"genctr" *: *[0-9]*' /tmp/disc2.json)
    expect_eq "genctr unchanged without changes" "$g2" "$g1"
}

test_02_connect_and_admin_commands_answer() {
    connect $SUB_FILE || fail "connect $SUB_FILE"
    local dev; dev=$(nvme_dev_for $SUB_FILE)
    nvme list | tee /tmp/list.txt
    grep -q "$(basename $dev)" /tmp/list.txt || fail "nvme list does not show $dev"
    nvme id-ctrl "$dev" > /tmp/idctrl.txt || fail "id-ctrl"
    grep -E '^(sn|mn|subnqn|ioccsz|iorcsz|kas|sgls|mdts|cntlid) ' /tmp/idctrl.txt
    grep -q '^sn *: filetest0001' /tmp/idctrl.txt || fail "serial"
    grep -q "^subnqn *: $SUB_FILE" /tmp/idctrl.txt || fail "subnqn"
    nvme id-ns "$dev" > /tmp/idns.txt || fail "id-ns"
    grep -q '^nsze *: 0x80000' /tmp/idns.txt || fail "nsze is not 256 MiB in 512 B blocks: $(grep nsze /tmp/idns.txt)"
    nvme ns-descs "$dev" > /tmp/descs.txt || fail "ns-descs"
    cat /tmp/descs.txt
    grep -qi 'uuid *: 5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11' /tmp/descs.txt || fail "uuid descriptor"
    grep -qi 'nguid *: ef90689c6c46d44c89c14067801309a8' /tmp/descs.txt || fail "nguid descriptor"
    nvme smart-log "$dev" || fail "smart-log"
    nvme error-log "$dev" -e 4 > /dev/null || fail "error-log"
    nvme get-feature "$dev" -f 7 || fail "get-feature number of queues"
    nvme get-feature "$dev" -f 0xf || fail "get-feature keep alive"
    nvme flush "$dev" -n 1 || fail "flush"
}

fio_verify() {   # fio_verify DEV BS [SIZE]
    fio --name=verify --filename="$1" --ioengine=libaio --direct=1 --rw=randwrite --bs="$2" \
        --size="${3:-16M}" --iodepth=32 --verify=crc32c --do_verify=1 --verify_fatal=1 \
        --randrepeat=0 --output=/tmp/fio-$2.txt
    local rc=$?
    grep -E 'err=|WRITE:|READ:' /tmp/fio-$2.txt
    return $rc
}

test_03_fio_write_verify_file_namespace_512b_to_1m_qd32() {
    local dev; dev=$(nvme_dev_for $SUB_FILE) || fail "not connected"
    for bs in 512 4k 64k 128k 1m; do
        fio_verify "$dev" $bs 16M || fail "fio verify bs=$bs"
    done
}

test_04_backing_file_holds_what_the_host_wrote() {
    local dev; dev=$(nvme_dev_for $SUB_FILE) || fail "not connected"
    head -c 4M /dev/urandom > /tmp/pattern
    dd if=/tmp/pattern of="$dev" bs=1M seek=100 oflag=direct status=none || fail "dd write"
    nvme flush "$dev" -n 1 || fail "flush"
    cmp <(dd if=$IMG bs=1M skip=100 count=4 status=none) /tmp/pattern || fail "backing file differs"
    cmp <(dd if="$dev" bs=1M skip=100 count=4 iflag=direct status=none) /tmp/pattern || fail "read back differs"
}

test_05_read_beyond_last_lba_fails() {
    local dev; dev=$(nvme_dev_for $SUB_FILE) || fail "not connected"
    # 256 MiB = 524288 blocks of 512 B; LBA 524288 is one past the end.
    ! nvme read "$dev" -s 524288 -c 0 -z 512 -d /tmp/out 2> /tmp/rd.err || fail "read past end succeeded"
    cat /tmp/rd.err
    grep -qi 'LBA.*Range\|LBA_RANGE\|0x80' /tmp/rd.err || fail "status is not LBA Out of Range"
    nvme read "$dev" -s 524287 -c 0 -z 512 -d /tmp/out || fail "read of the last LBA failed"
}

test_06_dsm_deallocate_reads_back_zeroes() {
    local dev; dev=$(nvme_dev_for $SUB_FILE) || fail "not connected"
    dd if=/dev/urandom of="$dev" bs=4k count=16 seek=1000 oflag=direct status=none
    nvme dsm "$dev" -n 1 -d -s 8000 -b 128 || fail "dsm deallocate"
    cmp <(dd if="$dev" bs=4k count=16 skip=1000 iflag=direct status=none) <(head -c 65536 /dev/zero) ||
        fail "deallocated range does not read back as zeroes"
}

test_07_disconnect_and_connect_again() {
    nvme disconnect -n $SUB_FILE || fail "disconnect"
    ! nvme_dev_for $SUB_FILE || fail "still connected"
    connect $SUB_FILE || fail "reconnect"
    local dev; dev=$(nvme_dev_for $SUB_FILE)
    cmp <(dd if="$dev" bs=1M skip=100 count=4 iflag=direct status=none) /tmp/pattern ||
        fail "data written before the reconnect is gone"
    nvme disconnect -n $SUB_FILE
}

test_08_fio_write_verify_ram_namespace() {
    connect $SUB_RAM || fail "connect ram"
    local dev; dev=$(nvme_dev_for $SUB_RAM)
    for bs in 4k 128k 1m; do
        fio_verify "$dev" $bs 32M || fail "fio verify bs=$bs"
    done
    nvme disconnect -n $SUB_RAM
}

test_09_fio_write_verify_emulated_nvme_drive() {
    local pdev; pdev=$(pci_nvme_dev) || fail "no emulated NVMe drive in this VM"
    connect $SUB_NVME || fail "connect drive subsystem"
    local dev; dev=$(nvme_dev_for $SUB_NVME)
    nvme id-ctrl "$dev" | grep -E '^(sn|mn) ' | tee /tmp/drive-id.txt
    grep -q 'nvmfdrive01' /tmp/drive-id.txt || fail "serial not read from the drive"
    fio_verify "$dev" 4k 16M || fail "fio verify on the drive"
    nvme disconnect -n $SUB_NVME
}

test_10_connect_to_unknown_nqn_is_refused_with_invalid_parameters() {
    dmesg -C
    ! nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n nqn.2026-11.io.nvmf-rdma:nope 2> /tmp/c.err ||
        fail "connect to an unknown NQN succeeded"
    dmesg | tail -n 3
    # The kernel host names the Connect status and the field our IATTR/IPO pointed at.
    dmesg | grep -q 'Connect Invalid Data Parameter, subsysnqn' || fail "host did not report Connect Invalid Parameters on subsysnqn"
}

test_10_connect_from_host_not_allowed_is_refused_with_invalid_host() {
    dmesg -C
    ! nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB_LOCKED 2> /tmp/c.err ||
        fail "connect from a host not on the allow-list succeeded"
    dmesg | tail -n 3
    dmesg | grep -qi 'not allowed\|Invalid Host' || fail "host did not report Connect Invalid Host"
}

test_10_ipv6_port_serves_discovery_and_io() {
    nvme discover -t rdma -a "$NVMF_TRADDR6" -s 4421 > /tmp/disc6.txt || fail "discover over IPv6"
    grep -q "traddr: *$NVMF_TRADDR6" /tmp/disc6.txt || fail "IPv6 traddr not reported: $(grep traddr /tmp/disc6.txt)"
    grep -q 'adrfam: *ipv6' /tmp/disc6.txt || fail "adrfam is not ipv6"
    nvme connect -t rdma -a "$NVMF_TRADDR6" -s 4421 -n $SUB_RAM > /dev/null || fail "connect over IPv6"
    wait_for 15 nvme_dev_for $SUB_RAM || fail "no namespace over IPv6"
    fio_verify "$(nvme_dev_for $SUB_RAM)" 64k 8M || fail "fio over IPv6"
    nvme disconnect -n $SUB_RAM > /dev/null
}

test_11_sigterm_while_connected_exits_cleanly() {
    connect $SUB_RAM || fail "connect ram"
    local pid; pid=$(cat $STATE/target.pid)
    local ctrl; ctrl=$(nvme_ctrl_for $SUB_RAM)
    kill -TERM "$pid"
    wait_for 30 test -s $STATE/target.rc || fail "target did not exit within 30 s"
    tail -n 3 $STATE/target.log
    grep -q 'nvmf-target: core: stopped' $STATE/target.log || fail "no clean stop message"
    # The host sees the controller go away: it leaves the live state (and reconnects).
    wait_for 20 bash -c "[ \"\$(cat /sys/class/nvme/$ctrl/state)\" != live ]" ||
        fail "host controller $ctrl still live"
    echo "host controller $ctrl: $(cat /sys/class/nvme/$ctrl/state 2>/dev/null)"
    nvme disconnect -n $SUB_RAM > /dev/null 2>&1
    expect_eq "target exit status" "$(cat $STATE/target.rc)" 0
}
