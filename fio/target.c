/* SPDX-License-Identifier: MIT */
/* The fio engine's target string (fio/target.h). */
#include "fio/target.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KNOWN_KEYS "trtype, adrfam, traddr, trsvcid, subnqn, hostnqn, ns"

static int fail(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (msg && len)
		vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Copy @value into @dst (@size bytes), lower case when @lower; an error when it does not
 * fit or @dst is already set. */
static int store(char *dst, size_t size, const char *key, const char *value, int lower, char *msg,
		 size_t len)
{
	if (dst[0])
		return fail(msg, len, "key '%s' given twice", key);
	size_t n = strlen(value);
	if (n >= size)
		return fail(msg, len, "%s '%.40s...' is too long (%zu characters, at most %zu)",
			    key, value, n, size - 1);
	for (size_t i = 0; i <= n; i++)
		dst[i] = lower ? (char)tolower((unsigned char)value[i]) : value[i];
	return 0;
}

int nvmf_fio_target_set(struct nvmf_fio_target *t, const char *key, const char *value, char *msg,
			size_t len)
{
	if (!value[0])
		return fail(msg, len, "key '%s' has no value", key);
	if (!strcasecmp(key, "trtype")) {
		if (strcasecmp(value, "tcp") && strcasecmp(value, "rdma"))
			return fail(msg, len, "trtype '%s' is not tcp or rdma", value);
		return store(t->trtype, sizeof(t->trtype), "trtype", value, 1, msg, len);
	}
	if (!strcasecmp(key, "adrfam")) {
		if (strcasecmp(value, "ipv4") && strcasecmp(value, "ipv6"))
			return fail(msg, len, "adrfam '%s' is not IPv4 or IPv6", value);
		return store(t->adrfam, sizeof(t->adrfam), "adrfam", value, 1, msg, len);
	}
	if (!strcasecmp(key, "traddr"))
		return store(t->traddr, sizeof(t->traddr), "traddr", value, 0, msg, len);
	if (!strcasecmp(key, "trsvcid"))
		return store(t->trsvcid, sizeof(t->trsvcid), "trsvcid", value, 0, msg, len);
	if (!strcasecmp(key, "subnqn"))
		return store(t->subnqn, sizeof(t->subnqn), "subnqn", value, 0, msg, len);
	if (!strcasecmp(key, "hostnqn"))
		return store(t->hostnqn, sizeof(t->hostnqn), "hostnqn", value, 0, msg, len);
	if (!strcasecmp(key, "ns")) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(value, &end, 0);
		if (t->nsid)
			return fail(msg, len, "key 'ns' given twice");
		if (!isdigit((unsigned char)value[0]) || *end || errno || v == 0 ||
		    v > 0xfffffffeull)
			return fail(msg, len, "ns '%s' is not a namespace ID (1 to 4294967294)",
				    value);
		t->nsid = (uint32_t)v;
		return 0;
	}
	return fail(msg, len, "unknown key '%s' (known: " KNOWN_KEYS ")", key);
}

int nvmf_fio_target_parse(const char *text, struct nvmf_fio_target *t, char *msg, size_t len)
{
	memset(t, 0, sizeof(*t));
	if (msg && len)
		msg[0] = '\0';
	if (!text || !strchr(text, '='))
		return 0;
	/* One word at a time, "\:" read as ':'. */
	size_t n = strlen(text);
	char *word = malloc(n + 1);
	if (!word)
		return fail(msg, len, "out of memory");
	const char *p = text;
	int rc = 0;
	while (!rc) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		size_t w = 0;
		while (*p && !isspace((unsigned char)*p)) {
			if (p[0] == '\\' && p[1] == ':')
				p++;
			word[w++] = *p++;
		}
		word[w] = '\0';
		char *eq = strchr(word, '=');
		if (!eq) {
			rc = fail(msg, len,
				  "'%s' is not key=value (the target is written as 'trtype=tcp "
				  "traddr=ADDR trsvcid=PORT subnqn=NQN ns=NSID')",
				  word);
			break;
		}
		*eq = '\0';
		if (!word[0]) {
			rc = fail(msg, len, "'=%s' has no key", eq + 1);
			break;
		}
		rc = nvmf_fio_target_set(t, word, eq + 1, msg, len);
	}
	free(word);
	return rc;
}

void nvmf_fio_target_merge(struct nvmf_fio_target *t, const struct nvmf_fio_target *dflt)
{
	if (!t->trtype[0])
		memcpy(t->trtype, dflt->trtype, sizeof(t->trtype));
	if (!t->adrfam[0])
		memcpy(t->adrfam, dflt->adrfam, sizeof(t->adrfam));
	if (!t->traddr[0])
		memcpy(t->traddr, dflt->traddr, sizeof(t->traddr));
	if (!t->trsvcid[0])
		memcpy(t->trsvcid, dflt->trsvcid, sizeof(t->trsvcid));
	if (!t->subnqn[0])
		memcpy(t->subnqn, dflt->subnqn, sizeof(t->subnqn));
	if (!t->hostnqn[0])
		memcpy(t->hostnqn, dflt->hostnqn, sizeof(t->hostnqn));
	if (!t->nsid)
		t->nsid = dflt->nsid;
}

int nvmf_fio_digests_parse(const char *text, int *hdr, int *data, char *msg, size_t len)
{
	*hdr = *data = 0;
	if (!text || !text[0] || !strcasecmp(text, "none"))
		return 0;
	if (!strcasecmp(text, "both")) {
		*hdr = *data = 1;
		return 0;
	}
	const char *p = text;
	while (*p) {
		size_t n = strcspn(p, ",|");
		if (n == 6 && !strncasecmp(p, "header", 6))
			*hdr = 1;
		else if (n == 4 && !strncasecmp(p, "data", 4))
			*data = 1;
		else
			return fail(msg, len,
				    "digest_enable '%s' is not NONE, HEADER, DATA, BOTH or "
				    "HEADER,DATA",
				    text);
		p += n;
		if (*p)
			p++;
	}
	return 0;
}
