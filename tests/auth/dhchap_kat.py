#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Known answers for the DH-HMAC-CHAP unit tests (tests/unit/nvme/dhchap_test.c).

    python3 tests/auth/dhchap_kat.py OUT

computes, from the fixed inputs below, every value nvme/dhchap.c computes (secret
decoding, key transformation, FFDHE public values and shared secrets, augmented
challenges, host and controller responses) and writes them to OUT, which the C test
reads and checks the C code against. This is independent code: Python's standard
library only (hashlib, hmac, base64, zlib; pow() for the modular exponentiation) and
the RFC 7919 primes built from the RFC's own definition of them, so nothing here comes
from OpenSSL or from the code under test. Deterministic: the same OUT on every run.

The facts it follows (NVMe Base Specification 2.1 section 8.3.5.5, as the Linux kernel's
drivers/nvme/common/auth.c, host/auth.c and target/auth.c implement them):
  secret      "DHHC-1:NN:" base64(key || CRC-32(key) little endian) ":"
  transform   NN 00: the key; else HMAC-H_NN(key, NQN || "NVMe-over-Fabrics")
  Ca          HMAC-H(H(g^xy mod p), C), g^xy mod p big endian padded to p's size
  R1          HMAC-H(Kh, Ca || S1 (le32) || T_ID (le16) || SC_C || "HostHost"
                     || NQNh || 00h || NQNc), Kh = transform(host key, NQNh)
  R2          HMAC-H(Kc, Ca || S2 (le32) || T_ID (le16) || SC_C || "Controller"
                     || NQNc || 00h || NQNh), Kc = transform(ctrl key, NQNc)

Output: one vector per line, "KIND name=value ...", values as lower-case hex unless
said otherwise; lines starting with '#' are comments.
"""
import base64
import hashlib
import hmac
import os
import sys
import zlib

HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:4a1c9d2e-57b3-4f60-8e21-93d0c6b7a5f4"
SUBNQN = "nqn.2024-01.io.nvmf-rdma:dhchap-kat"
SEED = b"NVMe-over-Fabrics"

HASHES = {1: hashlib.sha256, 2: hashlib.sha384, 3: hashlib.sha512}   # HashID -> H
HASH_LEN = {1: 32, 2: 48, 3: 64}

# RFC 7919 appendix A: each ffdheB prime is defined there as
#     p = 2^B - 2^{B-64} + {[2^{B-130} e] + X} * 2^64 - 1
# with e the base of the natural logarithm, [ ] the floor, and X the constant the RFC
# gives for the group (the smallest making p a safe prime); the generator is g = 2.
# Typing B and X from the RFC and computing p is checkable digit by digit, which 2048
# typed hexadecimal digits of ffdhe8192 would not be. (Checked once against OpenSSL's
# built-in ffdhe tables: all five equal.)
RFC7919_X = {2048: 560316, 3072: 2625351, 4096: 5736041, 6144: 15705020, 8192: 10965728}
DHGROUPS = {1: 2048, 2: 3072, 3: 4096, 4: 6144, 5: 8192}   # DHgroupID -> B
# The first 192 bits of ffdhe2048 as printed in RFC 7919 A.1: a typed check of the
# construction.
FFDHE2048_HEAD = "FFFFFFFFFFFFFFFFADF85458A2BB4A9AAFDC5620273D3CF1"

# Secrets made by nvme-cli 2.3 (libnvme 1.3), the commands in the comments. Its
# gen-dhchap-key prints the key transformed with --nqn when --hmac is not 0 (libnvme's
# nvme_gen_dhchap_key), so those decode to HMAC-H(secret, NQN || SEED): checked below,
# against libnvme's transformation.
NVME_CLI_SECRETS = [
    # nvme gen-dhchap-key --secret=<S32> --key-length=32 --hmac=0
    ("S32", 0, None, "DHHC-1:00:f7Od85330Q7daM+Ze+GqfxLRFYCvNo+Jv6W3oC3NL6V1ZwgB:"),
    # nvme gen-dhchap-key --secret=<S48> --key-length=48 --hmac=0
    ("S48", 0, None, "DHHC-1:00:ZYhAGg95U0QrvP5XWFBKjrBMUWn5DgxN+6e3BFR03hX76WZjM9bBNggxC7VPUdgVtRdvjA==:"),
    # nvme gen-dhchap-key --secret=<S64> --key-length=64 --hmac=0
    ("S64", 0, None, "DHHC-1:00:ynyhh7KM0aW/bV4nokOiKic5A+wxv18RuX8/O6yjbDO7M3D9I1FFdHATeITNG73x3IgHAB0X5r8tzF3u5N1z4AJtXfM=:"),
    # nvme gen-dhchap-key --secret=<S32> --hmac=1 --nqn=<HOSTNQN>
    ("S32", 1, HOSTNQN, "DHHC-1:01:Q2xggKKP6rdjxlf3/HCiP6TVpqPjPCpEYlQyhRR/KXIxAsXr:"),
    # nvme gen-dhchap-key --secret=<S48> --hmac=2 --nqn=<HOSTNQN>
    ("S48", 2, HOSTNQN, "DHHC-1:02:Z1n8ONCt6ew96fESikVcOPeggnfs8HWq7HQTi5kCVmqzZM+4joah4IqiqCKTKHwhFinUug==:"),
    # nvme gen-dhchap-key --secret=<S64> --hmac=3 --nqn=<SUBNQN>
    ("S64", 3, SUBNQN, "DHHC-1:03:hLaYHopD3nh8QPhCJ66MmWSSDl2cjhVpEJmmRQW8XWatOy5RKyTzMZ4B8jsb7plB10HPOJ5fun47yVEFGaZSL3znWL8=:"),
]


def det(label, n):
    """n deterministic pseudo-random bytes named by label (SHAKE-256 of it)."""
    return hashlib.shake_256(label.encode()).digest(n)


# The --secret values given to nvme-cli above (hex of det("nvme-cli secret N", N)).
NVME_CLI_INPUT = {"S32": det("nvme-cli secret 32", 32), "S48": det("nvme-cli secret 48", 48),
                  "S64": det("nvme-cli secret 64", 64)}


def e_times_2_to(bits):
    """floor(e * 2^bits), from the series e = sum 1/k!, with 64 guard bits."""
    guard = 64
    term, total, k = 1 << (bits + guard), 0, 0
    while term:
        total += term
        k += 1
        term //= k
    return total >> guard


def ffdhe_prime(b):
    return (1 << b) - (1 << (b - 64)) + ((e_times_2_to(b - 130) + RFC7919_X[b]) << 64) - 1


def be(n, size):
    return n.to_bytes(size, "big")


def crc32(data):
    return zlib.crc32(data) & 0xffffffff


def secret_text(nn, key, pad=True):
    b64 = base64.b64encode(key + crc32(key).to_bytes(4, "little")).decode()
    return "DHHC-1:%02d:%s:" % (nn, b64 if pad else b64.rstrip("="))


def decode_secret(text):
    """The kernel's nvme_auth_parse_key/nvme_auth_extract_key, for checking our inputs."""
    assert text.startswith("DHHC-1:") and text[9] == ":" and text.endswith(":")
    raw = base64.b64decode(text[10:-1], validate=True)
    key, crc = raw[:-4], int.from_bytes(raw[-4:], "little")
    assert len(key) in (32, 48, 64) and crc == crc32(key)
    return int(text[7:9]), key


def transform(nn, key, nqn):
    if nn == 0:
        return key
    return hmac.new(key, nqn.encode() + SEED, HASHES[nn]).digest()


def augmented(hash_id, shared, challenge):
    return hmac.new(HASHES[hash_id](shared).digest(), challenge, HASHES[hash_id]).digest()


def response(hash_id, key_nn, key, challenge, seq, tid, sc_c, label, nqn1, nqn2):
    kx = transform(key_nn, key, nqn1)
    msg = (challenge + seq.to_bytes(4, "little") + tid.to_bytes(2, "little") + bytes([sc_c])
           + label + nqn1.encode() + b"\0" + nqn2.encode())
    return hmac.new(kx, msg, HASHES[hash_id]).digest()


def line(kind, **fields):
    parts = [kind]
    for k, v in fields.items():
        parts.append("%s=%s" % (k, v.hex() if isinstance(v, bytes) else v))
    return " ".join(parts)


def main(out_path):
    out = ["# DH-HMAC-CHAP known answers: written by tests/auth/dhchap_kat.py, do not edit"]

    primes = {g: ffdhe_prime(b) for g, b in DHGROUPS.items()}
    assert ("%X" % primes[1]).startswith(FFDHE2048_HEAD)
    for g, p in sorted(primes.items()):
        size = DHGROUPS[g] // 8
        # p = 7 mod 8: 2 is a quadratic residue mod p and -1 is not (Euler's criterion,
        # the second supplement of quadratic reciprocity), so g = 2 lies in the subgroup
        # of order q = (p - 1) / 2 and p - 2 = -2 does not: a value in range the full
        # public key check must refuse.
        assert p % 8 == 7
        out.append(line("group", id=g, p=be(p, size), nonsub=be(p - 2, size)))

    # Secrets: nvme-cli's, then one of each NN and length, padded and unpadded.
    for name, nn, nqn, text in NVME_CLI_SECRETS:
        got_nn, key = decode_secret(text)
        assert got_nn == nn and key == transform(nn, NVME_CLI_INPUT[name], nqn), text
        out.append(line("secret", text=text, hash=nn, key=key, origin="nvme-cli"))
    for nn in range(4):
        for n in (32, 48, 64):
            key = det("key %d %d" % (nn, n), n)
            for pad in (True, False):
                text = secret_text(nn, key, pad)
                assert decode_secret(secret_text(nn, key)) == (nn, key)
                out.append(line("secret", text=text, hash=nn, key=key, origin="python"))
                if (n + 4) % 3 == 0:
                    break   # 32 bytes + CRC: a multiple of 3, no padding either way

    # Key transformation, every NN and length, with either NQN.
    for nn in range(4):
        for n in (32, 48, 64):
            key = det("key %d %d" % (nn, n), n)
            for nqn in (HOSTNQN, SUBNQN):
                out.append(line("transform", hash=nn, key=key, nqn=nqn,
                                out=transform(nn, key, nqn)))

    # DH: fixed private exponents, both public values and the shared secret, per group.
    # In ffdhe2048 also a private exponent whose public value starts with a zero byte and
    # a pair whose shared secret does (the padding to p's size).
    def dh_line(g, x, y, why):
        p, size = primes[g], DHGROUPS[g] // 8
        gx, gy = pow(2, x, p), pow(2, y, p)
        shared = pow(gy, x, p)
        assert shared == pow(gx, y, p)
        return line("dh", group=g, x=be(x, (x.bit_length() + 7) // 8),
                    y=be(y, (y.bit_length() + 7) // 8), gx=be(gx, size), gy=be(gy, size),
                    shared=be(shared, size), why=why)

    def exponent(label, nbytes):
        return int.from_bytes(det(label, nbytes), "big") | 1

    for g in sorted(primes):
        out.append(dh_line(g, exponent("x %d" % g, 32), exponent("y %d" % g, 32), "fixed"))
    p2048 = primes[1]
    # A full-length exponent (just below q).
    out.append(dh_line(1, (p2048 - 1) // 2 - 12345, exponent("y full", 32), "x-near-q"))
    # The labels were found by trying "x lead 0", "x lead 1", ... (and "y shared 0", ...)
    # until the value's first byte was zero; the assertions check they still are.
    x = exponent("x lead 141", 32)
    assert pow(2, x, p2048) >> (2048 - 8) == 0
    out.append(dh_line(1, x, exponent("y lead", 32), "gx-leading-zero"))
    x, y = exponent("x shared", 32), exponent("y shared 932", 32)
    assert pow(2, x * y, p2048) >> (2048 - 8) == 0
    out.append(dh_line(1, x, y, "shared-leading-zero"))

    # Augmented challenge over a fixed shared secret, each hash.
    for h in HASHES:
        shared = det("shared %d" % h, 256)
        c = det("c %d" % h, HASH_LEN[h])
        out.append(line("augmented", hash=h, shared=shared, challenge=c,
                        out=augmented(h, shared, c)))

    # Whole exchanges: each hash with the null group, ffdhe2048 and ffdhe8192 (each hash
    # also once with another group), the host's and the controller's keys of various NN
    # and lengths; sequence numbers and the transaction id with all bytes distinct, so a
    # byte order mistake shows.
    cases = []
    for h in HASHES:
        for g in (0, 1, 5, {1: 2, 2: 3, 3: 4}[h]):
            cases.append((h, g))
    for i, (h, g) in enumerate(cases):
        hl = HASH_LEN[h]
        hk_nn, ck_nn = i % 4, (i + 1) % 4
        hk = det("host key %d" % i, (32, 48, 64)[i % 3])
        ck = det("ctrl key %d" % i, (64, 32, 48)[i % 3])
        c1, c2 = det("c1 %d" % i, hl), det("c2 %d" % i, hl)
        s1, s2, tid = 0x12345678 + i, 0x9abcdef0 + i, 0xa1b2 + i
        sc_c = 0 if i % 5 else 2   # now and then a non-zero SC_C, placed as the spec says
        fields = dict(hash=h, group=g, hkhash=hk_nn, hk=hk, ckhash=ck_nn, ck=ck, c1=c1, c2=c2,
                      s1=s1, s2=s2, tid=tid, scc=sc_c, hostnqn=HOSTNQN, subnqn=SUBNQN)
        if g:
            p, size = primes[g], DHGROUPS[g] // 8
            x, y = exponent("exch x %d" % i, 32), exponent("exch y %d" % i, 32)
            gx, gy = pow(2, x, p), pow(2, y, p)
            shared = be(pow(gy, x, p), size)
            ca1, ca2 = augmented(h, shared, c1), augmented(h, shared, c2)
            fields.update(x=be(x, 32), y=be(y, 32), gx=be(gx, size), gy=be(gy, size),
                          shared=shared, ca1=ca1, ca2=ca2)
        else:
            ca1, ca2 = c1, c2
        fields["r1"] = response(h, hk_nn, hk, ca1, s1, tid, sc_c, b"HostHost", HOSTNQN, SUBNQN)
        fields["r2"] = response(h, ck_nn, ck, ca2, s2, tid, sc_c, b"Controller", SUBNQN, HOSTNQN)
        out.append(line("exchange", **fields))

    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, out_path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: dhchap_kat.py OUT")
    main(sys.argv[1])
