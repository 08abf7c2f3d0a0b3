/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the NVMe/TCP TLS PSK parsers (nvme/tls-psk.c) on what a hostile
 * host or a mistyped configuration gives: the PSK identity of a ClientHello
 * (nvme_tls_identity_parse, bytes not NUL terminated) and the interchange text of a
 * configured PSK (nvme_tls_psk_parse).
 *
 * Input: a byte (bit 0: the rest is an interchange text, else an identity), then the
 * bytes (for the text, up to the first NUL).
 * Checked: an accepted identity rebuilt from its fields is the input byte for byte, with
 * NQNs of 1..223 characters and version 1 digests of 44 or 64 characters; a refused one
 * leaves the structure zeroed. An accepted text gives a 32- or 48-byte key of its HH that
 * formats to a text which parses back to the same key; a refused one gives a message and
 * a zeroed key.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/tls-psk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static void identity(const uint8_t *data, size_t size)
{
	struct nvme_tls_identity id;
	char again[700];
	int n;

	if (nvme_tls_identity_parse((const char *)data, size, &id)) {
		if (!all_zero(&id, sizeof(id)))
			abort();
		return;
	}
	if (!id.hostnqn[0] || strlen(id.hostnqn) > NVME_TLS_NQN_MAX || !id.subnqn[0] ||
	    strlen(id.subnqn) > NVME_TLS_NQN_MAX || (id.type != 'R' && id.type != 'G') ||
	    (id.hash != 1 && id.hash != 2) || (id.version != 0 && id.version != 1))
		abort();
	if (id.version == 1 && strlen(id.digest) != (id.hash == 1 ? 44u : 64u))
		abort();
	n = snprintf(again, sizeof(again), "NVMe%d%c%02u %s %s%s%s", id.version, id.type,
		     (unsigned)id.hash, id.hostnqn, id.subnqn, id.version ? " " : "", id.digest);
	if (n < 0 || (size_t)n != size || memcmp(again, data, size))
		abort();
}

static void text(const uint8_t *data, size_t size)
{
	struct nvme_tls_psk k, back;
	char buf[256], why[256] = "", out[NVME_TLS_PSK_TEXT_MAX];

	if (size >= sizeof(buf))
		size = sizeof(buf) - 1;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (nvme_tls_psk_parse(buf, &k, why, sizeof(why))) {
		if (!why[0] || !all_zero(&k, sizeof(k)))
			abort();
		return;
	}
	if ((k.len != 32 && k.len != 48) || k.hash > 2 || (k.hash == 1 && k.len != 32) ||
	    (k.hash == 2 && k.len != 48))
		abort();
	if (nvme_tls_psk_format(&k, out, sizeof(out)) != (k.len == 32 ? 65 : 89) ||
	    nvme_tls_psk_parse(out, &back, NULL, 0) || memcmp(&k, &back, sizeof(k)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		text(data + 1, size - 1);
	else
		identity(data + 1, size - 1);
	return 0;
}
