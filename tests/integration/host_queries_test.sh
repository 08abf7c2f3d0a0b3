# What another host's tools ask of our target, through the stock kernel host over RDMA:
# with discovery.nqn set, a plain `nvme discover` (the well-known discovery NQN) is
# answered; a port's param.mdts is the MDTS its controllers report, and the host splits
# its I/O by it; every Identify, Get Log Page and Get Features nvme-cli offers succeeds
# without adding an error log entry, except the features the target does not have
# (Invalid Field in Command, one error log entry each, never a transport error), and the
# mandatory features a fabric controller has (Arbitration, Power Management, Temperature
# Threshold, Error Recovery, ...: what SPDK's identify reads) are all answered.

ST=/tmp/host-queries-test
SUB=nqn.2026-12.io.nvmf-rdma:queries
UDISC=nqn.2026-12.io.nvmf-rdma:unique-discovery
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0c1e7a5e-0000-4000-8000-0000000a11ce

setup_file() {
    mkdir -p $ST
    cat > $ST/config.json <<JSON
{"discovery": {"nqn": "$UDISC"},
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4420", "trtype": "rdma"},
            "param": {"mdts": "5"}, "subsystems": ["$SUB"]}],
 "subsystems": [{"nqn": "$SUB", "attr": {"allow_any_host": "1"},
   "passthru": [{"admin_timeout": 0, "clear_ids": 1, "device": {"path": ""}, "enable": 0, "io_timeout": 0}],
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "16M",
                   "resv": {"enable": "1"}}]}]}
JSON
    nvmf_target_start $ST || fail "target did not start"
}

teardown_file() {
    nvme disconnect -n $SUB > /dev/null 2>&1
    nvmf_target_stop $ST
}

test_01_plain_discover_reaches_a_discovery_service_with_its_own_nqn() {
    nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -q $HOSTNQN > $ST/disc.txt 2>&1 ||
        { cat $ST/disc.txt; fail "nvme discover (the well-known NQN) was refused"; }
    cat $ST/disc.txt
    grep -q "Number of Records 2," $ST/disc.txt || fail "2 records expected (discovery, $SUB)"
    grep -q "subnqn: *$UDISC" $ST/disc.txt || fail "the discovery entry does not name $UDISC"
    grep -q "subnqn: *$SUB" $ST/disc.txt || fail "no entry for $SUB"
}

# The error log's entry count, from the SMART log (Number of Error Information Log Entries).
err_count() { nvme smart-log "$1" | awk -F: '/^num_err_log_entries/ { gsub(/[ ,]/, "", $2); print $2 }'; }

test_02_port_mdts_is_reported_and_the_host_splits_by_it() {
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB -q $HOSTNQN > /dev/null || fail "connect"
    local c; c=$(nvme_ctrl_for $SUB) || fail "no controller of $SUB"
    wait_for 15 test -b /dev/${c}n1 || fail "no namespace on $c"
    expect_eq "Identify Controller MDTS" "$(nvme id-ctrl /dev/$c | awk -F: '/^mdts/ { gsub(/ /, "", $2); print $2 }')" 5
    # 2^5 x 4 KiB = 128 KiB: what the kernel host lets one command move.
    expect_eq "max_hw_sectors_kb" "$(cat /sys/block/${c}n1/queue/max_hw_sectors_kb)" 128
    head -c 1M /dev/urandom > $ST/data.bin
    dd if=$ST/data.bin of=/dev/${c}n1 bs=1M count=1 oflag=direct status=none || fail "1 MiB write"
    dd if=/dev/${c}n1 of=$ST/back.bin bs=1M count=1 iflag=direct status=none || fail "1 MiB read"
    cmp $ST/data.bin $ST/back.bin || fail "data read back differs"
    expect_eq "error log entries after the connect and I/O" "$(err_count /dev/$c)" 0
}

# Features nvme-cli 2.3 names (1h-1Fh, the metadata ones, 80h-84h) that the target has,
# and those it does not (Invalid Field in Command). 81h is asked with EXHID (the 128-bit
# host ID, the only one there is); 82h and 83h are namespace specific (asked of nsid 1).
HAVE="1 2 4 5 6 7 a b f 81"
NOT="3 8 9 c d e 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f 7d 7e 7f 80 84"

test_03_nvme_cli_queries_and_mandatory_features_add_no_error_log_entry() {
    local c; c=$(nvme_ctrl_for $SUB) || fail "no controller of $SUB"
    local d=/dev/$c n=/dev/${c}n1
    nvme id-ctrl $d > /dev/null || fail "id-ctrl"
    nvme id-ns $n > /dev/null || fail "id-ns"
    nvme ns-descs $n > /dev/null || fail "ns-descs"
    nvme list-ns $d > /dev/null || fail "list-ns"
    nvme nvm-id-ctrl $d > /dev/null || fail "nvm-id-ctrl"
    nvme nvm-id-ns $n > /dev/null || fail "nvm-id-ns"
    # nvme-cli 2.3 sends NSID 0 here unless told (Invalid Namespace is right for that).
    nvme cmdset-ind-id-ns $n -n 1 > /dev/null || fail "cmdset-ind-id-ns"
    nvme error-log $d > /dev/null || fail "error-log"
    nvme smart-log $d > /dev/null || fail "smart-log"
    nvme fw-log $d > /dev/null || fail "fw-log"
    nvme effects-log $d > /dev/null || fail "effects-log"
    nvme ana-log $d > /dev/null || fail "ana-log"
    nvme changed-ns-list-log $d > /dev/null || fail "changed-ns-list-log"
    nvme resv-notif-log $d > /dev/null || fail "resv-notif-log"
    nvme supported-log-pages $d > /dev/null || fail "supported-log-pages"
    nvme fid-support-effects-log $d > $ST/fid.txt || fail "fid-support-effects-log"
    local f out
    for f in $HAVE; do
        local extra=""
        [ $f = 81 ] && extra="-c 1"
        out=$(nvme get-feature $d -f 0x$f $extra 2>&1) || { echo "$out"; fail "get-feature 0x$f"; }
        echo "$out" | head -n 1
    done
    for f in 82 83; do
        out=$(nvme get-feature $n -f 0x$f -n 1 2>&1) || { echo "$out"; fail "get-feature 0x$f -n 1"; }
        echo "$out" | head -n 1
    done
    # Temperature Threshold: the Composite's over threshold is Identify's WCTEMP, 343 K.
    nvme get-feature $d -f 4 -H | tee $ST/temp.txt
    grep -q "(TMPTH): 70.*C (343 Kelvin)" $ST/temp.txt || fail "TMPTH is not 343 K (70 C)"
    local after; after=$(err_count $d)
    [ "$after" = 0 ] || nvme error-log $d -e 4
    expect_eq "error log entries after every query and the features the target has" "$after" 0
}

test_04_features_the_target_does_not_have_are_invalid_field_one_entry_each() {
    local c; c=$(nvme_ctrl_for $SUB) || fail "no controller of $SUB"
    local d=/dev/$c f out n=0 before; before=$(err_count $d)
    for f in $NOT; do
        out=$(nvme get-feature $d -f 0x$f 2>&1) && { echo "$out"; fail "get-feature 0x$f succeeded"; }
        echo "$out" | grep -q "Invalid Field in Command" ||
            { echo "$out"; fail "get-feature 0x$f: not Invalid Field in Command"; }
        n=$((n + 1))
    done
    # The controller is still the same one, live: no reset, no transport error.
    expect_eq "controller state" "$(cat /sys/class/nvme/$c/state)" live
    expect_eq "error log entries added" "$(( $(err_count $d) - before ))" $n
    nvme error-log $d -e 1 | tee $ST/last-error.txt
    grep -q "status_field.*Invalid Field in Command" $ST/last-error.txt ||
        fail "the newest error log entry is not Invalid Field in Command"
    nvme disconnect -n $SUB > /dev/null || fail "disconnect"
}

test_99_target_stops() {
    nvmf_target_stop $ST
    expect_eq "target exit status" "$(cat $ST/target.rc 2>/dev/null)" 0
}
