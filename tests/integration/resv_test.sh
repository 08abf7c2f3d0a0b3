# NVMe reservations (docs/reservations.md) with the stock kernel host: one guest connects
# to our target twice, as two hosts (two host NQNs and host IDs, through two ports: two
# controllers, whose namespace 6.1's native multipath joins under one head). nvme-cli sends the reservation
# commands and single I/Os through each host's own controller (its character device:
# NVME_IOCTL_IO_CMD, the subsystem has one namespace); dd goes through the block device.
# Host A registers and takes Write Exclusive, host B's writes conflict and its reads pass,
# B preempts A, A's writes conflict, release, report; then with PTPL on the reservation
# outlives a restart of the target.

RV_SUB=nqn.2026-11.io.nvmf-rdma:resv
RV_STATE=/tmp/resv-test
RV_IMG=$RV_STATE/shared.img
RV_NQN_A=nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-0000-4000-8000-00000000000a
RV_ID_A=0a0a0a0a-0000-4000-8000-00000000000a
RV_NQN_B=nqn.2014-08.org.nvmexpress:uuid:0b0b0b0b-0000-4000-8000-00000000000b
RV_ID_B=0b0b0b0b-0000-4000-8000-00000000000b
RV_KEY_A=0xa11ce
RV_KEY_B=0xb0b

rv_config() {
    cat > $RV_STATE/config.json <<JSON
{
  "hosts": [],
  "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4420", "trtype": "rdma"},
             "subsystems": ["$RV_SUB"]},
            {"portid": 2, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4421", "trtype": "rdma"},
             "subsystems": ["$RV_SUB"]}],
  "subsystems": [
    {"nqn": "$RV_SUB", "allowed_hosts": [], "attr": {"allow_any_host": "1"},
     "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "$RV_IMG", "uuid": "3c1f8a52-6b0d-4f3e-9a71-2d5e8c4b7f10"},
                     "nvmf_backend": "file", "nvmf_create": true, "nvmf_size_bytes": 16777216,
                     "resv": {"enable": "1"}}]}
  ]
}
JSON
}

# rv_ctrl NQN: the host's nvmeX controller of the subsystem connected as host NQN (shell
# builtins only: processes are slow to start in the emulated guest).
rv_ctrl() {
    local c sub host
    for c in /sys/class/nvme/nvme*; do
        read -r sub < $c/subsysnqn 2>/dev/null && read -r host < $c/hostnqn 2>/dev/null || continue
        [ "$sub" = "$RV_SUB" ] && [ "$host" = "$1" ] && { echo ${c##*/}; return 0; }
    done
    return 1
}

# rv_connect A|B: connect as that host and wait for its controller. Each host on a port of
# its own: nvme-cli 2.3 takes a second connect to the same address and subsystem for a
# duplicate, whatever its host NQN (even with --duplicate-connect).
rv_connect() {
    local nqn id port
    if [ "$1" = A ]; then nqn=$RV_NQN_A id=$RV_ID_A port=4420; else nqn=$RV_NQN_B id=$RV_ID_B port=4421; fi
    nvme connect -t rdma -a "$NVMF_TRADDR" -s $port -n $RV_SUB -q $nqn -I $id > /dev/null || return 1
    wait_for 15 rv_ctrl $nqn && wait_for 15 nvme_dev_for $RV_SUB
}

rv_dev() { if [ "$1" = A ]; then echo /dev/$(rv_ctrl $RV_NQN_A); else echo /dev/$(rv_ctrl $RV_NQN_B); fi; }

# rv_io A|B read|write: one 512-byte command at LBA 0 through that host's controller;
# prints nvme-cli's answer, returns its status.
rv_io() {
    local opc=0x02 dir=--read
    [ "$2" = write ] && opc=0x01 dir=--write
    [ -s $RV_STATE/blk ] || head -c 512 /dev/urandom > $RV_STATE/blk
    nvme io-passthru $(rv_dev $1) -n 1 --opcode=$opc --data-len=512 $dir --cdw10=0 --cdw12=0 \
        --input-file=$RV_STATE/blk 2>&1
}

# rv_report A|B: nvme-cli's Reservation Report (EDS), JSON.
rv_report() {
    nvme resv-report $(rv_dev $1) -n 1 --eds -o json 2> $RV_STATE/report.err
}

# rv_summary: "RTYPE REGCTL GEN HOLDER-HOSTIDS HOLDER-KEYS FIRST-CNTLID PTPLS" of r.json
# ("-" for none; one jq: processes are slow to start in the emulated guest).
rv_summary() {
    jq -r 'def holders(f): [.regctlext[] | select(.rcsts == 1) | f | tostring] | join(",") |
                          if . == "" then "-" else . end;
           [.rtype, .regctl, .gen, holders(.hostid), holders(.rkey), (.regctlext[0].cntlid // "-"), .ptpls]
           | map(tostring) | join(" ")' $RV_STATE/r.json
}

rv_expect_conflict() {   # rv_expect_conflict WHAT OUTPUT STATUS
    [ "$3" != 0 ] || fail "$1 succeeded under the reservation"
    echo "$2" | grep -qi 'RESERVATION.CONFLICT\|4083' || fail "$1: not a reservation conflict: $2"
}

# The target with a namespace with reservations that every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $RV_STATE
    rm -f $RV_IMG $RV_STATE/config.json.resv.json $RV_STATE/config.json.created.json
    rv_config
    nvmf_target_start $RV_STATE || fail "target did not start"
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    nvme disconnect -n $RV_SUB > /dev/null 2>&1
    nvmf_target_stop $RV_STATE
}

test_00_target_serves_a_namespace_with_reservations() {
    grep "reservation state file $RV_STATE/config.json.resv.json" $RV_STATE/target.log ||
        fail "the target does not say where it keeps reservations"
}

test_01_two_hosts_connect_as_two_controllers() {
    rv_connect A || fail "connect as host A"
    rv_connect B || fail "connect as host B"
    local a b; a=$(rv_ctrl $RV_NQN_A) b=$(rv_ctrl $RV_NQN_B)
    [ "$a" != "$b" ] || fail "one controller for both hosts"
    echo "host A: $a, host B: $b, namespace: $(nvme_dev_for $RV_SUB)"
    local oncs rescap
    oncs=$(nvme id-ctrl /dev/$a | sed -n 's/^oncs *: *//p')
    [ $((oncs & 0x20)) != 0 ] || fail "ONCS $oncs without Reservations (bit 5)"
    rescap=$(nvme id-ns /dev/$a -n 1 | sed -n 's/^rescap *: *//p')
    expect_eq "RESCAP (every type, IEKEY 1.3, PTPL)" "$((rescap))" 255
}

test_02_both_register_and_a_takes_write_exclusive() {
    nvme resv-register $(rv_dev A) -n 1 --nrkey=$RV_KEY_A --rrega=0 || fail "register A"
    nvme resv-register $(rv_dev B) -n 1 --nrkey=$RV_KEY_B --rrega=0 || fail "register B"
    nvme resv-acquire $(rv_dev A) -n 1 --crkey=$RV_KEY_A --rtype=1 --racqa=0 || fail "acquire"
    rv_report B > $RV_STATE/r.json || { cat $RV_STATE/report.err; fail "report"; }
    cat $RV_STATE/r.json
    # type, registrants, generation (two registers; no acquire), holder, its key, CNTLID
    expect_eq "report" "$(rv_summary)" "1 2 2 ${RV_ID_A//-/} $((RV_KEY_A)) 65535 0"
}

test_03_the_other_host_reads_but_cannot_write() {
    local out rc
    out=$(rv_io B write); rc=$?
    rv_expect_conflict "host B's write" "$out" $rc
    out=$(rv_io B read) || fail "host B's read under Write Exclusive: $out"
    out=$(rv_io A write) || fail "the holder's write: $out"
}

test_04_dd_through_the_other_host_gets_an_io_error() {
    # Only host B's path left under the block device: the I/O must go through it.
    nvme disconnect -d $(rv_ctrl $RV_NQN_A) > /dev/null || fail "disconnect host A"
    local dev; dev=$(nvme_dev_for $RV_SUB) || fail "no block device for $RV_SUB"
    local seen; seen=$(dmesg | wc -l)
    ! dd if=/dev/urandom of=$dev bs=4096 count=1 oflag=direct 2> $RV_STATE/dd.err ||
        fail "dd write through host B succeeded"
    cat $RV_STATE/dd.err
    # 6.1 turns the status into BLK_STS_NEXUS: EBADE ("Invalid exchange"), later EIO.
    grep -q 'error writing' $RV_STATE/dd.err || fail "dd did not see an error"
    dd if=$dev of=/dev/null bs=4096 count=1 iflag=direct || fail "dd read through host B"
    dmesg | tail -n +$((seen + 1)) > $RV_STATE/dmesg.txt
    cat $RV_STATE/dmesg.txt
    grep -qi 'sc 0x83\|reservation conflict\|nexus' $RV_STATE/dmesg.txt || fail "the kernel did not log the conflict"
    rv_connect A || fail "connect host A again"
}

test_05_b_preempts_a_and_a_loses_its_writes() {
    nvme resv-acquire $(rv_dev B) -n 1 --crkey=$RV_KEY_B --prkey=$RV_KEY_A --rtype=1 --racqa=1 || fail "preempt"
    local out rc
    out=$(rv_io A write); rc=$?
    rv_expect_conflict "preempted host A's write" "$out" $rc
    out=$(rv_io B write) || fail "the new holder's write: $out"
    rv_report A > $RV_STATE/r.json || fail "report"
    cat $RV_STATE/r.json
    # B alone, holding; the preempt is generation 3
    expect_eq "report after the preempt" "$(rv_summary)" "1 1 3 ${RV_ID_B//-/} $((RV_KEY_B)) 65535 0"
    # A's key is gone: A cannot acquire with it.
    ! nvme resv-acquire $(rv_dev A) -n 1 --crkey=$RV_KEY_A --rtype=1 --racqa=0 2> /dev/null ||
        fail "a preempted host acquired with its old key"
}

test_06_release_opens_the_namespace_again() {
    nvme resv-release $(rv_dev B) -n 1 --crkey=$RV_KEY_B --rtype=1 --rrela=0 || fail "release"
    local out; out=$(rv_io A write) || fail "write after the release: $out"
    rv_report A > $RV_STATE/r.json || fail "report"
    cat $RV_STATE/r.json
    expect_eq "report after the release" "$(rv_summary)" "0 1 3 - - 65535 0"
    "$NVMF_ROOT/build/nvmf-targetctl" -s $RV_STATE/rpc.sock namespace reservation $RV_SUB 1 ||
        fail "nvmf-targetctl namespace reservation"
}

test_07_with_ptpl_the_reservation_outlives_a_restart() {
    # A registers again, asking to persist through power loss, and takes Exclusive Access.
    nvme resv-register $(rv_dev A) -n 1 --nrkey=$RV_KEY_A --rrega=0 --cptpl=3 || fail "register with PTPL"
    nvme resv-acquire $(rv_dev A) -n 1 --crkey=$RV_KEY_A --rtype=2 --racqa=0 || fail "acquire"
    [ -s $RV_STATE/config.json.resv.json ] || fail "no state file written"
    cat $RV_STATE/config.json.resv.json
    nvme disconnect -n $RV_SUB > /dev/null
    nvmf_target_stop $RV_STATE || fail "target did not stop"
    nvmf_target_start $RV_STATE || fail "target did not start again"
    grep 'reservation restored' $RV_STATE/target.log || fail "the start did not restore the reservation"
    rv_connect A || fail "connect A after the restart"
    rv_connect B || fail "connect B after the restart"
    rv_report B > $RV_STATE/r.json || fail "report after the restart"
    cat $RV_STATE/r.json
    # Exclusive Access held by A, B still registered, generation 4 (A's register), PTPL on
    expect_eq "report after the restart" "$(rv_summary)" "2 2 4 ${RV_ID_A//-/} $((RV_KEY_A)) 65535 1"
    local out rc
    out=$(rv_io B read); rc=$?
    rv_expect_conflict "host B's read under Exclusive Access after the restart" "$out" $rc
    out=$(rv_io A read) || fail "the holder's read after the restart: $out"
}

test_99_clear_and_stop() {
    nvme resv-release $(rv_dev A) -n 1 --crkey=$RV_KEY_A --rrela=1 || fail "clear"
    nvme disconnect -n $RV_SUB > /dev/null
    nvmf_target_stop $RV_STATE || fail "target did not stop"
    expect_eq "target exit status" "$(cat $RV_STATE/target.rc)" 0
}
