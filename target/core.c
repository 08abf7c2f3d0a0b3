/* SPDX-License-Identifier: MIT */
/*
 * Queues and the request lifecycle: decode a capsule, pick a handler, check the data
 * length against the host's SGL, complete with a CQE. (NVMe-oF 1.1 sections 2 and 3.)
 */
#include <stdlib.h>
#include <string.h>
#include "target/core.h"

void nvmf_sq_init(struct nvmf_sq *sq, struct nvmf_tgt *tgt, struct nvmf_port *port,
		  const struct nvmf_transport_ops *ops)
{
	memset(sq, 0, sizeof(*sq));
	sq->tgt = tgt;
	sq->port = port;
	sq->ops = ops;
}

void nvmf_sq_destroy(struct nvmf_sq *sq)
{
	struct nvmf_tgt_ctrl *ctrl = sq->ctrl;
	if (!ctrl)
		return;
	sq->ctrl = NULL;
	sq->connected = false;
	if (sq->qid <= ctrl->max_qid && ctrl->sqs[sq->qid] == sq)
		ctrl->sqs[sq->qid] = NULL;
	if (sq->qid == 0) {
		/* The association ends with its admin queue: take the I/O queues down too. */
		if (!ctrl->deleting) {
			ctrl->deleting = true;
			ctrl->ops->delete_ctrl(ctrl);
		}
	}
	for (unsigned i = 0; i <= ctrl->max_qid; i++)
		if (ctrl->sqs[i])
			return;
	nvmf_tgt_ctrl_free(ctrl);
}

/* Pick the parser: Fabrics commands on any queue; before Connect nothing else. */
static nvme_status_t parse(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	if (req->cmd->opcode == nvme_admin_fabrics) {
		if (!sq->connected)
			return nvmf_parse_connect_cmd(req);
		return nvmf_parse_fabrics_cmd(req);
	}
	/* Only Connect is accepted on a queue that is not connected (as nvmet). */
	if (!sq->connected)
		return nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE);
	if (sq->qid == 0) {
		if (sq->ctrl->subsys->type == NVMF_SUBSYS_DISCOVERY)
			return nvmf_parse_discovery_cmd(req);
		return nvmf_parse_admin_cmd(req);
	}
	return nvmf_parse_io_cmd(req);
}

bool nvmf_req_init(struct nvmf_req *req, struct nvmf_sq *sq, struct nvme_sqe *cmd,
		   struct nvme_cqe *cqe)
{
	req->cmd = cmd;
	req->cqe = cqe;
	req->sq = sq;
	req->ns = NULL;
	req->dir = NVMF_XFER_NONE;
	req->data_len = 0;
	req->sgl_len = 0;
	req->execute = NULL;
	req->aux = NULL;
	req->slba = 0;
	memset(cqe, 0, sizeof(*cqe));
	cqe->command_id = cmd->command_id;
	/* The SQ head moves when a command is fetched, not when it completes (a parked AER
	 * must not hold it back); with SQ flow control the host relies on it. */
	sq->sqhd = sq->size ? (uint16_t)((sq->sqhd + 1) % sq->size) : 0;

	/* Fused operations are not supported (Identify FUSES = 0). */
	if (cmd->flags & 0x3) {
		nvmf_req_complete_dnr(req, nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD));
		return false;
	}
	/* Traffic-based keep alive (Identify CTRATT.TBKAS): any command the host sends,
	 * failing ones included, shows it is alive; a Linux host then skips Keep Alive. */
	if (sq->ctrl)
		__atomic_store_n(&sq->ctrl->last_keep_alive_ms, sq->tgt->now_ms(sq->tgt), __ATOMIC_RELAXED);
	nvme_status_t st = parse(req);
	if (st) {
		nvmf_req_complete_dnr(req, st);
		return false;
	}
	return true;
}

void nvmf_req_execute(struct nvmf_req *req)
{
	/* The host's SGL must describe exactly what the command moves: Data SGL Length
	 * Invalid otherwise (NVMe Base 4.3.2; nvmet is equally strict). */
	if (req->sgl_len != req->data_len) {
		nvmf_req_complete_dnr(req, nvme_status(NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_DATA));
		return;
	}
	req->execute(req);
}

void nvmf_req_complete(struct nvmf_req *req, nvme_status_t status)
{
	struct nvmf_sq *sq = req->sq;
	if (status && sq->ctrl)
		nvmf_tgt_ctrl_add_error(sq->ctrl, req, status);
	req->cqe->sq_head = htole16(sq->sqhd);
	req->cqe->sq_id = htole16(sq->qid);
	req->cqe->status = htole16((uint16_t)(status << 1));
	free(req->aux);
	req->aux = NULL;
	sq->ops->queue_response(req);
}

void nvmf_req_complete_dnr(struct nvmf_req *req, nvme_status_t status)
{
	nvmf_req_complete(req, status | NVME_SC_DNR);
}
