/* SPDX-License-Identifier: MIT */
/*
 * The discovery service's configuration: nvmf_target.discovery_log and discovery_kato,
 * and the referrals of a port (subsystem/config.h struct nvmf_referral_config):
 * nvmetcli's "ports[].referrals[]" read, checked, copied and written back. A referral
 * names another discovery service (NVMe-oF 1.1 section 5.3, Discovery Log Page entry
 * subtype 1); the discovery controller lists the enabled ones (target/discovery.c).
 *
 * nvmetcli dumps each configfs referral as {"addr": {"adrfam", "portid", "traddr",
 * "treq", "trsvcid", "trtype"}, "enable": 1, "name": "..."}, attribute values as
 * strings. Its address is the referred service's: any transport a host can reach there
 * (rdma, tcp), an IP address of its family, a port number.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "subsystem/config_json.h"
#include "util/addr.h"

static const char *const disc_log_names[] = {
	[NVMF_DISC_LOG_ALL_PORTS] = "all-ports",
	[NVMF_DISC_LOG_HOST_PORT] = "host-port",
};

const char *nvmf_disc_log_mode_name(enum nvmf_disc_log_mode mode)
{
	return (unsigned)mode <= NVMF_DISC_LOG_HOST_PORT ? disc_log_names[mode] : "?";
}

static const struct cfg_irule disc_kato_rule = { 1, 3600, false, "a keep-alive timeout",
						 "1-3600 seconds" };

/* nvmf_target.discovery_log and discovery_kato: what the discovery service lists, and
 * how long a silent discovery controller lives. */
int cfg_parse_discovery(struct cfg_ctx *c, json_t *nt, struct nvmf_target_config *t)
{
	const char *mode = NULL;
	long long n;
	int r;
	char b[80];

	if (cfg_get_str(c, nt, "nvmf_target", "discovery_log", false, &mode))
		return -1;
	if (mode) {
		if (!strcmp(mode, "all-ports"))
			t->discovery_log = NVMF_DISC_LOG_ALL_PORTS;
		else if (!strcmp(mode, "host-port"))
			t->discovery_log = NVMF_DISC_LOG_HOST_PORT;
		else
			return cfg_fail(c, "nvmf_target", "discovery_log",
					"%s is not \"all-ports\" or \"host-port\"",
					cfg_quote(mode, b, sizeof(b)));
	}
	if ((r = cfg_get_int(c, nt, "nvmf_target", "discovery_kato", &disc_kato_rule, false, &n)) <
	    0)
		return -1;
	if (r)
		t->discovery_kato = (uint32_t)n;
	return 0;
}

static const char *const treq_names[] = { "not specified", "required", "not required" };

static const struct cfg_irule ref_portid_rule = { 0, 65535, true, "a port ID", "0-65535" };
static const struct cfg_irule ref_svc_rule = { 1, 65535, true, "a port number", "1-65535" };

/* A configfs directory name: 1-255 bytes, printable, no '/'. */
static int check_name(struct cfg_ctx *c, const char *base, const char *name)
{
	char b[80];

	if (!*name)
		return cfg_fail(c, base, "name", "empty (a referral needs a name)");
	if (strlen(name) > 255)
		return cfg_fail(c, base, "name", "%s is longer than 255 bytes",
				cfg_quote(name, b, sizeof(b)));
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '/')
			return cfg_fail(c, base, "name",
					"%s is not a configfs name (no '/' or control "
					"characters)",
					cfg_quote(name, b, sizeof(b)));
	return 0;
}

/* addr{} of a referral. */
static int parse_ref_addr(struct cfg_ctx *c, json_t *a, const char *base,
			  struct nvmf_referral_config *r)
{
	/* The kernel's referral attributes (addr_*), as nvmetcli dumps them. */
	static const char *const known[] = { "trtype", "adrfam", "traddr", "trsvcid",
					     "portid", "treq",   NULL };
	const char *trtype, *adrfam, *traddr, *treq;
	unsigned char bin[16];
	char b[80];
	long long v;
	int got;

	if (cfg_check_keys(c, a, base, known, NULL) ||
	    cfg_get_str(c, a, base, "trtype", true, &trtype))
		return -1;
	if (strcmp(trtype, "rdma") && strcmp(trtype, "tcp"))
		return cfg_fail(c, base, "trtype",
				"%s is not a referral transport (\"rdma\" or \"tcp\")",
				cfg_quote(trtype, b, sizeof(b)));
	snprintf(r->trtype, sizeof(r->trtype), "%s", trtype);
	if (cfg_get_str(c, a, base, "adrfam", false, &adrfam) ||
	    cfg_get_str(c, a, base, "traddr", true, &traddr))
		return -1;
	if (adrfam && *adrfam && strcmp(adrfam, "ipv4") && strcmp(adrfam, "ipv6"))
		return cfg_fail(c, base, "adrfam",
				"%s is not supported for %s (use \"ipv4\" or \"ipv6\")",
				cfg_quote(adrfam, b, sizeof(b)), trtype);
	if (!*traddr)
		return cfg_fail(c, base, "traddr",
				"empty (a referral needs the IP address of its "
				"discovery service)");
	int fam = nvmf_ip_parse(traddr, bin);
	bool v4 = fam == AF_INET, v6 = fam == AF_INET6;
	if (adrfam && !strcmp(adrfam, "ipv4") && !v4)
		return cfg_fail(c, base, "traddr",
				v6 ? "%s is an IPv6 address but adrfam is \"ipv4\"" :
				     "%s is not an IPv4 address",
				cfg_quote(traddr, b, sizeof(b)));
	if (adrfam && !strcmp(adrfam, "ipv6") && !v6)
		return cfg_fail(c, base, "traddr",
				v4 ? "%s is an IPv4 address but adrfam is \"ipv6\"" :
				     "%s is not an IPv6 address",
				cfg_quote(traddr, b, sizeof(b)));
	if (!v4 && !v6)
		return cfg_fail(c, base, "traddr", "%s is not an IPv4 or IPv6 address",
				cfg_quote(traddr, b, sizeof(b)));
	r->adrfam = v4 ? AF_INET : AF_INET6;
	/* A host cannot connect to "any address": the entry must name one. */
	if (cfg_all_zero(bin, v4 ? 4 : 16))
		return cfg_fail(c, base, "traddr",
				"%s is a wildcard address (a referral names the "
				"address hosts connect to)",
				cfg_quote(traddr, b, sizeof(b)));
	nvmf_ip_str(r->adrfam, bin, r->traddr, sizeof(r->traddr));
	/* The well-known ports: NVMe/RDMA 4420, NVMe/TCP discovery 8009. */
	v = strcmp(trtype, "tcp") ? 4420 : 8009;
	if (cfg_get_int(c, a, base, "trsvcid", &ref_svc_rule, false, &v) < 0)
		return -1;
	snprintf(r->trsvcid, sizeof(r->trsvcid), "%lld", v);
	if ((got = cfg_get_int(c, a, base, "portid", &ref_portid_rule, false, &v)) < 0)
		return -1;
	r->portid = got ? (uint16_t)v : 0;
	if (cfg_get_str(c, a, base, "treq", false, &treq))
		return -1;
	if (treq && *treq) {
		for (r->treq = 0; r->treq < 3 && strcmp(treq, treq_names[r->treq]); r->treq++)
			;
		if (r->treq == 3)
			return cfg_fail(
				c, base, "treq",
				"%s is not \"not specified\", \"required\" or \"not required\"",
				cfg_quote(treq, b, sizeof(b)));
	}
	return 0;
}

static int parse_referral(struct cfg_ctx *c, json_t *j, const char *base,
			  struct nvmf_referral_config *r)
{
	static const char *const known[] = { "name", "addr", "enable", NULL };
	const char *name;
	json_t *addr;
	char sub[160];

	memset(r, 0, sizeof(*r));
	r->enable = true;
	if (cfg_check_keys(c, j, base, known, NULL) ||
	    cfg_get_str(c, j, base, "name", true, &name) || check_name(c, base, name))
		return -1;
	strcpy(r->name, name);
	snprintf(sub, sizeof(sub), "%s.addr", base);
	if (cfg_get_typed(c, j, base, "addr", JSON_OBJECT, true, &addr) ||
	    parse_ref_addr(c, addr, sub, r))
		return -1;
	return cfg_get_bool(c, j, base, "enable", &r->enable) < 0 ? -1 : 0;
}

int cfg_parse_referrals(struct cfg_ctx *c, json_t *port, const char *base,
			struct nvmf_port_config *p)
{
	json_t *arr, *v;
	char sub[128], b[80];
	size_t i;

	if (cfg_get_typed(c, port, base, "referrals", JSON_ARRAY, false, &arr))
		return -1;
	if (!arr || !json_array_size(arr))
		return 0;
	if (!(p->referrals = calloc(json_array_size(arr), sizeof(*p->referrals))))
		return cfg_fail(c, base, "referrals", "out of memory");
	json_array_foreach(arr, i, v) {
		snprintf(sub, sizeof(sub), "%s.referrals[%zu]", base, i);
		if (!json_is_object(v))
			return cfg_fail(c, sub, NULL, "expected an object, got %s",
					cfg_show(v, b, sizeof(b)));
		if (parse_referral(c, v, sub, &p->referrals[i]))
			return -1;
		p->n_referrals = i + 1;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(p->referrals[k].name, p->referrals[i].name))
				return cfg_fail(c, sub, "name",
						"%s is already used by referrals[%zu]",
						cfg_quote(p->referrals[i].name, b, sizeof(b)), k);
	}
	return 0;
}

json_t *cfg_referrals_to_json(const struct nvmf_port_config *p)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < p->n_referrals; i++) {
		const struct nvmf_referral_config *r = &p->referrals[i];
		char portid[8];
		snprintf(portid, sizeof(portid), "%u", r->portid);
		json_t *j = json_pack("{s:{s:s, s:s, s:s, s:s, s:s, s:s}, s:i, s:s}", "addr",
				      "adrfam", r->adrfam == AF_INET6 ? "ipv6" : "ipv4", "portid",
				      portid, "traddr", r->traddr, "treq",
				      treq_names[r->treq < 3 ? r->treq : 0], "trsvcid", r->trsvcid,
				      "trtype", r->trtype, "enable", r->enable ? 1 : 0, "name",
				      r->name);
		if (!j || json_array_append_new(a, j)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int nvmf_config_referrals_dup(const struct nvmf_referral_config *src, size_t n,
			      struct nvmf_referral_config **out)
{
	*out = NULL;
	if (!n)
		return 0;
	if (!(*out = malloc(n * sizeof(**out))))
		return -ENOMEM;
	memcpy(*out, src, n * sizeof(**out));
	return 0;
}

bool nvmf_config_referrals_equal(const struct nvmf_port_config *a, const struct nvmf_port_config *b)
{
	if (a->n_referrals != b->n_referrals)
		return false;
	for (size_t i = 0; i < a->n_referrals; i++) {
		const struct nvmf_referral_config *x = &a->referrals[i], *y = &b->referrals[i];
		if (strcmp(x->name, y->name) || strcmp(x->trtype, y->trtype) ||
		    x->adrfam != y->adrfam || strcmp(x->traddr, y->traddr) ||
		    strcmp(x->trsvcid, y->trsvcid) || x->treq != y->treq ||
		    x->portid != y->portid || x->enable != y->enable)
			return false;
	}
	return true;
}
