#!/usr/bin/env bash
# NVMe/TCP with TLS 1.3 and pre-shared keys on this machine, no VM and no root (make
# local-check): build/nvmf-target serves a RAM namespace on three tcp ports of 127.0.0.1,
# one requiring TLS (addr.tsas "tls1.3"), one where the host chooses (treq "not required")
# and one without TLS; keys come from `nvme gen-tls-key` (nvme-cli), one host's in a 0600
# key file, another's inline in the 0600 configuration, one SHA-384. The nvmf tool writes
# and reads back through the secure channel (identity versions 0 and 1, both hashes,
# digests on), discovers the ports' TSAS, and is refused with one clear message for a
# wrong PSK, a host without a PSK, a plain connection to the TLS-only port, a key given
# without -t tcp; independent clients (openssl s_client) restricted to TLS 1.2, offering no
# PSK, or sending garbage, and a client that stalls its handshake, are each refused with a
# log line naming why while a host keeps working; configuration mistakes (a key file or a
# configuration others can read, a bad CRC, both key keys, treq "required" without TLS,
# tls1.3 on an rdma port) are refused naming the key and never showing the secret; config
# show hides an inline key; a reload that changes a host's key refuses the old one from
# the next connection. libnvme's older "compat" derivation (nvme-cli <= 2.15): --tls-compat
# to a host entry with nvmf_tls_key_compat (identities 0 and 1) and to one set live with
# host tls-key --compat; a compat host to an RFC 8446 entry (identity 0 refused, 1 told by
# its digest); an RFC 8446 host to a compat entry (identity 0 refused). Each check prints "ok - what" or "FAIL - what"; exit 1 if any
# failed. BUILD=build/asan runs the sanitizer build.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
TGT="$ROOT/$BUILD/nvmf-target"
NVMF="$ROOT/$BUILD/nvmf"
CTL="$ROOT/$BUILD/nvmf-targetctl"
NQN=nqn.2024-01.io.nvmf-rdma:tls-local
H1=nqn.2014-08.org.nvmexpress:uuid:11111111-1111-4111-8111-111111111111
H2=nqn.2014-08.org.nvmexpress:uuid:22222222-2222-4222-8222-222222222222
H3=nqn.2014-08.org.nvmexpress:uuid:33333333-3333-4333-8333-333333333333
H6=nqn.2014-08.org.nvmexpress:uuid:66666666-6666-4666-8666-666666666666
ST=$(mktemp -d /tmp/nvmf-tls-local.XXXXXX)
chmod 700 "$ST"
TGT_PID=
BG=
FAILED=0
read -r EPH_LO _ < /proc/sys/net/ipv4/ip_local_port_range

cleanup() {
    [ -n "$BG" ] && kill $BG 2>/dev/null
    [ -n "$TGT_PID" ] && kill "$TGT_PID" 2>/dev/null && wait "$TGT_PID" 2>/dev/null
    rm -rf "$ST"
}
trap cleanup EXIT

ok()  { echo "ok - $*"; }
bad() { echo "FAIL - $*"; FAILED=1; }
nvmf() { timeout 60 "$NVMF" "$@"; }
ctl() { timeout 30 "$CTL" -s "$ST/ctl.sock" "$@"; }
# A port below the ephemeral range; P1 requires TLS, P2 lets the host choose, P3 has none.
P1=$((10000 + RANDOM % (EPH_LO > 11000 ? EPH_LO - 10010 : 1000)))
P2=$((P1 + 1))
P3=$((P1 + 2))

command -v nvme > /dev/null || { bad "nvme-cli (nvme gen-tls-key) is installed (scripts/install-deps)"; exit 1; }
command -v openssl > /dev/null || { bad "openssl is installed (scripts/install-deps)"; exit 1; }
K1=$(nvme gen-tls-key -m 1) && K2=$(nvme gen-tls-key -m 1) && K3=$(nvme gen-tls-key -m 2) &&
    KBAD=$(nvme gen-tls-key -m 1) && K6=$(nvme gen-tls-key -m 1) || { bad "nvme gen-tls-key"; exit 1; }
umask 077
printf '%s\n' "$K1" > "$ST/h1.key"
printf '%s\n' "$KBAD" > "$ST/wrong.key"
printf '%s\n' "$K3" > "$ST/h3.key"
printf '%s\n' "$K6" > "$ST/h6.key"

# port P: {"portid": ID, "addr": {...}} with tsas/treq as given
port() {
    local tsas=""
    [ -n "$3" ] && tsas=", \"tsas\": \"$3\""
    echo "{\"portid\": $1, \"addr\": {\"adrfam\": \"ipv4\", \"traddr\": \"127.0.0.1\", \"trsvcid\": \"$2\",
       \"trtype\": \"tcp\", \"treq\": \"$4\"$tsas}, \"subsystems\": [\"$NQN\"]}"
}
# write_config FILE H2KEY: H1 by key file, H2 inline (H2KEY), H3 by the SHA-384 key file,
# H6 by key file in libnvme's compat layout (nvme-cli <= 2.15 inserted its key).
write_config() {
    cat > "$1" <<JSON
{"nvmf_target": {"hugepages": false, "threads": 2},
 "hosts": [{"nqn": "$H1", "nvmf_tls_key_file": "$ST/h1.key"},
           {"nqn": "$H2", "nvmf_tls_key": "$2"},
           {"nqn": "$H3", "nvmf_tls_key_file": "$ST/h3.key"},
           {"nqn": "$H6", "nvmf_tls_key_file": "$ST/h6.key", "nvmf_tls_key_compat": true},
           {"nqn": "nqn.2014-08.org.nvmexpress:uuid:44444444-4444-4444-8444-444444444444"}],
 "ports": [$(port 1 $P1 tls1.3 "not specified"), $(port 2 $P2 tls1.3 "not required"),
           $(port 3 $P3 "" "not specified")],
 "subsystems": [{"nqn": "$NQN", "attr": {"allow_any_host": "0", "serial": "tlslocal01"},
   "allowed_hosts": ["$H1", "$H2", "$H3", "$H6", "nqn.2014-08.org.nvmexpress:uuid:44444444-4444-4444-8444-444444444444"],
   "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram", "nvmf_block_size": 512,
                   "nvmf_size_bytes": "16M", "device": {"uuid": "6c1d0a52-7f0e-4c35-9a43-0d2b8e5f1b01"}}]}]}
JSON
    chmod 600 "$1"
}
write_config "$ST/config.json" "$K2"

"$TGT" -c "$ST/config.json" --rpc-socket "$ST/ctl.sock" > "$ST/target.log" 2>&1 &
TGT_PID=$!
for i in $(seq 100); do
    grep -q 'nvmf-target: core: ready' "$ST/target.log" && break
    kill -0 "$TGT_PID" 2>/dev/null || break
    sleep 0.1
done
grep -q 'nvmf-target: core: ready' "$ST/target.log" || { cat "$ST/target.log"; bad "the target starts with TLS ports"; exit 1; }
ok "the target starts with a TLS-only, a TLS-optional and a plain port"

head -c 65536 /dev/urandom > "$ST/in"
# rw PORT NAME ARGS...: write 64 KiB at a fresh offset and read it back equal.
OFF=0
rw() {
    local p=$1 name=$2
    shift 2
    OFF=$((OFF + 65536))
    if nvmf write -t tcp -a 127.0.0.1 -s "$p" -n "$NQN" --offset $OFF -i "$ST/in" "$@" 2> "$ST/rw.err" &&
        nvmf read -t tcp -a 127.0.0.1 -s "$p" -n "$NQN" --offset $OFF --length 65536 -o "$ST/out" "$@" 2>> "$ST/rw.err" &&
        cmp -s "$ST/in" "$ST/out"; then
        ok "$name: 64 KiB written and read back equal"
    else
        cat "$ST/rw.err"; bad "$name"
    fi
}
rw $P1 "TLS port, host 1, key file, identity 0" -q "$H1" --tls-key-file "$ST/h1.key"
rw $P1 "TLS port, host 1, identity 1, digests on" -q "$H1" --tls-key-file "$ST/h1.key" --tls-identity 1 -g -G
NVMF_TLS_KEY=$K2 rw $P1 "TLS port, host 2 (inline key), key from \$NVMF_TLS_KEY" -q "$H2" --tls
rw $P1 "TLS port, host 3, SHA-384 key" -q "$H3" --tls-key-file "$ST/h3.key"
rw $P2 "TLS-optional port over TLS" -q "$H1" --tls-key-file "$ST/h1.key"
rw $P2 "TLS-optional port in the clear" -q "$H1"
rw $P3 "plain port" -q "$H1"
grep -q "tcp: host 127.0.0.1:[0-9]* (port 1): TLS 1.3 secure channel (TLS_AES_128_GCM_SHA256, PSK of host $H1 for $NQN" "$ST/target.log" &&
    grep -q "secure channel (TLS_AES_256_GCM_SHA384, PSK of host $H3" "$ST/target.log" &&
    ok "the target logs each secure channel with its cipher (SHA-384 key: AES-256) and host" ||
    { grep -i tls "$ST/target.log"; bad "secure channel log lines"; }

# The discovery log tells hosts which ports need TLS (TSAS sectype, TREQ).
nvmf discover -t tcp -a 127.0.0.1 -s $P3 -q "$H1" > "$ST/disc.txt" 2>&1
awk -v p=$P1 '/^trsvcid:/ {s = $2} /^sectype:/ && s == p {print}' "$ST/disc.txt" | grep -q "tls13" &&
    awk -v p=$P3 '/^trsvcid:/ {s = $2} /^sectype:/ && s == p {print}' "$ST/disc.txt" | grep -q "none" &&
    awk -v p=$P1 '/^trsvcid:/ {s = $2} /^treq:/ && s == p {print}' "$ST/disc.txt" | grep -q "required" &&
    ok "discovery: the TLS port's sectype tls13 and treq required, the plain port's none" ||
    { cat "$ST/disc.txt"; bad "discovery log TSAS"; }
nvmf discover -t tcp -a 127.0.0.1 -s $P1 -q "$H1" --tls-key-file "$ST/h1.key" > "$ST/disc2.txt" 2>&1 &&
    grep -q "subnqn: *$NQN" "$ST/disc2.txt" && ok "discovery over TLS" ||
    { cat "$ST/disc2.txt"; bad "discovery over TLS"; }
nvmf identify -v -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q "$H1" --tls-key-file "$ST/h1.key" --tls-identity 1 \
    > /dev/null 2> "$ST/idv.err" &&
    grep -q "TLS 1.3 (PSK, version 1 identity), no in-band authentication (the controller did not ask)" "$ST/idv.err" &&
    ok "nvmf -v over TLS names the channel" || { cat "$ST/idv.err"; bad "nvmf -v over TLS"; }

# Refusals: one clear message on the host side, one log line on the target, nothing else.
# A host keeps reading meanwhile (the abuse must not stall it).
nvmf perf -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q "$H1" --tls-key-file "$ST/h1.key" \
    --rw randread --bs 4k --qd 4 --time 25 > "$ST/perf.out" 2>&1 &
BG=$!
sleep 1
ctl controller list --json > "$ST/ctrls.json" 2>&1
ctl controller list > "$ST/ctrls.txt" 2>&1
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["controllers"]; sys.exit(0 if any(x["hostnqn"]==sys.argv[2] and x["tls"] is True for x in c) else 1)' \
    "$ST/ctrls.json" "$H1" && grep -q "  yes  no" "$ST/ctrls.txt" &&
    ok "controller list: the TLS host's controller says tls yes" || { cat "$ST/ctrls.json" "$ST/ctrls.txt"; bad "controller list TLS"; }
refused() { # WHAT EXPECT_HOST_MSG EXPECT_LOG COMMAND...
    local what=$1 host=$2 log=$3 n
    shift 3
    n=$(wc -l < "$ST/target.log")
    "$@" > "$ST/ref.out" 2>&1
    local rc=$?
    sleep 0.3
    # Only the lines this attempt added count.
    tail -n +$((n + 1)) "$ST/target.log" > "$ST/new.log"
    if [ $rc != 0 ] && { [ -z "$host" ] || grep -q -- "$host" "$ST/ref.out"; } && grep -q -- "$log" "$ST/new.log"; then
        ok "$what: refused ('$(grep -m1 -- "$log" "$ST/new.log" | sed 's/^nvmf-target: //' | cut -c1-170)')"
    else
        cat "$ST/ref.out"; grep -i tls "$ST/target.log" | tail -5; bad "$what (exit $rc)"
    fi
}
refused "wrong PSK" "nvmf: connect to 127.0.0.1:$P1" "TLS handshake refused: .*" \
    nvmf identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q "$H1" --tls-key-file "$ST/wrong.key"
# A version 1 identity's digest shows a wrong key before any binder: the whole reason is
# logged, however long the NQN.
refused "wrong PSK, identity 1" "nvmf: connect to 127.0.0.1:$P1" "the PSK digest of its identity does not match its key here (in either derivation layout, RFC 8446 or libnvme's compat): connection closed" \
    nvmf identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q "$H1" --tls-key-file "$ST/wrong.key" --tls-identity 1
refused "a host without a PSK" "nvmf: connect" "host nqn.2014-08.org.nvmexpress:uuid:44444444-4444-4444-8444-444444444444 has no TLS PSK here" \
    nvmf identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q nqn.2014-08.org.nvmexpress:uuid:44444444-4444-4444-8444-444444444444 --tls-key-file "$ST/h1.key"
refused "a plain connection to the TLS-only port" "connection closed by the controller (a port that requires TLS does this to a host without a PSK)" "a plain connection (no TLS ClientHello) to a port that requires TLS" \
    nvmf identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q "$H1"
refused "a TLS host to a port without TLS" "the port answered without TLS" "a TLS ClientHello on a port without TLS (addr.tsas is not \"tls1.3\")" \
    nvmf identify -t tcp -a 127.0.0.1 -s $P3 -n "$NQN" -q "$H1" --tls-key-file "$ST/h1.key"
refused "a TLS 1.2-only client (openssl s_client)" "" "TLS handshake refused: .*\(version\|protocol\)" \
    timeout 10 openssl s_client -connect 127.0.0.1:$P1 -tls1_2 -psk_identity "NVMe0R01 $H1 $NQN" -psk 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
refused "a client offering certificates only, no PSK (openssl s_client)" "" "TLS handshake refused" \
    timeout 10 openssl s_client -connect 127.0.0.1:$P1 -tls1_3
refused "garbage after a handshake record type" "" "TLS handshake refused: " \
    bash -c "exec 3<>/dev/tcp/127.0.0.1/$P1; printf '\x16\x03\x01\x00\x05garbagegarbage' >&3; sleep 1; cat <&3 > /dev/null; exit 1"
# A handshake that stalls: the connection is closed at the deadline, naming it.
(exec 3<>/dev/tcp/127.0.0.1/$P1; printf '\x16\x03\x01' >&3; sleep 13) &
STALL=$!
rw $P1 "while a handshake stalls, another host" -q "$H2" --tls-key "$K2"
wait $STALL
grep -q "TLS handshake not done within 10 s: connection closed" "$ST/target.log" &&
    ok "a stalled handshake: closed at the 10 s deadline, logged" ||
    { grep -i tls "$ST/target.log" | tail -3; bad "stalled handshake"; }

# libnvme's compat layout (nvme-cli <= 2.15): a version 1 identity's digest tells it, a
# version 0 identity goes by the host entry's nvmf_tls_key_compat.
rw $P1 "compat host entry, --tls-compat, identity 0" -q "$H6" --tls-key-file "$ST/h6.key" --tls-compat
rw $P1 "compat host entry, --tls-compat, identity 1" -q "$H6" --tls-key-file "$ST/h6.key" --tls-compat --tls-identity 1
grep -q "PSK of host $H6 for $NQN derived in the libnvme compat layout" "$ST/target.log" &&
    ok "the target logs the compat layout it derived in" ||
    { grep -i "secure channel" "$ST/target.log" | tail -3; bad "compat layout log line"; }
refused "a compat host, identity 0, to an RFC 8446 host entry (wrong PSK)" "nvmf: connect to 127.0.0.1:$P1" "TLS handshake refused: .*" \
    nvmf identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q "$H1" --tls-key-file "$ST/h1.key" --tls-compat
n=$(wc -l < "$ST/target.log")
rw $P1 "a compat host, identity 1, to an RFC 8446 host entry: told by its digest" -q "$H1" --tls-key-file "$ST/h1.key" --tls-compat --tls-identity 1
tail -n +$((n + 1)) "$ST/target.log" | grep -q "PSK of host $H1 for $NQN derived in the libnvme compat layout" &&
    ok "the digest-detected compat layout is logged" || { tail -n +$((n + 1)) "$ST/target.log"; bad "digest-detected compat log line"; }
refused "an RFC 8446 host, identity 0, to a compat host entry (wrong PSK)" "nvmf: connect to 127.0.0.1:$P1" "TLS handshake refused: .*" \
    nvmf identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q "$H6" --tls-key-file "$ST/h6.key"
nvmf identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q "$H1" --tls-compat > /dev/null 2> "$ST/u0.err"
rc=$?
[ $rc = 2 ] && grep -q -- "--tls-compat says how the TLS PSK is derived" "$ST/u0.err" &&
    ok "--tls-compat without a TLS option: usage error" || { cat "$ST/u0.err"; bad "--tls-compat alone (exit $rc)"; }
wait $BG
rc=$?
BG=
[ $rc = 0 ] && grep -q " 0 errors\|errors: 0\|error.*0" "$ST/perf.out" &&
    ok "a host reading over TLS all along: no error (exit 0)" || { cat "$ST/perf.out"; bad "perf during the refusals (exit $rc)"; }

# Usage mistakes on the host side.
nvmf identify -a 127.0.0.1 -s $P1 -n "$NQN" --tls-key-file "$ST/h1.key" > /dev/null 2> "$ST/u1.err"
rc=$?
[ $rc = 2 ] && grep -q "TLS is NVMe/TCP's secure channel: give -t tcp" "$ST/u1.err" &&
    ok "--tls-key-file without -t tcp: usage error" || { cat "$ST/u1.err"; bad "--tls without -t tcp (exit $rc)"; }
env -u NVMF_TLS_KEY "$NVMF" identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" --tls > /dev/null 2> "$ST/u2.err"
rc=$?
[ $rc = 2 ] && grep -q -- "--tls needs the PSK" "$ST/u2.err" && ok "--tls without a key: usage error naming where a key goes" ||
    { cat "$ST/u2.err"; bad "--tls without a key (exit $rc)"; }
badkey="${K1%??:}AA:"
nvmf identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" --tls-key "$badkey" > /dev/null 2> "$ST/u3.err"
rc=$?
[ $rc = 2 ] && grep -q -- "--tls-key: " "$ST/u3.err" && ! grep -qF "${K1:16:20}" "$ST/u3.err" &&
    ok "a damaged key: usage error, the key not shown ('$(head -1 "$ST/u3.err")')" ||
    { cat "$ST/u3.err"; bad "a damaged --tls-key (exit $rc)"; }

# The running configuration shows an inline key as "(secret)", a key file by its path.
ctl config show > "$ST/show.json" 2>&1
grep -q '"nvmf_tls_key": "(secret)"' "$ST/show.json" && grep -q "\"nvmf_tls_key_file\": \"$ST/h1.key\"" "$ST/show.json" &&
    ! grep -qF "$K2" "$ST/show.json" && grep -q '"tsas": "tls1.3"' "$ST/show.json" &&
    ok "config show: the inline key hidden, the key file named, tsas kept" || { cat "$ST/show.json"; bad "config show"; }
grep -q '"nvmf_tls_key_compat": true' "$ST/show.json" && [ "$(grep -c nvmf_tls_key_compat "$ST/show.json")" = 1 ] &&
    ok "config show: nvmf_tls_key_compat of the compat host only" || { cat "$ST/show.json"; bad "config show nvmf_tls_key_compat"; }

# A reload with host 2's key changed: the old key is refused from the next connection.
K2NEW=$(nvme gen-tls-key -m 1)
write_config "$ST/config.json" "$K2NEW"
ctl config reload > "$ST/reload.out" 2>&1 || { cat "$ST/reload.out"; bad "config reload"; }
grep -q "hosts: TLS PSKs changed" "$ST/target.log" && ok "reload: the PSK change logged" || bad "reload: PSK change not logged"
nvmf identify -t tcp -a 127.0.0.1 -s $P1 -n "$NQN" -q "$H2" --tls-key "$K2" > /dev/null 2>&1 &&
    bad "after the reload host 2's old key still connects" || ok "after the reload host 2's old key is refused"
rw $P1 "after the reload, host 2's new key" -q "$H2" --tls-key "$K2NEW"
! grep -qF "${K2:16:20}" "$ST/target.log" && ! grep -qF "${K1:16:20}" "$ST/target.log" &&
    ! grep -qF "${K6:16:20}" "$ST/target.log" &&
    ok "no key appears in the target's log" || bad "a key appears in the target's log"

# Live: a port added with TLS, a host's key set from a key file and removed, over the
# control socket; the key never crosses it.
P4=$((P1 + 3))
ctl port add 4 --trtype tcp --traddr 127.0.0.1 --trsvcid $P4 --tsas tls1.3 --treq required \
    --subsystem "$NQN" > "$ST/padd.out" 2>&1 || { cat "$ST/padd.out"; bad "port add --tsas tls1.3"; }
K5=$(nvme gen-tls-key -m 2)
H5=nqn.2014-08.org.nvmexpress:uuid:55555555-5555-4555-8555-555555555555
printf '%s\n' "$K5" > "$ST/h5.key"
ctl host add "$NQN" "$H5" > /dev/null 2>&1 || bad "host add H5"
(cd "$ST" && timeout 30 "$CTL" -s "$ST/ctl.sock" host tls-key "$H5" --key-file h5.key) > "$ST/tk.out" 2>&1 &&
    grep -q "host $H5: TLS PSK from $ST/h5.key" "$ST/tk.out" &&
    ok "host tls-key with a relative --key-file: set, the path made absolute" ||
    { cat "$ST/tk.out"; bad "host tls-key"; }
rw $P4 "a port added live with --tsas tls1.3, the host's key set live" -q "$H5" --tls-key-file "$ST/h5.key"
ctl host tls-key "$H5" --key-file "$ST/h5.key" --compat > "$ST/tk3.out" 2>&1 &&
    grep -q "host $H5: TLS PSK from $ST/h5.key (compat layout for version 0 identities)" "$ST/tk3.out" &&
    ok "host tls-key --compat: set" || { cat "$ST/tk3.out"; bad "host tls-key --compat"; }
rw $P4 "the host's key set live with --compat, --tls-compat identity 0" -q "$H5" --tls-key-file "$ST/h5.key" --tls-compat
grep -A3 "\"$H5\"" "$ST/config.json" | grep -q '"nvmf_tls_key_compat": true' &&
    ok "host tls-key --compat written through to the configuration" || { cat "$ST/config.json"; bad "write-through of --compat"; }
refused "an RFC 8446 host, identity 0, to a host set live with --compat" "nvmf: connect to 127.0.0.1:$P4" "TLS handshake refused: .*" \
    nvmf identify -t tcp -a 127.0.0.1 -s $P4 -n "$NQN" -q "$H5" --tls-key-file "$ST/h5.key"
nvmf identify -t tcp -a 127.0.0.1 -s $P4 -n "$NQN" -q "$H5" > /dev/null 2>&1 &&
    bad "a plain connection to the live TLS port" || ok "the live TLS port refuses a plain connection"
chmod 644 "$ST/h5.key"
ctl host tls-key "$H5" --key-file "$ST/h5.key" > "$ST/tk2.out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "can be read by others (mode 0644)" "$ST/tk2.out" &&
    ok "host tls-key with a file others can read: refused naming the mode" || { cat "$ST/tk2.out"; bad "host tls-key 0644 (exit $rc)"; }
nvmf identify -t tcp -a 127.0.0.1 -s $P4 -n "$NQN" -q "$H5" --tls-key-file "$ST/h5.key" > "$ST/tk3.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q -- "--tls-key-file $ST/h5.key can be read by others (mode 0644): chmod 600 it" "$ST/tk3.out" &&
    ok "nvmf --tls-key-file with a file others can read: a usage error naming the mode" || { cat "$ST/tk3.out"; bad "nvmf --tls-key-file 0644 (exit $rc)"; }
chmod 600 "$ST/h5.key"
ctl host tls-key-clear "$H5" > /dev/null 2>&1 || bad "host tls-key-clear"
refused "after host tls-key-clear" "nvmf: connect" "host $H5 has no TLS PSK here" \
    nvmf identify -t tcp -a 127.0.0.1 -s $P4 -n "$NQN" -q "$H5" --tls-key-file "$ST/h5.key"
grep -q '"nvmf_tls_key_file"' "$ST/config.json" && ! grep -q "$H5\", \"nvmf_tls" "$ST/config.json" &&
    grep -q '"trsvcid": "'$P4'"' "$ST/config.json" &&
    ok "the live changes written through to the configuration (port 4, the key cleared)" ||
    { cat "$ST/config.json"; bad "write-through of the TLS changes"; }
[ "$(stat -c %a "$ST/config.json")" = 600 ] && ok "the configuration with an inline key is still 0600 after the write-through" ||
    bad "config.json mode $(stat -c %a "$ST/config.json") after the write-through"

kill "$TGT_PID" && wait "$TGT_PID"
TGT_PID=

# Configuration mistakes: refused by --check, naming the key, never showing a secret.
write_config "$ST/config.json" "$K2NEW"
cfgerr() { # WHAT FILE EXPECT
    "$TGT" -c "$2" --check > /dev/null 2> "$ST/cfg.err"
    local rc=$?
    if [ $rc = 1 ] && grep -q -- "$3" "$ST/cfg.err" && ! grep -qF "${K1:16:20}" "$ST/cfg.err" && ! grep -qF "${K2NEW:16:20}" "$ST/cfg.err"; then
        ok "$1: refused ('$(head -1 "$ST/cfg.err" | cut -c1-160)')"
    else
        cat "$ST/cfg.err"; bad "$1 (exit $rc)"
    fi
}
cp "$ST/config.json" "$ST/c1.json"; chmod 644 "$ST/c1.json"
cfgerr "an inline key in a configuration others can read" "$ST/c1.json" 'hosts\[1\].nvmf_tls_key: a TLS PSK inline in a file others can read'
chmod 644 "$ST/h1.key"
cfgerr "a key file others can read" "$ST/config.json" "hosts\[0\].nvmf_tls_key_file: $ST/h1.key can be read by others (mode 0644)"
chmod 600 "$ST/h1.key"
sed "s|\"nvmf_tls_key\": \"$K2NEW\"|\"nvmf_tls_key\": \"${K2NEW%??:}AA:\"|" "$ST/config.json" > "$ST/c2.json"; chmod 600 "$ST/c2.json"
cfgerr "a key with a bad CRC" "$ST/c2.json" 'hosts\[1\].nvmf_tls_key: '
sed "s|\"nvmf_tls_key_file\": \"$ST/h1.key\"|\"nvmf_tls_key_file\": \"$ST/h1.key\", \"nvmf_tls_key\": \"$K1\"|" "$ST/config.json" > "$ST/c3.json"; chmod 600 "$ST/c3.json"
cfgerr "both nvmf_tls_key and nvmf_tls_key_file" "$ST/c3.json" 'hosts\[0\].nvmf_tls_key_file: set beside nvmf_tls_key'
sed 's|"treq": "not specified"}|"treq": "required"}|' "$ST/config.json" > "$ST/c4.json"; chmod 600 "$ST/c4.json"
cfgerr "treq required on a port without TLS" "$ST/c4.json" 'ports\[2\].addr.treq: "required" asks for a secure channel'
sed 's|"tsas": "tls1.3"}|"tsas": "tls1.2"}|' "$ST/config.json" > "$ST/c5.json"; chmod 600 "$ST/c5.json"
cfgerr "tsas tls1.2" "$ST/c5.json" 'ports\[0\].addr.tsas: "tls1.2" is not a security type'
sed "s|\"$ST/h1.key\"|\"$ST/missing.key\"|" "$ST/config.json" > "$ST/c6.json"; chmod 600 "$ST/c6.json"
cfgerr "a key file that does not exist" "$ST/c6.json" "hosts\[0\].nvmf_tls_key_file: $ST/missing.key: No such file"
sed 's|"nvmf_tls_key_compat": true|"nvmf_tls_key_compat": "yes"|' "$ST/config.json" > "$ST/c7.json"; chmod 600 "$ST/c7.json"
cfgerr "nvmf_tls_key_compat not a boolean" "$ST/c7.json" 'hosts\[3\].nvmf_tls_key_compat: expected true or false, got "yes"'

[ $FAILED = 0 ] && echo "tls local test: PASSED" || echo "tls local test: FAILED"
exit $FAILED
