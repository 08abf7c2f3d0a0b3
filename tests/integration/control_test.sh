# The control socket and nvmf-targetctl against our target, with the stock kernel host
# connected and fio's crc32c verify running: namespaces added, resized and removed live
# appear and go on the host by themselves; statistics count what fio issued; a host taken
# off the allowed list is disconnected and refused; bad calls are answered and change
# nothing; a subsystem and a port added live are discovered and connected to; SIGHUP
# applies an edited file without disconnecting; a saved file serves the same; the daemon
# keeps serving.

STATE=/tmp/control-test
CTL="$NVMF_ROOT/build/nvmf-targetctl -s $STATE/rpc.sock"
SUB=nqn.2026-12.io.nvmf-rdma:live
SUB_H=nqn.2026-12.io.nvmf-rdma:hosts
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0c1e7a5e-0000-4000-8000-00000000c0de

write_config() {
    cat > $STATE/config.json <<JSON
{
  "hosts": [{"nqn": "$HOSTNQN"}],
  "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4420", "trtype": "rdma"},
             "subsystems": ["$SUB", "$SUB_H"]}],
  "subsystems": [
    {"nqn": "$SUB", "attr": {"allow_any_host": "1"},
     "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "256M"}]},
    {"nqn": "$SUB_H", "allowed_hosts": ["$HOSTNQN"], "attr": {"allow_any_host": "0"},
     "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "null", "nvmf_size_bytes": "16M"}]}
  ]
}
JSON
}

# ns_dev NQN NSID: the host's block device of namespace NSID of subsystem NQN.
ns_dev() { nvme_dev_for "$1" "$2"; }
no_ns_dev() { ! ns_dev "$@"; }
# sectors DEV: its size in 512-byte sectors as the host sees it now.
sectors_are() { sysfs_is "/sys/block/${1##*/}/size" "$2"; }

test_00_bad_command_line_is_refused_by_name() {
    local out rc
    out=$("$NVMF_ROOT/build/nvmf-target" -c /nonexistent.json --log-level loud 2>&1); rc=$?
    expect_eq "exit status for --log-level loud" $rc 2
    expect_eq "message" "$out" "nvmf-target: --log-level loud: not a level (error, warning, info, debug)"
    out=$("$NVMF_ROOT/build/nvmf-target" -c /nonexistent.json --rpc-socket rel.sock 2>&1); rc=$?
    expect_eq "exit status for a relative --rpc-socket" $rc 2
    expect_eq "message" "$out" "nvmf-target: --rpc-socket rel.sock: not an absolute path of at most 107 bytes"
    out=$("$NVMF_ROOT/build/nvmf-target" -c /nonexistent.json --rpc-socket /tmp/a.sock --no-rpc-socket 2>&1); rc=$?
    expect_eq "exit status for both socket options" $rc 2
    expect_eq "message" "$out" "nvmf-target: --rpc-socket and --no-rpc-socket exclude each other"
}

# The target with its control socket that every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $STATE
    write_config
    nvmf_target_start $STATE || fail "target did not start"
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    nvme disconnect -n $SUB > /dev/null 2>&1
    nvme disconnect -n $SUB_H > /dev/null 2>&1
    nvmf_target_stop $STATE
}

test_00_target_starts_with_its_control_socket() {
    grep -q "control socket $STATE/rpc.sock" $STATE/target.log || fail "no control socket line in the log"
    [ "$(stat -c %a $STATE/rpc.sock)" = 600 ] || fail "socket mode is $(stat -c %a $STATE/rpc.sock), not 600"
    $CTL version | tee /tmp/version.txt || fail "version"
    grep -q '0.1.0' /tmp/version.txt || fail "version does not say 0.1.0"
}

test_01_controller_list_shows_the_kernel_host() {
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB -q $HOSTNQN -k 7 > /dev/null || fail "connect"
    wait_for 15 ns_dev $SUB 1 || fail "namespace 1 did not appear"
    $CTL --json controller list --nqn $SUB | tee /tmp/ctrls.json || fail "controller list"
    grep -q "\"hostnqn\": \"$HOSTNQN\"" /tmp/ctrls.json || fail "host NQN not listed"
    grep -q '"kato_ms": 7000' /tmp/ctrls.json || fail "KATO is not the 7 s the host asked for"
    local ioq; ioq=$(grep -o '"io_queues": [0-9]*' /tmp/ctrls.json | grep -o '[0-9]*$')
    [ "${ioq:-0}" -ge 1 ] || fail "no I/O queues listed"
    $CTL controller list | tee /tmp/ctrls.txt
    grep -q "$HOSTNQN" /tmp/ctrls.txt || fail "the table does not show the host"
}

test_02_namespaces_come_and_go_while_fio_verifies_another() {
    local d1; d1=$(ns_dev $SUB 1) || fail "not connected"
    fio --name=steady --filename=$d1 --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
        --size=128M --verify=crc32c --verify_backlog=256 --verify_fatal=1 --time_based --runtime=45 \
        --randrepeat=0 --output=/tmp/fio-steady.txt &
    local fio_pid=$!
    sleep 3
    $CTL namespace add $SUB --ram 64M --nsid 2 || fail "namespace add"
    wait_for 20 ns_dev $SUB 2 || fail "namespace 2 did not appear on the host"
    local d2; d2=$(ns_dev $SUB 2)
    sectors_are $d2 131072 || fail "namespace 2 is $(cat /sys/block/$(basename $d2)/size) sectors, not 64 MiB"
    dd if=/dev/urandom of=/tmp/pat bs=1M count=4 status=none
    dd if=/tmp/pat of=$d2 bs=1M oflag=direct status=none || fail "write to the new namespace"
    cmp <(dd if=$d2 bs=1M count=4 iflag=direct status=none) /tmp/pat || fail "new namespace reads back wrong"
    $CTL namespace resize $SUB 2 128M || fail "resize"
    wait_for 20 sectors_are $d2 262144 || fail "host still sees $(cat /sys/block/$(basename $d2)/size) sectors after the resize"
    cmp <(dd if=$d2 bs=1M count=4 iflag=direct status=none) /tmp/pat || fail "data moved by the resize"
    $CTL namespace remove $SUB 2 || fail "namespace remove"
    wait_for 20 no_ns_dev $SUB 2 || fail "namespace 2 is still on the host"
    # Five add/remove cycles (make bench-churn runs twenty and measures fio's IOPS).
    local i
    for i in $(seq 1 5); do
        $CTL namespace add $SUB --null 16M --nsid 3 > /dev/null || fail "cycle $i: add"
        wait_for 20 ns_dev $SUB 3 || fail "cycle $i: namespace 3 did not appear"
        $CTL namespace remove $SUB 3 > /dev/null || fail "cycle $i: remove"
        wait_for 20 no_ns_dev $SUB 3 || fail "cycle $i: namespace 3 did not go"
    done
    echo "5 add/remove cycles done at $SECONDS s"
    wait $fio_pid
    local rc=$?
    grep -E 'err=|WRITE:|iops' /tmp/fio-steady.txt
    expect_eq "fio exit status" $rc 0
    grep -q 'err= 0' /tmp/fio-steady.txt || fail "fio reported errors"
    ! grep -qi 'verify.*fail\|bad magic\|crc32c.*mismatch' /tmp/fio-steady.txt || fail "verify failures"
}

test_03_statistics_count_exactly_what_fio_wrote() {
    $CTL namespace add $SUB --ram 16M --nsid 4 || fail "namespace add"
    wait_for 20 ns_dev $SUB 4 || fail "namespace 4 did not appear"
    local d4; d4=$(ns_dev $SUB 4)
    fio --name=count --filename=$d4 --ioengine=libaio --direct=1 --rw=write --bs=4k --size=4000k \
        --iodepth=8 --output=/tmp/fio-count.txt || fail "fio"
    $CTL --json stats namespaces --nqn $SUB --nsid 4 | tee /tmp/stats.json || fail "stats"
    grep -q '"writes": 1000,' /tmp/stats.json || fail "writes are not 1000"
    grep -q '"write_bytes": 4096000,' /tmp/stats.json || fail "write_bytes are not 4096000"
    grep -q '"errors": 0,' /tmp/stats.json || fail "errors counted"
    $CTL stats namespaces --nqn $SUB | tee /tmp/stats.txt
    $CTL stats poll-groups || fail "poll group stats"
    $CTL namespace remove $SUB 4 || fail "remove"
}

test_04_bad_calls_are_answered_and_change_nothing() {
    local out rc
    out=$($CTL namespace add $SUB --path /nonexistent/disk.img 2>&1); rc=$?
    echo "$out"
    expect_eq "exit status of a refused add" $rc 1
    echo "$out" | grep -q '/nonexistent/disk.img: No such file or directory' || fail "message does not name the file"
    out=$($CTL namespace add $SUB --ram 16M --nsid 1 2>&1); rc=$?
    echo "$out"
    expect_eq "exit status for an nsid in use" $rc 1
    echo "$out" | grep -q 'nsid 1 is in use' || fail "message does not say the nsid is in use"
    out=$($CTL namespace remove nqn.2026-12.io.nvmf-rdma:nothing 1 2>&1); rc=$?
    echo "$out"
    expect_eq "exit status for an unknown NQN" $rc 1
    out=$($CTL call no_such_method 2>&1); rc=$?
    echo "$out"
    expect_eq "exit status for an unknown method" $rc 1
    echo "$out" | grep -q -- '-32601' || fail "no -32601 for an unknown method"
    $CTL --json subsystem list $SUB > /tmp/subs.json
    [ "$(grep -c '"nsid"' /tmp/subs.json)" = 1 ] || fail "namespaces changed: $(cat /tmp/subs.json)"
    local d1; d1=$(ns_dev $SUB 1) || fail "namespace 1 is gone"
    fio --name=after --filename=$d1 --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=8 \
        --size=8M --verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio-after.txt ||
        fail "fio after the bad calls"
}

test_05_removed_host_is_disconnected_and_refused() {
    local g1 g2
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB_H -q $HOSTNQN -l 5 > /dev/null || fail "connect"
    wait_for 15 ns_dev $SUB_H 1 || fail "not connected"
    g1=$(nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -q $HOSTNQN -o json | grep -o '"genctr" *: *[0-9]*')
    $CTL host remove $SUB_H $HOSTNQN || fail "host remove"
    wait_for 15 sh -c "! $CTL --json controller list --nqn $SUB_H | grep -q hostnqn" ||
        fail "the host's controller is still there"
    grep -q "host $HOSTNQN no longer allowed" $STATE/target.log || fail "no log line for the disconnect"
    g2=$(nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -q $HOSTNQN -o json | grep -o '"genctr" *: *[0-9]*')
    [ "$g1" != "$g2" ] || fail "discovery genctr did not move ($g1)"
    nvme disconnect -n $SUB_H > /dev/null 2>&1
    ! nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB_H -q $HOSTNQN > /tmp/refused.txt 2>&1 ||
        fail "the removed host connected again"
    cat /tmp/refused.txt
    $CTL host add $SUB_H $HOSTNQN || fail "host add"
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB_H -q $HOSTNQN > /dev/null || fail "allowed again, but refused"
    wait_for 15 ns_dev $SUB_H 1 || fail "no namespace after reconnecting"
    nvme disconnect -n $SUB_H > /dev/null
}

test_06_subsystem_and_port_added_live_accept_discover_and_connect() {
    local new=nqn.2026-12.io.nvmf-rdma:added g0 g1 g2
    g0=$(nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -q $HOSTNQN -o json | grep -o '"genctr" *: *[0-9]*')
    $CTL subsystem add $new --allow-any-host || fail "subsystem add"
    $CTL namespace add $new --ram 32M || fail "namespace add"
    $CTL port add 2 --traddr "$NVMF_TRADDR" --trsvcid 4430 --subsystem $new || fail "port add"
    $CTL port list | tee /tmp/ports.txt
    grep -q 4430 /tmp/ports.txt || fail "port list does not show the new port"
    nvme discover -t rdma -a "$NVMF_TRADDR" -s 4430 -q $HOSTNQN > /tmp/disc-new.txt || fail "discover on the new port"
    cat /tmp/disc-new.txt
    grep -q "subnqn: *$new\$" /tmp/disc-new.txt || fail "the new subsystem is not discovered"
    g1=$(nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -q $HOSTNQN -o json | grep -o '"genctr" *: *[0-9]*')
    [ "$g0" != "$g1" ] || fail "genctr did not move when the port was added ($g0)"
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4430 -n $new -q $HOSTNQN > /dev/null || fail "connect to the new port"
    wait_for 15 ns_dev $new 1 || fail "no namespace on the new subsystem"
    fio --name=new --filename=$(ns_dev $new 1) --ioengine=libaio --direct=1 --rw=randwrite --bs=4k \
        --iodepth=8 --size=8M --verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio-new.txt ||
        fail "fio on the new subsystem"
    nvme disconnect -n $new > /dev/null
    $CTL port remove 2 || fail "port remove"
    ! nvme discover -t rdma -a "$NVMF_TRADDR" -s 4430 -q $HOSTNQN > /dev/null 2>&1 || fail "the removed port still answers"
    g2=$(nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -q $HOSTNQN -o json | grep -o '"genctr" *: *[0-9]*')
    [ "$g1" != "$g2" ] || fail "genctr did not move when the port was removed ($g1)"
    $CTL subsystem remove $new || fail "subsystem remove"
}

test_07_sighup_applies_an_edit_without_disconnecting_other_hosts() {
    local d1 c1 c2 fio_pid rc
    d1=$(ns_dev $SUB 1) || fail "not connected"
    c1=$($CTL --json controller list --nqn $SUB | grep -o '"cntlid": [0-9]*')
    fio --name=during --filename=$d1 --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
        --size=64M --verify=crc32c --verify_backlog=128 --verify_fatal=1 --time_based --runtime=15 \
        --output=/tmp/fio-hup.txt &
    fio_pid=$!
    # The file now has namespace 5 in the live subsystem, nothing else changed. (The
    # target wrote the earlier tests' live changes through to it, in its own layout.)
    jq --arg sub $SUB '(.subsystems[] | select(.nqn == $sub) | .namespaces) +=
        [{"nsid": 5, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "16M"}]' \
        $STATE/config.json > $STATE/config.new && mv $STATE/config.new $STATE/config.json
    grep -q '"nsid": 5' $STATE/config.json || fail "test bug: the edit did not apply"
    kill -HUP "$(cat $STATE/target.pid)"
    wait_for 20 ns_dev $SUB 5 || fail "namespace 5 did not appear after SIGHUP"
    grep -q "reload: subsystem $SUB: namespace 5 added" $STATE/target.log || fail "no reload line in the log"
    wait $fio_pid; rc=$?
    grep -E 'err=|WRITE:' /tmp/fio-hup.txt
    expect_eq "fio during the reload" $rc 0
    c2=$($CTL --json controller list --nqn $SUB | grep -o '"cntlid": [0-9]*')
    expect_eq "the host's controller (not reconnected)" "$c2" "$c1"
    # A file that cannot be applied live: refused by name, nothing changed.
    cp $STATE/config.json $STATE/config.good
    jq '.nvmf_target.threads = 2' $STATE/config.good > $STATE/config.json
    local out; out=$($CTL config reload 2>&1); rc=$?
    echo "$out"
    expect_eq "exit status of a refused reload" $rc 1
    echo "$out" | grep -q 'nvmf_target.threads differs from the running target' || fail "the refusal does not name the key"
    mv $STATE/config.good $STATE/config.json
    out=$($CTL config reload 2>&1) || fail "a reload of the same file: $out"
    echo "$out" | grep -q 'no changes' || fail "a reload of the same file changed something: $out"
}

test_08_saved_configuration_is_checked_and_serves_the_same() {
    $CTL config save $STATE/saved.json || fail "config save"
    $CTL config show > $STATE/shown.json || fail "config show"
    "$NVMF_ROOT/build/nvmf-target" -c $STATE/shown.json --check || fail "--check refuses what config show printed"
    "$NVMF_ROOT/build/nvmf-target" -c $STATE/saved.json --check || fail "--check refuses the saved file"
    $CTL --json subsystem list | grep -v '"controllers"' > /tmp/before.json
    nvme disconnect-all > /dev/null 2>&1
    nvmf_target_stop $STATE
    cp $STATE/saved.json $STATE/config.json
    nvmf_target_start $STATE || fail "the saved file does not start a target"
    $CTL --json subsystem list | grep -v '"controllers"' > /tmp/after.json
    diff /tmp/before.json /tmp/after.json || fail "the saved configuration serves something else"
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB -q $HOSTNQN > /dev/null || fail "connect after the restart"
    wait_for 15 ns_dev $SUB 5 || fail "namespace 5 is not served after the restart"
}

test_09_sigterm_removes_the_socket() {
    nvme disconnect -n $SUB > /dev/null 2>&1
    nvmf_target_stop $STATE
    expect_eq "exit status" "$(cat $STATE/target.rc)" 0
    [ ! -e $STATE/rpc.sock ] || fail "the socket file is still there"
    local out rc
    out=$($CTL version 2>&1); rc=$?
    echo "$out"
    expect_eq "exit status without a target" $rc 3
}
