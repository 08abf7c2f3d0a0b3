/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events (NVMe Base 2.0 section 5.2): Asynchronous Event Requests parked
 * on the admin queue, the events waiting for one, and the masking rule: once an event
 * of a kind is reported, the kind is masked until the host reads its log page with RAE
 * clear. Everything here runs on the controller's group (the main group).
 */
#include <string.h>
#include "target/admin.h"

/* Async Event Configuration / OAES bits (figure 309): SMART critical warnings 7:0,
 * Namespace Attribute Notices 8, ANA Change Notices 11, Discovery Log Page Change 31. */
#define AEC_SMART_CRIT  0xffu
#define AEC_NS_ATTR     (1u << 8)
#define AEC_ANA_CHANGE  (1u << 11)
#define AEC_DISC_CHANGE (1u << 31)

/* CQE dword 0 of an event (figure 146): type bits 2:0, information bits 15:8, log page
 * bits 23:16. */
#define AEN_DW0(type, info, lid) ((uint32_t)(type) | (uint32_t)(info) << 8 | (uint32_t)(lid) << 16)

static const struct {
	uint32_t aec; /* its enable bit; 0: always enabled */
	uint32_t dw0;
} kinds[NVMF_AEN_KINDS] = {
	[NVMF_AEN_NS_CHANGED] = { AEC_NS_ATTR, AEN_DW0(NVME_AER_NOTICE, NVME_AER_NOTICE_NS_CHANGED,
						       NVME_LOG_LID_CHANGED_NS) },
	[NVMF_AEN_ANA_CHANGE] = { AEC_ANA_CHANGE,
				  AEN_DW0(NVME_AER_NOTICE, NVME_AER_NOTICE_ANA, NVME_LOG_LID_ANA) },
	[NVMF_AEN_DISC_CHANGED] = { AEC_DISC_CHANGE,
				    AEN_DW0(NVME_AER_NOTICE, NVME_AER_NOTICE_DISC_CHANGED,
					    NVME_LOG_LID_DISCOVER) },
	/* I/O Command Specific Status, Reservation Log Page Available (figure 149). */
	[NVMF_AEN_RESV_LOG] = { 0, AEN_DW0(NVME_AER_CSS, NVME_AER_CSS_NVM_RESERVATION,
					   NVME_LOG_LID_RESERVATION) },
};

uint32_t nvmf_aen_supported(const struct nvmf_tgt_ctrl *ctrl)
{
	return ctrl->subsys->type == NVMF_SUBSYS_DISCOVERY ?
		       AEC_DISC_CHANGE :
		       AEC_SMART_CRIT | AEC_NS_ATTR | AEC_ANA_CHANGE;
}

/* Complete parked AERs with pending events, oldest AER first, lowest kind first. */
static void aen_deliver(struct nvmf_tgt_ctrl *ctrl)
{
	while (ctrl->pending_aen && ctrl->nr_aer) {
		unsigned kind = (unsigned)__builtin_ctz(ctrl->pending_aen);
		struct nvmf_req *req = ctrl->aer[0];
		ctrl->pending_aen &= ~(1u << kind);
		ctrl->nr_aer--;
		memmove(&ctrl->aer[0], &ctrl->aer[1], ctrl->nr_aer * sizeof(ctrl->aer[0]));
		ctrl->aer[ctrl->nr_aer] = NULL;
		nvmf_feature_result(req, kinds[kind].dw0);
		nvmf_req_complete(req, 0);
	}
}

void nvmf_tgt_ctrl_aen(struct nvmf_tgt_ctrl *ctrl, enum nvmf_aen_kind kind)
{
	uint32_t bit = 1u << kind;

	if (kinds[kind].aec && !(ctrl->aen_cfg & kinds[kind].aec))
		return;
	if (ctrl->aen_masked & bit)
		return;
	ctrl->aen_masked |= bit;
	ctrl->pending_aen |= bit;
	aen_deliver(ctrl);
}

void nvmf_tgt_ctrl_aen_log_read(struct nvmf_tgt_ctrl *ctrl, enum nvmf_aen_kind kind)
{
	ctrl->aen_masked &= ~(1u << kind);
}

void nvmf_execute_aer(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;

	if (ctrl->nr_aer >= NVMF_AERL + 1) {
		nvmf_req_complete(req, nvme_cmd_specific(NVME_SC_ASYNC_LIMIT) | NVME_SC_DNR);
		return;
	}
	ctrl->aer[ctrl->nr_aer++] = req; /* not completed until an event happens */
	aen_deliver(ctrl);
}

void nvmf_tgt_ctrl_notify_ns_changed(struct nvmf_tgt_ctrl *ctrl, uint32_t nsid)
{
	if (ctrl->nr_changed_ns <= NVMF_CHANGED_NS_MAX) {
		bool listed = false;
		for (unsigned i = 0; i < ctrl->nr_changed_ns && !listed; i++)
			listed = ctrl->changed_ns[i] == nsid;
		if (!listed) {
			if (ctrl->nr_changed_ns == NVMF_CHANGED_NS_MAX)
				ctrl->nr_changed_ns++; /* overflow: FFFFFFFFh in the log */
			else
				ctrl->changed_ns[ctrl->nr_changed_ns++] = nsid;
		}
	}
	nvmf_tgt_ctrl_aen(ctrl, NVMF_AEN_NS_CHANGED);
}

void nvmf_tgt_ctrl_notify_disc_changed(struct nvmf_tgt_ctrl *ctrl)
{
	nvmf_tgt_ctrl_aen(ctrl, NVMF_AEN_DISC_CHANGED);
}

void nvmf_tgt_ctrl_disc_log_read(struct nvmf_tgt_ctrl *ctrl)
{
	nvmf_tgt_ctrl_aen_log_read(ctrl, NVMF_AEN_DISC_CHANGED);
}

void nvmf_tgt_ctrl_fail_aers(struct nvmf_tgt_ctrl *ctrl, nvme_status_t status)
{
	while (ctrl->nr_aer) {
		struct nvmf_req *req = ctrl->aer[--ctrl->nr_aer];
		ctrl->aer[ctrl->nr_aer] = NULL;
		nvmf_req_complete(req, status);
	}
}
