/* SPDX-License-Identifier: MIT */
/* NVMe/RDMA CM private data: REQ, REP and REJ, built and checked (see rdma-cm.h). */
#include <string.h>
#include "nvme/rdma-cm.h"

int nvme_rdma_cm_parse_req(const void *pdata, size_t len, const struct nvme_rdma_cm_limits *lim,
			   struct nvme_rdma_cm_conn *out)
{
	struct nvme_rdma_cm_req req;

	if (!pdata || len < sizeof(req))
		return NVME_RDMA_CM_INVALID_LEN;
	memcpy(&req, pdata, sizeof(req)); /* the CM's buffer has no alignment guarantee */
	if (le16toh(req.recfmt) != 0)
		return NVME_RDMA_CM_INVALID_RECFMT;

	uint16_t qid = le16toh(req.qid);
	uint32_t hsqsize = le16toh(req.hsqsize);
	uint32_t hrqsize = le16toh(req.hrqsize);
	if (qid > lim->max_qid)
		return NVME_RDMA_CM_INVALID_QID;
	uint32_t max = qid == 0 ? lim->admin_queue_size : lim->io_queue_size;
	if (hsqsize < 1 || hsqsize + 1 > max)
		return NVME_RDMA_CM_INVALID_HSQSIZE;
	if (hrqsize < hsqsize + 1)
		return NVME_RDMA_CM_INVALID_HRQSIZE;

	out->qid = qid;
	out->recv_depth = (uint16_t)(hsqsize + 1);
	out->hrqsize = (uint16_t)hrqsize;
	out->cntlid = le16toh(req.cntlid);
	return 0;
}

int nvme_rdma_cm_read_depth(uint32_t host_ird, uint32_t dev_max_ord, uint32_t *ord)
{
	if (!host_ird)
		return NVME_RDMA_CM_INVALID_IRD;
	if (!dev_max_ord)
		return NVME_RDMA_CM_NO_RSC;
	*ord = host_ird < dev_max_ord ? host_ird : dev_max_ord;
	return 0;
}

void nvme_rdma_cm_build_req(struct nvme_rdma_cm_req *req, uint16_t qid, uint16_t size)
{
	memset(req, 0, sizeof(*req));
	req->recfmt = htole16(0);
	req->qid = htole16(qid);
	req->hrqsize = htole16(size);
	req->hsqsize = htole16((uint16_t)(size ? size - 1 : 0));
}

void nvme_rdma_cm_build_rep(struct nvme_rdma_cm_rep *rep, uint16_t crqsize)
{
	memset(rep, 0, sizeof(*rep));
	rep->recfmt = htole16(0);
	rep->crqsize = htole16(crqsize);
}

void nvme_rdma_cm_build_rej(struct nvme_rdma_cm_rej *rej, int sts)
{
	memset(rej, 0, sizeof(*rej));
	rej->recfmt = htole16(0);
	rej->sts = htole16((uint16_t)sts);
}

int nvme_rdma_cm_parse_rej(const void *pdata, size_t len)
{
	struct nvme_rdma_cm_rej rej;
	if (!pdata || len < sizeof(rej))
		return -1;
	memcpy(&rej, pdata, sizeof(rej));
	return le16toh(rej.sts);
}

const char *nvme_rdma_cm_status_str(int sts)
{
	switch (sts) {
	case NVME_RDMA_CM_INVALID_LEN:
		return "invalid length";
	case NVME_RDMA_CM_INVALID_RECFMT:
		return "invalid RECFMT";
	case NVME_RDMA_CM_INVALID_QID:
		return "invalid QID";
	case NVME_RDMA_CM_INVALID_HSQSIZE:
		return "invalid HSQSIZE";
	case NVME_RDMA_CM_INVALID_HRQSIZE:
		return "invalid HRQSIZE";
	case NVME_RDMA_CM_NO_RSC:
		return "no resources";
	case NVME_RDMA_CM_INVALID_IRD:
		return "invalid IRD: the host's RDMA READ responder resources";
	case NVME_RDMA_CM_INVALID_ORD:
		return "invalid ORD: the host's RDMA READ initiator depth";
	default:
		return "unknown";
	}
}
