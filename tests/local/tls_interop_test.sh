#!/usr/bin/env bash
# The TLS channel (tls/channel.h) against an independent TLS 1.3 implementation, GnuTLS
# 3.7's gnutls-serv and gnutls-cli (Debian's gnutls-bin, installed by scripts/install-deps;
# missing, the test FAILS), on 127.0.0.1, through build/tests/tls-peer
# (tests/local/tls-peer.c), no root (make local-check):
#   - our client against gnutls-serv --echo: 1 MiB each way, TLS_AES_128_GCM_SHA256; a
#     wrong key and an unknown identity fail the handshake with EKEYREJECTED (GnuTLS
#     answers both with illegal_parameter, so our client cannot tell them apart);
#   - gnutls-cli against our server: 1 MiB each way (GnuTLS's first choice of cipher is
#     AES-256-GCM-SHA384: our server picks the cipher of the key's hash, SHA-256), the
#     identity seen; a wrong key EKEYREJECTED, an unknown identity ENOKEY, a PSK without
#     (EC)DHE (priority +PSK only: psk_ke) and TLS 1.2 EPROTONOSUPPORT.
# GnuTLS's command-line tools have SHA-256 PSKs only (no option for a SHA-384 one), and
# its PSK file cannot hold an identity with ':' (gnutls-serv), so the identity here is
# NVMe-like without colons. The priority string allows PSK, ECDHE-PSK and DHE-PSK: with
# it GnuTLS offers psk_ke and psk_dhe_ke both, and our server takes (EC)DHE.
# Each check prints "ok - what" or "FAIL - what"; exit 1 at the end if any failed.
# BUILD=build/asan runs the sanitizer build of tls-peer.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
PEER="$ROOT/$BUILD/tests/tls-peer"
ST=$(mktemp -d /tmp/nvmf-tls-interop.XXXXXX)
SERV_PID=
FAILED=0
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
BADKEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e00
ID=NVMe0R01-nqn.2014-08.org.nvmexpress.uuid.host-a-nqn.2024-01.io.nvmf-rdma.tls
PRIO="NORMAL:-VERS-ALL:+VERS-TLS1.3:-KX-ALL:+ECDHE-PSK:+DHE-PSK:+PSK"
MIB=1048576

cleanup() {
    [ -n "$SERV_PID" ] && kill "$SERV_PID" 2>/dev/null && wait "$SERV_PID" 2>/dev/null
    rm -rf "$ST"
}
trap cleanup EXIT

ok()  { echo "ok - $*"; }
bad() { echo "FAIL - $*"; FAILED=1; }
# expect WHAT FILE PATTERN: ok when FILE has a line matching PATTERN (else shown).
expect() {
    if grep -qE -- "$3" "$2"; then ok "$1"; else bad "$1 (wanted /$3/ in:)"; sed 's/^/    /' "$2" | head -20; fi
}

for tool in gnutls-serv gnutls-cli; do
    if ! command -v $tool > /dev/null; then
        bad "$tool is missing (apt-get install gnutls-bin; scripts/install-deps installs it)"
        echo "tls interop test: FAILED"
        exit 1
    fi
done
[ -x "$PEER" ] || { bad "$PEER is missing (make $BUILD/tests/tls-peer)"; exit 1; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- our client, gnutls-serv --echo ---------------------------------------------------
echo "$ID:$KEY" > "$ST/psk.txt"
PORT=$(free_port)
gnutls-serv --echo -p "$PORT" --pskpasswd "$ST/psk.txt" --priority "$PRIO" > /dev/null 2> "$ST/serv.err" &
SERV_PID=$!
for _ in $(seq 100); do (exec 3<> "/dev/tcp/127.0.0.1/$PORT") 2> /dev/null && break; sleep 0.1; done

timeout 60 "$PEER" connect "$PORT" "$ID" $KEY 1 $MIB > "$ST/c1" 2>&1
expect "our client to gnutls-serv: 1 MiB each way" "$ST/c1" "^ok $MIB bytes each way"
expect "our client to gnutls-serv: TLS_AES_128_GCM_SHA256" "$ST/c1" "^cipher TLS_AES_128_GCM_SHA256$"
timeout 60 "$PEER" connect "$PORT" "$ID" $BADKEY 1 100 > "$ST/c2" 2>&1
expect "our client to gnutls-serv, a wrong key: EKEYREJECTED" "$ST/c2" "^handshake: EKEYREJECTED: wrong PSK"
timeout 60 "$PEER" connect "$PORT" "NVMe0R01-nobody" $KEY 1 100 > "$ST/c3" 2>&1
expect "our client to gnutls-serv, an unknown identity: the handshake fails" "$ST/c3" "^handshake: E[A-Z]+: "
kill "$SERV_PID" 2>/dev/null; wait "$SERV_PID" 2>/dev/null; SERV_PID=

# --- gnutls-cli, our server -----------------------------------------------------------
# serve BYTES KEY-OF-SERVER GNUTLS-CLI-ARGS...: our server for one connection, gnutls-cli
# sending $ST/pat (then holding stdin open until the server is gone); outputs in
# $ST/srv and $ST/cli.
"$PEER" pattern $MIB > "$ST/pat"
serve() {
    local bytes=$1 key=$2; shift 2
    rm -f "$ST/port"
    timeout 60 "$PEER" listen "$ST/port" "$ID" "$key" 1 "$bytes" > "$ST/srv" 2>&1 &
    local pid=$!
    for _ in $(seq 100); do [ -f "$ST/port" ] && break; sleep 0.1; done
    { head -c "$bytes" "$ST/pat"; while kill -0 $pid 2> /dev/null; do sleep 0.1; done; } |
        timeout 60 gnutls-cli -p "$(cat "$ST/port" 2> /dev/null)" "$@" 127.0.0.1 > "$ST/cli" 2>&1
    wait $pid
}

serve $MIB $KEY --priority "$PRIO" --pskusername "$ID" --pskkey $KEY
expect "gnutls-cli to our server: handshake" "$ST/srv" "^cipher TLS_AES_128_GCM_SHA256$"
expect "gnutls-cli to our server: the identity" "$ST/srv" "^identity $ID\$"
expect "gnutls-cli to our server: 1 MiB received" "$ST/srv" "^ok $MIB bytes each way"
# What gnutls-cli printed after "- Simple Client Mode:" and a blank line is the echo.
if sed -n '/^- Simple Client Mode:/,$p' "$ST/cli" | tail -n +3 | head -c $MIB | cmp -s - "$ST/pat"; then
    ok "gnutls-cli to our server: 1 MiB echoed back intact"
else
    bad "gnutls-cli to our server: the echo differs"; head -20 "$ST/cli"
fi

serve 100 $KEY --priority "$PRIO" --pskusername "$ID" --pskkey $BADKEY
expect "gnutls-cli to our server, a wrong key: EKEYREJECTED" "$ST/srv" "^handshake: EKEYREJECTED: wrong PSK"
serve 100 $KEY --priority "$PRIO" --pskusername "NVMe0R01-nobody" --pskkey $KEY
expect "gnutls-cli to our server, an unknown identity: ENOKEY" "$ST/srv" "^handshake: ENOKEY: no PSK for the client's identity"
serve 100 $KEY --priority "NORMAL:-VERS-ALL:+VERS-TLS1.3:-KX-ALL:+PSK" --pskusername "$ID" --pskkey $KEY
expect "gnutls-cli to our server, PSK without (EC)DHE: EPROTONOSUPPORT" "$ST/srv" \
    "^handshake: EPROTONOSUPPORT: .*psk_ke only"
serve 100 $KEY --priority "NORMAL:-VERS-ALL:+VERS-TLS1.2:-KX-ALL:+ECDHE-PSK:+DHE-PSK:+PSK" \
    --pskusername "$ID" --pskkey $KEY
expect "gnutls-cli to our server, TLS 1.2: EPROTONOSUPPORT" "$ST/srv" "^handshake: EPROTONOSUPPORT: "

if [ $FAILED = 0 ]; then echo "tls interop test: PASSED"; else echo "tls interop test: FAILED"; fi
exit $FAILED
