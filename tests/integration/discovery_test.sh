# The discovery service under the stock kernel host (6.1 batch): `nvme discover` and
# `nvmf discover` show the discovery subsystem's own entry (subtype 3) and the configured
# referrals (a disabled one is not listed); a discovery connection made with KATO 0 and
# then abandoned (its process stopped, so nothing more is sent) is freed after the
# configured nvmf_target.discovery_kato; a host connects and nvme-cli's id-ctrl, id-ns,
# list-subsys, ana-log, resv-report (--eds: the host ID is 128 bits), error-log and
# effects-log add no entry to the controller's error log (the kernel's connect, Identify
# CNS 06h included, neither).

ST=/tmp/discovery-test
CTL="$NVMF_ROOT/build/nvmf-targetctl -s $ST/rpc.sock"
NVMF="$NVMF_ROOT/build/nvmf"
SUB=nqn.2026-12.io.nvmf-rdma:disc
DISC=nqn.2014-08.org.nvmexpress.discovery
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0c1e7a5e-0000-4000-8000-00000000d15c
STOPPED_HOST=nqn.2026-12.io.nvmf-rdma:silent-host

# The target with referrals and a short discovery KATO that every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $ST
    cat > $ST/config.json <<JSON
{"nvmf_target": {"discovery_kato": 20},
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4420", "trtype": "rdma"},
            "subsystems": ["$SUB"],
            "referrals": [
              {"addr": {"adrfam": "ipv4", "portid": "5", "traddr": "10.99.0.1", "treq": "not specified",
                        "trsvcid": "8009", "trtype": "tcp"}, "enable": 1, "name": "west"},
              {"addr": {"adrfam": "ipv6", "portid": "6", "traddr": "fd00::99", "treq": "not specified",
                        "trsvcid": "4420", "trtype": "rdma"}, "enable": 0, "name": "off"}]}],
 "subsystems": [{"nqn": "$SUB", "attr": {"allow_any_host": "1"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "64M",
                   "resv": {"enable": "1"}}]}]}
JSON
    nvmf_target_start $ST || fail "target did not start"
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    nvme disconnect -n $SUB > /dev/null 2>&1
    nvmf_target_stop $ST
}

test_00_target_starts_with_referrals_and_a_short_discovery_kato() {
    grep -q 'nvmf-target: core: ready' $ST/target.log || fail "the target did not say it is ready"
}

test_01_nvme_discover_shows_the_discovery_subsystem_and_the_referral() {
    nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -q $HOSTNQN > $ST/disc.txt || fail "nvme discover"
    cat $ST/disc.txt
    grep -q "Number of Records 3," $ST/disc.txt || fail "3 records expected (discovery, $SUB, one referral)"
    # Entry by entry: the subtype line, then the ones that follow it.
    awk '/^=====/{if(e)print e; e=""} /^(subtype|subnqn|traddr|trsvcid|trtype|portid|eflags):/{sub(/^[a-z]+: +/,""); e=e "|" $0} END{print e}' \
        $ST/disc.txt > $ST/entries.txt
    cat $ST/entries.txt
    grep -qx "|rdma|current discovery subsystem|1|4420|$DISC|$NVMF_TRADDR|explicit discovery connections, duplicate discovery information" \
        $ST/entries.txt || fail "no current discovery subsystem entry on port 1"
    grep -qx "|rdma|nvme subsystem|1|4420|$SUB|$NVMF_TRADDR|none" $ST/entries.txt || fail "no entry for $SUB"
    grep -qx "|tcp|discovery subsystem referral|5|8009|$DISC|10.99.0.1|none" $ST/entries.txt ||
        fail "no referral entry for 10.99.0.1:8009 (tcp, port 5)"
    ! grep -q "fd00::99" $ST/disc.txt || fail "the disabled referral is listed"
}

test_02_nvmf_discover_shows_the_same_entries() {
    "$NVMF" discover -a "$NVMF_TRADDR" -q $HOSTNQN > $ST/nvmf-disc.txt || fail "nvmf discover"
    cat $ST/nvmf-disc.txt
    grep -q "subtype: current discovery subsystem" $ST/nvmf-disc.txt || fail "no subtype 3 entry"
    grep -q "subtype: discovery subsystem referral" $ST/nvmf-disc.txt || fail "no referral entry"
    local a b
    a=$(grep -E '^(subtype|subnqn|traddr|trsvcid|portid|eflags):' $ST/disc.txt)
    b=$(grep -E '^(subtype|subnqn|traddr|trsvcid|portid|eflags):' $ST/nvmf-disc.txt)
    expect_eq "entries (nvmf vs nvme-cli)" "$b" "$a"
}

listed() { $CTL --json controller list --nqn $DISC | grep -q "\"hostnqn\": \"$STOPPED_HOST\""; }

test_03_abandoned_discovery_controller_is_freed_after_discovery_kato() {
    # The controller's last command (the log read) comes after t0, so it cannot be freed
    # before t0 + KATO, however slow the guest is; after the host stops it must go within
    # the KATO and some slack.
    local t0=$SECONDS
    "$NVMF" discover -a "$NVMF_TRADDR" -q $STOPPED_HOST --hold 300 > $ST/held.txt 2>&1 &
    local pid=$!
    wait_for 15 listed || { cat $ST/held.txt; kill $pid; fail "the discovery controller is not listed"; }
    kill -STOP $pid              # the host is alive but sends nothing from now on
    local stopped=$SECONDS
    $CTL --json controller list --nqn $DISC | tee $ST/ctrls.json
    grep -q '"kato_ms": 20000' $ST/ctrls.json || { kill -CONT $pid; kill $pid; fail "KATO is not the configured 20 s"; }
    wait_for 45 sh -c "! $CTL --json controller list --nqn $DISC | grep -q '$STOPPED_HOST'" ||
        { kill -CONT $pid; kill $pid; fail "still listed $((SECONDS - stopped)) s after the host went silent"; }
    local gone=$((SECONDS - t0))
    echo "freed $gone s after the discovery started, $((SECONDS - stopped)) s after the host went silent (KATO 20 s)"
    grep "keep-alive timeout" $ST/target.log | tail -n 1
    kill -CONT $pid; kill $pid; wait $pid 2>/dev/null
    [ $gone -ge 20 ] || fail "freed $gone s after the discovery started: before its 20 s KATO"
}

# The error log's entry count, from the SMART log (Number of Error Information Log Entries).
err_count() { nvme smart-log "$1" | awk -F: '/^num_err_log_entries/ { gsub(/[ ,]/, "", $2); print $2 }'; }

test_04_connect_and_nvme_cli_queries_add_no_error_log_entry() {
    nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $SUB -q $HOSTNQN > /dev/null || fail "connect"
    local c
    c=/dev/$(nvme_ctrl_for $SUB) || fail "no controller of $SUB"
    wait_for 15 test -b ${c}n1 || fail "no namespace on $c"
    nvme smart-log $c | grep -i err
    local before; before=$(err_count $c)
    [ "$before" = 0 ] || nvme error-log $c -e 4
    expect_eq "error log entries right after the connect" "$before" 0
    nvme id-ctrl $c > /dev/null || fail "id-ctrl"
    nvme id-ns ${c}n1 > /dev/null || fail "id-ns"
    nvme list-subsys > /dev/null || fail "list-subsys"
    nvme ana-log $c > $ST/ana-log.txt || fail "ana-log"
    grep -q "optimized" $ST/ana-log.txt || { cat $ST/ana-log.txt; fail "ana-log shows no optimized group"; }
    nvme resv-report ${c}n1 --eds > /dev/null || fail "resv-report --eds"
    nvme error-log $c > /dev/null || fail "error-log"
    nvme effects-log $c > /dev/null || fail "effects-log"
    local after; after=$(err_count $c)
    [ "$after" = 0 ] || nvme error-log $c -e 4
    expect_eq "error log entries after id-ctrl, id-ns, list-subsys, ana-log, resv-report, error-log, effects-log" "$after" 0
    # What CNS 06h told the host: Write Zeroes up to 32 MiB (WZSL 13), not MDTS's 1 MiB.
    expect_eq "write_zeroes_max_bytes" "$(cat /sys/block/$(basename ${c}n1)/queue/write_zeroes_max_bytes)" 33554432
    nvme disconnect -n $SUB > /dev/null || fail "disconnect"
}

test_99_target_stops() {
    nvmf_target_stop $ST
    expect_eq "target exit status" "$(cat $ST/target.rc 2>/dev/null)" 0
}
