# Asymmetric Namespace Access with the stock kernel host's native multipath: one subsystem
# on two ports (two addresses of rxe0's veth0), the host connected to both, fio's crc32c
# verify on the multipath device. The host sees one subsystem with two paths and their
# ANA states, and the groups in the ANA log; the path in use made inaccessible through
# nvmf-targetctl sends the I/O to the other path, made optimized again brings it back,
# and its port removed moves it once more, with zero verify errors; bad calls are refused
# by name; the saved configuration keeps the states.

STATE=/tmp/ana-test
CTL="$NVMF_ROOT/build/nvmf-targetctl -s $STATE/rpc.sock"
SUB=nqn.2026-12.io.nvmf-rdma:multipath
ADDR1=169.254.77.1
ADDR2=169.254.77.3
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-0000-4000-8000-00000000a0a0
HOSTID=0a0a0a0a-0000-4000-8000-00000000a0a0

write_config() {
    cat > $STATE/config.json <<JSON
{
  "ports": [
    {"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$ADDR1", "trsvcid": "4420", "trtype": "rdma"},
     "ana_groups": [{"grpid": 1, "ana": {"state": "optimized"}}, {"grpid": 2, "ana": {"state": "non-optimized"}}],
     "subsystems": ["$SUB"]},
    {"portid": 2, "addr": {"adrfam": "ipv4", "traddr": "$ADDR2", "trsvcid": "4420", "trtype": "rdma"},
     "ana_groups": [{"grpid": 1, "ana": {"state": "optimized"}}, {"grpid": 2, "ana": {"state": "optimized"}}],
     "subsystems": ["$SUB"]}
  ],
  "subsystems": [
    {"nqn": "$SUB", "attr": {"allow_any_host": "1"},
     "namespaces": [{"nsid": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "256M", "ana_grpid": 1},
                    {"nsid": 2, "nvmf_backend": "ram", "nvmf_size_bytes": "16M", "ana": {"grpid": "2"}}]}
  ]
}
JSON
}

# The host's view: the multipath device of nsid 1, the path device (nvmeXcYn1) of the
# controller reached through ADDR, the state the host holds for that path.
head_dev() { nvme_dev_for "$SUB" 1; }
ctrl_of() {   # ctrl_of ADDR: nvmeN of the controller connected to ADDR (builtins: see lib.sh)
    local c a
    for c in /sys/class/nvme/nvme*; do
        sysfs_is "$c/subsysnqn" "$SUB" && read -r a 2>/dev/null < "$c/address" || continue
        [[ "$a" == *"traddr=$1,"* ]] && { echo "${c##*/}"; return 0; }
    done
    return 1
}
path_state() {   # path_state ADDR: the host's ANA state of nsid 1 through ADDR
    local c p st; c=$(ctrl_of "$1") || return 1
    for p in /sys/block/nvme*c${c#nvme}n*; do
        sysfs_is "$p/nsid" 1 && read -r st < "$p/ana_state" && { echo "$st"; return 0; }
    done
    return 1
}
state_is() { [ "$(path_state "$1")" = "$2" ]; }
# writes PORTID: the Write commands the target completed for the controller on PORTID.
writes() {
    $CTL --json controller list --nqn $SUB | jq -r ".controllers[] | select(.portid == $1) | .writes"
}
# moving PORTID: writes on PORTID go on (two samples 2 s apart).
moving() {
    local a b; a=$(writes "$1"); sleep 2; b=$(writes "$1")
    echo "    port $1: writes $a -> $b"
    [ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ]
}
still() {
    local a b; a=$(writes "$1"); sleep 2; b=$(writes "$1")
    echo "    port $1: writes $a -> $b"
    [ "${a:-0}" = "${b:-0}" ]
}

# mp_diag FIO_PID: what the target and the host hold when I/O does not move (for the log).
mp_diag() {
    $CTL controller list
    kill -0 "$1" 2>/dev/null && echo "fio still runs" || { echo "fio ended:"; tail -n 20 /tmp/fio-mp.txt; }
    grep -H . /sys/class/nvme/nvme*/state /sys/block/nvme*c*n1/ana_state 2>/dev/null
    dmesg | tail -n 15
    tail -n 15 $STATE/target.log
}

# The target on two addresses of veth0 that every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $STATE
    ip addr show dev veth0 | grep -q " $ADDR2/" || ip addr add $ADDR2/24 dev veth0 ||
        fail "second address on veth0"
    # rxe adds a GID for each address of its netdev; the CM needs it to resolve ADDR2.
    wait_for 10 sh -c "ibv_devinfo -d rxe0 -v | grep -q '$ADDR2'" || fail "no GID for $ADDR2 on rxe0"
    write_config
    nvmf_target_start $STATE || fail "target did not start"
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    nvme disconnect -n $SUB > /dev/null 2>&1
    nvmf_target_stop $STATE
    ip addr del $ADDR2/24 dev veth0 2>/dev/null
    true
}

test_00_target_serves_one_subsystem_on_two_addresses() {
    $CTL ana list | tee /tmp/ana-list.txt || fail "ana list"
    grep -Eq '^ *1 +2 +non-optimized' /tmp/ana-list.txt || fail "port 1 group 2 is not non-optimized"
}

test_01_host_sees_one_subsystem_with_two_paths_and_their_states() {
    nvme connect -t rdma -a $ADDR1 -s 4420 -n $SUB -q $HOSTNQN -I $HOSTID > /dev/null || fail "connect to $ADDR1"
    nvme connect -t rdma -a $ADDR2 -s 4420 -n $SUB -q $HOSTNQN -I $HOSTID > /dev/null || fail "connect to $ADDR2"
    wait_for 20 head_dev || fail "no multipath device for nsid 1"
    wait_for 20 state_is $ADDR1 optimized || fail "path $ADDR1 is '$(path_state $ADDR1)'"
    wait_for 20 state_is $ADDR2 optimized || fail "path $ADDR2 is '$(path_state $ADDR2)'"
    local dev; dev=$(head_dev)
    nvme list-subsys $dev | tee /tmp/list-subsys.txt
    [ "$(grep -c "rdma traddr=" /tmp/list-subsys.txt)" = 2 ] || fail "list-subsys does not show two paths"
    [ "$(grep -c "live optimized" /tmp/list-subsys.txt)" = 2 ] || fail "list-subsys does not show both paths optimized"
    nvme ana-log /dev/$(ctrl_of $ADDR1) | tee /tmp/ana-log1.txt || fail "ana-log on the $ADDR1 controller"
    grep -Eq "ngrps[[:space:]]*:[[:space:]]*2" /tmp/ana-log1.txt || fail "ana-log does not count two groups"
    grep -qi "non-optimized" /tmp/ana-log1.txt || fail "ana-log of $ADDR1 does not show group 2 non-optimized"
    nvme ana-log /dev/$(ctrl_of $ADDR2) -o json | tee /tmp/ana-log2.json || fail "ana-log on the $ADDR2 controller"
    grep -qi "non-optimized" /tmp/ana-log2.json && fail "ana-log of $ADDR2 shows a non-optimized group"
    return 0
}

test_02_io_fails_over_on_ana_states_and_port_removal_without_errors() {
    local dev; dev=$(head_dev) || fail "not connected"
    # fio runs until stopped (SIGINT: it ends its jobs and reports as usual)
    fio --name=mp --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
        --size=128M --verify=crc32c --verify_backlog=256 --verify_fatal=1 --time_based --runtime=600 \
        --randrepeat=0 --output=/tmp/fio-mp.txt &
    local fio_pid=$!
    trap "kill $fio_pid 2>/dev/null" EXIT   # a failed step leaves no fio behind
    # The path the host uses (the first optimized one it found), and the other; fio may
    # take a while to start on a loaded guest.
    local used="" other i
    for i in $(seq 15); do
        if moving 1; then used=1 other=2 used_addr=$ADDR1; break; fi
        if moving 2; then used=2 other=1 used_addr=$ADDR2; break; fi
    done
    [ -n "$used" ] || { kill $fio_pid; cat /tmp/fio-mp.txt; fail "no writes on either path"; }
    echo "host writes through port $used"
    $CTL ana set $used 1 inaccessible || fail "ana set inaccessible"
    wait_for 20 state_is $used_addr inaccessible || fail "host still sees path $used_addr as '$(path_state $used_addr)'"
    moving $other || fail "I/O did not move to port $other"
    still $used || fail "I/O still goes through port $used while it is inaccessible"
    $CTL ana set $used 1 optimized || fail "ana set optimized"
    wait_for 20 state_is $used_addr optimized || fail "host sees path $used_addr as '$(path_state $used_addr)'"
    wait_for 20 moving $used || fail "I/O did not return to port $used"
    moving $used || fail "I/O does not stay on port $used"
    $CTL port remove $used | tee /tmp/port-remove.txt || fail "port remove"
    # The host notices the lost connection, fails its queues over and requeues: slower than
    # an ANA change on a loaded emulated guest.
    wait_for 60 moving $other || { mp_diag $fio_pid; fail "I/O did not move to port $other after the removal"; }
    moving $other || fail "I/O does not stay on port $other"
    # fio runs until told: a fixed runtime ran out on a loaded guest before the last step.
    kill -INT $fio_pid
    wait $fio_pid
    local rc=$?
    grep -E 'err=|WRITE:|iops' /tmp/fio-mp.txt
    # Stopped by SIGINT, fio ends its jobs, reports, and exits 128; an error of its own
    # (verify_fatal) would exit 1. Its report's err= and verify lines are checked below.
    [ $rc = 0 ] || [ $rc = 128 ] || fail "fio exit status $rc (0, or 128 after SIGINT, expected)"
    grep -q 'err= 0' /tmp/fio-mp.txt || fail "fio reported errors"
    ! grep -qi 'verify.*fail\|bad magic\|crc32c.*mismatch' /tmp/fio-mp.txt || fail "verify failures"
    grep -q "ANA group 1 inaccessible" $STATE/target.log || fail "no log line for the state change"
}

test_03_bad_ana_calls_are_refused_by_name() {
    local out rc
    out=$($CTL ana set 2 1 fast 2>&1); rc=$?
    echo "$out"
    expect_eq "exit status for a bad state" $rc 2
    out=$($CTL call ana_state_set '{"portid": 2, "grpid": 1, "state": "fast"}' 2>&1); rc=$?
    echo "$out"
    expect_eq "exit status of the call" $rc 1
    echo "$out" | grep -q "parameter 'state'" || fail "the message does not name 'state'"
    out=$($CTL namespace ana-group $SUB 1 77 2>&1); rc=$?
    echo "$out"
    expect_eq "exit status for an undefined group" $rc 1
    echo "$out" | grep -q "ANA group 77 is defined on no port" || fail "the message does not say why"
    state_is $ADDR2 optimized || fail "the remaining path changed state"
}

test_04_saved_configuration_keeps_groups_and_states() {
    $CTL ana set 2 2 non-optimized || fail "ana set"
    $CTL config save $STATE/saved.json || fail "config save"
    grep -q '"ana_grpid": 2' $STATE/saved.json || fail "namespace 2's group is not saved"
    tr -d ' \n' < $STATE/saved.json | grep -q '"ana":{"state":"non-optimized"},"grpid":2' ||
        fail "port 2's group 2 state is not saved"
    "$NVMF_ROOT/build/nvmf-target" -c $STATE/saved.json --check || fail "the saved file does not load"
    nvme disconnect -n $SUB > /dev/null
    nvmf_target_stop $STATE || fail "target did not stop"
    ip addr del $ADDR2/24 dev veth0
}
