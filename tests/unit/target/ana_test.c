/* SPDX-License-Identifier: MIT */
/*
 * Asymmetric Namespace Access (target/ana.c) through the whole stack: two loop ports
 * expose one subsystem, a host connects a controller through each (two paths), and
 * what each path reports and serves follows the state of the namespaces' groups on its
 * port: Identify, the ANA log (LID 0Ch), the I/O statuses, the notices and the counts.
 *
 *   subsystem test1: nsid 1 in group 1, nsids 2 and 3 in group 2
 *   subsystem test2: nsid 1 in group 5 (exposed on port 1 only)
 *   port 1 (127.0.0.1:4420): group 1 optimized (default), 2 non-optimized, 5 change
 *   port 2 (127.0.0.1:4421): group 1 inaccessible, 2 optimized (5 not defined)
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "initiator/internal.h"
#include "target/ana.h"
#include "target/model.h"
#include "target/namespace.h"
#include "control/reload.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

#define SUB2       "nqn.2026-11.io.nvmf-rdma:test2"
#define NS_BYTES   (1u << 20)
#define OPT        NVME_ANA_STATE_OPTIMIZED
#define NONOPT     NVME_ANA_STATE_NONOPTIMIZED
#define INACC      NVME_ANA_STATE_INACCESSIBLE
#define LOST       NVME_ANA_STATE_PERSISTENT_LOSS
#define CHANGE     NVME_ANA_STATE_CHANGE
#define PATH(sc)   (NVME_SCT_PATH << 8 | (sc)) /* a path status, DNR clear */
#define ANA_NOTICE 0x000c0302u                 /* notice, ANA change, log 0Ch (figure 146) */

static struct fx F;
static struct fxq A2, IO1, IO2; /* port 2's admin queue; an I/O queue on each port */
static uint16_t Cntlid2;

/* The configuration the header describes, into @c (zeroed). */
static void build_cfg(struct nvmf_config *c)
{
	struct nvmf_subsys_config *s = fx_cfg_subsys(c, FX_SUBNQN, FX_HOSTNQN, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, NS_BYTES, 512); /* anagrpid 0: group 1 */
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, NS_BYTES, 512)->anagrpid = 2;
	fx_cfg_ns(s, 3, NVMF_BACKEND_RAM, NS_BYTES, 512)->anagrpid = 2;
	fx_cfg_ns(fx_cfg_subsys(c, SUB2, NULL, 4), 1, NVMF_BACKEND_RAM, NS_BYTES, 512)->anagrpid =
		5;
	struct nvmf_port_config *p1 = fx_cfg_loop_port(c, 1, AF_INET, "127.0.0.1", "4420");
	fx_cfg_expose(p1, FX_SUBNQN);
	fx_cfg_expose(p1, SUB2);
	fx_cfg_ana_group(p1, 2, NONOPT);
	fx_cfg_ana_group(p1, 5, CHANGE);
	struct nvmf_port_config *p2 = fx_cfg_loop_port(c, 2, AF_INET, "127.0.0.1", "4421");
	fx_cfg_expose(p2, FX_SUBNQN);
	fx_cfg_ana_group(p2, 1, INACC);
	fx_cfg_ana_group(p2, 2, OPT);
}

/* The fixture as the header says, with @mdts (0: the default). */
static void setup_mdts(uint32_t mdts)
{
	memset(&F, 0, sizeof(F));
	build_cfg(&F.cfg);
	if (mdts)
		F.cfg.target.mdts = mdts;
	CU_ASSERT_FATAL(fx_boot(&F, "127.0.0.1", "4420") == 0);
	CU_ASSERT_FATAL(fx_connect_admin(&F) == 0);
	fx_queue_init(&F, &IO1);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&IO1, 1, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, NULL), 0);
	/* The second path: the host dials port 2. */
	F.host->opts.trsvcid = "4421";
	fx_queue_init(&F, &A2);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&A2, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 5000, &Cntlid2, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(&A2), 0);
	fx_queue_init(&F, &IO2);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&IO2, 1, 31, FX_SUBNQN, FX_HOSTNQN, Cntlid2, 0, NULL, NULL), 0);
	F.host->opts.trsvcid = F.trsvcid;
}

static void setup(void)
{
	setup_mdts(0);
}

static struct nvmf_port *port(uint16_t portid)
{
	struct nvmf_port *p = nvmf_tgt_find_port(&F.tgt, portid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

static struct nvmf_subsys *subsys(const char *nqn)
{
	return nvmf_tgt_find_subsys(&F.tgt, nqn);
}

static int set_state(uint16_t portid, uint32_t grpid, uint8_t state)
{
	char err[256];
	return nvmf_tgt_ana_state_set(&F.tgt, port(portid), grpid, state, err, sizeof(err));
}

static struct nvme_sqe mk(uint8_t opc, uint32_t nsid, uint32_t c10, uint32_t c11)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32(c10);
	c.cdw11 = htole32(c11);
	return c;
}

static int cmd(struct fxq *q, struct nvme_sqe c, void *buf, uint32_t len, struct nvme_cqe *cqe)
{
	return fx_cmd(q, &c, buf, len, cqe);
}

static int identify(struct fxq *q, uint8_t cns, uint32_t nsid, void *buf)
{
	return cmd(q, mk(nvme_admin_identify, nsid, cns, 0), buf, NVME_IDENTIFY_DATA_SIZE, NULL);
}

/* Get Log Page 0Ch: @len bytes at @off; LSP RGO, RAE as asked. */
static int ana_log(struct fxq *q, bool rgo, bool rae, uint64_t off, void *buf, uint32_t len)
{
	uint32_t numd = len / 4 - 1;
	struct nvme_sqe c = mk(nvme_admin_get_log_page, NVME_NSID_ALL,
			       NVME_LOG_LID_ANA | (rgo ? 1u << 8 : 0) | (rae ? 1u << 15 : 0) |
				       (numd & 0xffff) << 16,
			       numd >> 16);
	c.cdw12 = htole32((uint32_t)off);
	c.cdw13 = htole32((uint32_t)(off >> 32));
	memset(buf, 0xff, len);
	return cmd(q, c, buf, len, NULL);
}

/* A descriptor of the log, host endian. */
struct grp {
	uint32_t grpid, n;
	uint64_t chgcnt;
	uint8_t state;
	uint32_t nsids[8];
};

/* Walk the log in @buf: its change count in *@chgcnt, up to @max descriptors into @g;
 * returns NGRPS. *@len: the bytes the log takes. */
static unsigned parse_log(const uint8_t *buf, uint64_t *chgcnt, struct grp *g, unsigned max,
			  size_t *len)
{
	struct nvme_ana_log h;
	memcpy(&h, buf, sizeof(h));
	*chgcnt = le64toh(h.chgcnt);
	size_t off = sizeof(h);
	unsigned n = le16toh(h.ngrps);
	for (unsigned i = 0; i < n; i++) {
		struct nvme_ana_group_desc d;
		memcpy(&d, buf + off, sizeof(d));
		off += sizeof(d);
		uint32_t nn = le32toh(d.nnsids);
		if (i < max) {
			g[i].grpid = le32toh(d.grpid);
			g[i].n = nn;
			g[i].chgcnt = le64toh(d.chgcnt);
			g[i].state = d.state;
			for (uint32_t k = 0; k < nn && k < 8; k++) {
				__le32 id;
				memcpy(&id, buf + off + k * 4, 4);
				g[i].nsids[k] = le32toh(id);
			}
		}
		off += nn * 4;
	}
	if (len)
		*len = off;
	return n;
}

static int set_aec(struct fxq *q, uint32_t bits)
{
	return cmd(q, mk(nvme_admin_set_features, 0, NVME_FEAT_FID_ASYNC_EVENT, bits), NULL, 0,
		   NULL);
}

static void submit_aer(struct fxq *q, struct fx_cmd *h)
{
	struct nvme_sqe c = mk(nvme_admin_async_event, 0, 0, 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(q, h, &c, NULL, 0), 0);
}

static int rw(struct fxq *q, uint8_t opc, uint32_t nsid, void *buf, uint32_t len)
{
	struct nvme_sqe c = mk(opc, nsid, 0, 0);
	c.cdw12 = htole32(len / 512 - 1);
	return cmd(q, c, buf, len, NULL);
}

/* ---- Identify ---- */

static void identify_controller_reports_ana_support(void)
{
	setup();
	struct nvme_id_ctrl id;
	CU_ASSERT_EQUAL_FATAL(identify(&F.admin, NVME_IDENTIFY_CNS_CTRL, 0, &id), 0);
	CU_ASSERT_EQUAL(id.cmic, NVME_CTRL_CMIC_MULTI_PORT | NVME_CTRL_CMIC_MULTI_CTRL |
					 NVME_CTRL_CMIC_MULTI_ANA_REPORTING);
	CU_ASSERT_EQUAL(id.anatt, 10);
	/* the five states; bit 6 clear (a group may change while attached), bit 7 clear */
	CU_ASSERT_EQUAL(id.anacap, 0x1f);
	CU_ASSERT_EQUAL(le32toh(id.anagrpmax), 128);
	CU_ASSERT_EQUAL(le32toh(id.nanagrpid), 128);
	CU_ASSERT_EQUAL(le32toh(id.mnan), NVMF_MAX_NSID);
	CU_ASSERT_TRUE(le32toh(id.mnan) <= le32toh(id.nn)); /* the Linux host checks it */
	CU_ASSERT_TRUE(le32toh(id.oaes) & NVME_CTRL_OAES_ANA);
	fx_teardown(&F);
}

/* The Linux host sizes its ANA buffer as 16 + NANAGRPID x 32 + MNAN x 4 and disables ANA
 * when that exceeds MDTS. */
static void mnan_keeps_the_linux_hosts_ana_buffer_within_mdts(void)
{
	for (uint32_t mdts = 1; mdts <= 10; mdts++) {
		uint32_t mnan = nvmf_ana_mnan(mdts);
		CU_ASSERT_TRUE(mnan >= 1 && mnan <= NVMF_MAX_NSID);
		CU_ASSERT_TRUE(16 + 128 * 32 + (uint64_t)mnan * 4 <= 4096ull << mdts);
	}
	CU_ASSERT_EQUAL(nvmf_ana_mnan(1), 1020);
	CU_ASSERT_EQUAL(nvmf_ana_mnan(2), NVMF_MAX_NSID);
	CU_ASSERT_EQUAL(nvmf_ana_mnan(0), NVMF_MAX_NSID); /* no limit */
	setup_mdts(1);
	struct nvme_id_ctrl id;
	CU_ASSERT_EQUAL_FATAL(identify(&F.admin, NVME_IDENTIFY_CNS_CTRL, 0, &id), 0);
	CU_ASSERT_EQUAL(id.mdts, 1);
	CU_ASSERT_EQUAL(le32toh(id.mnan), 1020);
	fx_teardown(&F);
}

static void identify_namespace_reports_its_group_and_no_use_where_unreachable(void)
{
	setup();
	struct nvme_id_ns id;
	CU_ASSERT_EQUAL_FATAL(identify(&F.admin, NVME_IDENTIFY_CNS_NS, 2, &id), 0);
	CU_ASSERT_EQUAL(le32toh(id.anagrpid), 2);
	CU_ASSERT_EQUAL(le64toh(id.nuse), NS_BYTES / 512);
	/* The command set independent data (CNS 08h) gives the same group. */
	struct nvme_id_independent_id_ns ind;
	CU_ASSERT_EQUAL_FATAL(identify(&F.admin, NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, 2, &ind),
			      0);
	CU_ASSERT_EQUAL(le32toh(ind.anagrpid), 2);
	CU_ASSERT_EQUAL_FATAL(identify(&F.admin, NVME_IDENTIFY_CNS_NS, 1, &id), 0);
	CU_ASSERT_EQUAL(le32toh(id.anagrpid), 1);
	/* Through port 2, group 1 is inaccessible: no capacity in use, size still there. */
	CU_ASSERT_EQUAL_FATAL(identify(&A2, NVME_IDENTIFY_CNS_NS, 1, &id), 0);
	CU_ASSERT_EQUAL(le32toh(id.anagrpid), 1);
	CU_ASSERT_EQUAL(le64toh(id.nuse), 0);
	CU_ASSERT_EQUAL(le64toh(id.nsze), NS_BYTES / 512);
	CU_ASSERT_EQUAL(set_state(2, 1, LOST), 1);
	CU_ASSERT_EQUAL_FATAL(identify(&A2, NVME_IDENTIFY_CNS_NS, 1, &id), 0);
	CU_ASSERT_EQUAL(le64toh(id.nuse), 0);
	CU_ASSERT_EQUAL(set_state(2, 1, CHANGE), 1);
	CU_ASSERT_EQUAL_FATAL(identify(&A2, NVME_IDENTIFY_CNS_NS, 1, &id), 0);
	CU_ASSERT_EQUAL(le64toh(id.nuse), NS_BYTES / 512);
	fx_teardown(&F);
}

/* ---- the log ---- */

static void ana_log_lists_every_group_with_its_state_on_the_controllers_port(void)
{
	setup();
	uint8_t buf[4096];
	struct grp g[8];
	uint64_t chg;
	size_t len;
	CU_ASSERT_EQUAL_FATAL(ana_log(&F.admin, false, false, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL_FATAL(parse_log(buf, &chg, g, 8, &len), 3);
	CU_ASSERT_EQUAL(len, 16 + 3 * 32 + 3 * 4);
	/* groups ascending; NSIDs of this subsystem only, ascending */
	CU_ASSERT_EQUAL(g[0].grpid, 1);
	CU_ASSERT_EQUAL(g[0].state, OPT);
	CU_ASSERT_EQUAL(g[0].n, 1);
	CU_ASSERT_EQUAL(g[0].nsids[0], 1);
	CU_ASSERT_EQUAL(g[1].grpid, 2);
	CU_ASSERT_EQUAL(g[1].state, NONOPT);
	CU_ASSERT_EQUAL_FATAL(g[1].n, 2);
	CU_ASSERT_EQUAL(g[1].nsids[0], 2);
	CU_ASSERT_EQUAL(g[1].nsids[1], 3);
	CU_ASSERT_EQUAL(g[2].grpid, 5); /* test2's group: listed, none of ours */
	CU_ASSERT_EQUAL(g[2].state, CHANGE);
	CU_ASSERT_EQUAL(g[2].n, 0);
	/* the rest of the buffer is zero */
	for (size_t i = len; i < sizeof(buf); i++)
		CU_ASSERT_EQUAL_FATAL(buf[i], 0);
	/* Through port 2: the same groups, port 2's states (5 is not defined there). */
	CU_ASSERT_EQUAL_FATAL(ana_log(&A2, false, false, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL_FATAL(parse_log(buf, &chg, g, 8, &len), 3);
	CU_ASSERT_EQUAL(g[0].state, INACC);
	CU_ASSERT_EQUAL(g[0].n, 1);
	CU_ASSERT_EQUAL(g[1].state, OPT);
	CU_ASSERT_EQUAL(g[2].grpid, 5);
	CU_ASSERT_EQUAL(g[2].state, INACC);
	fx_teardown(&F);
}

static void ana_log_with_rgo_lists_groups_without_nsids(void)
{
	setup();
	uint8_t buf[512];
	struct grp g[8];
	uint64_t chg;
	size_t len;
	CU_ASSERT_EQUAL_FATAL(ana_log(&F.admin, true, false, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL_FATAL(parse_log(buf, &chg, g, 8, &len), 3);
	CU_ASSERT_EQUAL(len, 16 + 3 * 32);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(g[i].n, 0);
	CU_ASSERT_EQUAL(g[1].grpid, 2);
	CU_ASSERT_EQUAL(g[1].state, NONOPT);
	fx_teardown(&F);
}

static void ana_log_read_in_windows_is_the_whole_log(void)
{
	setup();
	uint8_t whole[256], part[256];
	CU_ASSERT_EQUAL_FATAL(ana_log(&F.admin, false, false, 0, whole, sizeof(whole)), 0);
	/* header alone, then descriptor by descriptor at dword offsets */
	for (uint64_t off = 0; off < 124; off += 20) {
		CU_ASSERT_EQUAL_FATAL(ana_log(&F.admin, false, false, off, part, 20), 0);
		CU_ASSERT_EQUAL(memcmp(part, whole + off, 20), 0);
	}
	/* the last dwords of the descriptors, then zeroes */
	CU_ASSERT_EQUAL_FATAL(ana_log(&F.admin, false, false, 120, part, 16), 0);
	CU_ASSERT_EQUAL(memcmp(part, whole + 120, 4), 0);
	CU_ASSERT_EQUAL(part[4] | part[8] | part[12], 0);
	/* The log is as long as the host sizes it from Identify: 16 + 128 x 32 + 1024 x 4
	 * bytes. nvme-cli reads that in 4 KiB pieces: zeroes after the descriptors. */
	uint8_t *big = malloc(4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	CU_ASSERT_EQUAL(ana_log(&F.admin, false, false, 4096, big, 4096), 0);
	for (size_t i = 0; i < 4096; i++)
		CU_ASSERT_EQUAL_FATAL(big[i], 0);
	CU_ASSERT_EQUAL(ana_log(&F.admin, false, false, 8192, part, 16), 0);
	free(big);
	/* an offset past that: Invalid Field */
	CU_ASSERT_EQUAL(ana_log(&F.admin, false, false, 8212, part, 16),
			(int)(nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR));
	CU_ASSERT_EQUAL(ana_log(&F.admin, false, false, 2, part, 16),
			(int)(nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR));
	fx_teardown(&F);
}

static void supported_log_pages_list_the_ana_log(void)
{
	setup();
	__le32 lids[256];
	struct nvme_sqe c =
		mk(nvme_admin_get_log_page, 0, NVME_LOG_LID_SUPPORTED_LOG_PAGES | 255u << 16, 0);
	CU_ASSERT_EQUAL_FATAL(cmd(&F.admin, c, lids, sizeof(lids), NULL), 0);
	CU_ASSERT_EQUAL(le32toh(lids[NVME_LOG_LID_ANA]), 1);
	fx_teardown(&F);
}

/* ---- I/O ---- */

/* Every state of group 2 on port 1, and what I/O to nsid 2 through port 1 gets. */
static void io_on_each_state_gets_its_path_status_without_dnr(void)
{
	setup();
	static const struct {
		uint8_t state;
		int status;
	} cases[] = {
		{ OPT, 0 },
		{ NONOPT, 0 },
		{ INACC, PATH(NVME_SC_ANA_INACCESSIBLE) },
		{ LOST, PATH(NVME_SC_ANA_PERSISTENT_LOSS) },
		{ CHANGE, PATH(NVME_SC_ANA_TRANSITION) },
	};
	static const uint8_t opcodes[] = { nvme_cmd_read, nvme_cmd_write, nvme_cmd_compare,
					   nvme_cmd_write_zeroes, nvme_cmd_flush };
	uint8_t *buf = calloc(1, 4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		set_state(1, 2, cases[i].state);
		for (size_t k = 0; k < sizeof(opcodes); k++) {
			uint32_t len = opcodes[k] == nvme_cmd_flush ||
						       opcodes[k] == nvme_cmd_write_zeroes ?
					       0 :
					       4096;
			struct nvme_sqe c = mk(opcodes[k], 2, 0, 0);
			if (len)
				c.cdw12 = htole32(7);
			memset(buf, 0, 4096); /* RAM starts zeroed: Compare matches */
			int st = cmd(&IO1, c, len ? buf : NULL, len, NULL);
			CU_ASSERT_EQUAL(st, cases[i].status);
			CU_ASSERT_EQUAL(st & NVME_SC_DNR, 0);
		}
		/* Dataset Management too, like every I/O command */
		struct nvme_dsm_range r = { .nlb = htole32(1) };
		CU_ASSERT_EQUAL(cmd(&IO1, mk(nvme_cmd_dsm, 2, 0, NVME_DSMGMT_AD), &r, sizeof(r),
				    NULL),
				cases[i].status);
	}
	/* The failures are in the error log, with their status. */
	struct nvme_error_log_page e;
	struct nvme_sqe c = mk(nvme_admin_get_log_page, 0, NVME_LOG_LID_ERROR | 15u << 16, 0);
	CU_ASSERT_EQUAL_FATAL(cmd(&F.admin, c, &e, sizeof(e), NULL), 0);
	CU_ASSERT_EQUAL(le16toh(e.status_field) >> 1, PATH(NVME_SC_ANA_TRANSITION));
	free(buf);
	fx_teardown(&F);
}

static void data_written_on_one_path_reads_back_on_the_other(void)
{
	setup();
	uint8_t out[4096], in[4096];
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + 3);
	CU_ASSERT_EQUAL(rw(&IO2, nvme_cmd_write, 2, out, sizeof(out)), 0); /* optimized */
	CU_ASSERT_EQUAL(rw(&IO1, nvme_cmd_read, 2, in, sizeof(in)), 0);    /* non-optimized */
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
	/* Group 1 is inaccessible on port 2 only. */
	CU_ASSERT_EQUAL(rw(&IO2, nvme_cmd_read, 1, in, sizeof(in)), PATH(NVME_SC_ANA_INACCESSIBLE));
	CU_ASSERT_EQUAL(rw(&IO1, nvme_cmd_read, 1, in, sizeof(in)), 0);
	fx_teardown(&F);
}

static void one_ports_state_leaves_the_other_path_serving(void)
{
	setup();
	uint8_t in[512];
	CU_ASSERT_EQUAL(set_state(2, 2, INACC), 1);
	CU_ASSERT_EQUAL(rw(&IO2, nvme_cmd_read, 2, in, sizeof(in)), PATH(NVME_SC_ANA_INACCESSIBLE));
	CU_ASSERT_EQUAL(rw(&IO1, nvme_cmd_read, 2, in, sizeof(in)), 0);
	CU_ASSERT_EQUAL(set_state(2, 2, OPT), 1);
	CU_ASSERT_EQUAL(rw(&IO2, nvme_cmd_read, 2, in, sizeof(in)), 0);
	fx_teardown(&F);
}

static void admin_commands_are_served_on_an_inaccessible_path(void)
{
	setup();
	uint8_t buf[4096];
	CU_ASSERT_EQUAL(set_state(2, 2, INACC), 1);
	/* port 2: groups 1 and 2 inaccessible, yet the host can ask why */
	CU_ASSERT_EQUAL(identify(&A2, NVME_IDENTIFY_CNS_CTRL, 0, buf), 0);
	CU_ASSERT_EQUAL(identify(&A2, NVME_IDENTIFY_CNS_NS, 2, buf), 0);
	CU_ASSERT_EQUAL(identify(&A2, NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0, buf), 0);
	CU_ASSERT_EQUAL(ana_log(&A2, false, false, 0, buf, 4096), 0);
	CU_ASSERT_EQUAL(cmd(&A2, mk(nvme_admin_get_features, 0, NVME_FEAT_FID_ASYNC_EVENT, 0), NULL,
			    0, NULL),
			0);
	CU_ASSERT_EQUAL(cmd(&A2, mk(nvme_admin_keep_alive, 0, 0, 0), NULL, 0, NULL), 0);
	fx_teardown(&F);
}

/* ---- notices and counts ---- */

static void async_event_config_accepts_ana_change_notices(void)
{
	setup();
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL(set_aec(&F.admin, 1u << 11 | 1u << 8), 0);
	CU_ASSERT_EQUAL(cmd(&F.admin, mk(nvme_admin_get_features, 0, NVME_FEAT_FID_ASYNC_EVENT, 0),
			    NULL, 0, &cqe),
			0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), 1u << 11 | 1u << 8);
	fx_teardown(&F);
}

static void state_change_notifies_the_controllers_of_that_port_only(void)
{
	setup();
	struct fx_cmd a1, a2;
	CU_ASSERT_EQUAL(set_aec(&F.admin, 1u << 11), 0);
	CU_ASSERT_EQUAL(set_aec(&A2, 1u << 11), 0);
	submit_aer(&F.admin, &a1);
	submit_aer(&A2, &a2);
	CU_ASSERT_EQUAL(set_state(1, 2, INACC), 1);
	CU_ASSERT_TRUE_FATAL(fx_done(&a1));
	CU_ASSERT_EQUAL(a1.status, 0);
	CU_ASSERT_EQUAL(le32toh(a1.cqe.result.u32), ANA_NOTICE);
	CU_ASSERT_FALSE(fx_done(&a2));
	/* and the other way */
	CU_ASSERT_EQUAL(set_state(2, 1, OPT), 1);
	CU_ASSERT_TRUE_FATAL(fx_done(&a2));
	CU_ASSERT_EQUAL(le32toh(a2.cqe.result.u32), ANA_NOTICE);
	fx_teardown(&F);
}

static void notice_is_masked_until_the_log_is_read_with_rae_clear(void)
{
	setup();
	struct fx_cmd a1, a2;
	uint8_t buf[256];
	CU_ASSERT_EQUAL(set_aec(&F.admin, 1u << 11), 0);
	submit_aer(&F.admin, &a1);
	CU_ASSERT_EQUAL(set_state(1, 2, INACC), 1);
	CU_ASSERT_TRUE_FATAL(fx_done(&a1));
	submit_aer(&F.admin, &a2);
	CU_ASSERT_EQUAL(set_state(1, 2, OPT), 1);
	CU_ASSERT_FALSE(fx_done(&a2)); /* masked */
	CU_ASSERT_EQUAL(ana_log(&F.admin, false, true, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(set_state(1, 2, NONOPT), 1);
	CU_ASSERT_FALSE(fx_done(&a2)); /* RAE kept it masked */
	CU_ASSERT_EQUAL(ana_log(&F.admin, false, false, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_FALSE(fx_done(&a2)); /* re-armed, nothing new yet */
	CU_ASSERT_EQUAL(set_state(1, 2, OPT), 1);
	CU_ASSERT_TRUE_FATAL(fx_done(&a2));
	CU_ASSERT_EQUAL(le32toh(a2.cqe.result.u32), ANA_NOTICE);
	fx_teardown(&F);
}

static void no_notice_when_the_host_did_not_enable_it(void)
{
	setup();
	struct fx_cmd a;
	CU_ASSERT_EQUAL(set_aec(&F.admin, 1u << 8), 0);
	submit_aer(&F.admin, &a);
	CU_ASSERT_EQUAL(set_state(1, 2, INACC), 1);
	CU_ASSERT_FALSE(fx_done(&a));
	fx_teardown(&F);
}

static void change_counts_move_on_with_each_change_and_only_then(void)
{
	setup();
	uint8_t buf[256];
	struct grp g0[8], g1[8];
	uint64_t c0, c1;
	CU_ASSERT_EQUAL_FATAL(ana_log(&F.admin, false, false, 0, buf, sizeof(buf)), 0);
	parse_log(buf, &c0, g0, 8, NULL);
	CU_ASSERT_EQUAL(set_state(1, 2, NONOPT), 0); /* it already was */
	CU_ASSERT_EQUAL_FATAL(ana_log(&F.admin, false, false, 0, buf, sizeof(buf)), 0);
	parse_log(buf, &c1, g1, 8, NULL);
	CU_ASSERT_EQUAL(c1, c0);
	CU_ASSERT_EQUAL(g1[1].chgcnt, g0[1].chgcnt);
	/* a state change: the log's count and group 2's move on, group 1's does not */
	CU_ASSERT_EQUAL(set_state(2, 2, NONOPT), 1);
	CU_ASSERT_EQUAL_FATAL(ana_log(&F.admin, false, false, 0, buf, sizeof(buf)), 0);
	parse_log(buf, &c1, g1, 8, NULL);
	CU_ASSERT_TRUE(c1 > c0);
	CU_ASSERT_TRUE(g1[1].chgcnt > g0[1].chgcnt);
	CU_ASSERT_EQUAL(g1[0].chgcnt, g0[0].chgcnt);
	CU_ASSERT_EQUAL(g1[1].state, NONOPT); /* port 1's view: unchanged */
	fx_teardown(&F);
}

static void state_set_refuses_a_bad_group_or_state_and_defines_new_groups(void)
{
	setup();
	char err[256];
	CU_ASSERT_EQUAL(nvmf_tgt_ana_state_set(&F.tgt, port(2), 0, OPT, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "ANA group 0 is out of range (1-128)");
	CU_ASSERT_EQUAL(nvmf_tgt_ana_state_set(&F.tgt, port(2), 129, OPT, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(nvmf_tgt_ana_state_set(&F.tgt, port(2), 3, 7, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "7 is not an ANA state");
	/* group 9, defined nowhere: port 2 defines it now, and the log lists it */
	CU_ASSERT_FALSE(nvmf_tgt_ana_group_defined(&F.tgt, 9, NULL));
	uint64_t before = F.tgt.ana_chgcnt;
	CU_ASSERT_EQUAL(set_state(2, 9, INACC), 0); /* inaccessible already */
	CU_ASSERT_TRUE(nvmf_port_config_defines(port(2)->cfg, 9));
	CU_ASSERT_TRUE(F.tgt.ana_chgcnt > before);
	uint8_t buf[256];
	struct grp g[8];
	uint64_t chg;
	CU_ASSERT_EQUAL_FATAL(ana_log(&A2, true, false, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL_FATAL(parse_log(buf, &chg, g, 8, NULL), 4);
	CU_ASSERT_EQUAL(g[3].grpid, 9);
	CU_ASSERT_EQUAL(set_state(2, 9, OPT), 1);
	CU_ASSERT_EQUAL(port(2)->ana_state[9], OPT);
	fx_teardown(&F);
}

/* ---- namespaces moving between groups ---- */

static void namespace_moved_to_another_group_follows_its_state(void)
{
	setup();
	struct fx_cmd a1, a2;
	CU_ASSERT_EQUAL(set_aec(&F.admin, 1u << 11), 0);
	CU_ASSERT_EQUAL(set_aec(&A2, 1u << 11), 0);
	submit_aer(&F.admin, &a1);
	submit_aer(&A2, &a2);
	char err[256];
	uint32_t prev = 0;
	CU_ASSERT_EQUAL(nvmf_tgt_ns_ana_group_set(&F.tgt, subsys(FX_SUBNQN), 3, 1, &prev, err,
						  sizeof(err)),
			1);
	CU_ASSERT_EQUAL(prev, 2);
	/* every controller of the subsystem hears of it, whatever its port */
	CU_ASSERT_TRUE(fx_done(&a1));
	CU_ASSERT_TRUE(fx_done(&a2));
	uint8_t buf[256], in[512];
	struct grp g[8];
	uint64_t chg;
	CU_ASSERT_EQUAL_FATAL(ana_log(&A2, false, false, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL_FATAL(parse_log(buf, &chg, g, 8, NULL), 3);
	CU_ASSERT_EQUAL_FATAL(g[0].n, 2);
	CU_ASSERT_EQUAL(g[0].nsids[0], 1);
	CU_ASSERT_EQUAL(g[0].nsids[1], 3);
	CU_ASSERT_EQUAL(g[1].n, 1);
	struct nvme_id_ns id;
	CU_ASSERT_EQUAL_FATAL(identify(&A2, NVME_IDENTIFY_CNS_NS, 3, &id), 0);
	CU_ASSERT_EQUAL(le32toh(id.anagrpid), 1);
	/* group 1 is inaccessible on port 2: so is nsid 3 now */
	CU_ASSERT_EQUAL(rw(&IO2, nvme_cmd_read, 3, in, sizeof(in)), PATH(NVME_SC_ANA_INACCESSIBLE));
	CU_ASSERT_EQUAL(rw(&IO2, nvme_cmd_read, 2, in, sizeof(in)), 0);
	/* the running config says so */
	CU_ASSERT_EQUAL(subsys(FX_SUBNQN)->cfg->ns[2].anagrpid, 1);
	/* the same group again: nothing changes */
	CU_ASSERT_EQUAL(nvmf_tgt_ns_ana_group_set(&F.tgt, subsys(FX_SUBNQN), 3, 1, &prev, err,
						  sizeof(err)),
			0);
	fx_teardown(&F);
}

static void namespace_move_refuses_bad_groups_and_unknown_namespaces(void)
{
	setup();
	char err[256];
	uint32_t prev;
	struct nvmf_subsys *s = subsys(FX_SUBNQN);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_ana_group_set(&F.tgt, s, 9, 1, &prev, err, sizeof(err)),
			-ENOENT);
	CU_ASSERT_STRING_EQUAL(err, "subsystem " FX_SUBNQN " has no namespace 9");
	CU_ASSERT_EQUAL(nvmf_tgt_ns_ana_group_set(&F.tgt, s, 1, 0, &prev, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_ana_group_set(&F.tgt, s, 1, 129, &prev, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_ana_group_set(&F.tgt, s, 1, 7, &prev, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err, "ANA group 7 is defined on no port (ana_state_set defines it on one)");
	CU_ASSERT_EQUAL(s->cfg->ns[0].anagrpid, 0); /* unchanged: still group 1 */
	fx_teardown(&F);
}

static void namespace_added_joins_its_group_with_a_notice(void)
{
	setup();
	struct fx_cmd a;
	CU_ASSERT_EQUAL(set_aec(&A2, 1u << 11), 0);
	submit_aer(&A2, &a);
	uint64_t before = F.tgt.ana_chgcnt, grp_before = F.tgt.ana_grp_chgcnt[2];
	struct nvmf_ns_config nc = { .nsid = 4,
				     .enable = true,
				     .kind = NVMF_BACKEND_RAM,
				     .size_bytes = NS_BYTES,
				     .anagrpid = 2 };
	uint32_t nsid;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(
		nvmf_tgt_ns_add(&F.tgt, subsys(FX_SUBNQN), &nc, 1, &nsid, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(fx_done(&a));
	CU_ASSERT_TRUE(F.tgt.ana_chgcnt > before);
	CU_ASSERT_TRUE(F.tgt.ana_grp_chgcnt[2] > grp_before);
	uint8_t buf[256];
	struct grp g[8];
	uint64_t chg;
	CU_ASSERT_EQUAL_FATAL(ana_log(&A2, false, false, 0, buf, sizeof(buf)), 0);
	parse_log(buf, &chg, g, 8, NULL);
	CU_ASSERT_EQUAL_FATAL(g[1].n, 3);
	CU_ASSERT_EQUAL(g[1].nsids[2], 4);
	/* disabled, it leaves the log; removed, too */
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&F.tgt, subsys(FX_SUBNQN), 4, false, err, sizeof(err)),
			1);
	CU_ASSERT_EQUAL_FATAL(ana_log(&A2, false, false, 0, buf, sizeof(buf)), 0);
	parse_log(buf, &chg, g, 8, NULL);
	CU_ASSERT_EQUAL(g[1].n, 2);
	before = F.tgt.ana_chgcnt;
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&F.tgt, subsys(FX_SUBNQN), 4, true, err, sizeof(err)),
			1);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_remove(&F.tgt, subsys(FX_SUBNQN), 4, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(F.tgt.ana_chgcnt >= before + 2);
	CU_ASSERT_EQUAL_FATAL(ana_log(&A2, false, false, 0, buf, sizeof(buf)), 0);
	parse_log(buf, &chg, g, 8, NULL);
	CU_ASSERT_EQUAL(g[1].n, 2);
	fx_teardown(&F);
}

/* ---- ports ---- */

static void port_that_alone_defines_a_namespaces_group_may_not_go(void)
{
	setup();
	char err[512];
	/* port 1 alone defines group 5, test2's nsid 1's */
	CU_ASSERT_EQUAL(nvmf_tgt_ana_check_port_remove(&F.tgt, port(1), err, sizeof(err)), -EBUSY);
	CU_ASSERT_STRING_EQUAL(
		err, "port 1 is the only port defining ANA group 5, the group of namespace 1 "
		     "of " SUB2 ": move the namespace to another group (namespace_ana_group_set) "
		     "or define the group on another port (ana_state_set) first");
	/* port 2's groups are all on port 1 as well */
	CU_ASSERT_EQUAL(nvmf_tgt_ana_check_port_remove(&F.tgt, port(2), err, sizeof(err)), 0);
	/* defined on port 2 too, port 1 may go */
	CU_ASSERT_EQUAL(set_state(2, 5, NONOPT), 1);
	CU_ASSERT_EQUAL(nvmf_tgt_ana_check_port_remove(&F.tgt, port(1), err, sizeof(err)), 0);
	fx_teardown(&F);
}

static void removed_port_takes_its_groups_out_of_the_log(void)
{
	setup();
	char err[256];
	uint32_t prev;
	unsigned dropped;
	CU_ASSERT_EQUAL(set_state(1, 7, OPT), 1); /* group 7 defined on port 1 */
	CU_ASSERT_EQUAL(set_state(1, 7, OPT), 0);
	CU_ASSERT_EQUAL(
		nvmf_tgt_ns_ana_group_set(&F.tgt, subsys(SUB2), 1, 2, &prev, err, sizeof(err)), 1);
	uint64_t before = F.tgt.ana_chgcnt;
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_port_remove(&F.tgt, port(1), &dropped, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(dropped, 1);
	CU_ASSERT_TRUE(F.tgt.ana_chgcnt > before);
	uint8_t buf[256];
	struct grp g[8];
	uint64_t chg;
	CU_ASSERT_EQUAL_FATAL(ana_log(&A2, true, false, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(parse_log(buf, &chg, g, 8, NULL), 2); /* 1 and 2: 5 and 7 are gone */
	fx_teardown(&F);
}

/* ---- reload ---- */

static const char *change(json_t *changes, size_t i)
{
	const char *c = json_string_value(json_array_get(changes, i));
	return c ? c : "(none)";
}

static void set_group(struct nvmf_port_config *p, uint32_t grpid, uint8_t state)
{
	for (size_t i = 0; i < p->n_ana_groups; i++)
		if (p->ana_groups[i].grpid == grpid) {
			p->ana_groups[i].state = state;
			return;
		}
	fx_cfg_ana_group(p, grpid, state);
}

static void reload_with_the_same_ana_config_changes_nothing(void)
{
	setup();
	struct nvmf_config next;
	memset(&next, 0, sizeof(next));
	build_cfg(&next);
	next.target = F.cfg.target;
	json_t *changes = json_array();
	char err[512] = "";
	uint64_t before = F.tgt.ana_chgcnt;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	CU_ASSERT_EQUAL(F.tgt.ana_chgcnt, before);
	json_decref(changes);
	nvmf_config_free(&next);
	fx_teardown(&F);
}

static void reload_applies_states_and_group_moves_live_with_notices(void)
{
	setup();
	struct fx_cmd a1, a2;
	CU_ASSERT_EQUAL(set_aec(&F.admin, 1u << 11), 0);
	CU_ASSERT_EQUAL(set_aec(&A2, 1u << 11), 0);
	submit_aer(&F.admin, &a1);
	submit_aer(&A2, &a2);
	struct nvmf_config next;
	memset(&next, 0, sizeof(next));
	build_cfg(&next);
	next.target = F.cfg.target;
	set_group(&next.ports[0], 2, INACC);
	set_group(&next.ports[0], 9, OPT);
	set_group(&next.ports[1], 1, OPT);
	next.subsystems[0].ns[2].anagrpid = 9;
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_reload(&F.tgt, &next, false, changes, err, sizeof(err)), 0);
	const char *want[] = {
		"port 1: ANA group 2 inaccessible (was non-optimized)",
		"port 1: ANA group 9 optimized (was inaccessible)",
		"port 2: ANA group 1 optimized (was inaccessible)",
		"subsystem " FX_SUBNQN ": namespace 3 moved to ANA group 9 (was 2)",
	};
	CU_ASSERT_EQUAL(json_array_size(changes), 4);
	for (size_t i = 0; i < 4; i++)
		CU_ASSERT_STRING_EQUAL(change(changes, i), want[i]);
	CU_ASSERT_TRUE(fx_done(&a1));
	CU_ASSERT_TRUE(fx_done(&a2));
	uint8_t in[512];
	CU_ASSERT_EQUAL(rw(&IO1, nvme_cmd_read, 2, in, sizeof(in)), PATH(NVME_SC_ANA_INACCESSIBLE));
	CU_ASSERT_EQUAL(rw(&IO2, nvme_cmd_read, 1, in, sizeof(in)), 0);
	CU_ASSERT_EQUAL(rw(&IO1, nvme_cmd_read, 3, in, sizeof(in)), 0); /* group 9 here */
	CU_ASSERT_EQUAL(rw(&IO2, nvme_cmd_read, 3, in, sizeof(in)), PATH(NVME_SC_ANA_INACCESSIBLE));
	/* the running configuration is the file's */
	CU_ASSERT_TRUE(nvmf_port_config_defines(port(1)->cfg, 9));
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(port(2)->cfg, 1), OPT);
	CU_ASSERT_EQUAL(subsys(FX_SUBNQN)->cfg->ns[2].anagrpid, 9);
	json_decref(changes);
	nvmf_config_free(&next);
	fx_teardown(&F);
}

static void reload_that_fails_leaves_the_states_as_they_were(void)
{
	setup();
	struct nvmf_config next;
	memset(&next, 0, sizeof(next));
	build_cfg(&next);
	next.target = F.cfg.target;
	set_group(&next.ports[0], 2, INACC);
	/* a new namespace whose file cannot be opened: the reload stops there */
	struct nvmf_ns_config *bad = fx_cfg_ns(&next.subsystems[0], 4, NVMF_BACKEND_FILE, 0, 512);
	bad->path = strdup("/nonexistent/dir/ns4");
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_NOT_EQUAL(nvmf_tgt_reload(&F.tgt, &next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	CU_ASSERT_EQUAL(port(1)->ana_state[2], NONOPT);
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(port(1)->cfg, 2), NONOPT);
	json_decref(changes);
	nvmf_config_free(&next);
	fx_teardown(&F);
}

/* A port built in code without ana_groups: group 1 optimized, the rest inaccessible. */
static void port_without_ana_config_serves_group_1_only(void)
{
	struct fx f;
	CU_ASSERT_FATAL(fx_setup(&f) == 0);
	struct nvmf_port *p = f.tgt.ports[0];
	CU_ASSERT_EQUAL(p->ana_state[1], OPT);
	for (uint32_t g = 2; g <= NVMF_MAX_ANAGRPID; g++)
		CU_ASSERT_EQUAL(p->ana_state[g], INACC);
	fx_teardown(&f);
}

const struct unit_test ana_tests[] = {
	{ "identify_controller_reports_ana_support", identify_controller_reports_ana_support },
	{ "mnan_keeps_the_linux_hosts_ana_buffer_within_mdts",
	  mnan_keeps_the_linux_hosts_ana_buffer_within_mdts },
	{ "identify_namespace_reports_its_group_and_no_use_where_unreachable",
	  identify_namespace_reports_its_group_and_no_use_where_unreachable },
	{ "ana_log_lists_every_group_with_its_state_on_the_controllers_port",
	  ana_log_lists_every_group_with_its_state_on_the_controllers_port },
	{ "ana_log_with_rgo_lists_groups_without_nsids",
	  ana_log_with_rgo_lists_groups_without_nsids },
	{ "ana_log_read_in_windows_is_the_whole_log", ana_log_read_in_windows_is_the_whole_log },
	{ "supported_log_pages_list_the_ana_log", supported_log_pages_list_the_ana_log },
	{ "io_on_each_state_gets_its_path_status_without_dnr",
	  io_on_each_state_gets_its_path_status_without_dnr },
	{ "data_written_on_one_path_reads_back_on_the_other",
	  data_written_on_one_path_reads_back_on_the_other },
	{ "one_ports_state_leaves_the_other_path_serving",
	  one_ports_state_leaves_the_other_path_serving },
	{ "admin_commands_are_served_on_an_inaccessible_path",
	  admin_commands_are_served_on_an_inaccessible_path },
	{ "async_event_config_accepts_ana_change_notices",
	  async_event_config_accepts_ana_change_notices },
	{ "state_change_notifies_the_controllers_of_that_port_only",
	  state_change_notifies_the_controllers_of_that_port_only },
	{ "notice_is_masked_until_the_log_is_read_with_rae_clear",
	  notice_is_masked_until_the_log_is_read_with_rae_clear },
	{ "no_notice_when_the_host_did_not_enable_it", no_notice_when_the_host_did_not_enable_it },
	{ "change_counts_move_on_with_each_change_and_only_then",
	  change_counts_move_on_with_each_change_and_only_then },
	{ "state_set_refuses_a_bad_group_or_state_and_defines_new_groups",
	  state_set_refuses_a_bad_group_or_state_and_defines_new_groups },
	{ "namespace_moved_to_another_group_follows_its_state",
	  namespace_moved_to_another_group_follows_its_state },
	{ "namespace_move_refuses_bad_groups_and_unknown_namespaces",
	  namespace_move_refuses_bad_groups_and_unknown_namespaces },
	{ "namespace_added_joins_its_group_with_a_notice",
	  namespace_added_joins_its_group_with_a_notice },
	{ "port_that_alone_defines_a_namespaces_group_may_not_go",
	  port_that_alone_defines_a_namespaces_group_may_not_go },
	{ "removed_port_takes_its_groups_out_of_the_log",
	  removed_port_takes_its_groups_out_of_the_log },
	{ "reload_with_the_same_ana_config_changes_nothing",
	  reload_with_the_same_ana_config_changes_nothing },
	{ "reload_applies_states_and_group_moves_live_with_notices",
	  reload_applies_states_and_group_moves_live_with_notices },
	{ "reload_that_fails_leaves_the_states_as_they_were",
	  reload_that_fails_leaves_the_states_as_they_were },
	{ "port_without_ana_config_serves_group_1_only",
	  port_without_ana_config_serves_group_1_only },
	{ NULL, NULL },
};
