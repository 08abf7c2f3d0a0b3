/* The I/O Command Set specific Identify data (target/identify-cs.c) through the loop
 * transport: CNS 05h, 06h and 07h with their CSI and NSID rules (as nvmet answers), and
 * the I/O hints of Identify Namespace (NSFEAT bit 4, NPWG/NPWA/NPDG/NPDA/NOWS) from the
 * backend. The target is fx_setup's: namespace 1 (RAM, 512 B blocks) and 2 (RAM, 4 KiB). */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

#define GEN(sc) (nvme_status(NVME_SCT_GENERIC, (sc)) | NVME_SC_DNR)

static struct fx F;

static void setup(void)
{
	CU_ASSERT_FATAL(fx_setup(&F) == 0);
	CU_ASSERT_FATAL(fx_connect_admin(&F) == 0);
}

/* Identify @cns of @nsid with command set @csi (cdw11 bits 31:24) into @buf (4 KiB,
 * filled with FFh first so that zeroes are written ones). */
static int identify(uint8_t cns, uint8_t csi, uint32_t nsid, void *buf)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_identify;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32(cns);
	c.cdw11 = htole32((uint32_t)csi << 24);
	memset(buf, 0xff, NVME_IDENTIFY_DATA_SIZE);
	return fx_cmd(&F.admin, &c, buf, NVME_IDENTIFY_DATA_SIZE, NULL);
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* ---- CNS 06h ---- */

/* VSL 8: Verify reads up to MDTS (1 MiB) into the target's buffer. WZSL 13: 2^13 x 4
 * KiB = 32 MiB, what a 16-bit NLB reaches with 512-byte blocks;
 * Dataset Management without limits (0) beyond the command's own fields. */
static void nvm_identify_controller_reports_write_zeroes_and_dsm_limits(void)
{
	setup();
	struct nvme_id_ctrl_nvm id;
	CU_ASSERT_EQUAL_FATAL(identify(NVME_IDENTIFY_CNS_CSI_CTRL, NVME_CSI_NVM, 0, &id), 0);
	CU_ASSERT_EQUAL(id.vsl, 8);
	CU_ASSERT_EQUAL(id.wzsl, 13);
	CU_ASSERT_EQUAL(id.wusl, 0);
	CU_ASSERT_EQUAL(id.dmrl, 0);
	CU_ASSERT_EQUAL(id.dmrsl, 0);
	CU_ASSERT_EQUAL(id.dmsl, 0);
	CU_ASSERT(all_zero(id.rsvd16, sizeof(id.rsvd16)));
	fx_teardown(&F);
}

static void nvm_identify_controller_of_another_command_set_returns_invalid_field(void)
{
	setup();
	uint8_t buf[NVME_IDENTIFY_DATA_SIZE];
	CU_ASSERT_EQUAL(identify(NVME_IDENTIFY_CNS_CSI_CTRL, NVME_CSI_ZNS, 0, buf),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(identify(NVME_IDENTIFY_CNS_CSI_CTRL, NVME_CSI_KV, 0, buf),
			GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&F);
}

/* ---- CNS 05h ---- */

/* No protection information, no storage tags: LBSTM, PIC and every ELBAF are zero. */
static void nvm_identify_namespace_is_zeroes_for_an_active_namespace(void)
{
	setup();
	struct nvme_nvm_id_ns id;
	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		CU_ASSERT_EQUAL_FATAL(identify(NVME_IDENTIFY_CNS_CSI_NS, NVME_CSI_NVM, nsid, &id),
				      0);
		CU_ASSERT(all_zero(&id, sizeof(id)));
	}
	fx_teardown(&F);
}

/* nvmet_req_find_ns: only an active namespace has command set data. */
static void nvm_identify_namespace_of_inactive_or_invalid_nsid_returns_invalid_ns(void)
{
	setup();
	uint8_t buf[NVME_IDENTIFY_DATA_SIZE];
	static const uint32_t nsids[] = { 0, 3, 1024, 1025, 0xffffffffu };
	for (size_t i = 0; i < sizeof(nsids) / sizeof(nsids[0]); i++)
		CU_ASSERT_EQUAL(identify(NVME_IDENTIFY_CNS_CSI_NS, NVME_CSI_NVM, nsids[i], buf),
				GEN(NVME_SC_INVALID_NS));
	fx_teardown(&F);
}

static void nvm_identify_namespace_of_another_command_set_returns_invalid_field(void)
{
	setup();
	uint8_t buf[NVME_IDENTIFY_DATA_SIZE];
	CU_ASSERT_EQUAL(identify(NVME_IDENTIFY_CNS_CSI_NS, NVME_CSI_ZNS, 1, buf),
			GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&F);
}

/* ---- CNS 07h ---- */

static void active_list_of_nvm_command_set_lists_every_namespace_after_nsid(void)
{
	setup();
	__le32 list[1024];
	CU_ASSERT_EQUAL_FATAL(identify(NVME_IDENTIFY_CNS_CSI_NS_ACTIVE_LIST, NVME_CSI_NVM, 0, list),
			      0);
	CU_ASSERT_EQUAL(le32toh(list[0]), 1);
	CU_ASSERT_EQUAL(le32toh(list[1]), 2);
	CU_ASSERT(all_zero(&list[2], sizeof(list) - 2 * sizeof(list[0])));
	CU_ASSERT_EQUAL_FATAL(identify(NVME_IDENTIFY_CNS_CSI_NS_ACTIVE_LIST, NVME_CSI_NVM, 1, list),
			      0);
	CU_ASSERT_EQUAL(le32toh(list[0]), 2);
	CU_ASSERT(all_zero(&list[1], sizeof(list) - sizeof(list[0])));
	fx_teardown(&F);
}

/* Every namespace is NVM: another command set has none (nvmet matches the CSI). */
static void active_list_of_another_command_set_is_empty(void)
{
	setup();
	__le32 list[1024];
	CU_ASSERT_EQUAL_FATAL(identify(NVME_IDENTIFY_CNS_CSI_NS_ACTIVE_LIST, NVME_CSI_ZNS, 0, list),
			      0);
	CU_ASSERT(all_zero(list, sizeof(list)));
	fx_teardown(&F);
}

static void active_list_from_fffffffe_or_broadcast_returns_invalid_ns(void)
{
	setup();
	uint8_t buf[NVME_IDENTIFY_DATA_SIZE];
	CU_ASSERT_EQUAL(identify(NVME_IDENTIFY_CNS_CSI_NS_ACTIVE_LIST, NVME_CSI_NVM, 0xfffffffeu,
				 buf),
			GEN(NVME_SC_INVALID_NS));
	CU_ASSERT_EQUAL(identify(NVME_IDENTIFY_CNS_CSI_NS_ACTIVE_LIST, NVME_CSI_NVM, 0xffffffffu,
				 buf),
			GEN(NVME_SC_INVALID_NS));
	fx_teardown(&F);
}

/* CNS 04h (NVM Set List) and 08h are not answered here (08h: other work). */
static void other_cns_values_still_return_invalid_field(void)
{
	setup();
	uint8_t buf[NVME_IDENTIFY_DATA_SIZE];
	CU_ASSERT_EQUAL(identify(NVME_IDENTIFY_CNS_NVMSET_LIST, NVME_CSI_NVM, 0, buf),
			GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&F);
}

/* ---- I/O hints of Identify Namespace ---- */

/* RAM: one block for writes and NOWS; deallocation by whole pages, so NPDG/NPDA is a
 * page in blocks: 8 blocks of 512 B (7, 0's based), 1 block of 4 KiB (0). */
static void identify_namespace_io_hints_of_ram_namespaces(void)
{
	setup();
	struct nvme_id_ns id;
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	CU_ASSERT_EQUAL_FATAL(identify(NVME_IDENTIFY_CNS_NS, NVME_CSI_NVM, 1, &id), 0);
	CU_ASSERT_EQUAL(id.nsfeat & NVME_NS_FEAT_IO_OPT, NVME_NS_FEAT_IO_OPT);
	CU_ASSERT_EQUAL(le16toh(id.npwg), 0);
	CU_ASSERT_EQUAL(le16toh(id.npwa), 0);
	CU_ASSERT_EQUAL(le16toh(id.npdg), page / 512 - 1);
	CU_ASSERT_EQUAL(le16toh(id.npda), page / 512 - 1);
	CU_ASSERT_EQUAL(le16toh(id.nows), 0);
	CU_ASSERT_EQUAL_FATAL(identify(NVME_IDENTIFY_CNS_NS, NVME_CSI_NVM, 2, &id), 0);
	CU_ASSERT_EQUAL(le16toh(id.npdg), page / 4096 - 1);
	fx_teardown(&F);
}

/* A device's physical block, discard granularity and optimal I/O size (what the block
 * device backend reads with BLKPBSZGET, sysfs and BLKIOOPT) become 0's based block
 * counts, at least one block and at most 65536, as nvmet's nvmet_bdev_set_limits. */
static void identify_namespace_io_hints_follow_the_backend_in_blocks(void)
{
	setup();
	struct nvmf_ns *ns = nvmf_subsys_ns(nvmf_tgt_find_subsys(&F.tgt, FX_SUBNQN), 1);
	struct fx_held_bdev *h = fx_held_bdev_new(512, 1u << 20, NULL);
	struct nvmf_bdev *ram = ns->bdev;
	ns->bdev = &h->b;
	h->b.write_granularity = 4096;       /* 8 blocks */
	h->b.discard_granularity = 1u << 20; /* 2048 blocks */
	h->b.optimal_io = 256u << 20;        /* 512 Ki blocks: capped at 65536 */
	struct nvme_id_ns id;
	CU_ASSERT_EQUAL_FATAL(identify(NVME_IDENTIFY_CNS_NS, NVME_CSI_NVM, 1, &id), 0);
	CU_ASSERT_EQUAL(le16toh(id.npwg), 7);
	CU_ASSERT_EQUAL(le16toh(id.npwa), 7);
	CU_ASSERT_EQUAL(le16toh(id.npdg), 2047);
	CU_ASSERT_EQUAL(le16toh(id.npda), 2047);
	CU_ASSERT_EQUAL(le16toh(id.nows), 65535);
	/* Less than a block counts as one block. */
	h->b.write_granularity = 256;
	CU_ASSERT_EQUAL_FATAL(identify(NVME_IDENTIFY_CNS_NS, NVME_CSI_NVM, 1, &id), 0);
	CU_ASSERT_EQUAL(le16toh(id.npwg), 0);
	ns->bdev = ram;
	nvmf_bdev_close(&h->b);
	fx_teardown(&F);
}

#define T(n)          \
	{             \
#n, n \
	}
const struct unit_test identify_cs_tests[] = {
	T(nvm_identify_controller_reports_write_zeroes_and_dsm_limits),
	T(nvm_identify_controller_of_another_command_set_returns_invalid_field),
	T(nvm_identify_namespace_is_zeroes_for_an_active_namespace),
	T(nvm_identify_namespace_of_inactive_or_invalid_nsid_returns_invalid_ns),
	T(nvm_identify_namespace_of_another_command_set_returns_invalid_field),
	T(active_list_of_nvm_command_set_lists_every_namespace_after_nsid),
	T(active_list_of_another_command_set_is_empty),
	T(active_list_from_fffffffe_or_broadcast_returns_invalid_ns),
	T(other_cns_values_still_return_invalid_field),
	T(identify_namespace_io_hints_of_ram_namespaces),
	T(identify_namespace_io_hints_follow_the_backend_in_blocks),
	{ NULL, NULL },
};
