#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Known answers for the NVMe/TCP TLS PSK unit tests (tests/unit/nvme/tls-psk_test.c).

    python3 tests/auth/tls_psk_kat.py OUT

computes, from the fixed inputs below, every value nvme/tls-psk.c computes (the PSK
interchange text, the retained PSK, the PSK digest, the PSK identity and the TLS PSK)
and writes them to OUT, which the C test reads and checks the C code against. This is
independent code: Python's standard library only (hashlib, hmac, base64, zlib; HKDF
written out from RFC 5869 and HKDF-Expand-Label from RFC 8446 section 7.1), so nothing
here comes from OpenSSL or from the code under test. Deterministic: the same OUT on
every run.

The facts it follows (NVMe/TCP transport specification 2.0 section 3.6.1, as libnvme's
src/nvme/linux.c derive_retained_key / derive_psk_digest / gen_tls_identity /
derive_tls_key and the kernel's drivers/nvme/common/auth.c nvme_auth_generate_digest /
nvme_auth_derive_tls_psk compute them):
  interchange "NVMeTLSkey-1:HH:" base64(key || CRC-32(key) little endian) ":"
              HH 00: the configured PSK is the retained PSK; 01 SHA-256; 02 SHA-384
  hash        the identity's hash: HH, or for HH 00 the key's length (32 -> 01, 48 -> 02)
  retained    HKDF-Expand-Label(HKDF-Extract(0, configured), "HostNQN", NQNh, len)
              with HH's hash (HH 00: the configured key itself)
  digest      base64(HMAC-hash(retained, NQNh || " " || NQNc || " " || "NVMe-over-Fabrics"))
  identity    "NVMe0R<hh> NQNh NQNc" (version 0), "NVMe1R<hh> NQNh NQNc <digest>" (1)
  TLS PSK     HKDF-Expand-Label(HKDF-Extract(0, retained), "nvme-tls-psk", context, len)
              with the identity's hash; context: the identity (version 0),
              "<hh> <digest>" (version 1)
HKDF-Expand-Label's info is RFC 8446's HkdfLabel: length (2 bytes big endian),
label "tls13 "+label with a length byte, context with a length byte: libnvme 1.16 and
later (its "fix" of July 2025), and the kernel. The "compat" layout is what libnvme
1.15 and earlier computed (libnvme 1.16 keeps it as nvme_insert_tls_key_compat, nvme-cli
`--compat`): length little endian, "tls13 "+label and the context with no length bytes.

Output: one vector per line, "KIND name=value ...", byte values and the identity as
lower-case hex, other text as is; lines starting with '#' are comments.
"""
import base64
import hashlib
import hmac
import sys
import zlib

HASHES = {1: hashlib.sha256, 2: hashlib.sha384}
SEED = b"NVMe-over-Fabrics"

NQN_PAIRS = [
    # libnvme's test/psk.c pair (its published identities are checked below).
    ("nqn.psk-test-host", "nqn.psk-test-subsys"),
    ("nqn.2014-08.org.nvmexpress:uuid:4a1c9d2e-57b3-4f60-8e21-93d0c6b7a5f4",
     "nqn.2024-01.io.nvmf-rdma:tls-kat"),
]

# libnvme test/psk.c: its configured keys and the identities it expects (version 1,
# HH 01 and 02) from nvme_generate_tls_key_identity and ..._compat.
LIBNVME_KEY32 = bytes.fromhex("5512dbb6737d0106f65975b773dfb011ffc344bcf442e2dd6d8bc4870b5d5b03")
LIBNVME_KEY48 = LIBNVME_KEY32 + LIBNVME_KEY32[16:]
LIBNVME_IDENTITIES = [
    (LIBNVME_KEY32, 1, "current",
     "NVMe1R01 nqn.psk-test-host nqn.psk-test-subsys iSbjiStwJ/1TrTvDlt2fjFmzvsytOJelidNnA+X5lEU="),
    (LIBNVME_KEY48, 2, "current",
     "NVMe1R02 nqn.psk-test-host nqn.psk-test-subsys "
     "QhW2+Rp6RzHlNtCslyRxMnwJ11tKKhz8JCAQpQ+XUD8f9td1VeH5h53yz2wKJG1a"),
    (LIBNVME_KEY32, 1, "compat",
     "NVMe1R01 nqn.psk-test-host nqn.psk-test-subsys 66GuqV08TsAGII39teWUfwQwizjv06Jy8jOcX3NAAzM="),
    (LIBNVME_KEY48, 2, "compat",
     "NVMe1R02 nqn.psk-test-host nqn.psk-test-subsys "
     "RsKmYJ3nAn1ApjjMloJFbAkLPivONDAX/xW327YBUsn2eGShXSjCZvBaOxscLqmz"),
]
# libnvme test/psk.c: its exported (interchange) texts of those keys.
LIBNVME_TEXTS = [
    (LIBNVME_KEY32, 0, "NVMeTLSkey-1:00:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"),
    (LIBNVME_KEY32, 1, "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"),
    (LIBNVME_KEY48, 2, "NVMeTLSkey-1:02:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwP/w0S89ELi3W2L"
                       "xIcLXVsDn8kXZQ==:"),
]


def det(label, n):
    """n deterministic pseudo-random bytes named by label (SHAKE-256 of it)."""
    return hashlib.shake_256(label.encode()).digest(n)


def interchange(hh, key):
    crc = zlib.crc32(key).to_bytes(4, "little")
    return "NVMeTLSkey-1:%02d:%s:" % (hh, base64.b64encode(key + crc).decode())


def hkdf_extract(h, ikm):
    # RFC 5869 2.2: salt not provided -> HashLen zero bytes.
    return hmac.new(bytes(h().digest_size), ikm, h).digest()


def hkdf_expand(h, prk, info, length):
    # RFC 5869 2.3.
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), h).digest()
        out += t
        i += 1
    return out[:length]


def hkdf_label(layout, length, label, context):
    full = b"tls13 " + label
    if layout == "current":  # RFC 8446 section 7.1 HkdfLabel
        assert len(full) < 256 and len(context) < 256
        return length.to_bytes(2, "big") + bytes([len(full)]) + full + bytes([len(context)]) + context
    return length.to_bytes(2, "little") + full + context


def expand_label(layout, h, secret, label, context, length):
    return hkdf_expand(h, hkdf_extract(h, secret), hkdf_label(layout, length, label, context), length)


def cipher_hash(hh, key):
    return hh if hh else {32: 1, 48: 2}[len(key)]


def derive(layout, hh, key, hostnqn, subnqn, version):
    """(retained, digest or '', identity, TLS PSK) as libnvme derive_nvme_keys computes them."""
    if hh:
        retained = expand_label(layout, HASHES[hh], key, b"HostNQN", hostnqn.encode(), len(key))
    else:
        retained = key
    c = cipher_hash(hh, key)
    h = HASHES[c]
    if version == 0:
        digest = ""
        identity = "NVMe0R%02d %s %s" % (c, hostnqn, subnqn)
        context = identity.encode()
    else:
        mac = hmac.new(retained, hostnqn.encode() + b" " + subnqn.encode() + b" " + SEED, h)
        digest = base64.b64encode(mac.digest()).decode()
        identity = "NVMe1R%02d %s %s %s" % (c, hostnqn, subnqn, digest)
        context = ("%02d %s" % (c, digest)).encode()
    tls = expand_label(layout, h, retained, b"nvme-tls-psk", context, len(key))
    return retained, digest, identity, tls


def check_published():
    for key, hh, text in LIBNVME_TEXTS:
        assert interchange(hh, key) == text, text
    for key, hh, layout, want in LIBNVME_IDENTITIES:
        _, _, identity, _ = derive(layout, hh, key, "nqn.psk-test-host", "nqn.psk-test-subsys", 1)
        assert identity == want, (layout, identity, want)


def vectors():
    out = ["# NVMe/TCP TLS PSK known answers: written by tests/auth/tls_psk_kat.py, do not edit"]
    keys = [(0, det("tls configured 00/32", 32)), (0, det("tls configured 00/48", 48)),
            (1, det("tls configured 01", 32)), (2, det("tls configured 02", 48)),
            (1, LIBNVME_KEY32), (2, LIBNVME_KEY48)]
    for hh, key in keys:
        out.append("interchange hh=%d key=%s text=%s" % (hh, key.hex(), interchange(hh, key)))
    for layout in ("current", "compat"):
        for hh, key in keys:
            for hostnqn, subnqn in NQN_PAIRS:
                for version in (0, 1):
                    retained, digest, identity, tls = derive(layout, hh, key, hostnqn, subnqn,
                                                             version)
                    out.append("derive layout=%s hh=%d key=%s hostnqn=%s subnqn=%s version=%d "
                               "retained=%s digest=%s identity=%s tls=%s"
                               % (layout, hh, key.hex(), hostnqn, subnqn, version,
                                  retained.hex(), digest or "-", identity.encode().hex(),
                                  tls.hex()))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tls_psk_kat.py OUT")
    check_published()
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(vectors()) + "\n")


if __name__ == "__main__":
    main()
