# Our target with worker threads (nvmf_target.threads = 2: two I/O poll groups beside the
# main thread), SRQs on and off, under the stock kernel host: data written through several
# I/O queues spread over the groups reads back intact; reconnect cycles, SIGTERM under
# load, no buffer released twice.

PG_RAM=nqn.2026-11.io.nvmf-rdma:pg-ram
PG_FILE=nqn.2026-11.io.nvmf-rdma:pg-file
PG_STATE=/tmp/pg-test
PG_PORT=4422

pg_config() {   # pg_config THREADS SRQ [POST_THREAD]
    cat > $PG_STATE/config.json <<JSON
{"nvmf_target": {"threads": $1, "srq": $2, "idle_poll_us": 100${3:+, \"post_thread\": \"$3\"}},
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$NVMF_TRADDR", "trsvcid": "$PG_PORT",
            "trtype": "rdma"}, "subsystems": ["$PG_RAM", "$PG_FILE"]}],
 "subsystems": [
  {"nqn": "$PG_RAM", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": 134217728}]},
  {"nqn": "$PG_FILE", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "$PG_STATE/backing.img"},
                   "nvmf_backend": "file", "nvmf_create": true, "nvmf_size_bytes": 134217728}]}]}
JSON
}

pg_start() {   # keeps every log for the last test
    cat $PG_STATE/target.log >> $PG_STATE/all.log 2>/dev/null
    nvmf_target_start $PG_STATE
}
pg_stop() { nvmf_target_stop $PG_STATE; }

pg_connect() {   # pg_connect NQN: 4 I/O queues, spread over the poll groups
    nvme connect -t rdma -a "$NVMF_TRADDR" -s $PG_PORT -n "$1" -i 4 > /dev/null || return 1
    wait_for 15 nvme_dev_for "$1"
}

# fio from 4 jobs (the kernel host maps them to its I/O queues by CPU), crc32c verified.
pg_verify() {   # pg_verify DEV BS SIZE
    fio --name=pg --filename="$1" --ioengine=libaio --direct=1 --rw=randwrite --bs="$2" \
        --size="$3" --iodepth=16 --numjobs=4 --offset_increment="$3" --verify=crc32c \
        --do_verify=1 --verify_fatal=1 --randrepeat=0 --group_reporting --output=/tmp/pg-fio-$2.txt
    local rc=$?
    grep -E 'err=|WRITE:|READ:' /tmp/pg-fio-$2.txt
    return $rc
}

# The target with two poll-group threads that the first tests of this file use
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $PG_STATE
    pg_config 2 true
    pg_start || fail "target did not start with threads=2"
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    local n
    for n in $PG_RAM $PG_FILE; do
        nvme disconnect -n $n > /dev/null 2>&1
    done
    pg_stop
}

test_00_target_starts_with_two_poll_group_threads() {
    cat $PG_STATE/target.log
    grep -q '2 I/O poll group thread(s)' $PG_STATE/target.log || fail "no worker threads in the log"
    local n; n=$(ls /proc/$(cat $PG_STATE/target.pid)/task | wc -l)
    [ "$n" -ge 3 ] || fail "target has $n threads, want at least 3 (main + 2 workers)"
}

test_01_io_through_both_groups_reads_back_ram() {
    pg_connect $PG_RAM || fail "connect"
    local dev; dev=$(nvme_dev_for $PG_RAM)
    for bs in 4k 128k; do
        pg_verify "$dev" $bs 16M || fail "fio verify bs=$bs"
    done
    nvme disconnect -n $PG_RAM > /dev/null || fail "disconnect"
}

test_02_io_through_both_groups_reads_back_file() {
    pg_connect $PG_FILE || fail "connect"
    local dev; dev=$(nvme_dev_for $PG_FILE)
    pg_verify "$dev" 4k 16M || fail "fio verify 4k"
    pg_verify "$dev" 64k 16M || fail "fio verify 64k"
    nvme disconnect -n $PG_FILE > /dev/null
}

test_03_connect_disconnect_cycles_keep_data() {
    local i dev
    head -c 1048576 /dev/urandom > /tmp/pg-pattern
    pg_connect $PG_RAM || fail "connect"
    dev=$(nvme_dev_for $PG_RAM)
    dd if=/tmp/pg-pattern of="$dev" bs=64k oflag=direct status=none || fail "write pattern"
    nvme disconnect -n $PG_RAM > /dev/null
    for i in $(seq 10); do
        pg_connect $PG_RAM || fail "connect cycle $i"
        dev=$(nvme_dev_for $PG_RAM)
        cmp <(dd if="$dev" bs=64k count=16 iflag=direct status=none) /tmp/pg-pattern ||
            fail "data differs after reconnect $i"
        nvme disconnect -n $PG_RAM > /dev/null || fail "disconnect cycle $i"
    done
}

test_04_sigterm_under_io_exits_cleanly() {
    # A short controller-loss timeout: the host gives up on the stopped target quickly.
    nvme connect -t rdma -a "$NVMF_TRADDR" -s $PG_PORT -n $PG_RAM -i 4 -l 5 > /dev/null || fail "connect"
    wait_for 15 nvme_dev_for $PG_RAM || fail "no block device"
    local dev; dev=$(nvme_dev_for $PG_RAM)
    fio --name=load --filename="$dev" --ioengine=libaio --direct=1 --rw=randrw --bs=4k \
        --iodepth=32 --numjobs=2 --time_based --runtime=30 --output=/dev/null &
    local fpid=$!
    sleep 3
    kill -TERM "$(cat $PG_STATE/target.pid)"
    wait_for 40 test -s $PG_STATE/target.rc || fail "target did not exit within 40 s of SIGTERM"
    # The host keeps fio's I/O queued while it tries to reconnect: disconnecting fails it,
    # then fio can end.
    nvme disconnect -n $PG_RAM > /dev/null 2>&1
    kill -9 $fpid 2>/dev/null; wait $fpid 2>/dev/null
    tail -n 4 $PG_STATE/target.log
    expect_eq "target exit status" "$(cat $PG_STATE/target.rc)" 0
}

test_05_without_srq_io_reads_back() {
    pg_config 2 false
    pg_start || fail "target did not start with srq=false"
    grep -q 'SRQ off (config)' $PG_STATE/target.log || fail "log does not say SRQ is off"
    pg_connect $PG_RAM || fail "connect"
    pg_verify "$(nvme_dev_for $PG_RAM)" 4k 8M || fail "fio verify without SRQ"
    nvme disconnect -n $PG_RAM > /dev/null
    pg_stop || fail "stop"
}

test_06_single_thread_with_srq_io_reads_back() {
    pg_config 1 true
    pg_start || fail "target did not start with threads=1"
    pg_connect $PG_RAM || fail "connect"
    pg_verify "$(nvme_dev_for $PG_RAM)" 4k 8M || fail "fio verify with one thread"
    nvme disconnect -n $PG_RAM > /dev/null
    pg_stop || fail "stop"
    expect_eq "target exit status" "$(cat $PG_STATE/target.rc)" 0
}

# rxe is a software device: by default (auto) the answers of 128 KiB and larger reads leave
# through each poll group's posting thread, which counts them in the log at stop; "off"
# keeps them with the poll loop. Data written reads back either way.
test_07_large_reads_go_through_the_posting_thread_unless_off() {
    local mode dev n
    head -c 4M /dev/urandom > /tmp/pg-big
    for mode in auto off; do
        pg_config 2 true $mode
        pg_start || fail "target did not start with post_thread=$mode"
        pg_connect $PG_RAM || fail "connect ($mode)"
        dev=$(nvme_dev_for $PG_RAM)
        dd if=/tmp/pg-big of="$dev" bs=1M oflag=direct status=none || fail "write ($mode)"
        cmp <(dd if="$dev" bs=128k count=32 iflag=direct status=none) /tmp/pg-big ||
            fail "128 KiB reads differ ($mode)"
        nvme disconnect -n $PG_RAM > /dev/null
        pg_stop || fail "stop ($mode)"
        n=$(sed -n 's/.*posting thread: \([0-9]*\) chains handed over.*/\1/p' $PG_STATE/target.log |
            awk '{s += $1} END {print s + 0}')
        if [ $mode = auto ]; then
            grep -q 'software device, large sends of I/O queues posted by a thread of each poll group (post_thread auto)' \
                $PG_STATE/target.log || fail "the log does not name the posting thread"
            [ "$n" -ge 32 ] || fail "posting thread took $n chains, want at least the 32 reads'"
        else
            grep -q 'posted by the poll loop (post_thread off)' $PG_STATE/target.log ||
                fail "the log does not say post_thread is off"
            expect_eq "chains handed over with post_thread off" "$n" 0
        fi
    done
}

test_08_no_buffer_was_released_twice() {
    cat $PG_STATE/target.log >> $PG_STATE/all.log
    ! grep -h 'BUG' $PG_STATE/all.log || fail "a target logged a BUG line"
}
