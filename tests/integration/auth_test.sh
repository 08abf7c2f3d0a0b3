# In-band authentication (DH-HMAC-CHAP) with the stock Linux host: this file needs a
# kernel with CONFIG_NVME_HOST_AUTH, so it runs in its own guest booting Debian's 6.12
# (tests/integration/suite-6.12, NVMF_VM_KERNEL=6.12); the 6.1 batch leaves it out.
# Secrets come from nvme-cli's gen-dhchap-key. Each pair of hash and DH group tried has
# its own host NQN, whose config entry names that pair: the Linux host offers every hash
# and group, the target takes the configured ones, and the kernel reports them. Every
# hash and each of null, ffdhe2048 and ffdhe8192 is used once (the unit tests,
# tests/unit/target/auth_test.c, go through all nine pairs; here each connect costs the
# emulated guest half a minute).

AU_STATE=/tmp/auth-test
AU_SUB=nqn.2026-12.io.nvmf-rdma:auth
AU_CTL="$NVMF_ROOT/build/nvmf-targetctl -s $AU_STATE/rpc.sock"
AU_HOSTS="sha256-null sha384-ffdhe2048 sha512-ffdhe8192"

au_nqn() { echo "nqn.2014-08.org.nvmexpress:uuid:auth-$1"; }
au_key() { cat "$AU_STATE/$1.key"; }
# au_connect NAME [nvme connect options]: connect host NAME to the subsystem. KATO 60 s:
# in the emulated guest an ffdhe8192 exchange keeps the host computing for longer than
# the default 5 s between two commands (on real CPUs it takes milliseconds).
au_connect() {
    local n=$1; shift
    timeout 300 nvme connect -t rdma -a "$NVMF_TRADDR" -s 4420 -n $AU_SUB -q "$(au_nqn $n)" -k 60 "$@"
}
au_dev() { nvme_dev_for $AU_SUB; }
au_no_dev() { ! au_dev; }
au_disconnect() { nvme disconnect -n $AU_SUB > /dev/null 2>&1; wait_for 20 au_no_dev; }
# Reads and writes the namespace has served.
au_io_count() {
    $AU_CTL --json stats namespaces --nqn $AU_SUB --nsid 1 | jq '.namespaces[0].reads + .namespaces[0].writes'
}

# The target with keys from nvme gen-dhchap-key that every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $AU_STATE
    local n hosts="" allowed="" h g
    for n in $AU_HOSTS ctrl wrong bidi rotated; do   # (nvme-cli starts slowly in the guest: few keys)
        # --hmac 1: the secret is transformed with SHA-256 (NN 01), as nvme-cli's default use.
        nvme gen-dhchap-key --hmac=1 --nqn "$(au_nqn $n)" > $AU_STATE/$n.key || fail "gen-dhchap-key for $n"
        grep -q '^DHHC-1:01:' $AU_STATE/$n.key || fail "unexpected secret format: $(cut -c1-10 $AU_STATE/$n.key)"
    done
    for n in $AU_HOSTS; do
        h="hmac(${n%%-*})"; g="${n#*-}"
        hosts+="{\"nqn\": \"$(au_nqn $n)\", \"dhchap\": {\"key\": \"$(au_key $n)\", \"ctrl_key\": \"\", \"hash\": \"$h\", \"dhgroup\": \"$g\"}},"
        allowed+="\"$(au_nqn $n)\","
    done
    # bidi: bidirectional, the controller key is ctrl's secret.
    hosts+="{\"nqn\": \"$(au_nqn bidi)\", \"dhchap\": {\"key\": \"$(au_key bidi)\", \"ctrl_key\": \"$(au_key ctrl)\", \"hash\": \"hmac(sha384)\", \"dhgroup\": \"ffdhe3072\"}}"
    allowed+="\"$(au_nqn bidi)\""
    cat > $AU_STATE/config.json <<JSON
{
  "hosts": [$hosts],
  "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "0.0.0.0", "trsvcid": "4420", "trtype": "rdma"},
             "subsystems": ["$AU_SUB"]}],
  "subsystems": [{"nqn": "$AU_SUB", "allowed_hosts": [$allowed], "attr": {"allow_any_host": "0"},
                  "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "64M"}]}]
}
JSON
    chmod 600 $AU_STATE/config.json
    nvmf_target_start $AU_STATE || fail "target did not start"
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    au_disconnect
    nvmf_target_stop $AU_STATE
}

test_00_target_starts_with_keys_from_gen_dhchap_key() {
    grep -q "DHHC-1" $AU_STATE/target.log && fail "a secret is in the target's log"
    return 0
}

test_01_right_secret_connects_with_every_hash_and_group_and_moves_data() {
    local n dev
    for n in $AU_HOSTS; do
        dmesg -C
        au_connect $n --dhchap-secret="$(au_key $n)" > /dev/null || { dmesg | tail -5; fail "$n: connect refused"; }
        wait_for 20 au_dev || fail "$n: no namespace appeared"
        dev=$(au_dev)
        # The kernel says which hash and group the controller chose (ours: the host's entry).
        local want="authenticated with hash hmac(${n%%-*}) dhgroup ${n#*-}"
        dmesg | grep -q "qid 0: $want" || { dmesg | tail -5; fail "$n: the kernel did not log '$want'"; }
        # The kernel logs only the admin queue; the I/O queues pass or fio could not run
        # (before authentication they take nothing but Fabrics commands).
        fio --name=auth --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=8 \
            --size=4M --verify=crc32c --verify_fatal=1 --output=$AU_STATE/fio-$n.txt > /dev/null ||
            { cat $AU_STATE/fio-$n.txt; fail "$n: fio verify failed"; }
        au_disconnect || fail "$n: disconnect"
        echo "$n: connected, $want, fio crc32c verify passed"
    done
}

test_02_host_with_a_key_still_discovers() {
    nvme discover -t rdma -a "$NVMF_TRADDR" -s 4420 -q "$(au_nqn sha256-null)" > $AU_STATE/disc.txt ||
        fail "discover"
    grep -q "subnqn: *$AU_SUB" $AU_STATE/disc.txt || { cat $AU_STATE/disc.txt; fail "subsystem not discovered"; }
}

test_03_wrong_secret_or_none_is_refused_and_no_io_reaches_the_namespace() {
    local before after
    before=$(au_io_count) || fail "namespace stats"
    dmesg -C
    au_connect sha384-ffdhe2048 --dhchap-secret="$(au_key wrong)" > $AU_STATE/wrong.txt 2>&1 &&
        fail "connect with a wrong secret succeeded"
    dmesg | tee $AU_STATE/dmesg-wrong.txt | grep -q "authentication failed" ||
        { tail -5 $AU_STATE/dmesg-wrong.txt; fail "the kernel did not log the authentication failure"; }
    grep -q "failed authentication on queue 0: wrong response (R1)" $AU_STATE/target.log ||
        fail "the target did not log the wrong response"
    dmesg -C
    au_connect sha256-null > $AU_STATE/none.txt 2>&1 && fail "connect without a secret succeeded"
    dmesg | tail -5
    au_no_dev || fail "a block device appeared"
    after=$(au_io_count)
    expect_eq "reads + writes on the namespace across the refused connects" "$after" "$before"
}

test_04_bidirectional_right_controller_secret_connects_wrong_one_is_refused() {
    dmesg -C
    au_connect bidi --dhchap-secret="$(au_key bidi)" --dhchap-ctrl-secret="$(au_key ctrl)" > /dev/null ||
        { dmesg | tail -5; fail "bidirectional connect refused"; }
    wait_for 20 au_dev || fail "no namespace appeared"
    dmesg | grep -q "qid 0: authenticated with hash hmac(sha384) dhgroup ffdhe3072" ||
        { dmesg | tail -5; fail "no bidirectional authentication logged"; }
    # Our side says so too: the log (after the Connect line) and controller list.
    grep -q "host $(au_nqn bidi) authenticated on queue 0 (DH-HMAC-CHAP hmac(sha384) ffdhe3072, bidirectional)" \
        $AU_STATE/target.log || fail "the target did not log the authentication"
    $AU_CTL --json controller list --nqn $AU_SUB > $AU_STATE/ctrls.json || fail "controller list"
    jq -e '.controllers[0].auth == {"hash": "hmac(sha384)", "dhgroup": "ffdhe3072", "bidirectional": true}' \
        $AU_STATE/ctrls.json > /dev/null || { cat $AU_STATE/ctrls.json; fail "controller list does not show the authentication"; }
    # The I/O queues authenticated the same way: none carries an "auth" of its own.
    jq -e '[.controllers[0].queues[] | select(has("auth"))] | length == 0' $AU_STATE/ctrls.json > /dev/null ||
        { cat $AU_STATE/ctrls.json; fail "an I/O queue authenticated otherwise"; }
    dd if=/dev/urandom of=$AU_STATE/pat bs=64k count=1 status=none
    dd if=$AU_STATE/pat of="$(au_dev)" bs=64k oflag=direct status=none || fail "write"
    cmp <(dd if="$(au_dev)" bs=64k count=1 iflag=direct status=none) $AU_STATE/pat || fail "data read back differs"
    au_disconnect || fail "disconnect"
    dmesg -C
    au_connect bidi --dhchap-secret="$(au_key bidi)" --dhchap-ctrl-secret="$(au_key wrong)" > /dev/null 2>&1 &&
        fail "the host accepted a controller with the wrong controller secret"
    dmesg | tail -5
    au_no_dev || fail "a block device appeared"
    wait_for 10 grep -q "the host sent AUTH_Failure2" $AU_STATE/target.log ||
        fail "the target did not log the host's refusal"
}

# au_ctrl_dev: the /sys/class/nvme/nvmeX of the connected controller of the subsystem.
au_ctrl_dev() { local c; c=$(nvme_ctrl_for $AU_SUB) && echo "/sys/class/nvme/$c"; }

# A key changed through the control socket while the host is connected: the live
# association re-authenticates with the new secret (the kernel host re-authenticates
# every queue when its dhchap_secret is written), fio verifying all along; the old
# secret no longer connects.
test_05_key_rotated_through_the_control_socket_applies_to_the_live_association() {
    local n=sha384-ffdhe2048 dev ctrl fio_pid
    dmesg -C
    au_connect $n --dhchap-secret="$(au_key $n)" > /dev/null || fail "connect with the first secret"
    wait_for 20 au_dev || fail "no namespace appeared"
    dev=$(au_dev); ctrl=$(au_ctrl_dev) || fail "no controller in sysfs"
    fio --name=rot --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=8 \
        --size=4M --time_based --runtime=3600 --verify=crc32c --verify_fatal=1 --verify_backlog=64 \
        --output=$AU_STATE/fio-rot.txt > /dev/null &
    fio_pid=$!
    sleep 3
    NVMF_DHCHAP_SECRET="$(au_key rotated)" $AU_CTL host dhchap "$(au_nqn $n)" --hash 'hmac(sha384)' \
        --dhgroup ffdhe2048 > $AU_STATE/rotate.txt || { cat $AU_STATE/rotate.txt; fail "host dhchap"; }
    grep -q "DH-HMAC-CHAP hmac(sha384) ffdhe2048, from the next authentication" $AU_STATE/rotate.txt ||
        fail "unexpected output: $(cat $AU_STATE/rotate.txt)"
    grep -q "DHHC-1" $AU_STATE/target.log && fail "a secret is in the target's log"
    dmesg -C
    # The host takes the new secret and re-authenticates its queues with it.
    au_key rotated > "$ctrl/dhchap_secret" || fail "writing the host's dhchap_secret"
    wait_for 60 sh -c "dmesg | grep -q 'qid 0: authenticated with hash hmac(sha384) dhgroup ffdhe2048'" ||
        { dmesg | tail -8; fail "the live controller did not re-authenticate with the new secret"; }
    sleep 3
    kill -0 $fio_pid 2>/dev/null || { cat $AU_STATE/fio-rot.txt; fail "fio stopped during the rotation"; }
    kill -INT $fio_pid; wait $fio_pid; local rc=$?
    case $rc in 0|128|130) ;; *) cat $AU_STATE/fio-rot.txt; fail "fio exit status $rc" ;; esac
    grep -q "err= 0" $AU_STATE/fio-rot.txt || { cat $AU_STATE/fio-rot.txt; fail "fio verify errors"; }
    dmesg | grep -qi "authentication failed" && { dmesg | tail -8; fail "an authentication failed"; }
    au_disconnect || fail "disconnect"
    echo "re-authenticated with the rotated secret, fio crc32c verify passed throughout"
    # A new association with the old secret is refused; with the new one it connects.
    au_connect $n --dhchap-secret="$(au_key $n)" > /dev/null 2>&1 && fail "the old secret still connects"
    au_no_dev || fail "a block device appeared with the old secret"
    au_connect $n --dhchap-secret="$(au_key rotated)" > /dev/null || fail "the new secret does not connect"
    wait_for 20 au_dev || fail "no namespace with the new secret"
    au_disconnect || fail "disconnect"
}

test_06_target_stops_cleanly() {
    au_disconnect
    nvmf_target_stop $AU_STATE || fail "target did not stop"
    expect_eq "target exit status" "$(cat $AU_STATE/target.rc)" 0
    grep -q "DHHC-1" $AU_STATE/target.log && fail "a secret is in the target's log"
    rm -rf $AU_STATE
    return 0
}
