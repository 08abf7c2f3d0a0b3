/* SPDX-License-Identifier: MIT */
/* NVMe/RDMA CM private data: validation of REQ, building of REP and REJ (see cm-private.h). */
#include <string.h>
#include "rdma/cm-private.h"
#include "target/core.h"

int nvmf_rdma_cm_parse_req(const void *pdata, size_t len, const struct nvmf_rdma_cm_limits *lim,
			   struct nvmf_rdma_cm_conn *out)
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

void nvmf_rdma_cm_build_rep(struct nvme_rdma_cm_rep *rep, uint16_t crqsize)
{
	memset(rep, 0, sizeof(*rep));
	rep->recfmt = htole16(0);
	rep->crqsize = htole16(crqsize);
}

void nvmf_rdma_cm_build_rej(struct nvme_rdma_cm_rej *rej, int sts)
{
	memset(rej, 0, sizeof(*rej));
	rej->recfmt = htole16(0);
	rej->sts = htole16((uint16_t)sts);
}

const char *nvmf_rdma_cm_status_str(int sts)
{
	switch (sts) {
	case NVME_RDMA_CM_INVALID_LEN:     return "invalid length";
	case NVME_RDMA_CM_INVALID_RECFMT:  return "invalid RECFMT";
	case NVME_RDMA_CM_INVALID_QID:     return "invalid QID";
	case NVME_RDMA_CM_INVALID_HSQSIZE: return "invalid HSQSIZE";
	case NVME_RDMA_CM_INVALID_HRQSIZE: return "invalid HRQSIZE";
	case NVME_RDMA_CM_NO_RSC:          return "no resources";
	case NVME_RDMA_CM_INVALID_IRD:     return "invalid IRD";
	case NVME_RDMA_CM_INVALID_ORD:     return "invalid ORD";
	default:                           return "unknown";
	}
}

uint32_t nvmf_rdma_port_queue_size(const struct nvmf_port_config *cfg)
{
	uint32_t n = cfg->max_queue_size;
	if (n == 0 || n == UINT32_MAX)
		return NVMF_DEFAULT_QUEUE_SIZE;
	if (n < NVMF_MIN_QUEUE_SIZE)
		return NVMF_MIN_QUEUE_SIZE;
	return n > NVMF_MAX_QUEUE_SIZE ? NVMF_MAX_QUEUE_SIZE : n;
}

uint32_t nvmf_rdma_port_inline_size(const struct nvmf_port_config *cfg)
{
	uint32_t n = cfg->inline_data_size;
	if (n == UINT32_MAX)
		return NVMF_DEFAULT_INLINE;
	return n > NVMF_MAX_INLINE ? NVMF_MAX_INLINE : n;
}

void nvmf_rdma_cm_port_limits(const struct nvmf_port *port, struct nvmf_rdma_cm_limits *lim)
{
	lim->admin_queue_size = NVMF_ADMIN_QUEUE_SIZE;
	lim->io_queue_size = (uint16_t)nvmf_rdma_port_queue_size(port->cfg);
	lim->max_qid = 0;
	for (size_t i = 0; i < port->n_subsys; i++) {
		const struct nvmf_subsys *s = port->subsys[i];
		if (s->type != NVMF_SUBSYS_NVME)
			continue;
		uint16_t q = s->cfg && s->cfg->qid_max ? s->cfg->qid_max : 128;
		if (q > lim->max_qid)
			lim->max_qid = q;
	}
}
