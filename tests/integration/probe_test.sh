# The USDT probes (target/probes.h, docs/tracing.md) seen from outside: bpftrace attaches
# to build/nvmf-target's nvmf:* probes while the nvmf tool writes 5 and reads 3 blocks of
# 4 KiB over NVMe/TCP (one I/O command each); each I/O command fires request_receive,
# request_execute, backend_submit, backend_complete and request_response once, with its
# opcode, nsid and status; each nvmf run's connection fires conn_accept and queue_connect
# for its queues; the docs' per-namespace latency histogram gets the 8 commands. Needs
# uprobes (CONFIG_UPROBES, CONFIG_UPROBE_EVENTS) and BPF in the guest kernel; bpftrace
# is Debian's (scripts/install-deps). `make install-check` checks the probes are in the
# binary (readelf -n).

ST=/tmp/probe-test
NQN=nqn.2026-12.io.nvmf-rdma:probe
PRB_PORT=4470
BIN=$(realpath "$NVMF_TARGET_BIN")
NVMF="$NVMF_ROOT/build/nvmf"

prb_nvmf() { timeout 60 "$NVMF" "$1" -t tcp -a "$NVMF_TRADDR" -s $PRB_PORT -n "$NQN" "${@:2}"; }

test_00_target_starts() {
    rm -rf $ST; mkdir -p $ST
    command -v bpftrace > /dev/null || fail "bpftrace not installed (scripts/install-deps)"
    cat > $ST/config.json <<JSON
{"nvmf_target": {"hugepages": false},
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$NVMF_TRADDR", "trsvcid": "$PRB_PORT",
                                  "trtype": "tcp"}, "subsystems": ["$NQN"]}],
 "subsystems": [{"nqn": "$NQN", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_block_size": 512,
                   "nvmf_size_bytes": "16M", "device": {"uuid": "6c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a77"}}]}]}
JSON
    # Under TCG a loaded host can take longer than nvmf_target_start's 20 s.
    nvmf_target_start $ST || wait_for 120 grep -q 'nvmf-target: core: ready' $ST/target.log ||
        fail "target did not start"
}

test_02_probes_fire_once_per_io_command() {
    local U="usdt:$BIN:nvmf"
    cat > $ST/count.bt <<BT
$U:request_receive /arg1 != 0/ { @rx[arg3] = count(); @start[arg0] = nsecs; }
$U:request_execute /arg1 != 0/ { @ex[arg3, arg5] = count(); }
$U:backend_submit { @bs[arg1, arg2, arg4] = count(); }
$U:backend_complete { @bc[arg1, arg2, arg3] = count(); }
$U:request_response /arg1 != 0/ {
    @resp[arg3, arg4, arg5] = count();
    if (@start[arg0]) { @lat_us[arg4] = hist((nsecs - @start[arg0]) / 1000); delete(@start[arg0]); }
}
$U:conn_accept { @accept[str(arg0)] = count(); }
$U:queue_connect { @qconnect[str(arg0)] = count(); }
END { clear(@start); }
BT
    bpftrace $ST/count.bt > $ST/bt.out 2> $ST/bt.err &
    local bt=$!
    # bpftrace loads LLVM and compiles the script first: minutes in an emulated guest.
    wait_for 900 grep -q '^Attaching' $ST/bt.out || { cat $ST/bt.out $ST/bt.err; kill -INT $bt; fail "bpftrace did not attach"; }
    sleep 2
    head -c 4096 /dev/urandom > $ST/in
    local i
    for i in 0 1 2 3 4; do
        prb_nvmf write --offset $((i * 4096)) -i $ST/in || fail "write $i"
    done
    for i in 0 1 2; do
        prb_nvmf read --offset $((i * 4096)) --length 4096 -o $ST/out.$i || fail "read $i"
    done
    cmp $ST/in $ST/out.0 || fail "read back differs"
    sleep 1
    kill -INT $bt; wait $bt
    cat $ST/bt.out; grep -v RLIMIT_MEMLOCK $ST/bt.err | head -n 20
    # Writes are opcode 1, reads 2; backend op 1 is write, 0 read (enum nvmf_bdev_op).
    grep -qx '@rx\[1\]: 5' $ST/bt.out || fail "request_receive: not 5 writes"
    grep -qx '@rx\[2\]: 3' $ST/bt.out || fail "request_receive: not 3 reads"
    grep -qx '@ex\[1, 4096\]: 5' $ST/bt.out || fail "request_execute: not 5 writes of 4096 bytes"
    grep -qx '@ex\[2, 4096\]: 3' $ST/bt.out || fail "request_execute: not 3 reads of 4096 bytes"
    grep -qx '@bs\[1, 1, 4096\]: 5' $ST/bt.out || fail "backend_submit: not 5 writes of 4096 bytes to nsid 1"
    grep -qx '@bs\[1, 0, 4096\]: 3' $ST/bt.out || fail "backend_submit: not 3 reads of 4096 bytes from nsid 1"
    grep -qx '@bc\[1, 1, 0\]: 5' $ST/bt.out || fail "backend_complete: not 5 successful writes"
    grep -qx '@bc\[1, 0, 0\]: 3' $ST/bt.out || fail "backend_complete: not 3 successful reads"
    grep -qx '@resp\[1, 1, 0\]: 5' $ST/bt.out || fail "request_response: not 5 successful writes on nsid 1"
    grep -qx '@resp\[2, 1, 0\]: 3' $ST/bt.out || fail "request_response: not 3 successful reads on nsid 1"
    ! grep -q '^@resp\[.*, [1-9][0-9]*\]' $ST/bt.out || fail "an I/O command failed"
    grep -qx '@accept\[tcp\]: [0-9]*' $ST/bt.out || fail "conn_accept never fired"
    local acc q
    acc=$(sed -n 's/^@accept\[tcp\]: //p' $ST/bt.out); q=$(sed -n 's/^@qconnect\[tcp\]: //p' $ST/bt.out)
    # Each of the 8 runs: an admin queue and at least one I/O queue, each its own connection.
    [ "$acc" -ge 16 ] && [ "$q" = "$acc" ] || fail "conn_accept $acc, queue_connect $q: want equal, >= 16"
    # The latency histogram of namespace 1 holds the 8 commands.
    awk '/^@lat_us\[1\]:/ {on=1; next}
         on && /^\[/ {s = $0; sub(/^[^])]*[])] +/, "", s); split(s, c, " "); n += c[1]}
         on && /^$/ {on=0} END {exit n != 8}' \
        $ST/bt.out || fail "latency histogram of nsid 1 does not hold 8 commands"
}

test_99_target_stops() {
    nvmf_target_stop $ST
    expect_eq "target exit status" "$(cat $ST/target.rc)" 0
}
