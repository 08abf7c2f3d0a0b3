/* Helpers of the admin command tests: see admin_fixture.h. */
#include "tests/unit/target/admin_fixture.h"
#include <CUnit/CUnit.h>
#include <string.h>

struct fx admin_fx;

void admin_setup(void)
{
	CU_ASSERT_FATAL(fx_setup(&admin_fx) == 0);
	CU_ASSERT_FATAL(fx_connect_admin(&admin_fx) == 0);
}

struct nvmf_tgt_ctrl *admin_ctrl(void)
{
	return fx_ctrl(&admin_fx);
}

struct nvme_sqe admin_mk(uint8_t opc, uint32_t nsid, uint32_t c10, uint32_t c11)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.command_id = 0x1234;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32(c10);
	c.cdw11 = htole32(c11);
	return c;
}

int admin_cmd(struct nvme_sqe c, void *buf, uint32_t len, struct nvme_cqe *cqe)
{
	return fx_cmd(&admin_fx.admin, &c, buf, len, cqe);
}

int admin_identify(uint8_t cns, uint32_t nsid, void *buf)
{
	memset(buf, 0xff, NVME_IDENTIFY_DATA_SIZE); /* so "all zero" means written */
	return admin_cmd(admin_mk(nvme_admin_identify, nsid, cns, 0), buf, NVME_IDENTIFY_DATA_SIZE,
			 NULL);
}

int admin_get_log(uint8_t lid, uint32_t nsid, uint64_t off, void *buf, uint32_t len)
{
	uint32_t numd = len / 4 - 1;
	struct nvme_sqe c =
		admin_mk(nvme_admin_get_log_page, nsid, lid | (numd & 0xffff) << 16, numd >> 16);
	c.cdw12 = htole32((uint32_t)off);
	c.cdw13 = htole32((uint32_t)(off >> 32));
	memset(buf, 0xff, len);
	return admin_cmd(c, buf, len, NULL);
}

int admin_set_feat(uint32_t c10, uint32_t c11, uint32_t *dw0)
{
	struct nvme_cqe cqe;
	int st = admin_cmd(admin_mk(nvme_admin_set_features, 0, c10, c11), NULL, 0, &cqe);
	if (dw0)
		*dw0 = le32toh(cqe.result.u32);
	return st;
}

int admin_get_feat(uint32_t c10, uint32_t c11, uint32_t *dw0)
{
	struct nvme_cqe cqe;
	int st = admin_cmd(admin_mk(nvme_admin_get_features, 0, c10, c11), NULL, 0, &cqe);
	if (dw0)
		*dw0 = le32toh(cqe.result.u32);
	return st;
}

bool admin_all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}
