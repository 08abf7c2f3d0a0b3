# Verifying data after a killed fio writer: the procedure that gives a true answer.
# fio runs each job in a forked child: kill -9 of fio's own pid ends only the parent, and the
# orphaned job keeps writing until its runtime ends, over whatever a later verify job wrote
# ("bad magic header", blocks holding the writer's data). Killing the job process too is
# enough for its I/O: the kernel's exit_aio() waits for the dying process's AIO to complete;
# we still wait for the block layer's inflight count to reach 0 before verifying.

VK_STATE=/tmp/verify-after-kill
VK_SUB=nqn.2026-11.io.nvmf-rdma:vk-ram

vk_inflight() {   # in-flight requests over every nvme block device (head and hidden paths)
    local f s=0 a b
    for f in /sys/block/nvme*/inflight; do
        [ -e "$f" ] || continue
        read -r a b < "$f"; s=$((s + a + b))
    done
    echo $s
}
vk_idle() { [ "$(vk_inflight)" = 0 ]; }
vk_busy() { [ "$(vk_inflight)" != 0 ]; }
vk_gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" = Z ]; }

# The target with a RAM namespace that every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $VK_STATE
    cat > $VK_STATE/config.json <<JSON
{"hosts": [],
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "treq": "not specified",
            "trsvcid": "4424", "trtype": "rdma"}, "param": {"inline_data_size": "8192"},
            "referrals": [], "subsystems": ["$VK_SUB"]}],
 "subsystems": [{"nqn": "$VK_SUB", "allowed_hosts": [], "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": 134217728, "nvmf_block_size": 4096}]}]}
JSON
    nvmf_target_start $VK_STATE || fail "target did not start"
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    nvme disconnect -n $VK_SUB > /dev/null 2>&1
    nvmf_target_stop $VK_STATE
}

test_00_target_with_a_ram_namespace_starts() {
    grep -q 'nvmf-target: core: ready' $VK_STATE/target.log || fail "the target did not say it is ready"
}

test_01_verify_after_killing_the_writer_and_its_job_reads_back() {
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4424 -n $VK_SUB > /dev/null || fail "connect"
    wait_for 15 nvme_dev_for $VK_SUB || fail "no block device"
    local dev; dev=$(nvme_dev_for $VK_SUB)
    fio --name=writer --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=128k \
        --iodepth=64 --time_based --runtime=30 --randrepeat=0 --output=/dev/null &
    local fpid=$!
    wait_for 60 vk_busy || fail "the writer never had I/O in flight"
    sleep 1
    local job; job=$(pgrep -P $fpid | head -n1)
    [ -n "$job" ] || fail "no fio job process under fio's pid $fpid"
    kill -9 $fpid; wait $fpid 2>/dev/null
    # The pitfall: fio's parent is gone, its job (30 s runtime) normally is still writing.
    sleep 0.5
    echo "0.5 s after kill -9 of fio ($fpid): job $job $(vk_gone $job && echo gone || echo 'still running'), $(vk_inflight) requests in flight"
    # The procedure: kill the job, wait for it to be gone and for nothing to be in flight.
    kill -9 $job
    wait_for 20 vk_gone $job || fail "job $job did not exit"
    wait_for 20 vk_idle || fail "requests still in flight: $(vk_inflight)"
    fio --name=verify --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=64k --size=4M \
        --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
        --output=/tmp/vk-verify.txt 2> /tmp/vk-verify.err
    local rc=$?
    grep -hE 'verify|magic|err=|WRITE:|READ:' /tmp/vk-verify.err /tmp/vk-verify.txt
    expect_eq "verify fio exit status" $rc 0
    ! grep -qiE 'bad magic|verify failed|crc32c.*mismatch' /tmp/vk-verify.err /tmp/vk-verify.txt ||
        fail "verify reported mismatches"
    nvme disconnect -n $VK_SUB > /dev/null || fail "disconnect"
}

test_02_target_stops() {
    nvmf_target_stop $VK_STATE || fail "target did not stop within 30 s"
    expect_eq "target exit status" "$(cat $VK_STATE/target.rc)" 0
}
