/* The discovery controller through the loop transport: Identify, the Discovery Log Page
 * (the discovery subsystem's own entry and one per port and allowed subsystem, windows,
 * genctr, wildcard addresses) and the commands it refuses. Each test builds its own
 * small target (no namespaces); then referrals, the two listing modes
 * (nvmf_target.discovery_log), the discovery controller's log table and the configured
 * KATO of a discovery controller whose host asked for none. */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

#define GEN(sc) (nvme_status(NVME_SCT_GENERIC, (sc)) | NVME_SC_DNR)
#define HOST1   "nqn.2026-11.io.nvmf-rdma:host1"
#define HOST2   "nqn.2026-11.io.nvmf-rdma:host2"
#define HDR     1024u
#define ENT     1024u

/* The target and the host's discovery queue (tests/unit/target/fixture.h). */
struct dx {
	struct fx f;
};

static char *nqn(int i)
{
	char b[64];
	snprintf(b, sizeof(b), "nqn.2026-11.io.nvmf-rdma:disk%d", i);
	return strdup(b);
}

/* Subsystem disk<i>; @host NULL = any host, else only that one. */
static void add_subsys(struct dx *d, int i, const char *host)
{
	char *n = nqn(i);
	fx_cfg_subsys(&d->f.cfg, n, host, 4);
	free(n);
}

/* Loop port @portid on @traddr:@svc exposing disk<first> .. disk<first+n-1>. */
static void add_port(struct dx *d, uint16_t portid, int family, const char *traddr, const char *svc,
		     int first, int n)
{
	struct nvmf_port_config *p = fx_cfg_loop_port(&d->f.cfg, portid, family, traddr, svc);
	for (int k = 0; k < n; k++) {
		char *s = nqn(first + k);
		fx_cfg_expose(p, s);
		free(s);
	}
}

/* Start the target; the host @hostnqn dials port 0's service at @local (IPv4 or IPv6
 * text, which becomes the connection's local address), connects to discovery and, when
 * @enable, sets CC.EN. */
static void start(struct dx *d, const char *hostnqn, const char *local, bool enable)
{
	CU_ASSERT_FATAL(fx_boot(&d->f, local, d->f.cfg.ports[0].trsvcid) == 0);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&d->f.admin, 0, 31, NVMF_DISC_NQN, hostnqn, 0xffff, 0,
					 &d->f.cntlid, NULL),
			      0);
	if (enable)
		CU_ASSERT_EQUAL_FATAL(fx_enable(&d->f.admin), 0);
}

static void stop(struct dx *d)
{
	fx_teardown(&d->f);
}

static struct nvme_sqe mk(uint8_t opc, uint32_t c10, uint32_t c11)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.cdw10 = htole32(c10);
	c.cdw11 = htole32(c11);
	return c;
}

static int disc_log(struct dx *d, uint64_t off, void *buf, uint32_t len)
{
	uint32_t numd = len / 4 - 1;
	struct nvme_sqe c = mk(nvme_admin_get_log_page,
			       NVME_LOG_LID_DISCOVER | (numd & 0xffff) << 16, numd >> 16);
	c.cdw12 = htole32((uint32_t)off);
	c.cdw13 = htole32((uint32_t)(off >> 32));
	memset(buf, 0xff, len);
	return fx_cmd(&d->f.admin, &c, buf, len, NULL);
}

/* Header fields of a log read into @b. */
static uint64_t numrec(const void *b)
{
	return le64toh(((const struct nvmf_discovery_log *)b)->numrec);
}
static uint64_t genctr(const void *b)
{
	return le64toh(((const struct nvmf_discovery_log *)b)->genctr);
}
static const struct nvmf_disc_log_entry *entry(const void *b, size_t i)
{
	return &((const struct nvmf_discovery_log *)b)->entries[i];
}

static void discovery_log_without_exposed_subsystems_is_only_the_discovery_entry(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 0);
	start(&d, HOST1, "10.0.0.1", true);
	uint8_t b[HDR + 2 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(numrec(b), 1);
	CU_ASSERT_EQUAL(le16toh(((struct nvmf_discovery_log *)b)->recfmt), 0);
	for (size_t i = 18; i < HDR; i++)
		if (b[i]) {
			CU_FAIL("non-zero byte past the header fields");
			break;
		}
	CU_ASSERT_EQUAL(entry(b, 0)->subtype, NVME_NQN_CURR);
	for (size_t i = HDR + ENT; i < sizeof(b); i++)
		if (b[i]) {
			CU_FAIL("non-zero byte past the one entry");
			break;
		}
	stop(&d);
}

/* TP 8013: the discovery subsystem lists itself on the port (subtype 3), with its NQN;
 * DUPRETINFO because it returns this log (nvme-cli's connect-all skips it), EPCSD
 * because it keeps explicit persistent connections (KATO, log change events). */
static void discovery_log_starts_with_the_current_discovery_subsystem_entry(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 4, AF_INET, "192.168.7.1", "4421", 0, 1);
	d.f.cfg.ports[0].treq = NVMF_TREQ_NOT_REQUIRED;
	start(&d, HOST1, "192.168.7.1", true);
	uint8_t b[HDR + 2 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL_FATAL(numrec(b), 2);
	const struct nvmf_disc_log_entry *e = entry(b, 0);
	CU_ASSERT_EQUAL(e->subtype, NVME_NQN_CURR);
	CU_ASSERT_STRING_EQUAL(e->subnqn, NVMF_DISC_NQN);
	CU_ASSERT_EQUAL(le16toh(e->eflags), NVMF_DISC_EFLAGS_DUPRETINFO | NVMF_DISC_EFLAGS_EPCSD);
	CU_ASSERT_EQUAL(e->trtype, NVMF_TRTYPE_LOOP);
	CU_ASSERT_EQUAL(e->adrfam, NVMF_ADDR_FAMILY_IP4);
	/* The configured secure channel bits, and SQ flow control disable supported. */
	CU_ASSERT_EQUAL(e->treq, NVMF_TREQ_NOT_REQUIRED | NVMF_TREQ_DISABLE_SQFLOW);
	CU_ASSERT_EQUAL(le16toh(e->portid), 4);
	CU_ASSERT_EQUAL(le16toh(e->cntlid), 0xffff);
	CU_ASSERT_EQUAL(le16toh(e->asqsz), 32);
	CU_ASSERT_STRING_EQUAL(e->trsvcid, "4421");
	CU_ASSERT_STRING_EQUAL(e->traddr, "192.168.7.1");
	/* The subsystem's entry has no EFLAGS. */
	CU_ASSERT_EQUAL(entry(b, 1)->subtype, NVME_NQN_NVME);
	CU_ASSERT_EQUAL(le16toh(entry(b, 1)->eflags), 0);
	stop(&d);
}

/* A configured discovery NQN (discovery.nqn) is the one the entry names. */
static void current_discovery_entry_names_the_configured_discovery_nqn(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	strcpy(d.f.cfg.target.discovery_nqn, "nqn.2026-11.io.nvmf-rdma:mydisc");
	CU_ASSERT_FATAL(fx_boot(&d.f, "10.0.0.1", "4420") == 0);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&d.f.admin, 0, 31, "nqn.2026-11.io.nvmf-rdma:mydisc",
					 HOST1, 0xffff, 0, &d.f.cntlid, NULL),
			      0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(&d.f.admin), 0);
	uint8_t b[HDR + 2 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL_FATAL(numrec(b), 2);
	CU_ASSERT_STRING_EQUAL(entry(b, 0)->subnqn, "nqn.2026-11.io.nvmf-rdma:mydisc");
	stop(&d);
}

/* With discovery.nqn set, a Connect to the discovery service may name it or the
 * well-known discovery NQN (a plain `nvme discover`), as nvmet takes both; any other
 * NQN is still refused with Connect Invalid Parameters pointing at SUBNQN. */
static void discovery_answers_to_the_configured_and_the_well_known_nqn_only(void)
{
	struct dx d = { 0 };
	struct fxq q[3]; /* in the fixture's list until stop() */
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	strcpy(d.f.cfg.target.discovery_nqn, "nqn.2026-11.io.nvmf-rdma:mydisc");
	CU_ASSERT_FATAL(fx_boot(&d.f, "10.0.0.1", "4420") == 0);
	const char *ok[] = { "nqn.2026-11.io.nvmf-rdma:mydisc", NVMF_DISC_NQN };
	for (int i = 0; i < 2; i++) {
		fx_queue_init(&d.f, &q[i]);
		CU_ASSERT_EQUAL_FATAL(fx_connect(&q[i], 0, 31, ok[i], HOST1, 0xffff, 0, NULL, NULL),
				      0);
		CU_ASSERT_EQUAL_FATAL(fx_enable(&q[i]), 0);
		/* A discovery controller: its log lists itself under the configured NQN. */
		uint8_t b[HDR + 2 * ENT];
		struct nvme_sqe c = mk(nvme_admin_get_log_page,
				       NVME_LOG_LID_DISCOVER | (uint32_t)(sizeof(b) / 4 - 1) << 16,
				       0);
		CU_ASSERT_EQUAL_FATAL(fx_cmd(&q[i], &c, b, sizeof(b), NULL), 0);
		CU_ASSERT_EQUAL(numrec(b), 2);
		CU_ASSERT_STRING_EQUAL(entry(b, 0)->subnqn, "nqn.2026-11.io.nvmf-rdma:mydisc");
		CU_ASSERT_STRING_EQUAL(entry(b, 1)->subnqn, "nqn.2026-11.io.nvmf-rdma:disk0");
	}
	struct nvme_cqe cqe;
	fx_queue_init(&d.f, &q[2]);
	CU_ASSERT_EQUAL(fx_connect(&q[2], 0, 31, "nqn.2026-11.io.nvmf-rdma:otherdisc", HOST1,
				   0xffff, 0, NULL, &cqe),
			nvme_status(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_PARAM) |
				NVME_SC_DNR);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32),
			1u << 16 | offsetof(struct nvmf_connect_data, subsysnqn));
	stop(&d);
}

static void discovery_log_entry_carries_the_port_and_its_transport_fields(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 4, AF_INET, "192.168.7.1", "4421", 0, 1);
	d.f.cfg.ports[0].treq = NVMF_TREQ_NOT_REQUIRED;
	start(&d, HOST1, "192.168.7.1", true);
	uint8_t b[HDR + 2 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL_FATAL(numrec(b), 2);
	const struct nvmf_disc_log_entry *e = entry(b, 1);
	/* trtype is the port's transport's, TSAS its type's (nvme/disc_trtype.h): loop has none. */
	CU_ASSERT_EQUAL(e->trtype, NVMF_TRTYPE_LOOP);
	CU_ASSERT_EQUAL(e->adrfam, NVMF_ADDR_FAMILY_IP4);
	CU_ASSERT_EQUAL(e->subtype, NVME_NQN_NVME);
	/* The configured secure channel bits, and SQ flow control disable supported. */
	CU_ASSERT_EQUAL(e->treq, NVMF_TREQ_NOT_REQUIRED | NVMF_TREQ_DISABLE_SQFLOW);
	CU_ASSERT_EQUAL(le16toh(e->portid), 4);
	CU_ASSERT_EQUAL(le16toh(e->cntlid), 0xffff);
	CU_ASSERT_EQUAL(le16toh(e->asqsz), 32);
	CU_ASSERT_STRING_EQUAL(e->trsvcid, "4421");
	CU_ASSERT_STRING_EQUAL(e->traddr, "192.168.7.1");
	CU_ASSERT_STRING_EQUAL(e->subnqn, "nqn.2026-11.io.nvmf-rdma:disk0");
	static const uint8_t no_tsas[sizeof(e->tsas)];
	CU_ASSERT_EQUAL(memcmp(&e->tsas, no_tsas, sizeof(e->tsas)), 0);
	stop(&d);
}

/* A transport standing in for another port's (RDMA): it counts what the core asks it. */
static unsigned spy_calls;
static int spy_local_addr(const struct nvmf_sq *sq, struct sockaddr_storage *out)
{
	(void)sq;
	spy_calls++;
	struct sockaddr_in *in = (struct sockaddr_in *)out;
	memset(out, 0, sizeof(*out));
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(0x0a636363); /* 10.99.99.99: must never show */
	return 0;
}

/* The log lists every port, so a port of one transport is listed to a host whose
 * discovery queue is another transport's: the core asks the port's transport for a local
 * address (ops->local_addr) only about its own queues, so a wildcard port of the other
 * transport is left out, an explicit one listed with its address, and its trtype and
 * TSAS are that transport type's (RDMA here), not the asking queue's. */
static void port_of_another_transport_is_listed_without_asking_it_about_the_queue(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "0.0.0.0", "4420", 0, 1);
	start(&d, HOST1, "192.168.7.1", true);
	static const struct nvmf_transport_ops spy_ops = {
		.name = "rdma",
		.trtype = NVMF_TRTYPE_RDMA,
		.local_addr = spy_local_addr,
	};
	struct nvmf_transport other = { .ops = &spy_ops };
	struct nvmf_port *port = d.f.tgt.ports[0];
	struct nvmf_port_config *pc = (struct nvmf_port_config *)port->cfg;
	struct nvmf_transport *own = port->transport;
	port->transport = &other;
	spy_calls = 0;
	uint8_t b[HDR + 2 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(numrec(b), 0); /* wildcard: no address to give */
	snprintf(pc->traddr, sizeof(pc->traddr), "192.168.7.1");
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL_FATAL(numrec(b), 2);
	const struct nvmf_disc_log_entry *e = entry(b, 1);
	CU_ASSERT_EQUAL(e->trtype, NVMF_TRTYPE_RDMA);
	CU_ASSERT_STRING_EQUAL(e->traddr, "192.168.7.1");
	CU_ASSERT_EQUAL(e->tsas.rdma.qptype, NVMF_RDMA_QPTYPE_CONNECTED);
	CU_ASSERT_EQUAL(e->tsas.rdma.prtype, NVMF_RDMA_PRTYPE_NOT_SPECIFIED);
	CU_ASSERT_EQUAL(e->tsas.rdma.cms, NVMF_RDMA_CMS_RDMA_CM);
	CU_ASSERT_EQUAL(spy_calls, 0);
	port->transport = own;
	snprintf(pc->traddr, sizeof(pc->traddr), "0.0.0.0");
	stop(&d);
}

static void discovery_log_of_five_entries_reads_the_same_through_any_window(void)
{
	struct dx d = { 0 };
	for (int i = 0; i < 5; i++)
		add_subsys(&d, i, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 5);
	start(&d, HOST1, "10.0.0.1", true);
	const uint32_t len = HDR + 6 * ENT; /* 7 KiB: more than 4 KiB */
	uint8_t *full = malloc(len), *w = malloc(len);
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, full, len), 0);
	CU_ASSERT_EQUAL(numrec(full), 6); /* the discovery subsystem, 5 disks */
	CU_ASSERT_STRING_EQUAL(entry(full, 0)->subnqn, NVMF_DISC_NQN);
	for (int i = 0; i < 5; i++) {
		char *n = nqn(i);
		CU_ASSERT_STRING_EQUAL(entry(full, (size_t)i + 1)->subnqn, n);
		free(n);
	}
	static const struct {
		uint32_t off, len;
	} win[] = {
		{ 0, 16 },      { 0, HDR },     { HDR, 4 * ENT }, { 4, 4 },
		{ 2000, 3000 }, { 6140, 1028 }, { 4096, 2048 },   { 7164, 4 },
	};
	for (size_t i = 0; i < sizeof(win) / sizeof(win[0]); i++) {
		CU_ASSERT_EQUAL(disc_log(&d, win[i].off, w, win[i].len), 0);
		CU_ASSERT_EQUAL(memcmp(w, full + win[i].off, win[i].len), 0);
	}
	/* Past the end: zero filled; starting past it: Invalid Field. */
	CU_ASSERT_EQUAL(disc_log(&d, 6144, w, 2048), 0);
	CU_ASSERT_EQUAL(memcmp(w, full + 6144, 1024), 0);
	CU_ASSERT_EQUAL(w[1024], 0);
	CU_ASSERT_EQUAL(w[2047], 0);
	CU_ASSERT_EQUAL(disc_log(&d, len, w, 4), 0);
	CU_ASSERT_EQUAL(disc_log(&d, len + 4, w, 4), GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(disc_log(&d, 6, w, 4), GEN(NVME_SC_INVALID_FIELD)); /* unaligned */
	free(full);
	free(w);
	stop(&d);
}

static void host_not_allowed_sees_no_entry_for_that_subsystem(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, HOST1);
	add_subsys(&d, 1, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 2);
	start(&d, HOST2, "10.0.0.1", true);
	uint8_t b[HDR + 3 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(numrec(b), 2);
	CU_ASSERT_STRING_EQUAL(entry(b, 1)->subnqn, "nqn.2026-11.io.nvmf-rdma:disk1");
	fx_disconnect(&d.f.admin);
	/* The allowed host sees both. */
	CU_ASSERT_EQUAL_FATAL(fx_connect(&d.f.admin, 0, 31, NVMF_DISC_NQN, HOST1, 0xffff, 0,
					 &d.f.cntlid, NULL),
			      0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(&d.f.admin), 0);
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(numrec(b), 3);
	CU_ASSERT_STRING_EQUAL(entry(b, 1)->subnqn, "nqn.2026-11.io.nvmf-rdma:disk0");
	stop(&d);
}

static void wildcard_traddr_is_replaced_by_the_connection_local_address(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "0.0.0.0", "4420", 0, 1);
	add_port(&d, 2, AF_INET, "10.9.9.9", "4430", 0, 1);
	add_port(&d, 3, AF_INET6, "::", "4440", 0, 1); /* no IPv6 address to give: left out */
	start(&d, HOST1, "10.1.2.3", true);
	uint8_t b[HDR + 6 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	/* Each IPv4 port: its discovery entry and disk0; the IPv6 one has neither. */
	CU_ASSERT_EQUAL_FATAL(numrec(b), 4);
	CU_ASSERT_STRING_EQUAL(entry(b, 0)->traddr, "10.1.2.3");
	CU_ASSERT_EQUAL(entry(b, 0)->subtype, NVME_NQN_CURR);
	CU_ASSERT_STRING_EQUAL(entry(b, 1)->traddr, "10.1.2.3");
	CU_ASSERT_EQUAL(le16toh(entry(b, 1)->portid), 1);
	CU_ASSERT_STRING_EQUAL(entry(b, 2)->traddr, "10.9.9.9");
	CU_ASSERT_EQUAL(entry(b, 2)->subtype, NVME_NQN_CURR);
	CU_ASSERT_STRING_EQUAL(entry(b, 3)->traddr, "10.9.9.9");
	CU_ASSERT_STRING_EQUAL(entry(b, 3)->trsvcid, "4430");
	stop(&d);
}

static void ipv6_wildcard_traddr_is_replaced_by_the_ipv6_local_address(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET6, "::", "4420", 0, 1);
	start(&d, HOST1, "fd00::5", true);
	uint8_t b[HDR + 2 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL_FATAL(numrec(b), 2);
	for (size_t i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(entry(b, i)->adrfam, NVMF_ADDR_FAMILY_IP6);
		CU_ASSERT_STRING_EQUAL(entry(b, i)->traddr, "fd00::5");
	}
	stop(&d);
}

static void genctr_is_stable_between_reads_and_changes_with_the_content(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_subsys(&d, 1, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 2);
	start(&d, HOST1, "10.0.0.1", true);
	uint8_t b[HDR + 3 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, HDR), 0);
	uint64_t g1 = genctr(b);
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(genctr(b), g1);
	CU_ASSERT_EQUAL(numrec(b), 3);
	/* The host loses access to disk1: fewer entries, a new genctr. */
	d.f.tgt.subsys[1]->cfg->allow_any_host = false; /* the running config */
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(numrec(b), 2);
	CU_ASSERT_NOT_EQUAL(genctr(b), g1);
	/* The owner can force a change too. */
	uint64_t g2 = genctr(b);
	d.f.tgt.disc_genctr++;
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, HDR), 0);
	CU_ASSERT_NOT_EQUAL(genctr(b), g2);
	stop(&d);
}

static void discovery_identify_reports_a_discovery_controller(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	start(&d, HOST1, "10.0.0.1", true);
	struct nvme_id_ctrl id;
	memset(&id, 0xff, sizeof(id));
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&d.f.admin,
				     &(struct nvme_sqe){ .opcode = nvme_admin_identify,
							 .cdw10 = htole32(NVME_IDENTIFY_CNS_CTRL) },
				     &id, sizeof(id), NULL),
			      0);
	CU_ASSERT_EQUAL(id.cntrltype, NVME_CTRL_CNTRLTYPE_DISCOVERY);
	CU_ASSERT_STRING_EQUAL(id.subnqn, NVMF_DISC_NQN);
	CU_ASSERT_EQUAL(le32toh(id.nn), 0);
	CU_ASSERT_EQUAL(le16toh(id.kas), NVMF_KAS);
	CU_ASSERT(le32toh(id.sgls) & NVME_CTRL_SGLS_KEYED);
	CU_ASSERT(id.lpa & NVME_CTRL_LPA_EXTENDED);
	CU_ASSERT_EQUAL(le16toh(id.maxcmd), NVMF_ADMIN_QUEUE_SIZE);
	CU_ASSERT_EQUAL(le16toh(id.cntlid), fx_ctrl(&d.f)->cntlid);
	CU_ASSERT_EQUAL(le16toh(id.icdoff), 0);
	CU_ASSERT_EQUAL(id.mdts, fx_ctrl(&d.f)->mdts);
	stop(&d);
}

static void discovery_rejects_io_controller_admin_commands(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	start(&d, HOST1, "10.0.0.1", true);
	uint8_t b[4096];
	struct nvme_sqe c = mk(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, 0);
	c.nsid = htole32(1);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, b, sizeof(b), NULL), GEN(NVME_SC_INVALID_FIELD));
	c = mk(nvme_admin_identify, NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, b, sizeof(b), NULL), GEN(NVME_SC_INVALID_FIELD));
	c = mk(nvme_admin_get_log_page, NVME_LOG_LID_SMART | 127u << 16, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, b, 512, NULL),
			nvme_status(NVME_SCT_CMD_SPECIFIC, NVME_SC_INVALID_LOG_PAGE) | NVME_SC_DNR);
	c = mk(nvme_admin_set_features, NVME_FEAT_FID_NUM_QUEUES, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, NULL), GEN(NVME_SC_INVALID_FIELD));
	c = mk(nvme_admin_abort_cmd, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, NULL), GEN(NVME_SC_INVALID_OPCODE));
	c = mk(nvme_admin_ns_mgmt, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, NULL), GEN(NVME_SC_INVALID_OPCODE));
	/* Namespace notices do not exist here (Discovery Log Change notices do). */
	c = mk(nvme_admin_set_features, NVME_FEAT_FID_ASYNC_EVENT, 1u << 8);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, NULL), GEN(NVME_SC_INVALID_FIELD));
	stop(&d);
}

static void discovery_keeps_alive_and_round_trips_the_kato_feature(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	start(&d, HOST1, "10.0.0.1", true);
	struct nvme_cqe cqe;
	struct nvme_sqe c = mk(nvme_admin_set_features, NVME_FEAT_FID_KATO, 3000);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, NULL), 0);
	c = mk(nvme_admin_get_features, NVME_FEAT_FID_KATO, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), 3000);
	c = mk(nvme_admin_keep_alive, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, NULL), 0);
	c = mk(nvme_admin_set_features, NVME_FEAT_FID_ASYNC_EVENT, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, NULL), 0);
	stop(&d);
}

static void discovery_aer_stays_parked(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	start(&d, HOST1, "10.0.0.1", true);
	struct fx_cmd h;
	struct nvme_sqe c = mk(nvme_admin_async_event, 0, 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&d.f.admin, &h, &c, NULL, 0), 0);
	CU_ASSERT_FALSE(fx_done(&h));
	CU_ASSERT_EQUAL(fx_ctrl(&d.f)->nr_aer, 1);
	stop(&d);
}

static void discovery_command_before_cc_enable_returns_cmd_seq_error(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	start(&d, HOST1, "10.0.0.1", false);
	uint8_t b[HDR];
	CU_ASSERT_EQUAL(disc_log(&d, 0, b, sizeof(b)), GEN(NVME_SC_CMD_SEQ_ERROR));
	stop(&d);
}

/* Persistent discovery (NVMe-oF 1.1 section 5.3): with AEC bit 31 set, a change to what
 * hosts may discover completes the parked AER with a Discovery Log Page Change notice,
 * once, until the host reads log 70h; the generation counter moves on. */
static void discovery_log_change_notice_until_the_log_is_read(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	start(&d, HOST1, "10.0.0.1", true);
	uint8_t id[4096];
	struct nvme_sqe c = mk(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&d.f.admin, &c, id, sizeof(id), NULL), 0);
	CU_ASSERT_EQUAL(le32toh(((struct nvme_id_ctrl *)id)->oaes), 1u << 31);
	c = mk(nvme_admin_set_features, NVME_FEAT_FID_ASYNC_EVENT, 1u << 31);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&d.f.admin, &c, NULL, 0, NULL), 0);
	uint8_t log[HDR];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, log, sizeof(log)), 0);
	uint64_t before = genctr(log);
	struct fx_cmd h1, h2;
	c = mk(nvme_admin_async_event, 0, 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&d.f.admin, &h1, &c, NULL, 0), 0);
	CU_ASSERT_FALSE(fx_done(&h1));
	nvmf_tgt_disc_changed(&d.f.tgt);
	nvmf_loop_drive(&d.f.tgt);
	CU_ASSERT_TRUE_FATAL(fx_done(&h1));
	CU_ASSERT_EQUAL(le32toh(h1.cqe.result.u32), 0x0070f002u);
	/* Masked until the log is read: a second change only moves the counter. */
	CU_ASSERT_EQUAL_FATAL(fx_start(&d.f.admin, &h2, &c, NULL, 0), 0);
	nvmf_tgt_disc_changed(&d.f.tgt);
	nvmf_loop_drive(&d.f.tgt);
	CU_ASSERT_FALSE(fx_done(&h2));
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, log, sizeof(log)), 0);
	CU_ASSERT_EQUAL(genctr(log), before + 2);
	nvmf_tgt_disc_changed(&d.f.tgt);
	nvmf_loop_drive(&d.f.tgt);
	CU_ASSERT_TRUE(fx_done(&h2));
	stop(&d);
}

/* A discovery host that connected with KATO 0 (the Linux host's one-shot `nvme discover`)
 * asked for no explicit persistent connection; the controller still times out after
 * NVMF_DISC_KATO_MS (120 s) without a command, as nvmet's (NVMET_DISC_KATO_MS), and
 * reports that timeout in Get Features KATO. */
static void discovery_controller_with_kato_0_is_deleted_after_120_s_without_commands(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	start(&d, HOST1, "10.0.0.1", true); /* Connect KATO 0 */
	CU_ASSERT_EQUAL(fx_ctrl(&d.f)->kato_ms, 120000);
	struct nvme_cqe cqe;
	struct nvme_sqe c = mk(nvme_admin_get_features, NVME_FEAT_FID_KATO, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), 120000);
	d.f.now += 120000; /* exactly the timeout: not yet */
	nvmf_tgt_check_keep_alive(&d.f.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&d.f));
	d.f.now += 1;
	nvmf_tgt_check_keep_alive(&d.f.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&d.f));
	nvmf_loop_drive(&d.f.tgt); /* the queue's detach frees the controller */
	CU_ASSERT_PTR_NULL(fx_ctrl(&d.f));
	stop(&d);
}

/* Any command is traffic (the keep-alive stamp of core.c): a KATO-0 discovery host that
 * reads the log every 100 s keeps its controller for as long as it does. */
static void discovery_controller_with_kato_0_survives_while_the_host_sends_commands(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	start(&d, HOST1, "10.0.0.1", true);
	uint8_t log[HDR];
	for (int i = 0; i < 30; i++) { /* 50 minutes */
		d.f.now += 100000;
		nvmf_tgt_check_keep_alive(&d.f.tgt);
		CU_ASSERT_FALSE_FATAL(fx_admin_deleted(&d.f));
		CU_ASSERT_EQUAL(disc_log(&d, 0, log, sizeof(log)), 0);
	}
	d.f.now += 120001;
	nvmf_tgt_check_keep_alive(&d.f.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&d.f));
	stop(&d);
}

/* A KATO the host did ask for is kept as it is, and Set Features KATO 0 turns the timer
 * off afterwards (the default applies at Connect only, as in nvmet). */
static void discovery_controller_keeps_a_nonzero_kato_and_a_later_kato_0(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	CU_ASSERT_FATAL(fx_boot(&d.f, "10.0.0.1", "4420") == 0);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&d.f.admin, 0, 31, NVMF_DISC_NQN, HOST1, 0xffff, 30000,
					 &d.f.cntlid, NULL),
			      0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(&d.f.admin), 0);
	CU_ASSERT_EQUAL(fx_ctrl(&d.f)->kato_ms, 30000);
	struct nvme_sqe c = mk(nvme_admin_set_features, NVME_FEAT_FID_KATO, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, NULL), 0);
	CU_ASSERT_EQUAL(fx_ctrl(&d.f)->kato_ms, 0);
	d.f.now += 3600000;
	nvmf_tgt_check_keep_alive(&d.f.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&d.f));
	stop(&d);
}

/* ---- referrals and listing modes ---- */

/* Referral @name of port config @p (the config's own array, freed with it). */
static void add_referral(struct nvmf_port_config *p, const char *name, const char *trtype,
			 int family, const char *traddr, const char *svc, uint16_t portid,
			 uint8_t treq, bool enable)
{
	struct nvmf_referral_config *r = realloc(p->referrals, (p->n_referrals + 1) * sizeof(*r));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	p->referrals = r;
	r = &r[p->n_referrals++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->trtype, sizeof(r->trtype), "%s", trtype);
	r->adrfam = family;
	snprintf(r->traddr, sizeof(r->traddr), "%s", traddr);
	snprintf(r->trsvcid, sizeof(r->trsvcid), "%s", svc);
	r->portid = portid;
	r->treq = treq;
	r->enable = enable;
}

/* Subtype 1 after the port's subsystems: the referred service's own address, the
 * well-known discovery NQN, TSAS as nvmet gives a referral of that transport; a disabled
 * referral is not listed. */
static void enabled_referrals_follow_the_port_subsystems_with_their_own_address(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	struct nvmf_port_config *p = &d.f.cfg.ports[0];
	add_referral(p, "west", "rdma", AF_INET, "10.5.5.5", "4421", 7, NVMF_TREQ_NOT_REQUIRED,
		     true);
	add_referral(p, "off", "rdma", AF_INET, "10.5.5.6", "4420", 8, 0, false);
	add_referral(p, "east", "tcp", AF_INET6, "fd00::9", "8009", 9, NVMF_TREQ_REQUIRED, true);
	start(&d, HOST1, "10.0.0.1", true);
	uint8_t b[HDR + 5 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL_FATAL(numrec(b), 4);
	CU_ASSERT_EQUAL(entry(b, 0)->subtype, NVME_NQN_CURR);
	CU_ASSERT_EQUAL(entry(b, 1)->subtype, NVME_NQN_NVME);
	const struct nvmf_disc_log_entry *w = entry(b, 2), *e = entry(b, 3);
	CU_ASSERT_EQUAL(w->subtype, NVME_NQN_DISC);
	CU_ASSERT_EQUAL(w->trtype, NVMF_TRTYPE_RDMA);
	CU_ASSERT_EQUAL(w->adrfam, NVMF_ADDR_FAMILY_IP4);
	CU_ASSERT_EQUAL(w->treq, NVMF_TREQ_NOT_REQUIRED);
	CU_ASSERT_EQUAL(le16toh(w->portid), 7);
	CU_ASSERT_EQUAL(le16toh(w->cntlid), 0xffff);
	CU_ASSERT_EQUAL(le16toh(w->asqsz), 32);
	CU_ASSERT_EQUAL(le16toh(w->eflags), 0);
	CU_ASSERT_STRING_EQUAL(w->trsvcid, "4421");
	CU_ASSERT_STRING_EQUAL(w->traddr, "10.5.5.5");
	CU_ASSERT_STRING_EQUAL(w->subnqn, NVMF_DISC_NQN);
	CU_ASSERT_EQUAL(w->tsas.rdma.qptype, NVMF_RDMA_QPTYPE_CONNECTED);
	CU_ASSERT_EQUAL(w->tsas.rdma.prtype, NVMF_RDMA_PRTYPE_NOT_SPECIFIED);
	CU_ASSERT_EQUAL(w->tsas.rdma.cms, NVMF_RDMA_CMS_RDMA_CM);
	CU_ASSERT_EQUAL(e->subtype, NVME_NQN_DISC);
	CU_ASSERT_EQUAL(e->trtype, NVMF_TRTYPE_TCP);
	CU_ASSERT_EQUAL(e->adrfam, NVMF_ADDR_FAMILY_IP6);
	CU_ASSERT_EQUAL(e->treq, NVMF_TREQ_REQUIRED);
	CU_ASSERT_EQUAL(le16toh(e->portid), 9);
	CU_ASSERT_STRING_EQUAL(e->trsvcid, "8009");
	CU_ASSERT_STRING_EQUAL(e->traddr, "fd00::9");
	static const uint8_t no_tsas[sizeof(e->tsas)];
	CU_ASSERT_EQUAL(memcmp(&e->tsas, no_tsas, sizeof(e->tsas)), 0); /* TCP SECTYPE none */
	stop(&d);
}

/* Two ports, each with a subsystem and a referral; the host comes in on the first. */
static void two_ports_with_referrals(struct dx *d, enum nvmf_disc_log_mode mode)
{
	add_subsys(d, 0, NULL);
	add_subsys(d, 1, NULL);
	add_port(d, 1, AF_INET, "0.0.0.0", "4420", 0, 1);
	add_port(d, 2, AF_INET, "10.9.9.9", "4430", 1, 1);
	add_referral(&d->f.cfg.ports[0], "a", "rdma", AF_INET, "10.5.5.1", "4420", 11, 0, true);
	add_referral(&d->f.cfg.ports[1], "b", "rdma", AF_INET, "10.5.5.2", "4420", 12, 0, true);
	d->f.cfg.target.discovery_log = mode;
	start(d, HOST1, "10.1.2.3", true);
}

/* all-ports (the default): every port's discovery entry, subsystems and referrals, in
 * port order, so a multipath host sees every path. */
static void all_ports_mode_lists_every_port_with_its_referrals(void)
{
	struct dx d = { 0 };
	two_ports_with_referrals(&d, NVMF_DISC_LOG_ALL_PORTS);
	uint8_t b[HDR + 7 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL_FATAL(numrec(b), 6);
	static const uint8_t subtype[] = { NVME_NQN_CURR, NVME_NQN_NVME, NVME_NQN_DISC,
					   NVME_NQN_CURR, NVME_NQN_NVME, NVME_NQN_DISC };
	static const uint16_t portid[] = { 1, 1, 11, 2, 2, 12 };
	static const char *const traddr[] = { "10.1.2.3", "10.1.2.3", "10.5.5.1",
					      "10.9.9.9", "10.9.9.9", "10.5.5.2" };
	for (size_t i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(entry(b, i)->subtype, subtype[i]);
		CU_ASSERT_EQUAL(le16toh(entry(b, i)->portid), portid[i]);
		CU_ASSERT_STRING_EQUAL(entry(b, i)->traddr, traddr[i]);
	}
	CU_ASSERT_STRING_EQUAL(entry(b, 4)->subnqn, "nqn.2026-11.io.nvmf-rdma:disk1");
	stop(&d);
}

/* host-port (nvmet's): only what the port the host came in on has. */
static void host_port_mode_lists_only_the_port_the_host_came_in_on(void)
{
	struct dx d = { 0 };
	two_ports_with_referrals(&d, NVMF_DISC_LOG_HOST_PORT);
	uint8_t b[HDR + 7 * ENT];
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL_FATAL(numrec(b), 3);
	CU_ASSERT_EQUAL(entry(b, 0)->subtype, NVME_NQN_CURR);
	CU_ASSERT_EQUAL(le16toh(entry(b, 0)->portid), 1);
	CU_ASSERT_STRING_EQUAL(entry(b, 1)->subnqn, "nqn.2026-11.io.nvmf-rdma:disk0");
	CU_ASSERT_EQUAL(entry(b, 2)->subtype, NVME_NQN_DISC);
	CU_ASSERT_STRING_EQUAL(entry(b, 2)->traddr, "10.5.5.1");
	/* The mode is read at every Get Log Page: all-ports now lists both ports. */
	d.f.tgt.cfg->target.discovery_log = NVMF_DISC_LOG_ALL_PORTS;
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(numrec(b), 6);
	stop(&d);
}

/* Port Local Entries Only (LSP bit 1) asks for the host's port whatever the mode. */
static void port_local_entries_only_lists_the_host_port_in_all_ports_mode(void)
{
	struct dx d = { 0 };
	two_ports_with_referrals(&d, NVMF_DISC_LOG_ALL_PORTS);
	uint8_t b[HDR + 7 * ENT];
	uint32_t numd = sizeof(b) / 4 - 1;
	struct nvme_sqe c =
		mk(nvme_admin_get_log_page,
		   NVME_LOG_LID_DISCOVER | NVMF_LOG_DISC_LSP_PLEO << 8 | (numd & 0xffff) << 16,
		   numd >> 16);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&d.f.admin, &c, b, sizeof(b), NULL), 0);
	CU_ASSERT_EQUAL_FATAL(numrec(b), 3);
	for (size_t i = 0; i < 3; i++)
		CU_ASSERT_NOT_EQUAL(le16toh(entry(b, i)->portid), 2);
	CU_ASSERT_EQUAL_FATAL(disc_log(&d, 0, b, sizeof(b)), 0); /* without it: both ports */
	CU_ASSERT_EQUAL(numrec(b), 6);
	stop(&d);
}

/* The discovery controller's own log table: Supported Log Pages lists 00h and 70h only;
 * other LIDs (the error log, say) are Invalid Log Page. */
static void discovery_supported_log_pages_lists_its_two_logs(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	start(&d, HOST1, "10.0.0.1", true);
	struct nvme_supported_log_pages log;
	memset(&log, 0xff, sizeof(log));
	struct nvme_sqe c =
		mk(nvme_admin_get_log_page,
		   NVME_LOG_LID_SUPPORTED_LOG_PAGES | (uint32_t)(sizeof(log) / 4 - 1) << 16, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&d.f.admin, &c, &log, sizeof(log), NULL), 0);
	for (unsigned lid = 0; lid < 256; lid++) {
		uint32_t want = lid == NVME_LOG_LID_SUPPORTED_LOG_PAGES ? 1 : 0;
		if (lid == NVME_LOG_LID_DISCOVER) /* LSUPP, and LIDSP: PLEOS */
			want = 1 | (uint32_t)NVMF_LOG_DISC_LID_PLEOS << 16;
		CU_ASSERT_EQUAL(le32toh(log.lid_support[lid]), want);
	}
	c = mk(nvme_admin_get_log_page, NVME_LOG_LID_ERROR | 15u << 16, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 64, NULL),
			nvme_status(NVME_SCT_CMD_SPECIFIC, NVME_SC_INVALID_LOG_PAGE) | NVME_SC_DNR);
	stop(&d);
}

/* nvmf_target.discovery_kato: the timeout a discovery controller gets when its host
 * asked for none, here 5 s instead of nvmet's 120. */
static void discovery_controller_with_kato_0_gets_the_configured_discovery_kato(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	d.f.cfg.target.discovery_kato = 5;
	start(&d, HOST1, "10.0.0.1", true);
	CU_ASSERT_EQUAL(fx_ctrl(&d.f)->kato_ms, 5000);
	struct nvme_cqe cqe;
	struct nvme_sqe c = mk(nvme_admin_get_features, NVME_FEAT_FID_KATO, 0);
	CU_ASSERT_EQUAL(fx_cmd(&d.f.admin, &c, NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), 5000);
	d.f.now += 5000;
	nvmf_tgt_check_keep_alive(&d.f.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&d.f));
	d.f.now += 1;
	nvmf_tgt_check_keep_alive(&d.f.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&d.f));
	nvmf_loop_drive(&d.f.tgt);
	CU_ASSERT_PTR_NULL(fx_ctrl(&d.f));
	stop(&d);
}

/* A host that asked for a KATO keeps its own, whatever discovery_kato says. */
static void discovery_kato_does_not_change_a_kato_the_host_asked_for(void)
{
	struct dx d = { 0 };
	add_subsys(&d, 0, NULL);
	add_port(&d, 1, AF_INET, "10.0.0.1", "4420", 0, 1);
	d.f.cfg.target.discovery_kato = 5;
	CU_ASSERT_FATAL(fx_boot(&d.f, "10.0.0.1", "4420") == 0);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&d.f.admin, 0, 31, NVMF_DISC_NQN, HOST1, 0xffff, 30000,
					 &d.f.cntlid, NULL),
			      0);
	CU_ASSERT_EQUAL(fx_ctrl(&d.f)->kato_ms, 30000);
	stop(&d);
}

const struct unit_test discovery_tests[] = {
	{ "enabled_referrals_follow_the_port_subsystems_with_their_own_address",
	  enabled_referrals_follow_the_port_subsystems_with_their_own_address },
	{ "all_ports_mode_lists_every_port_with_its_referrals",
	  all_ports_mode_lists_every_port_with_its_referrals },
	{ "host_port_mode_lists_only_the_port_the_host_came_in_on",
	  host_port_mode_lists_only_the_port_the_host_came_in_on },
	{ "discovery_supported_log_pages_lists_its_two_logs",
	  discovery_supported_log_pages_lists_its_two_logs },
	{ "port_local_entries_only_lists_the_host_port_in_all_ports_mode",
	  port_local_entries_only_lists_the_host_port_in_all_ports_mode },
	{ "discovery_controller_with_kato_0_gets_the_configured_discovery_kato",
	  discovery_controller_with_kato_0_gets_the_configured_discovery_kato },
	{ "discovery_kato_does_not_change_a_kato_the_host_asked_for",
	  discovery_kato_does_not_change_a_kato_the_host_asked_for },
	{ "discovery_log_change_notice_until_the_log_is_read",
	  discovery_log_change_notice_until_the_log_is_read },
	{ "discovery_log_without_exposed_subsystems_is_only_the_discovery_entry",
	  discovery_log_without_exposed_subsystems_is_only_the_discovery_entry },
	{ "discovery_log_starts_with_the_current_discovery_subsystem_entry",
	  discovery_log_starts_with_the_current_discovery_subsystem_entry },
	{ "current_discovery_entry_names_the_configured_discovery_nqn",
	  current_discovery_entry_names_the_configured_discovery_nqn },
	{ "discovery_answers_to_the_configured_and_the_well_known_nqn_only",
	  discovery_answers_to_the_configured_and_the_well_known_nqn_only },
	{ "discovery_log_entry_carries_the_port_and_its_transport_fields",
	  discovery_log_entry_carries_the_port_and_its_transport_fields },
	{ "port_of_another_transport_is_listed_without_asking_it_about_the_queue",
	  port_of_another_transport_is_listed_without_asking_it_about_the_queue },
	{ "discovery_log_of_five_entries_reads_the_same_through_any_window",
	  discovery_log_of_five_entries_reads_the_same_through_any_window },
	{ "host_not_allowed_sees_no_entry_for_that_subsystem",
	  host_not_allowed_sees_no_entry_for_that_subsystem },
	{ "wildcard_traddr_is_replaced_by_the_connection_local_address",
	  wildcard_traddr_is_replaced_by_the_connection_local_address },
	{ "ipv6_wildcard_traddr_is_replaced_by_the_ipv6_local_address",
	  ipv6_wildcard_traddr_is_replaced_by_the_ipv6_local_address },
	{ "genctr_is_stable_between_reads_and_changes_with_the_content",
	  genctr_is_stable_between_reads_and_changes_with_the_content },
	{ "discovery_identify_reports_a_discovery_controller",
	  discovery_identify_reports_a_discovery_controller },
	{ "discovery_rejects_io_controller_admin_commands",
	  discovery_rejects_io_controller_admin_commands },
	{ "discovery_keeps_alive_and_round_trips_the_kato_feature",
	  discovery_keeps_alive_and_round_trips_the_kato_feature },
	{ "discovery_aer_stays_parked", discovery_aer_stays_parked },
	{ "discovery_command_before_cc_enable_returns_cmd_seq_error",
	  discovery_command_before_cc_enable_returns_cmd_seq_error },
	{ "discovery_controller_with_kato_0_is_deleted_after_120_s_without_commands",
	  discovery_controller_with_kato_0_is_deleted_after_120_s_without_commands },
	{ "discovery_controller_with_kato_0_survives_while_the_host_sends_commands",
	  discovery_controller_with_kato_0_survives_while_the_host_sends_commands },
	{ "discovery_controller_keeps_a_nonzero_kato_and_a_later_kato_0",
	  discovery_controller_keeps_a_nonzero_kato_and_a_later_kato_0 },
	{ NULL, NULL },
};
