/* SPDX-License-Identifier: MIT */
/*
 * Set Features and Get Features (NVMe Base 2.0 sections 5.27 and 5.21) for both
 * controller types, from one table: Number of Queues, Volatile Write Cache, Asynchronous
 * Event Configuration, Keep Alive Timer, Host Identifier, and the reservations' Notification
 * Mask and Persistence (target/resv.c). Nothing is saveable; default
 * and saved values read as the current ones (what Connect set up).
 */
#include <string.h>
#include "target/admin.h"
#include "target/resv.h"

static inline uint32_t cdw10(const struct nvmf_req *req)
{
	return le32toh(req->cmd->cdw10);
}
static inline uint32_t cdw11(const struct nvmf_req *req)
{
	return le32toh(req->cmd->cdw11);
}

void nvmf_feature_result(struct nvmf_req *req, uint32_t dw0)
{
	req->cqe->result.u32 = htole32(dw0);
}

/* ---- Number of Queues (07h) ---- */

/* I/O queues a controller may have: the subsystem's qid_max (at least 1 to report). */
static uint16_t queue_limit(const struct nvmf_tgt_ctrl *ctrl)
{
	return ctrl->max_qid ? ctrl->max_qid : 1;
}

static nvme_status_t check_set_num_queues(struct nvmf_req *req)
{
	uint32_t v = cdw11(req);
	/* FFFFh would mean 65536 queues. */
	if ((v & 0xffff) == 0xffff || (v >> 16) == 0xffff)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	return 0;
}

static void set_num_queues(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t v = cdw11(req);

	/* Only before any I/O queue exists (NVMe Base 5.27.1.5). */
	for (unsigned q = 1; q <= ctrl->max_qid; q++)
		if (ctrl->sqs[q]) {
			nvmf_req_complete(req, nvme_generic(NVME_SC_CMD_SEQ_ERROR) | NVME_SC_DNR);
			return;
		}
	/* Fabrics queues are SQ/CQ pairs: grant the smaller request, capped. */
	uint32_t nsqr = v & 0xffff, ncqr = v >> 16;
	uint32_t want = (nsqr < ncqr ? nsqr : ncqr) + 1;
	uint16_t n = want < queue_limit(ctrl) ? (uint16_t)want : queue_limit(ctrl);
	ctrl->nr_io_queues = n;
	nvmf_feature_result(req, (uint32_t)(n - 1) | (uint32_t)(n - 1) << 16);
	nvmf_req_complete(req, 0);
}

static void get_num_queues(struct nvmf_req *req)
{
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint16_t n = ctrl->nr_io_queues ? ctrl->nr_io_queues : queue_limit(ctrl);
	nvmf_feature_result(req, (uint32_t)(n - 1) | (uint32_t)(n - 1) << 16);
	nvmf_req_complete(req, 0);
}

/* ---- Volatile Write Cache (06h) ---- */

static nvme_status_t check_set_vwc(struct nvmf_req *req)
{
	/* 5.27.1.4: no cache, nothing to set. */
	return nvmf_subsys_has_vwc(req->sq->ctrl->subsys) ? 0 : nvme_generic(NVME_SC_INVALID_FIELD);
}

static void set_vwc(struct nvmf_req *req)
{
	__atomic_store_n(&req->sq->ctrl->vwc_enabled, (cdw11(req) & 1) != 0, __ATOMIC_RELAXED);
	nvmf_req_complete(req, 0);
}

static void get_vwc(struct nvmf_req *req)
{
	nvmf_feature_result(req,
			    __atomic_load_n(&req->sq->ctrl->vwc_enabled, __ATOMIC_RELAXED) ? 1 : 0);
	nvmf_req_complete(req, 0);
}

/* ---- Asynchronous Event Configuration (0Bh) ---- */

static nvme_status_t check_set_aec(struct nvmf_req *req)
{
	return cdw11(req) & ~nvmf_aen_supported(req->sq->ctrl) ?
		       nvme_generic(NVME_SC_INVALID_FIELD) :
		       0;
}

static void set_aec(struct nvmf_req *req)
{
	req->sq->ctrl->aen_cfg = cdw11(req);
	nvmf_feature_result(req, cdw11(req));
	nvmf_req_complete(req, 0);
}

static void get_aec(struct nvmf_req *req)
{
	nvmf_feature_result(req, req->sq->ctrl->aen_cfg);
	nvmf_req_complete(req, 0);
}

/* ---- Keep Alive Timer (0Fh) ---- */

static void set_kato(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	/* KAS is 1 s: round up to whole seconds, as nvmet does; 0 disables. */
	uint64_t ms = ((uint64_t)cdw11(req) + 999) / 1000 * 1000;
	ctrl->kato_ms = ms > UINT32_MAX ? UINT32_MAX / 1000 * 1000 : (uint32_t)ms;
	__atomic_store_n(&ctrl->last_keep_alive_ms, req->sq->pg->now_ms, __ATOMIC_RELAXED);
	nvmf_req_complete(req, 0);
}

static void get_kato(struct nvmf_req *req)
{
	nvmf_feature_result(req, req->sq->ctrl->kato_ms);
	nvmf_req_complete(req, 0);
}

/* ---- Host Identifier (81h) ---- */

/* Set by Connect on fabrics; nvmet answers the same. */
static nvme_status_t check_set_host_id(struct nvmf_req *req)
{
	(void)req;
	return nvme_generic(NVME_SC_CMD_SEQ_ERROR);
}

static nvme_status_t check_get_host_id(struct nvmf_req *req)
{
	if (!(cdw11(req) & 1)) /* EXHID: only the 128-bit host identifier exists */
		return nvme_generic(NVME_SC_INVALID_FIELD);
	req->dir = NVMF_XFER_C2H;
	req->data_len = sizeof(req->sq->ctrl->hostid);
	return 0;
}

static void get_host_id(struct nvmf_req *req)
{
	memcpy(req->data, req->sq->ctrl->hostid, sizeof(req->sq->ctrl->hostid));
	nvmf_req_complete(req, 0);
}

/* ---- the table ---- */

static const struct nvmf_feature features[] = {
	{ NVME_FEAT_FID_VOLATILE_WC, false, NVMF_FEAT_CAP_CHANGEABLE, check_set_vwc, set_vwc, NULL,
	  get_vwc },
	{ NVME_FEAT_FID_NUM_QUEUES, false, NVMF_FEAT_CAP_CHANGEABLE, check_set_num_queues,
	  set_num_queues, NULL, get_num_queues },
	{ NVME_FEAT_FID_ASYNC_EVENT, true, NVMF_FEAT_CAP_CHANGEABLE, check_set_aec, set_aec, NULL,
	  get_aec },
	{ NVME_FEAT_FID_KATO, true, NVMF_FEAT_CAP_CHANGEABLE, NULL, set_kato, NULL, get_kato },
	{ NVME_FEAT_FID_HOST_ID, false, 0, check_set_host_id, NULL, check_get_host_id,
	  get_host_id },
	/* Reservations (target/resv.c): per namespace. */
	{ NVME_FEAT_FID_RESV_MASK, false, NVMF_FEAT_CAP_NS_SPECIFIC | NVMF_FEAT_CAP_CHANGEABLE,
	  nvmf_resv_check_set_mask, nvmf_resv_set_mask, nvmf_resv_check_get_ns,
	  nvmf_resv_get_mask },
	{ NVME_FEAT_FID_RESV_PERSIST, false, NVMF_FEAT_CAP_NS_SPECIFIC | NVMF_FEAT_CAP_CHANGEABLE,
	  nvmf_resv_check_set_persist, nvmf_resv_set_persist, nvmf_resv_check_get_ns,
	  nvmf_resv_get_persist },
};

static const struct nvmf_feature *find_feature(const struct nvmf_tgt_ctrl *ctrl, uint8_t fid)
{
	bool discovery = ctrl->subsys->type == NVMF_SUBSYS_DISCOVERY;
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (features[i].fid == fid && (features[i].discovery || !discovery))
			return &features[i];
	return NULL;
}

/* Get Features SEL 011b: the capabilities, no data (figure 294). */
static void get_capabilities(struct nvmf_req *req)
{
	const struct nvmf_feature *f = find_feature(req->sq->ctrl, cdw10(req) & 0xff);
	nvmf_feature_result(req, f ? f->caps : 0);
	nvmf_req_complete(req, 0);
}

nvme_status_t nvmf_parse_features(struct nvmf_req *req)
{
	bool set = req->cmd->opcode == nvme_admin_set_features;
	const struct nvmf_feature *f = find_feature(req->sq->ctrl, cdw10(req) & 0xff);
	nvme_status_t st;

	if (set && (cdw10(req) & (1u << 31))) /* SV: nothing is saveable */
		return nvme_cmd_specific(NVME_SC_FEATURE_NOT_SAVEABLE);
	if (!f)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (set) {
		if (f->check_set && (st = f->check_set(req)))
			return st;
		if (!f->set)
			return nvme_generic(NVME_SC_INVALID_FIELD);
		req->execute = f->set;
		return 0;
	}
	unsigned sel = (cdw10(req) >> 8) & 7;
	if (sel > NVME_GET_FEATURES_SEL_SUPPORTED)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (sel == NVME_GET_FEATURES_SEL_SUPPORTED) {
		req->execute = get_capabilities;
		return 0;
	}
	if (f->check_get && (st = f->check_get(req)))
		return st;
	req->execute = f->get;
	return 0;
}
