/*
 * Admin commands of a passthru controller (target/passthru-admin.c) through the whole
 * stack, the in-memory drive behind (tests/unit/support/fake-drive.h): what passes to
 * the drive, what the target fixes up or keeps, what it refuses.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "loop/loop.h"
#include "target/passthru.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/passthru_fixture.h"

static struct nvme_sqe admin(uint8_t opcode, uint32_t nsid, uint32_t cdw10)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.command_id = 0x20;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32(cdw10);
	return c;
}

/* Identify Controller is the drive's, with what a fabrics controller must say ours. */
static void identify_controller_is_the_drives_with_fabrics_fixups(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct nvme_id_ctrl id;
	struct nvme_sqe c = admin(nvme_admin_identify, 0, NVME_IDENTIFY_CNS_CTRL);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, &id, sizeof(id), NULL), 0);
	CU_ASSERT_EQUAL(f->drive->last_admin.opcode, nvme_admin_identify); /* it asked */
	CU_ASSERT_EQUAL(le16toh(id.vid), 0x1b36);                          /* the drive's */
	CU_ASSERT_EQUAL(memcmp(id.sn, FAKE_DRIVE_SN, strlen(FAKE_DRIVE_SN)), 0);
	CU_ASSERT_EQUAL(memcmp(id.mn, FAKE_DRIVE_MN, strlen(FAKE_DRIVE_MN)), 0);
	CU_ASSERT_EQUAL(le16toh(id.cntlid), f->fx.cntlid); /* ours, not the drive's 7 */
	CU_ASSERT_NOT_EQUAL(le16toh(id.cntlid), FAKE_DRIVE_CNTLID);
	CU_ASSERT_STRING_EQUAL(id.subnqn, FX_SUBNQN);
	CU_ASSERT_TRUE(id.mdts >= 1 && id.mdts <= FAKE_DRIVE_MDTS);
	CU_ASSERT_TRUE(id.cmic & NVME_CTRL_CMIC_MULTI_CTRL);
	CU_ASSERT_EQUAL(le16toh(id.fuses), NVME_CTRL_FUSES_COMPARE_AND_WRITE);
	uint16_t oacs = le16toh(id.oacs);
	CU_ASSERT_TRUE(oacs & NVME_CTRL_OACS_FORMAT);          /* passes */
	CU_ASSERT_FALSE(oacs & NVME_CTRL_OACS_NS_MGMT);        /* refused */
	CU_ASSERT_FALSE(oacs & NVME_CTRL_OACS_DBBUF_CFG);      /* refused */
	CU_ASSERT_NOT_EQUAL(le32toh(id.sgls), 0);              /* the drive said none */
	CU_ASSERT_EQUAL(le32toh(id.ioccsz), (64 + 8192) / 16); /* in-capsule 8 KiB */
	CU_ASSERT_EQUAL(le32toh(id.iorcsz), 1);
	CU_ASSERT_NOT_EQUAL(le16toh(id.kas), 0);
	/* MNAN within 1..NN (the drive's NN, 4): a Linux host with ANA refuses the
	 * controller otherwise ("Invalid MNAN value", nvme_mpath_init_identify). */
	CU_ASSERT_EQUAL(le32toh(id.nn), FAKE_DRIVE_MAX_NS);
	CU_ASSERT_TRUE(le32toh(id.mnan) >= 1 && le32toh(id.mnan) <= le32toh(id.nn));
	pt_teardown(f);
}

/* Identify Namespace: shared, and with clear_ids (the default) no EUI-64 or NGUID; the
 * descriptor list keeps only the command set. */
static void identify_namespace_is_shared_without_the_drive_ids(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct nvme_id_ns id;
	struct nvme_sqe c = admin(nvme_admin_identify, 1, NVME_IDENTIFY_CNS_NS);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, &id, sizeof(id), NULL), 0);
	CU_ASSERT_EQUAL(le64toh(id.nsze), 2048);
	CU_ASSERT_TRUE(id.nmic & NVME_NS_NMIC_SHARED);
	static const uint8_t zero[16];
	CU_ASSERT_EQUAL(memcmp(id.eui64, zero, 8), 0);
	CU_ASSERT_EQUAL(memcmp(id.nguid, zero, 16), 0);
	uint8_t desc[4096];
	c = admin(nvme_admin_identify, 1, NVME_IDENTIFY_CNS_NS_DESC_LIST);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, desc, sizeof(desc), NULL), 0);
	CU_ASSERT_EQUAL(desc[0], NVME_NIDT_CSI);
	CU_ASSERT_EQUAL(desc[1], 1);
	CU_ASSERT_EQUAL(desc[5], 0); /* nothing after it */
	/* The active list is the namespaces served. */
	uint32_t list[1024];
	c = admin(nvme_admin_identify, 0, NVME_IDENTIFY_CNS_NS_ACTIVE_LIST);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, list, sizeof(list), NULL), 0);
	CU_ASSERT_EQUAL(le32toh(list[0]), 1);
	CU_ASSERT_EQUAL(le32toh(list[1]), 2);
	CU_ASSERT_EQUAL(list[2], 0);
	pt_teardown(f);
}

/* The same with clear_ids 0: the drive's identifiers as it gave them. */
static void identify_namespace_keeps_the_ids_without_clear_ids(void)
{
	/* pt_setup builds the config itself: boot by hand with clear_ids off. */
	struct fx *x = calloc(1, sizeof(*x));
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	struct nvmf_subsys_config *s = fx_cfg_subsys(&x->cfg, FX_SUBNQN, FX_HOSTNQN, 4);
	s->passthru.enable = true;
	s->passthru.clear_ids = false;
	snprintf(s->passthru.device_path, sizeof(s->passthru.device_path), "/dev/fake0");
	fx_cfg_expose(fx_cfg_loop_port(&x->cfg, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	x->drive_open = fake_drive_open;
	CU_ASSERT_FATAL(fx_boot(x, "127.0.0.1", "4420") == 0);
	CU_ASSERT_FATAL(fx_connect_admin(x) == 0);
	struct nvme_id_ns id;
	struct nvme_sqe c = admin(nvme_admin_identify, 2, NVME_IDENTIFY_CNS_NS);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&x->admin, &c, &id, sizeof(id), NULL), 0);
	CU_ASSERT_EQUAL(id.eui64[0], 0xe0 + 2);
	CU_ASSERT_EQUAL(id.nguid[0], 0x10 + 2 * 16);
	fx_teardown(x);
	free(x);
}

/* Vendor specific admin commands pass both ways: C1h stores, C2h reads back, C0h's
 * result dwords come back; 11b in opcode bits 1:0 (C3h) moves nothing: Invalid Field. */
static void vendor_admin_commands_round_trip(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uint8_t out[512], in[512];
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i ^ 0x5a);
	struct nvme_sqe c = admin(0xc1, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, out, sizeof(out), NULL), 0);
	c = admin(0xc2, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, in, sizeof(in), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
	struct nvme_cqe cqe;
	c = admin(0xc0, 0, 0);
	c.cdw12 = htole32(0x12345678);
	c.cdw13 = htole32(0x9abcdef0);
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le64toh(cqe.result.u64), 0x9abcdef012345678ull);
	c = admin(0xc3, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, NULL, 0, NULL),
			PT_DNR(PT_GEN(NVME_SC_INVALID_FIELD)));
	pt_teardown(f);
}

/* Refused opcodes get Invalid Command Opcode and never reach the drive. */
static void refused_admin_opcodes_get_invalid_opcode(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	static const uint8_t refused[] = { nvme_admin_ns_mgmt,   nvme_admin_ns_attach,
					   nvme_admin_fw_commit, nvme_admin_fw_download,
					   nvme_admin_create_sq, nvme_admin_delete_cq,
					   nvme_admin_dbbuf,     nvme_admin_virtual_mgmt };
	unsigned before = f->drive->admin_calls;
	for (size_t i = 0; i < sizeof(refused); i++) {
		struct nvme_sqe c = admin(refused[i], 0, 0);
		CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, NULL, 0, NULL),
				PT_DNR(PT_GEN(NVME_SC_INVALID_OPCODE)));
	}
	CU_ASSERT_EQUAL(f->drive->admin_calls, before);
	pt_teardown(f);
}

/* Features the target owns never reach the drive; the others do. */
static void owned_features_stay_and_the_others_pass(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	unsigned before = f->drive->admin_calls;
	struct nvme_cqe cqe;
	struct nvme_sqe c = admin(nvme_admin_get_features, 0, NVME_FEAT_FID_KATO);
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), 5000); /* the Connect's KATO */
	CU_ASSERT_EQUAL(f->drive->admin_calls, before);
	c = admin(nvme_admin_set_features, 0, NVME_FEAT_FID_POWER_MGMT);
	c.cdw11 = htole32(2);
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, NULL, 0, NULL), 0);
	CU_ASSERT_EQUAL(f->drive->power_state, 2);
	c = admin(nvme_admin_get_features, 0, NVME_FEAT_FID_POWER_MGMT);
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), 2);
	pt_teardown(f);
}

/* The effects log is the drive's, without what the target refuses: Namespace
 * Management (which the drive supports) reads as unsupported, Format as the drive says. */
static void effects_log_passes_without_the_refused_commands(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct nvme_cmd_effects_log log;
	struct nvme_sqe c = admin(nvme_admin_get_log_page, 0xffffffff,
				  NVME_LOG_LID_CMD_EFFECTS | ((sizeof(log) / 4 - 1) << 16));
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, &log, sizeof(log), NULL), 0);
	CU_ASSERT_EQUAL(log.acs[nvme_admin_ns_mgmt], 0);
	CU_ASSERT_TRUE(le32toh(log.acs[nvme_admin_format_nvm]) & NVME_CMD_EFFECTS_NCC);
	CU_ASSERT_TRUE(le32toh(log.iocs[nvme_cmd_write]) & NVME_CMD_EFFECTS_CSUPP);
	pt_teardown(f);
}

/* The SMART log is the drive's: its counters move with the hosts' I/O. */
static void smart_log_passes_and_moves_with_io(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uint8_t blk[512] = { 1 };
	struct nvme_sqe w = pt_rw(nvme_cmd_write, 1, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &w, blk, sizeof(blk), NULL), 0);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &w, blk, sizeof(blk), NULL), 0);
	struct nvme_smart_log log;
	struct nvme_sqe c = admin(nvme_admin_get_log_page, 0xffffffff,
				  NVME_LOG_LID_SMART | ((sizeof(log) / 4 - 1) << 16));
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, &log, sizeof(log), NULL), 0);
	CU_ASSERT_EQUAL(log.host_writes[0], 2);
	CU_ASSERT_EQUAL(log.data_units_written[0], 1); /* 1024 bytes: one unit, rounded up */
	pt_teardown(f);
}

/* Format NVM of namespace 1 to 4096-byte blocks: the drive is rescanned, the namespace
 * is served with its new format, and the host hears of it (Namespace Attribute Changed,
 * and nsid 1 in the Changed Namespace List). */
static void format_changes_the_served_namespace_and_tells_the_host(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	/* Namespace Attribute Notices on (AEC bit 8), and an AER waiting. */
	struct nvme_sqe c = admin(nvme_admin_set_features, 0, NVME_FEAT_FID_ASYNC_EVENT);
	c.cdw11 = htole32(1u << 8);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, NULL, 0, NULL), 0);
	struct fx_cmd aer;
	c = admin(nvme_admin_async_event, 0, 0);
	c.command_id = 0x30;
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->fx.admin, &aer, &c, NULL, 0), 0);
	CU_ASSERT_FALSE(fx_done(&aer));
	uint8_t blk[512];
	memset(blk, 0x66, sizeof(blk));
	struct nvme_sqe w = pt_rw(nvme_cmd_write, 1, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &w, blk, sizeof(blk), NULL), 0);
	c = admin(nvme_admin_format_nvm, 1, 1); /* LBA format 1: 4096 B */
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, NULL, 0, NULL), 0);
	struct nvmf_ns *ns = nvmf_subsys_ns(f->s, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
	CU_ASSERT_EQUAL(ns->lba_shift, 12);
	CU_ASSERT_EQUAL(nvmf_ns_nlb(ns), 256);
	CU_ASSERT_TRUE(fx_done(&aer));
	CU_ASSERT_EQUAL(aer.status, 0);
	CU_ASSERT_EQUAL(le32toh(aer.cqe.result.u32), 0x00040002u);
	uint32_t changed[1024];
	c = admin(nvme_admin_get_log_page, 0, NVME_LOG_LID_CHANGED_NS | (1023u << 16));
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, changed, sizeof(changed), NULL), 0);
	CU_ASSERT_EQUAL(le32toh(changed[0]), 1);
	/* The formatted namespace reads zeroes in its new block size. */
	uint8_t in[4096];
	struct nvme_sqe r = pt_rw(nvme_cmd_read, 1, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &r, in, sizeof(in), NULL), 0);
	CU_ASSERT_EQUAL(in[0], 0);
	pt_teardown(f);
}

/* passthru.admin_timeout bounds a command the drive does not answer: Command Abort
 * Requested (no DNR: the host may try again). The worker, not a poll group, waited. */
static void admin_timeout_aborts_a_command_the_drive_holds(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	f->s->pt->admin_timeout_ms = 50; /* as admin_timeout would, in ms for a short test */
	f->drive->admin_stall_ms = 2000;
	struct nvme_sqe c = admin(0xc0, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, NULL, 0, NULL), PT_GEN(NVME_SC_ABORT_REQ));
	f->drive->admin_stall_ms = 0;
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &c, NULL, 0, NULL), 0);
	pt_teardown(f);
}

/* A Format of every namespace (NSID FFFFFFFFh) drains them all while the drive works:
 * a Read sent meanwhile waits, and runs on the namespace as formatted. */
static void broadcast_format_drains_every_namespace_while_it_runs(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	f->drive->admin_stall_ms = 1500; /* the drive takes its time (a loaded machine too) */
	struct fx_cmd fmt, rd;
	struct nvme_sqe c = admin(nvme_admin_format_nvm, 0xffffffff, 1); /* 4096 B, no metadata */
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->fx.admin, &fmt, &c, NULL, 0), 0);
	unsigned before = f->drive->io_calls;
	struct nvme_sqe r = pt_rw(nvme_cmd_read, 1, 0, 1);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q, &rd, &r, NULL, 4096), 0);
	CU_ASSERT_FALSE(fx_done(&rd)); /* parked: the namespace is drained */
	CU_ASSERT_EQUAL(f->drive->io_calls, before);
	for (int i = 0; i < 20000 && !(fx_done(&fmt) && fx_done(&rd)); i++) {
		nvmf_loop_drive(&f->fx.tgt);
		usleep(1000);
	}
	CU_ASSERT_TRUE_FATAL(fx_done(&fmt));
	CU_ASSERT_EQUAL(fmt.status, 0);
	CU_ASSERT_TRUE_FATAL(fx_done(&rd));
	CU_ASSERT_EQUAL(f->drive->io_calls, before + 1);
	/* Both namespaces were formatted and are served anew: 4096-byte blocks, no metadata. */
	CU_ASSERT_EQUAL(nvmf_subsys_ns(f->s, 1)->lba_shift, 12);
	CU_ASSERT_EQUAL(nvmf_subsys_ns(f->s, 2)->bdev->drive_ns->ms, 0);
	pt_teardown(f);
}

const struct unit_test passthru_admin_tests[] = {
	{ "broadcast_format_drains_every_namespace_while_it_runs",
	  broadcast_format_drains_every_namespace_while_it_runs },
	{ "admin_timeout_aborts_a_command_the_drive_holds",
	  admin_timeout_aborts_a_command_the_drive_holds },
	{ "identify_controller_is_the_drives_with_fabrics_fixups",
	  identify_controller_is_the_drives_with_fabrics_fixups },
	{ "identify_namespace_is_shared_without_the_drive_ids",
	  identify_namespace_is_shared_without_the_drive_ids },
	{ "identify_namespace_keeps_the_ids_without_clear_ids",
	  identify_namespace_keeps_the_ids_without_clear_ids },
	{ "vendor_admin_commands_round_trip", vendor_admin_commands_round_trip },
	{ "refused_admin_opcodes_get_invalid_opcode", refused_admin_opcodes_get_invalid_opcode },
	{ "owned_features_stay_and_the_others_pass", owned_features_stay_and_the_others_pass },
	{ "effects_log_passes_without_the_refused_commands",
	  effects_log_passes_without_the_refused_commands },
	{ "smart_log_passes_and_moves_with_io", smart_log_passes_and_moves_with_io },
	{ "format_changes_the_served_namespace_and_tells_the_host",
	  format_changes_the_served_namespace_and_tells_the_host },
	{ NULL, NULL },
};
