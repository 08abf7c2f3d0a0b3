# Self-check of the test guest: RDMA works, and the kernel's own NVMe-oF RDMA target
# (nvmet-rdma, null_blk namespace) is reachable by the kernel host. Every later test
# depends on this environment, and the kernel target is the peer ours is compared with.

KNQN=nqn.2026-11.io.nvmf-rdma:selftest

test_ibv_devices_lists_rxe0() {
    ibv_devices | grep -qw rxe0 || fail "rxe0 not in ibv_devices: $(ibv_devices)"
    ibv_devinfo -d rxe0 | grep -q 'state:.*PORT_ACTIVE' || fail "rxe0 port not active"
}

test_rping_over_rdma_cm() {
    rping -s -a "$NVMF_TRADDR" -p 7471 -C 10 -v > /tmp/rping-server.log 2>&1 &
    local srv=$!
    sleep 1
    timeout 30 rping -c -a "$NVMF_TRADDR" -p 7471 -C 10 -v > /tmp/rping-client.log 2>&1
    local rc=$?
    wait $srv
    local src=$?
    cat /tmp/rping-client.log | tail -n 2
    expect_eq "rping client exit" "$rc" 0 && expect_eq "rping server exit" "$src" 0 &&
        grep -q 'ping data' /tmp/rping-client.log || fail "no ping data in client log"
}

test_kernel_nvmet_discover_connect_fio_disconnect() {
    knvmet_clear
    nullb_remove nullb_self
    local nb; nb=$(nullb_create nullb_self 64) || fail "null_blk via configfs"
    knvmet_add_subsys "$KNQN" "$nb" 1 || fail "configfs subsystem"
    knvmet_add_port 1 "$NVMF_TRADDR" 4420 "$KNQN" || fail "configfs port"

    nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 > /tmp/disc.txt || fail "nvme discover failed"
    cat /tmp/disc.txt
    grep -q "subnqn: *$KNQN" /tmp/disc.txt || fail "discovery log does not list $KNQN"

    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n "$KNQN" || fail "nvme connect failed"
    wait_for 10 nvme_dev_for "$KNQN" || fail "no namespace block device after connect"
    local dev; dev=$(nvme_dev_for "$KNQN")
    echo "connected: $dev"
    fio --name=selftest --filename="$dev" --ioengine=libaio --direct=1 --rw=write --bs=4k \
        --size=8M --iodepth=8 --verify=crc32c --do_verify=1 --output=/tmp/fio.txt
    local rc=$?
    grep -E 'WRITE:|READ:|err=' /tmp/fio.txt
    nvme disconnect -n "$KNQN" || fail "nvme disconnect failed"
    expect_eq "fio write+verify exit" "$rc" 0 || return 1
    ! nvme_dev_for "$KNQN" >/dev/null || fail "namespace still present after disconnect"
    knvmet_clear
    nullb_remove nullb_self
}
