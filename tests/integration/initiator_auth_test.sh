# libnvmf's DH-HMAC-CHAP (the `nvmf` tool's -S/-C) against two targets in the same guest
# run with the same secrets: OUR target and the kernel's nvmet-rdma (configfs hosts/NQN/
# dhchap_*). Needs the 6.12 kernel (nvmet built with CONFIG_NVME_TARGET_AUTH), so it runs in
# the 6.12 boot (suite-6.12). The same test list for both targets; a wrong secret must fail
# the same way against both (with one exception the kernel target causes, see test_03).
# Secrets from nvme-cli's gen-dhchap-key.

IA_ST=/tmp/initiator-auth
IA_NVMF="$NVMF_ROOT/build/nvmf"
IA_OURS_PORT=4420
IA_KERN_PORT=4430
IA_OURS_NQN=nqn.2026-12.io.nvmf-rdma:iauth-ours
IA_KERN_NQN=nqn.2026-12.io.nvmf-rdma:iauth-kernel
IA_HOST=nqn.2014-08.org.nvmexpress:uuid:6c1b0e4a-0d5e-4c8e-9f0e-1a2b3c4d5e6f
IA_KHOST="$NVMET_CFS/hosts/$IA_HOST"

ia_port() { [ "$1" = ours ] && echo $IA_OURS_PORT || echo $IA_KERN_PORT; }
ia_nqn()  { [ "$1" = ours ] && echo $IA_OURS_NQN || echo $IA_KERN_NQN; }
ia_key()  { cat "$IA_ST/$1.key"; }
# ia_nvmf TARGET SUBCOMMAND [options]: the tool against TARGET as the configured host.
# Timeout per command 20 s (the library's default 10 s per Authentication Send/Receive
# holds even for ffdhe8192 in the emulated guest; this bounds a hang).
ia_nvmf() {
    local t=$1 cmd=$2; shift 2
    timeout 60 "$IA_NVMF" "$cmd" -a "$NVMF_TRADDR" -s "$(ia_port $t)" -n "$(ia_nqn $t)" -q $IA_HOST "$@"
}

# Our target and the kernel target, with the same secrets, that every test of this file uses
# (run-suite runs this before the first test).
setup_file() {
    mkdir -p $IA_ST
    local n
    # host: the host's secret (SHA-256 transformed), ctrl: the controller's (SHA-384),
    # wrong: a valid secret neither target has.
    for n in host:1 ctrl:2 wrong:1; do
        nvme gen-dhchap-key --hmac=${n#*:} --nqn $IA_HOST > $IA_ST/${n%%:*}.key || fail "gen-dhchap-key ${n%%:*}"
    done
    cat > $IA_ST/config.json <<JSON
{"hosts": [{"nqn": "$IA_HOST", "dhchap": {"key": "$(ia_key host)", "ctrl_key": "$(ia_key ctrl)",
                                          "hash": "hmac(sha384)", "dhgroup": "ffdhe2048"}}],
 "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$NVMF_TRADDR", "trsvcid": "$IA_OURS_PORT", "trtype": "rdma"},
            "subsystems": ["$IA_OURS_NQN"]}],
 "subsystems": [{"nqn": "$IA_OURS_NQN", "allowed_hosts": ["$IA_HOST"], "attr": {"allow_any_host": "0"},
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "64M"}]}]}
JSON
    chmod 600 $IA_ST/config.json
    nvmf_target_start $IA_ST || fail "our target did not start"
    knvmet_clear
    nullb_remove nullb_iauth
    local nb; nb=$(nullb_create nullb_iauth 64) || fail "null_blk"
    knvmet_add_subsys $IA_KERN_NQN "$nb" 1 || fail "kernel subsystem"
    # The kernel target authenticates only hosts of a subsystem that is not open to all.
    echo 0 > "$NVMET_CFS/subsystems/$IA_KERN_NQN/attr_allow_any_host"
    mkdir "$IA_KHOST" || fail "kernel host entry"
    ia_key host > "$IA_KHOST/dhchap_key" || fail "kernel dhchap_key"
    ia_key ctrl > "$IA_KHOST/dhchap_ctrl_key" || fail "kernel dhchap_ctrl_key"
    echo "hmac(sha384)" > "$IA_KHOST/dhchap_hash" || fail "kernel dhchap_hash"
    echo ffdhe2048 > "$IA_KHOST/dhchap_dhgroup" || fail "kernel dhchap_dhgroup"
    ln -s "$IA_KHOST" "$NVMET_CFS/subsystems/$IA_KERN_NQN/allowed_hosts/$IA_HOST" || fail "allowed host"
    knvmet_add_port 8 "$NVMF_TRADDR" $IA_KERN_PORT $IA_KERN_NQN || fail "kernel port"
}

# After the last test, whatever happened: nothing of this file left for the next one.
teardown_file() {
    nvmf_target_stop $IA_ST
    knvmet_clear
    nullb_remove nullb_iauth
    true
}

test_00_start_both_targets_with_the_same_secrets() {
    grep -q 'nvmf-target: core: ready' $IA_ST/target.log || fail "our target did not say it is ready"
    [ -d "$NVMET_CFS/subsystems/$IA_KERN_NQN" ] || fail "no kernel subsystem $IA_KERN_NQN"
}

# check_rw TARGET SEED [options]: 64 KiB of random data written and read back through the
# tool, authenticated as the options say; the -v line must name the hash and group.
check_rw() {
    local t=$1 seed=$2 want=$3; shift 3
    dd if=/dev/urandom of=$IA_ST/pat-$t bs=64k count=1 status=none
    ia_nvmf $t write --slba $((seed * 128)) -i $IA_ST/pat-$t -v "$@" 2> $IA_ST/write-$t.err ||
        { cat $IA_ST/write-$t.err; fail "$t: authenticated write"; }
    grep -q "$want" $IA_ST/write-$t.err || { cat $IA_ST/write-$t.err; fail "$t: connect did not say '$want'"; }
    ia_nvmf $t read --slba $((seed * 128)) --nlb 128 -o $IA_ST/back-$t "$@" || fail "$t: authenticated read"
    cmp $IA_ST/pat-$t $IA_ST/back-$t || fail "$t: data read back differs"
    echo "$t: $want; 64 KiB written and read back"
}

test_01_bidirectional_to_both_targets_moves_data() {
    local t
    for t in ours kernel; do
        check_rw $t 1 "authenticated (DH-HMAC-CHAP hmac(sha384) ffdhe2048, bidirectional)" \
            -S "$(ia_key host)" -C "$(ia_key ctrl)"
    done
}

test_02_unidirectional_to_both_targets_with_secrets_from_the_environment() {
    local t
    for t in ours kernel; do
        NVMF_DHCHAP_SECRET="$(ia_key host)" check_rw $t 2 \
            "authenticated (DH-HMAC-CHAP hmac(sha384) ffdhe2048, unidirectional)"
    done
}

# ia_refused TARGET WHAT [options]: the tool exits 1 with one line; prints what follows
# "connect to ADDR:PORT (NQN): " so both targets' answers can be compared.
ia_refused() {
    local t=$1 name=$2; shift 2
    local rc=0
    ia_nvmf $t identify "$@" > /dev/null 2> $IA_ST/$name-$t.err || rc=$?
    [ $rc = 1 ] || { cat $IA_ST/$name-$t.err; fail "$t: $name: exit status $rc, want 1"; }
    [ "$(wc -l < $IA_ST/$name-$t.err)" = 1 ] || { cat $IA_ST/$name-$t.err; fail "$t: $name: not one line"; }
    sed "s/^nvmf: connect to [^ ]* ([^)]*): //; s/Connect of queue 0 to [^ ]* as [^ ]*: //" $IA_ST/$name-$t.err
}

test_03_wrong_secrets_fail_the_same_way_against_both() {
    local o k name want
    for name in wrong-host wrong-ctrl none; do
        case $name in
            wrong-host) set -- -S "$(ia_key wrong)"; want="AUTH_Failure1, authentication failed (reason code 01h, explanation 01h)" ;;
            wrong-ctrl) set -- -S "$(ia_key host)" -C "$(ia_key wrong)"; want="the controller's response (R2) is wrong" ;;
            none) set --; want="requires in-band authentication" ;;
        esac
        o=$(ia_refused ours $name "$@") || exit 1
        k=$(ia_refused kernel $name "$@") || exit 1
        echo "$name: $o"
        case "$o" in *"$want"*) ;; *) fail "ours, $name: '$o' lacks '$want'" ;; esac
        # The same words from both, the subsystem NQN aside. Except that the kernel target
        # sometimes ends the association after a wrong Reply before its AUTH_Failure1
        # reaches the host (nvmet's fatal error on the failed queue races the answer): then
        # the library says the connection went away and what that most likely means.
        if [ "${o//$IA_OURS_NQN/NQN}" != "${k//$IA_KERN_NQN/NQN}" ]; then
            case "$name:$k" in
                "wrong-host:"*"instead of answering our Reply: it most likely refused the host secret"*)
                    echo "kernel, $name: $k" ;;
                *) fail "$name: our target's refusal '$o' vs the kernel target's '$k'" ;;
            esac
        fi
    done
    grep -q "failed authentication on queue 0: wrong response (R1)" $IA_ST/target.log ||
        fail "our target did not log the wrong response"
    grep -q "the host sent AUTH_Failure2" $IA_ST/target.log ||
        fail "our target did not log the host's refusal of it"
}

test_04_kernel_target_with_every_hash_and_more_groups() {
    local p h g
    # The kernel target takes a changed hash and group from the next controller on.
    for p in sha256:null sha512:ffdhe4096 sha256:ffdhe8192; do
        h="hmac(${p%%:*})"; g=${p#*:}
        echo "$h" > "$IA_KHOST/dhchap_hash" || fail "kernel dhchap_hash $h"
        echo "$g" > "$IA_KHOST/dhchap_dhgroup" || fail "kernel dhchap_dhgroup $g"
        check_rw kernel 3 "authenticated (DH-HMAC-CHAP $h $g, bidirectional)" \
            -S "$(ia_key host)" -C "$(ia_key ctrl)"
    done
}

test_05_stop_both_targets() {
    nvmf_target_stop $IA_ST || fail "our target did not stop"
    expect_eq "our target's exit status" "$(cat $IA_ST/target.rc)" 0
    grep -q "DHHC-1" $IA_ST/target.log && fail "a secret is in our target's log"
    knvmet_clear
    nullb_remove nullb_iauth
    rm -rf $IA_ST
    return 0
}
