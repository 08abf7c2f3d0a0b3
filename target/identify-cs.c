/* SPDX-License-Identifier: MIT */
/*
 * The I/O Command Set specific Identify data (NVMe Base 2.0 section 5.17.2, NVM Command
 * Set 1.0 section 4.1.5) and the I/O hints of Identify Namespace, as the Linux host reads
 * them (nvme_init_non_mdts_limits, nvme_update_disk_info):
 *   CNS 05h  I/O Command Set specific Identify Namespace: CSI NVM only, an active NSID;
 *   CNS 06h  I/O Command Set specific Identify Controller: CSI NVM only, our Verify,
 *            Write Zeroes and Dataset Management limits;
 *   CNS 07h  active NSIDs of a command set: every namespace is NVM, so CSI NVM lists
 *            what CNS 02h lists and any other CSI lists none.
 * Which CSI, which NSIDs and which errors follow the Linux target (nvmet's admin-cmd.c):
 * another CSI is Invalid Field for CNS 05h/06h, an NSID without an active namespace is
 * Invalid Namespace for CNS 05h.
 */
#include <string.h>
#include "nvme/identify.h"
#include "target/admin.h"

static_assert(sizeof(struct nvme_nvm_id_ns) == NVME_IDENTIFY_DATA_SIZE,
	      "NVM Identify Namespace is 4 KiB");
static_assert(sizeof(struct nvme_id_ctrl_nvm) == NVME_IDENTIFY_DATA_SIZE,
	      "NVM Identify Controller is 4 KiB");

/* Write Zeroes Size Limit, 2^WZSL units of CAP.MPSMIN (4 KiB): 32 MiB. A Write Zeroes
 * moves no data, so MDTS does not bound it; its NLB field (16 bits, 0's based) does:
 * 65536 blocks of the smallest block size a namespace may have (512 bytes) are 32 MiB,
 * which for 4 KiB blocks is 8192 blocks, within the field too. Without a WZSL the Linux
 * host would cap Write Zeroes at MDTS. */
#define NVMF_WZSL 13

/* Command Dword 11 bits 31:24: the Command Set Identifier (figure 273). */
static uint8_t cmd_csi(const struct nvmf_req *req)
{
	return (uint8_t)(le32toh(req->cmd->cdw11) >> 24);
}

/* CNS 05h, CSI NVM: no protection information and no storage tags, so LBSTM, PIC and
 * every Extended LBA Format (STS 0, PIF 0) are zero: a zero-filled structure is the
 * true answer for each of our namespaces (nvmet answers the same). */
static void identify_ns_nvm(struct nvmf_req *req)
{
	memset(req->data, 0, sizeof(struct nvme_nvm_id_ns));
	nvmf_req_complete(req, 0);
}

/* CNS 06h, CSI NVM. */
static void identify_ctrl_nvm(struct nvmf_req *req)
{
	struct nvme_id_ctrl_nvm *id = req->data;

	memset(id, 0, sizeof(*id));
	/* VSL: Verify reads into a target buffer as large as a transfer; WUSL 0: no Write
	 * Uncorrectable. */
	id->vsl = (uint8_t)nvmf_io_buf_shift(req->sq->ctrl);
	id->wzsl = NVMF_WZSL;
	/* Dataset Management: up to the 256 ranges NR allows, each up to its 32-bit NLB,
	 * with no bound on their sum (the backends deallocate any length: fallocate,
	 * madvise); 0 in DMRL, DMRSL and DMSL is "no limit" (figure 117 of the NVM Command
	 * Set 1.0), and 256 ranges do not fit DMRL's byte anyway. */
	id->dmrl = 0;
	id->dmrsl = 0;
	id->dmsl = 0;
	nvmf_req_complete(req, 0);
}

/* CNS 07h: up to 1024 active NSIDs above the command's NSID, ascending, of the CSI. */
static void identify_active_list_cs(struct nvmf_req *req)
{
	const struct nvmf_subsys *s = req->sq->ctrl->subsys;
	uint32_t start = le32toh(req->cmd->nsid);
	__le32 *list = req->data;
	size_t n = 0;

	memset(list, 0, NVME_IDENTIFY_DATA_SIZE);
	if (cmd_csi(req) == NVME_CSI_NVM)
		for (uint32_t nsid = start + 1; nsid <= s->max_nsid && n < NVME_ID_NS_LIST_MAX;
		     nsid++)
			if (nvmf_subsys_ns(s, nsid))
				list[n++] = htole32(nsid);
	nvmf_req_complete(req, 0);
}

nvme_status_t nvmf_parse_identify_cs(struct nvmf_req *req)
{
	uint32_t nsid = le32toh(req->cmd->nsid);

	switch (le32toh(req->cmd->cdw10) & 0xff) {
	case NVME_IDENTIFY_CNS_CSI_NS:
		if (cmd_csi(req) != NVME_CSI_NVM)
			return nvme_generic(NVME_SC_INVALID_FIELD);
		/* nvmet_req_find_ns: only an active namespace has command set data. */
		if (!nvmf_subsys_ns(req->sq->ctrl->subsys, nsid))
			return nvme_generic(NVME_SC_INVALID_NS);
		req->execute = identify_ns_nvm;
		return 0;
	case NVME_IDENTIFY_CNS_CSI_CTRL:
		if (cmd_csi(req) != NVME_CSI_NVM)
			return nvme_generic(NVME_SC_INVALID_FIELD);
		req->execute = identify_ctrl_nvm;
		return 0;
	case NVME_IDENTIFY_CNS_CSI_NS_ACTIVE_LIST:
		/* As CNS 02h: FFFFFFFEh and FFFFFFFFh are invalid starting points. */
		if (nsid >= 0xfffffffeu)
			return nvme_generic(NVME_SC_INVALID_NS);
		req->execute = identify_active_list_cs;
		return 0;
	default:
		return nvme_generic(NVME_SC_INVALID_FIELD);
	}
}

/* @bytes as a 0's based count of @lbs-byte blocks, 1 to 65536 blocks (nvmet's
 * to0based). */
static __le16 blocks0(uint32_t bytes, uint32_t lbs)
{
	uint32_t n = bytes / lbs;
	n = n < 1 ? 1 : n > 65536 ? 65536 : n;
	return htole16((uint16_t)(n - 1));
}

void nvmf_identify_ns_io_hints(const struct nvmf_ns *ns, struct nvme_id_ns *id)
{
	const struct nvmf_bdev *b = ns->bdev;
	uint32_t lbs = 1u << ns->lba_shift;

	/* NSFEAT bit 4 (OPTPERF): NPWG, NPWA, NPDG, NPDA and NOWS are defined. Alignment
	 * as granularity, as nvmet reports them. */
	id->nsfeat |= NVME_NS_FEAT_IO_OPT;
	id->npwg = id->npwa = blocks0(b->write_granularity, lbs);
	id->npdg = id->npda = blocks0(b->discard_granularity, lbs);
	id->nows = blocks0(b->optimal_io, lbs);
}
