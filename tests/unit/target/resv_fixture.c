/* See resv_fixture.h. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "target/resv.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/resv_fixture.h"

int rf_boot(struct rf *r, const char *state)
{
	return rf_boot_threads(r, state, 2);
}

int rf_boot_threads(struct rf *r, const char *state, uint32_t threads)
{
	memset(r, 0, sizeof(*r));
	struct fx *f = &r->fx;
	struct nvmf_subsys_config *s = fx_cfg_subsys(&f->cfg, FX_SUBNQN, NULL, 4);
	fx_cfg_ns(s, RF_NS, NVMF_BACKEND_RAM, 1u << 20, 512)->resv_enable = true;
	fx_cfg_ns(s, RF_PLAIN, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_expose(fx_cfg_loop_port(&f->cfg, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	f->cfg.target.threads = threads;
	if (fx_boot(f, "127.0.0.1", "4420"))
		return -1;
	char err[512];
	if (state && nvmf_tgt_resv_open(&f->tgt, state, err, sizeof(err))) {
		fprintf(stderr, "rf_boot: %s\n", err);
		return -1;
	}
	return 0;
}

void rf_teardown(struct rf *r)
{
	fx_teardown(&r->fx);
}

void rf_host_up(struct rf *r, struct rf_host *h, const char *nqn, uint8_t id)
{
	memset(h, 0, sizeof(*h));
	memset(h->id, id, sizeof(h->id));
	h->nqn = nqn;
	fx_queue_init(&r->fx, &h->admin);
	fx_queue_init(&r->fx, &h->io);
	CU_ASSERT_EQUAL_FATAL(fx_connect_host(&h->admin, 0, 31, FX_SUBNQN, nqn, h->id, 0xffff, 5000,
					      &h->cntlid, NULL),
			      0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(&h->admin), 0);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect_host(&h->io, 1, 31, FX_SUBNQN, nqn, h->id, h->cntlid, 0, NULL, NULL), 0);
}

void rf_tick(struct rf *r)
{
	r->fx.now += 5;
	nvmf_loop_drive(&r->fx.tgt);
}

struct nvme_sqe rf_sqe(uint8_t opcode, uint32_t nsid, uint32_t cdw10, uint32_t cdw11)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32(cdw10);
	c.cdw11 = htole32(cdw11);
	return c;
}

uint32_t rf_cdw10(unsigned action, bool iekey, uint8_t rtype, unsigned cptpl)
{
	return action | (iekey ? 1u << 3 : 0) | (uint32_t)rtype << 8 | (uint32_t)cptpl << 30;
}

static void keys(uint8_t d[16], uint64_t k0, uint64_t k1)
{
	uint64_t a = htole64(k0), b = htole64(k1);
	memcpy(d, &a, 8);
	memcpy(d + 8, &b, 8);
}

int rf_register(struct rf_host *h, uint32_t nsid, uint32_t cdw10, uint64_t crkey, uint64_t nrkey)
{
	uint8_t d[16];
	keys(d, crkey, nrkey);
	struct nvme_sqe c = rf_sqe(nvme_cmd_resv_register, nsid, cdw10, 0);
	return fx_cmd(&h->io, &c, d, sizeof(d), NULL);
}

int rf_acquire(struct rf_host *h, uint32_t nsid, unsigned action, uint8_t rtype, uint64_t crkey,
	       uint64_t prkey)
{
	uint8_t d[16];
	keys(d, crkey, prkey);
	struct nvme_sqe c =
		rf_sqe(nvme_cmd_resv_acquire, nsid, rf_cdw10(action, false, rtype, 0), 0);
	return fx_cmd(&h->io, &c, d, sizeof(d), NULL);
}

int rf_release(struct rf_host *h, uint32_t nsid, unsigned action, uint8_t rtype, uint64_t crkey)
{
	uint8_t d[16];
	keys(d, crkey, 0);
	struct nvme_sqe c =
		rf_sqe(nvme_cmd_resv_release, nsid, rf_cdw10(action, false, rtype, 0), 0);
	return fx_cmd(&h->io, &c, d, NVME_RESV_RELEASE_DATA, NULL);
}

int rf_report(struct rf_host *h, uint32_t nsid, void *buf, uint32_t len)
{
	memset(buf, 0xaa, len);
	struct nvme_sqe c = rf_sqe(nvme_cmd_resv_report, nsid, len / 4 - 1, NVME_RESV_REPORT_EDS);
	return fx_cmd(&h->io, &c, buf, len, NULL);
}

int rf_io(struct rf_host *h, uint32_t nsid, uint8_t opcode)
{
	uint8_t data[512];
	memset(data, 0x3c, sizeof(data));
	struct nvme_sqe c = rf_sqe(opcode, nsid, 0, 0);
	uint32_t len = sizeof(data);
	if (opcode == nvme_cmd_flush || opcode == nvme_cmd_write_zeroes)
		len = 0;
	if (opcode == nvme_cmd_dsm) {
		struct nvme_dsm_range r = { .cattr = 0, .nlb = htole32(1), .slba = 0 };
		c.cdw11 = htole32(NVME_DSMGMT_AD);
		memcpy(data, &r, sizeof(r));
		len = sizeof(r);
	}
	if (opcode == nvme_cmd_compare) /* what a fresh RAM namespace holds */
		memset(data, 0, sizeof(data));
	return fx_cmd(&h->io, &c, data, len, NULL);
}

int rf_log80(struct rf_host *h, struct nvme_resv_notification_log *log, bool rae)
{
	uint32_t numd = sizeof(*log) / 4 - 1;
	struct nvme_sqe c = rf_sqe(nvme_admin_get_log_page, NVME_NSID_ALL,
				   NVME_LOG_LID_RESERVATION | (rae ? 1u << 15 : 0) | numd << 16, 0);
	memset(log, 0xaa, sizeof(*log));
	return fx_cmd(&h->admin, &c, log, sizeof(*log), NULL);
}

int rf_set_feat(struct rf_host *h, uint8_t fid, uint32_t nsid, uint32_t cdw11, uint32_t *dw0)
{
	struct nvme_cqe cqe;
	memset(&cqe, 0, sizeof(cqe));
	struct nvme_sqe c = rf_sqe(nvme_admin_set_features, nsid, fid, cdw11);
	int st = fx_cmd(&h->admin, &c, NULL, 0, &cqe);
	if (dw0)
		*dw0 = le32toh(cqe.result.u32);
	return st;
}

int rf_get_feat(struct rf_host *h, uint8_t fid, uint32_t nsid, uint32_t *dw0)
{
	struct nvme_cqe cqe;
	memset(&cqe, 0, sizeof(cqe));
	struct nvme_sqe c = rf_sqe(nvme_admin_get_features, nsid, fid, 0);
	int st = fx_cmd(&h->admin, &c, NULL, 0, &cqe);
	if (dw0)
		*dw0 = le32toh(cqe.result.u32);
	return st;
}
