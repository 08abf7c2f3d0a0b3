/* SPDX-License-Identifier: MIT */
/*
 * Set Features and Get Features (NVMe Base 2.0 sections 5.27 and 5.21) for both
 * controller types, from one table: the features NVMe Base 2.0 (Feature Identifiers) and
 * the NVM Command Set make mandatory for an I/O controller on a fabric (Arbitration, Power Management,
 * Temperature Threshold, Error Recovery, Number of Queues, Write Atomicity Normal,
 * Asynchronous Event Configuration, Keep Alive Timer, Host Identifier), Volatile Write
 * Cache, and the reservations' Notification Mask and Persistence (target/resv.c).
 * Interrupt Coalescing and Interrupt Vector Configuration do not apply to a fabric (no
 * interrupts): Invalid Field, as nvmet answers. Nothing is saveable; default and saved
 * values read as the current ones (what Connect set up).
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

/* ---- Arbitration (01h) ---- */

/* AB bits 2:0, LPW 15:8, MPW 23:16, HPW 31:24; bits 7:3 reserved. Only round robin
 * exists here (CAP.AMS 0), so the weights order nothing; the host reads back what it set. */
#define ARB_FIELDS 0xffffff07u

static void set_arbitration(struct nvmf_req *req)
{
	req->sq->ctrl->arbitration = cdw11(req) & ARB_FIELDS;
	nvmf_req_complete(req, 0);
}

static void get_arbitration(struct nvmf_req *req)
{
	nvmf_feature_result(req, req->sq->ctrl->arbitration);
	nvmf_req_complete(req, 0);
}

/* ---- Power Management (02h) ---- */

/* PS bits 4:0, WH bits 7:5. One power state (Identify NPSS 0) and no workload hints:
 * only 0 can be set, and is what Get reads. */
static nvme_status_t check_set_power(struct nvmf_req *req)
{
	return cdw11(req) & 0xff ? nvme_generic(NVME_SC_INVALID_FIELD) : 0;
}

static void set_power(struct nvmf_req *req)
{
	nvmf_req_complete(req, 0);
}

static void get_power(struct nvmf_req *req)
{
	nvmf_feature_result(req, 0);
	nvmf_req_complete(req, 0);
}

/* ---- Temperature Threshold (04h) ---- */

/* TMPTH bits 15:0 (Kelvin), TMPSEL 19:16, THSEL 21:20 (Base 2.0, Temperature Threshold). The one
 * temperature is the Composite (SMART log, target/log-page.c): TMPSEL 0, or Fh "every
 * sensor" on a Set; another sensor does not exist, THSEL 10b/11b are reserved. */
#define TEMP_TMPSEL(v)   (((v) >> 16) & 0xf)
#define TEMP_THSEL(v)    (((v) >> 20) & 3)
#define TEMP_TMPSEL_ALL  0xf
#define TEMP_THSEL_OVER  0
#define TEMP_THSEL_UNDER 1

static nvme_status_t check_temp(struct nvmf_req *req, bool set)
{
	uint32_t v = cdw11(req);
	unsigned sel = TEMP_TMPSEL(v);
	if ((sel && !(set && sel == TEMP_TMPSEL_ALL)) || TEMP_THSEL(v) > TEMP_THSEL_UNDER)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	return 0;
}

static nvme_status_t check_set_temp(struct nvmf_req *req)
{
	return check_temp(req, true);
}

static nvme_status_t check_get_temp(struct nvmf_req *req)
{
	return check_temp(req, false);
}

static void set_temp(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t v = cdw11(req);
	if (TEMP_THSEL(v) == TEMP_THSEL_OVER)
		ctrl->temp_over = (uint16_t)v;
	else
		ctrl->temp_under = (uint16_t)v;
	nvmf_req_complete(req, 0);
}

/* Dword 0 in the layout of the Set's CDW11 (what nvme-cli decodes): the threshold asked
 * for, with its TMPSEL and THSEL. */
static void get_temp(struct nvmf_req *req)
{
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t v = cdw11(req);
	uint16_t th = TEMP_THSEL(v) == TEMP_THSEL_OVER ? ctrl->temp_over : ctrl->temp_under;
	nvmf_feature_result(req, th | (v & 0x003f0000u));
	nvmf_req_complete(req, 0);
}

bool nvmf_ctrl_temp_warning(const struct nvmf_tgt_ctrl *ctrl, uint16_t kelvin)
{
	return kelvin >= ctrl->temp_over || kelvin <= ctrl->temp_under;
}

/* ---- Error Recovery (05h) ---- */

/* TLER bits 15:0 (100 ms units), DULBE bit 16. DULBE needs NSFEAT bit 2, which no
 * namespace here reports: setting it is Invalid Field (Base 2.0, Error Recovery). One value
 * per controller, whatever the NSID, as SPDK's target keeps it: the hosts that read it
 * (SPDK's identify) send NSID 0. Limited retry is never asked of a backend, so the time
 * limit only reads back. */
static nvme_status_t check_set_err_recovery(struct nvmf_req *req)
{
	return cdw11(req) & (1u << 16) ? nvme_generic(NVME_SC_INVALID_FIELD) : 0;
}

static void set_err_recovery(struct nvmf_req *req)
{
	req->sq->ctrl->tler = (uint16_t)cdw11(req);
	nvmf_req_complete(req, 0);
}

static void get_err_recovery(struct nvmf_req *req)
{
	nvmf_feature_result(req, req->sq->ctrl->tler);
	nvmf_req_complete(req, 0);
}

/* ---- Write Atomicity Normal (0Ah) ---- */

/* DN bit 0: the host no longer needs AWUN/NAWUN. Nothing changes here (writes are as
 * atomic as the backend makes them either way); the host reads back what it set. */
static void set_write_atomic(struct nvmf_req *req)
{
	req->sq->ctrl->write_atomic_dn = cdw11(req) & 1;
	nvmf_req_complete(req, 0);
}

static void get_write_atomic(struct nvmf_req *req)
{
	nvmf_feature_result(req, req->sq->ctrl->write_atomic_dn ? 1 : 0);
	nvmf_req_complete(req, 0);
}

void nvmf_ctrl_features_init(struct nvmf_tgt_ctrl *ctrl)
{
	ctrl->arbitration = 7; /* AB 111b: no burst limit, as SPDK's target */
	ctrl->temp_over = NVMF_TEMP_WARNING_KELVIN;
	ctrl->temp_under = 0;
	ctrl->tler = 0;
	ctrl->write_atomic_dn = false;
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
	{ NVME_FEAT_FID_ARBITRATION, false, NVMF_FEAT_CAP_CHANGEABLE, NULL, set_arbitration, NULL,
	  get_arbitration },
	{ NVME_FEAT_FID_POWER_MGMT, false, NVMF_FEAT_CAP_CHANGEABLE, check_set_power, set_power,
	  NULL, get_power },
	{ NVME_FEAT_FID_TEMP_THRESH, false, NVMF_FEAT_CAP_CHANGEABLE, check_set_temp, set_temp,
	  check_get_temp, get_temp },
	{ NVME_FEAT_FID_ERR_RECOVERY, false, NVMF_FEAT_CAP_CHANGEABLE, check_set_err_recovery,
	  set_err_recovery, NULL, get_err_recovery },
	{ NVME_FEAT_FID_WRITE_ATOMIC, false, NVMF_FEAT_CAP_CHANGEABLE, NULL, set_write_atomic, NULL,
	  get_write_atomic },
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

void nvmf_fid_supported_effects(const struct nvmf_tgt_ctrl *ctrl, __le32 log[256])
{
	bool discovery = ctrl->subsys->type == NVMF_SUBSYS_DISCOVERY;
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		const struct nvmf_feature *f = &features[i];
		if (discovery && !f->discovery)
			continue;
		uint32_t scope = f->caps & NVMF_FEAT_CAP_NS_SPECIFIC ?
					 NVME_FID_SUPPORTED_EFFECTS_SCOPE_NS :
					 NVME_FID_SUPPORTED_EFFECTS_SCOPE_CTRL;
		log[f->fid] = htole32(NVME_FID_SUPPORTED_EFFECTS_FSUPP |
				      scope << NVME_FID_SUPPORTED_EFFECTS_SCOPE_SHIFT);
	}
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
