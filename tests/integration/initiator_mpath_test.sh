# libnvmf's multipath through the `nvmf` tool against our target over soft-RoCE: one
# subsystem on two ports at two addresses of the guest's RDMA device (a second address on
# veth0, which rxe0 is bound to), `-a` given twice. Data written over both paths reads
# back byte for byte; the ANA log of each path is shown; `nvmf perf` keeps running without
# an I/O error while the port it uses is removed and added back (its path is reconnected
# and used again), a large write whose port goes away in the middle reads back intact,
# and the I/O follows the ANA states nvmf-targetctl sets (away from an inaccessible path,
# back when it is optimized again) without an error.

NVMF="$NVMF_ROOT/build/nvmf"
ST=/tmp/initiator-mpath-test
CTL="$NVMF_ROOT/build/nvmf-targetctl -s $ST/rpc.sock"
NQN=nqn.2026-12.io.nvmf-rdma:mpath
ADDR1=$NVMF_TRADDR
ADDR2=169.254.77.3
PORT=4460
PATHS="-a $ADDR1 -a $ADDR2 -s $PORT -n $NQN"

# The target on two addresses of veth0 that every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $ST
    # The second address of rxe0's netdev: a second path to the same device.
    ip addr show dev veth0 | grep -q " $ADDR2/" || ip addr add $ADDR2/24 dev veth0 ||
        fail "second address on veth0"
    cat > $ST/config.json <<JSON
{"ports": [
   {"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$ADDR1", "trsvcid": "$PORT", "trtype": "rdma"},
    "subsystems": ["$NQN"]},
   {"portid": 2, "addr": {"adrfam": "ipv4", "traddr": "$ADDR2", "trsvcid": "$PORT", "trtype": "rdma"},
    "subsystems": ["$NQN"]}],
 "subsystems": [{"nqn": "$NQN", "attr": {"allow_any_host": "1", "serial": "mpath0001"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": 268435456}]}]}
JSON
    NVMF_TARGET_BIN=$NVMF_ROOT/build/nvmf-target nvmf_target_start $ST || fail "target did not start"
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    nvmf_target_stop $ST
    ip addr del $ADDR2/24 dev veth0 2>/dev/null
    true
}

test_00_start_target_on_two_addresses() {
    "$NVMF" identify -a $ADDR2 -s $PORT -n $NQN > $ST/id2.txt || fail "identify through the second address"
    grep -E '^cmic +:' $ST/id2.txt
}

test_01_data_over_two_paths_round_trips() {
    head -c 8M /dev/urandom > $ST/pat
    "$NVMF" write $PATHS --offset 1m -i $ST/pat -v 2> $ST/w.err || { cat $ST/w.err; fail "write over two paths"; }
    cat $ST/w.err
    grep -q "multipath over 2 paths" $ST/w.err || fail "no multipath handle"
    grep -q "path 0 $ADDR1:$PORT: live, [1-9]" $ST/w.err || fail "path 0 not used"
    # The paths in the other order: the reads go through the second address.
    "$NVMF" read -a $ADDR2 -a $ADDR1 -s $PORT -n $NQN --offset 1m --length 8m -o $ST/back -v 2> $ST/r.err ||
        { cat $ST/r.err; fail "read over two paths"; }
    grep -q "path 0 $ADDR2:$PORT: live, [1-9]" $ST/r.err || fail "the read did not use $ADDR2"
    cmp $ST/pat $ST/back || fail "data read back differ"
}

test_02_ana_log_of_each_path() {
    "$NVMF" ana-log $PATHS > $ST/ana.txt 2> $ST/ana.err || { cat $ST/ana.err; fail "ana-log"; }
    cat $ST/ana.txt
    expect_eq "ANA logs printed" "$(grep -c '^Asymmetric Namespace Access Log' $ST/ana.txt)" 2
    expect_eq "group 1 optimized on both" "$(grep -c 'state	:	optimized' $ST/ana.txt)" 2
    grep -q "	nsid	:	1" $ST/ana.txt || fail "namespace 1 not listed"
    "$NVMF" ana-log $PATHS --json | jq -e '.paths[1].groups[0].state == "optimized"' > /dev/null ||
        fail "ana-log --json"
}

# perf_paths FILE: "ios0 ios1 live0 reconnects0 errors" from perf's JSON.
perf_paths() {
    jq -r '"\(.paths[0].ios) \(.paths[1].ios) \(.paths[0].live) \(.paths[0].reconnects) \(.errors)"' "$1"
}

# diag: what the target saw (on a failure).
diag() {
    $CTL controller list 2>&1 | sed 's/^/    target: /'
    tail -n 30 $ST/target.log | sed 's/^/    target log: /'
}

test_03_perf_fails_over_when_its_port_goes_away_and_returns_after() {
    "$NVMF" perf $PATHS --rw randwrite --bs 4k --qd 16 --time 16 --size 64m --refresh 200 \
        --path-timeout 30000 --json -v > $ST/perf.json 2> $ST/perf.err &
    local pid=$!
    sleep 4
    $CTL port remove 1 || fail "port remove"
    sleep 3
    $CTL port add 1 --traddr $ADDR1 --trsvcid $PORT --subsystem $NQN || fail "port add"
    wait $pid || { cat $ST/perf.err; diag; fail "perf failed"; }
    grep -v '^\[' $ST/perf.err
    cat $ST/perf.json
    local ios0 ios1 live0 rec0 errors
    read -r ios0 ios1 live0 rec0 errors < <(perf_paths $ST/perf.json) || fail "perf JSON"
    expect_eq "perf errors" "$errors" 0
    [ "$ios0" -gt 0 ] || fail "no I/O on path 0"
    [ "$ios1" -gt 0 ] || fail "no I/O failed over to path 1"
    [ "$live0" = true ] && [ "$rec0" -ge 1 ] || { diag; fail "path 0 was not reconnected"; }
}

test_04_write_whose_port_goes_away_reads_back_intact() {
    head -c 64M /dev/urandom > $ST/big
    rm -f $ST/bw.err
    # The port goes away once the handle is connected (every path must connect first).
    ( wait_for 30 grep -q "multipath over" $ST/bw.err; sleep 0.5; $CTL port remove 1; sleep 2
      $CTL port add 1 --traddr $ADDR1 --trsvcid $PORT --subsystem $NQN ) &
    local flap=$!
    "$NVMF" write $PATHS --offset 0 -i $ST/big --refresh 200 --path-timeout 30000 -v 2> $ST/bw.err ||
        { cat $ST/bw.err; fail "write while the port went away"; }
    wait $flap
    cat $ST/bw.err
    grep -Eq " [1-9][0-9]* failed over| [1-9][0-9]* reconnects" $ST/bw.err ||
        echo "    note: the write ended before the port went away (only the data was checked)"
    "$NVMF" read $PATHS --offset 0 --length 64m -o $ST/bigback || fail "read back"
    cmp $ST/big $ST/bigback || fail "data read back differ"
}

# perf_run SECONDS FILE [ARGS...]: nvmf perf over both paths (random writes, JSON in FILE).
perf_run() {
    local secs=$1 out=$2; shift 2
    "$NVMF" perf $PATHS --rw randwrite --bs 4k --qd 16 --time "$secs" --size 64m --refresh 200 \
        --path-timeout 30000 --json "$@" > "$out" 2> "$out.err"
}

test_05_io_follows_the_ana_states_set_on_the_target() {
    $CTL ana set 1 1 inaccessible || fail "ana set inaccessible"
    "$NVMF" ana-log -a $ADDR1 -s $PORT -n $NQN > $ST/ana1.txt || fail "ana-log of port 1"
    grep -q "state	:	inaccessible" $ST/ana1.txt || { cat $ST/ana1.txt; fail "port 1 not inaccessible"; }
    # Connected while port 1 is inaccessible: everything goes through port 2.
    perf_run 3 $ST/p1.json || { cat $ST/p1.json.err; fail "perf (port 1 inaccessible)"; }
    local ios0 ios1 live0 rec0 errors
    read -r ios0 ios1 live0 rec0 errors < <(perf_paths $ST/p1.json) || fail "perf JSON"
    expect_eq "errors" "$errors" 0
    expect_eq "I/O through the inaccessible path" "$ios0" 0
    [ "$ios1" -gt 0 ] || fail "no I/O through port 2"
    # Optimized again under load: the I/O comes back to port 1 (the first path).
    perf_run 10 $ST/p2.json & local pid=$!
    sleep 4
    $CTL ana set 1 1 optimized || fail "ana set optimized"
    wait $pid || { cat $ST/p2.json.err; fail "perf (port 1 back)"; }
    read -r ios0 ios1 live0 rec0 errors < <(perf_paths $ST/p2.json) || fail "perf JSON"
    echo "port 1 optimized again: $ios0 I/Os on port 1, $ios1 on port 2"
    expect_eq "errors" "$errors" 0
    [ "$ios0" -gt 0 ] && [ "$ios1" -gt 0 ] || fail "the I/O did not move back to port 1"
    # Inaccessible under load: away from port 1 without an error.
    perf_run 10 $ST/p3.json & pid=$!
    sleep 4
    $CTL ana set 1 1 inaccessible || fail "ana set inaccessible"
    wait $pid || { cat $ST/p3.json.err; fail "perf (port 1 inaccessible under load)"; }
    read -r ios0 ios1 live0 rec0 errors < <(perf_paths $ST/p3.json) || fail "perf JSON"
    echo "port 1 inaccessible under load: $ios0 I/Os on port 1, $ios1 on port 2"
    expect_eq "errors" "$errors" 0
    [ "$ios0" -gt 0 ] && [ "$ios1" -gt 0 ] || fail "the I/O did not move to port 2"
    $CTL ana set 1 1 optimized || fail "ana set optimized"
}

test_99_stop_target() {
    nvmf_target_stop $ST || fail "target did not stop"
    ip addr del $ADDR2/24 dev veth0 2>/dev/null
    true
}
