/* SPDX-License-Identifier: MIT */
/* The in-process loop transport (see loop.h). */
#include <stdlib.h>
#include <string.h>
#include "target/loop.h"

static void loop_queue_response(struct nvmf_req *req)
{
	struct nvmf_loop_queue *q = req->transport_priv;
	q->done = true;
}

static void loop_delete_ctrl(struct nvmf_tgt_ctrl *ctrl)
{
	for (unsigned i = 0; i <= ctrl->max_qid; i++) {
		struct nvmf_sq *sq = ctrl->sqs[i];
		if (sq)
			((struct nvmf_loop_queue *)sq->transport_priv)->deleted = true;
	}
}

const struct nvmf_transport_ops nvmf_loop_ops = {
	.name = "loop",
	.trtype = NVMF_TRTYPE_LOOP,
	.msdbd = 1,
	.keyed_sgl = true,
	.queue_response = loop_queue_response,
	.delete_ctrl = loop_delete_ctrl,
};

void nvmf_loop_queue_init(struct nvmf_loop_queue *q, struct nvmf_tgt *tgt, struct nvmf_port *port)
{
	memset(q, 0, sizeof(*q));
	nvmf_sq_init(&q->sq, tgt, port, &nvmf_loop_ops);
	q->sq.transport_priv = q;
}

nvme_status_t nvmf_loop_submit(struct nvmf_loop_queue *q, const struct nvme_sqe *cmd,
			       void *data, uint32_t len, struct nvme_cqe *cqe)
{
	struct nvmf_req *req = &q->req;
	memset(req, 0, sizeof(*req));
	q->cmd = *cmd;
	/* The host's SGL: a keyed data block of len bytes (or none). */
	q->cmd.flags = (q->cmd.flags & 0x3f) | 0x40;
	memset(&q->cmd.dptr, 0, sizeof(q->cmd.dptr));
	q->cmd.dptr.keyed.length[0] = len & 0xff;
	q->cmd.dptr.keyed.length[1] = (len >> 8) & 0xff;
	q->cmd.dptr.keyed.length[2] = (len >> 16) & 0xff;
	q->cmd.dptr.keyed.type = NVME_SGL_KEYED_ADDR;
	q->done = false;
	req->transport_priv = q;

	if (nvmf_req_init(req, &q->sq, &q->cmd, &q->cqe)) {
		req->sgl_len = len;
		/* The target's own buffer, as the RDMA transport would take from its pool. */
		void *buf = NULL;
		if (len) {
			/* Page aligned like the RDMA pools, so O_DIRECT backends take it. */
			if (posix_memalign(&buf, 4096, len))
				abort();
			memset(buf, 0, len);
			if (req->dir == NVMF_XFER_H2C && data)
				memcpy(buf, data, len);
		}
		req->data = buf;
		nvmf_req_execute(req);
		while (!q->done) {
			struct nvmf_aio *aio = q->sq.tgt->io.aio;
			if (!aio)
				abort(); /* an asynchronous handler with no aio context cannot finish */
			if (q->sq.tgt->io.retry_head)
				nvmf_io_retry_pending(&q->sq.tgt->io);
			nvmf_aio_flush(aio);
			if (!nvmf_aio_poll(aio, 64))
				io_uring_wait_cqe_nr(&aio->ring, &(struct io_uring_cqe *){ NULL }, 1) < 0 ? abort() : (void)0;
		}
		if (req->dir == NVMF_XFER_C2H && data && len && !q->cqe.status)
			memcpy(data, buf, len);
		free(buf);
	}
	if (cqe)
		*cqe = q->cqe;
	return le16toh(q->cqe.status) >> 1;
}

nvme_status_t nvmf_loop_connect(struct nvmf_loop_queue *q, uint16_t qid, uint16_t sqsize,
				const char *subnqn, const char *hostnqn, uint16_t cntlid,
				uint32_t kato_ms, uint16_t *cntlid_out, struct nvme_cqe *cqe)
{
	struct nvme_sqe c;
	struct nvmf_connect_data d;
	struct nvme_cqe local;
	memset(&c, 0, sizeof(c));
	memset(&d, 0, sizeof(d));
	c.opcode = nvme_admin_fabrics;
	uint8_t *p = (uint8_t *)&c;
	p[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	p[NVMF_CONNECT_QID] = qid & 0xff;
	p[NVMF_CONNECT_QID + 1] = qid >> 8;
	p[NVMF_CONNECT_SQSIZE] = sqsize & 0xff;
	p[NVMF_CONNECT_SQSIZE + 1] = sqsize >> 8;
	uint32_t k = htole32(kato_ms);
	memcpy(p + NVMF_CONNECT_KATO, &k, 4);
	for (int i = 0; i < 16; i++)
		d.hostid[i] = (uint8_t)(0xa0 + i);
	d.cntlid = htole16(cntlid);
	strncpy(d.subsysnqn, subnqn, sizeof(d.subsysnqn) - 1);
	strncpy(d.hostnqn, hostnqn, sizeof(d.hostnqn) - 1);
	nvme_status_t st = nvmf_loop_submit(q, &c, &d, sizeof(d), cqe ? cqe : &local);
	if (!st && cntlid_out)
		*cntlid_out = le16toh((cqe ? cqe : &local)->result.u32 & 0xffff);
	return st;
}

static nvme_status_t loop_prop(struct nvmf_loop_queue *q, uint8_t fctype, uint32_t off,
			       bool size8, uint64_t val, uint64_t *out)
{
	struct nvme_sqe c;
	struct nvme_cqe cqe;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	uint8_t *p = (uint8_t *)&c;
	p[NVMF_SQE_FCTYPE_OFF] = fctype;
	p[NVMF_PROP_ATTRIB] = size8 ? 1 : 0;
	uint32_t o = htole32(off);
	memcpy(p + NVMF_PROP_OFFSET, &o, 4);
	uint64_t v = htole64(val);
	memcpy(p + NVMF_PROP_VALUE, &v, 8);
	nvme_status_t st = nvmf_loop_submit(q, &c, NULL, 0, &cqe);
	if (out)
		*out = le64toh(cqe.result.u64);
	return st;
}

nvme_status_t nvmf_loop_enable(struct nvmf_loop_queue *admin)
{
	/* CC: EN (bit 0), IOSQES 6 (bits 19:16), IOCQES 4 (bits 23:20). */
	uint32_t cc = 1u | (6u << 16) | (4u << 20);
	nvme_status_t st = loop_prop(admin, nvme_fabrics_type_property_set, NVMF_PROP_CC, false, cc, NULL);
	if (st)
		return st;
	uint64_t csts = 0;
	st = loop_prop(admin, nvme_fabrics_type_property_get, NVMF_PROP_CSTS, false, 0, &csts);
	if (!st && !(csts & 1))
		return nvme_status(NVME_SCT_GENERIC, NVME_SC_INTERNAL);
	return st;
}

void nvmf_loop_disconnect(struct nvmf_loop_queue *q)
{
	nvmf_sq_destroy(&q->sq);
}
