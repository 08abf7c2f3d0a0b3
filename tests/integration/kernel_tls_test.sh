# NVMe/TCP over TLS 1.3 with the kernel on the other side (Debian's 6.12 guest: 6.1 has no
# NVMe TLS): the stock Linux host against our target, and libnvmf against the kernel's
# nvmet-tcp. The kernel hands its handshakes to tlshd (ktls-utils) and takes PSKs from
# the ".nvme" keyring; Debian 12 packages neither tlshd nor an nvme-cli that inserts TLS
# keys, so both come from Debian 13 through tests/vm/tls-tools (tests/vm/fetch-tls-tools).
# Keys are what nvme-cli 2.13 prints (`gen-tls-key`) and inserts (`check-tls-key
# --insert`, `connect --tls-key`): libnvme 1.13 derives them in its older ("compat")
# layout, which the target is told per host (nvmf_tls_key_compat) or reads off a version 1
# identity's digest, and which our host takes with --tls-compat.

KT_STATE=/tmp/kernel-tls-test
KT_SUB=nqn.2026-12.io.nvmf-rdma:tls
KT_KSUB=nqn.2026-12.io.nvmf-rdma:ktls
KT_PORT=4430 KT_KPORT=4431
KT_TOOLS="$NVMF_ROOT/tests/vm/tls-tools"
KT_NVMF="$NVMF_ROOT/build/nvmf"

kt_nqn() { echo "nqn.2014-08.org.nvmexpress:uuid:ktls-$1"; }
kt_key() { cat "$KT_STATE/$1.key"; }
# Debian 13's nvme-cli (2.13).
kt_nvme() { timeout 120 "$KT_TOOLS" nvme "$@"; }
kt_dev() { nvme_dev_for $KT_SUB; }
kt_no_dev() { ! kt_dev; }
kt_disconnect() { nvme disconnect -n $KT_SUB > /dev/null 2>&1; wait_for 20 kt_no_dev; }
# kt_tlshd_listening: tlshd has joined the kernel's handshake multicast group, i.e. one of
# its generic netlink sockets (/proc/net/netlink: protocol 16, by inode) has a group bit
# set. Until then the kernel refuses every TLS queue with -ESRCH ("failed to start TLS:
# -3"): in the emulated guest tlshd takes seconds to load its libraries and get there.
kt_tlshd_listening() {
    local pid ino
    pid=$(cat $KT_STATE/tlshd.pid 2>/dev/null) || return 1
    for ino in $(ls -l /proc/$pid/fd 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p'); do
        awk -v ino="$ino" '$2 == 16 && $4 != "00000000" && $10 == ino { f = 1 } END { exit !f }' \
            /proc/net/netlink && return 0
    done
    return 1
}
# kt_insert NAME SUBNQN: nvme-cli derives NAME's TLS PSK for SUBNQN and puts it in the
# .nvme keyring under the version 0 identity, as an operator would.
kt_insert() {
    kt_nvme check-tls-key --keydata="$(kt_key $1)" --hostnqn="$(kt_nqn $1)" --subsysnqn="$2" --insert \
        > "$KT_STATE/insert-$1.out" 2>&1 || { cat "$KT_STATE/insert-$1.out"; return 1; }
}
# kt_rw DEV: 1 MiB of random data written with O_DIRECT and read back equal.
kt_rw() {
    head -c 1048576 /dev/urandom > "$KT_STATE/in"
    dd if="$KT_STATE/in" of="$1" bs=64k oflag=direct status=none || fail "write to $1"
    dd if="$1" of="$KT_STATE/out" bs=64k count=16 iflag=direct status=none || fail "read from $1"
    cmp -s "$KT_STATE/in" "$KT_STATE/out" || fail "data read back from $1 differs"
}

# tlshd with the .nvme keyring, our target with a TLS-only port, the kernel target with
# another (run-suite runs this before the first test).
setup_file() {
    mkdir -p $KT_STATE
    [ -x "$NVMF_ROOT/.cache/vm/tls-tools/root/usr/sbin/tlshd" ] ||
        fail "tlshd is not in the cache (scripts/install-deps runs tests/vm/fetch-tls-tools)"
    # kTLS (the "tls" ULP), which tlshd hands the socket to: loaded by tests/vm/guest-init.
    grep -q '^tls ' /proc/modules || fail "module tls not loaded"
    local n
    for n in compat v1 lib wrong; do
        kt_nvme gen-tls-key --hmac=1 > $KT_STATE/$n.key 2> $KT_STATE/gen.err || { cat $KT_STATE/gen.err; fail "gen-tls-key"; }
        grep -q '^NVMeTLSkey-1:01:' $KT_STATE/$n.key || fail "unexpected key format: $(cut -c1-13 $KT_STATE/$n.key)"
        chmod 600 $KT_STATE/$n.key
    done
    printf '[debug]\nloglevel=1\ntls=0\nnl=0\n[authenticate]\nkeyrings=.nvme\n' > $KT_STATE/tlshd.conf
    # tlshd links the .nvme keyring at start: the kernel's NVMe modules must have made it.
    grep -q ' \.nvme: ' /proc/keys || fail ".nvme keyring missing: $(grep keyring /proc/keys)"
    ( "$KT_TOOLS" tlshd -s -c $KT_STATE/tlshd.conf > $KT_STATE/tlshd.log 2>&1 & echo $! > $KT_STATE/tlshd.pid; wait )&
    wait_for 5 test -s $KT_STATE/tlshd.pid || fail "tlshd did not start"
    wait_for 60 kt_tlshd_listening ||
        { cat $KT_STATE/tlshd.log; grep -w 16 /proc/net/netlink; fail "tlshd did not join the kernel's handshake group in 60 s"; }
    # compat: keys inserted by gen/check-tls-key (version 0 identity, compat layout: the
    # entry says so); v1: nvme connect --tls-key (version 1, the digest says it).
    cat > $KT_STATE/config.json <<JSON
{
  "hosts": [{"nqn": "$(kt_nqn compat)", "nvmf_tls_key_file": "$KT_STATE/compat.key", "nvmf_tls_key_compat": true},
            {"nqn": "$(kt_nqn v1)", "nvmf_tls_key_file": "$KT_STATE/v1.key"}],
  "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "$NVMF_TRADDR", "trsvcid": "$KT_PORT",
                                   "trtype": "tcp", "tsas": "tls1.3", "treq": "required"},
             "subsystems": ["$KT_SUB"]}],
  "subsystems": [{"nqn": "$KT_SUB", "allowed_hosts": ["$(kt_nqn compat)", "$(kt_nqn v1)"],
                  "attr": {"allow_any_host": "0"},
                  "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_size_bytes": "16M"}]}]
}
JSON
    chmod 600 $KT_STATE/config.json
    nvmf_target_start $KT_STATE || fail "target did not start"
    local dev
    dev=$(nullb_create ktls0 16) || fail "null_blk"
    knvmet_add_subsys $KT_KSUB "$dev" || fail "kernel subsystem"
    # The security attributes first: nvmet takes them only while no subsystem is linked.
    KNVMET_TRTYPE=tcp knvmet_add_port 31 "$NVMF_TRADDR" $KT_KPORT || fail "kernel port"
    echo tls1.3 > $NVMET_CFS/ports/31/addr_tsas || fail "addr_tsas"
    echo required > $NVMET_CFS/ports/31/addr_treq || fail "addr_treq"
    ln -s $NVMET_CFS/subsystems/$KT_KSUB $NVMET_CFS/ports/31/subsystems/$KT_KSUB || fail "kernel port link"
}

teardown_file() {
    kt_disconnect
    nvmf_target_stop $KT_STATE
    knvmet_clear
    nullb_remove ktls0
    kill "$(cat $KT_STATE/tlshd.pid 2>/dev/null)" 2>/dev/null
    # The keys this file inserted (unlinking a keyring's key leaves nothing behind).
    "$KT_TOOLS" keyctl clear %:.nvme 2>/dev/null
    return 0
}

test_01_linux_host_with_a_key_from_nvme_cli_moves_data_over_tls() {
    kt_insert compat $KT_SUB || fail "check-tls-key --insert"
    kt_nvme connect -t tcp -a "$NVMF_TRADDR" -s $KT_PORT -n $KT_SUB -q "$(kt_nqn compat)" --tls \
        > $KT_STATE/c1.out 2>&1 || { cat $KT_STATE/c1.out; dmesg | tail -5; tail -5 $KT_STATE/tlshd.log; fail "connect --tls refused"; }
    wait_for 20 kt_dev || fail "no namespace appeared"
    kt_rw "$(kt_dev)"
    # Reads at queue depth 8 keep several responses in flight: our sends through kTLS
    # taken in part, and resumed, must still give every byte back (crc32c verify).
    timeout 300 fio --name=tlsverify --filename="$(kt_dev)" --ioengine=libaio --direct=1 \
        --rw=randwrite --bs=128k --iodepth=8 --size=8M --verify=crc32c --do_verify=1 \
        --verify_fatal=1 --output=$KT_STATE/fio.out > /dev/null 2>&1 ||
        { tail -20 $KT_STATE/fio.out; fail "fio crc32c verify over TLS"; }
    grep -q 'verify' $KT_STATE/fio.out && grep -q -i 'err= 0' $KT_STATE/fio.out ||
        { tail -20 $KT_STATE/fio.out; fail "fio reported errors"; }
    grep -q "TLS 1.3 secure channel (TLS_AES_128_GCM_SHA256, PSK of host $(kt_nqn compat) for $KT_SUB derived in the libnvme compat layout" $KT_STATE/target.log ||
        { grep -i tls $KT_STATE/target.log; fail "no secure channel in the target's log"; }
    kt_disconnect || fail "disconnect"
}

# The 6.12 guest has the "tls" module: OpenSSL hands our transmit direction to the kernel
# (kTLS); receive stays in user space (OpenSSL 3.0 has no TLS 1.3 receive offload).
test_02_our_target_sends_its_records_through_kernel_tls() {
    grep -q "PSK of host $(kt_nqn compat) for $KT_SUB.*; records sent by the kernel (kTLS), received in user space)" $KT_STATE/target.log ||
        { grep 'secure channel' $KT_STATE/target.log; fail "the channel's records are not sent by kTLS"; }
}

test_03_linux_host_with_tls_key_on_the_command_line_uses_a_version_1_identity() {
    local before
    before=$(grep -c 'TLS 1.3 secure channel' $KT_STATE/target.log)
    kt_nvme connect -t tcp -a "$NVMF_TRADDR" -s $KT_PORT -n $KT_SUB -q "$(kt_nqn v1)" --tls --tls-key="$(kt_key v1)" \
        > $KT_STATE/c2.out 2>&1 || { cat $KT_STATE/c2.out; dmesg | tail -5; grep -i tls $KT_STATE/target.log | tail -3; fail "connect --tls-key refused"; }
    wait_for 20 kt_dev || fail "no namespace appeared"
    kt_rw "$(kt_dev)"
    [ "$(grep -c 'TLS 1.3 secure channel' $KT_STATE/target.log)" -gt "$before" ] || fail "no new secure channel logged"
    # No nvmf_tls_key_compat for this host: the identity's digest told the layout.
    grep -q "PSK of host $(kt_nqn v1) for $KT_SUB derived in the libnvme compat layout" $KT_STATE/target.log ||
        fail "the channel is not the v1 host's, in the compat layout"
    kt_disconnect || fail "disconnect"
}

test_04_linux_host_with_a_wrong_key_is_refused_and_the_target_says_why() {
    # The compat host's identity with another configured key's PSK behind it.
    "$KT_TOOLS" keyctl clear %:.nvme || fail "keyctl clear"
    kt_nvme check-tls-key --keydata="$(kt_key wrong)" --hostnqn="$(kt_nqn compat)" --subsysnqn=$KT_SUB --insert \
        > /dev/null 2>&1 || fail "insert the wrong key"
    kt_nvme connect -t tcp -a "$NVMF_TRADDR" -s $KT_PORT -n $KT_SUB -q "$(kt_nqn compat)" --tls \
        > $KT_STATE/c3.out 2>&1 && { kt_disconnect; fail "a wrong PSK connected"; }
    kt_dev && fail "a namespace appeared with a wrong PSK"
    grep -q 'TLS handshake refused: wrong PSK' $KT_STATE/target.log ||
        { grep -i tls $KT_STATE/target.log | tail -3; fail "the target does not log the wrong PSK"; }
}

test_05_linux_host_without_tls_is_refused_by_a_tls_only_port() {
    nvme connect -t tcp -a "$NVMF_TRADDR" -s $KT_PORT -n $KT_SUB -q "$(kt_nqn compat)" > /dev/null 2>&1 &&
        { kt_disconnect; fail "a plain connection to a TLS-only port connected"; }
    kt_dev && fail "a namespace appeared"
    grep -q 'a plain connection (no TLS ClientHello) to a port that' $KT_STATE/target.log || { tail -5 $KT_STATE/target.log; fail "the refusal is not logged"; }
    return 0
}

test_06_libnvmf_over_tls_to_the_kernel_target() {
    kt_insert lib $KT_KSUB || fail "check-tls-key --insert"
    head -c 262144 /dev/urandom > $KT_STATE/lin
    timeout 120 "$KT_NVMF" write -t tcp -a "$NVMF_TRADDR" -s $KT_KPORT -n $KT_KSUB -q "$(kt_nqn lib)" \
        --tls-key-file $KT_STATE/lib.key --tls-compat --offset 65536 -i $KT_STATE/lin 2> $KT_STATE/l1.err ||
        { cat $KT_STATE/l1.err; tail -5 $KT_STATE/tlshd.log; dmesg | tail -5; fail "write over TLS to nvmet-tcp"; }
    timeout 120 "$KT_NVMF" read -t tcp -a "$NVMF_TRADDR" -s $KT_KPORT -n $KT_KSUB -q "$(kt_nqn lib)" \
        --tls-key-file $KT_STATE/lib.key --tls-compat --offset 65536 --length 262144 -o $KT_STATE/lout 2> $KT_STATE/l2.err ||
        { cat $KT_STATE/l2.err; fail "read over TLS from nvmet-tcp"; }
    cmp -s $KT_STATE/lin $KT_STATE/lout || fail "data read back over TLS differs"
    # And the block device itself holds it: the kernel target wrote what libnvmf sent.
    cmp -s $KT_STATE/lin <(dd if=/dev/ktls0 bs=64k skip=1 count=4 iflag=direct status=none) ||
        fail "null_blk does not hold the data"
}

test_07_libnvmf_with_the_other_layout_is_refused_with_one_clear_message() {
    timeout 120 "$KT_NVMF" identify -t tcp -a "$NVMF_TRADDR" -s $KT_KPORT -n $KT_KSUB -q "$(kt_nqn lib)" \
        --tls-key-file $KT_STATE/lib.key > /dev/null 2> $KT_STATE/l3.err && fail "a PSK of the other layout connected"
    grep -q -i 'tls' $KT_STATE/l3.err || { cat $KT_STATE/l3.err; fail "the error does not name TLS"; }
    [ "$(wc -l < $KT_STATE/l3.err)" -le 2 ] || { cat $KT_STATE/l3.err; fail "more than one message"; }
    grep -q 'NVMeTLSkey' $KT_STATE/l3.err && fail "the key is in the message"
    return 0
}
