/* SPDX-License-Identifier: MIT */
/*
 * Admin commands of an NVM subsystem controller (NVMe Base 2.0 section 5, as NVMe-oF 1.1
 * section 4 restricts them for fabrics): Identify, Get Log Page, Set/Get Features,
 * Asynchronous Event Request, Keep Alive and Abort. Also the pieces the discovery
 * controller shares (target/discovery.c): Get Log Page windows, features, AER, Keep Alive.
 *
 * Parsers check what is knowable from the SQE and return a status (the core adds DNR);
 * handlers write req->data (data_len bytes, zeroed here first) and finish with
 * nvmf_req_complete(). Where the spec leaves room we follow the Linux target (nvmet).
 */
#include <stdlib.h>
#include <string.h>
#include "nvme/disc_log.h"
#include "nvme/identify.h"
#include "target/core.h"

static_assert(sizeof(struct nvme_id_ctrl) == NVME_IDENTIFY_DATA_SIZE, "Identify Controller is 4 KiB");
static_assert(sizeof(struct nvme_id_ns) == NVME_IDENTIFY_DATA_SIZE, "Identify Namespace is 4 KiB");
static_assert(sizeof(struct nvme_error_log_page) == 64, "error log entry is 64 bytes");
static_assert(sizeof(struct nvme_smart_log) == 512, "SMART log is 512 bytes");
static_assert(sizeof(struct nvme_firmware_slot) == 512, "firmware slot log is 512 bytes");
static_assert(sizeof(struct nvme_cmd_effects_log) == 4096, "effects log is 4 KiB");


/* Async Event Configuration bit 8 / OAES bit 8: Namespace Attribute Notices. */
#define AEN_NS_ATTR      (1u << 8)
/* Async Event Configuration bit 31 / OAES bit 31: Discovery Log Page Change notices
 * (NVMe-oF 1.1 section 5.3, discovery controllers only). */
#define AEN_DISC_CHANGE  (1u << 31)
/* CQE dword 0: notice, info F0h (discovery log changed), log page 70h. */
#define AEN_DISC_CHANGED_DW0 (NVME_AER_NOTICE | 0xf0u << 8 | (uint32_t)NVME_LOG_LID_DISCOVER << 16)
/* SMART / Health critical warning enables (AEC bits 7:0): accepted, never raised. */
#define AEN_SMART_CRIT   0xffu
/* CQE dword 0 of a Namespace Attribute Changed notice (NVMe Base 5.2, Figure 146):
 * type 2 (notice) bits 2:0, info 0 bits 15:8, log page 04h bits 23:16. */
#define AEN_NS_CHANGED_DW0 (NVME_AER_NOTICE | NVME_AER_NOTICE_NS_CHANGED << 8 | \
			    NVME_LOG_LID_CHANGED_NS << 16)
/* SMART temperature: 323 K (50 C), what QEMU reports; we have no sensor. */
#define SMART_TEMP_KELVIN 323

static inline uint32_t cdw10(const struct nvmf_req *req) { return le32toh(req->cmd->cdw10); }
static inline uint32_t cdw11(const struct nvmf_req *req) { return le32toh(req->cmd->cdw11); }

/* Little-endian 128-bit counter field (SMART log) from a 64-bit value. */
static void put_le128(uint8_t f[16], uint64_t v)
{
	memset(f, 0, 16);
	for (int i = 0; i < 8; i++)
		f[i] = (uint8_t)(v >> (8 * i));
}

/* ---- Identify (NVMe Base 2.0 section 5.17) ---- */

void nvmf_identify_ctrl_common(const struct nvmf_tgt_ctrl *ctrl, struct nvme_id_ctrl *id)
{
	const struct nvmf_subsys *s = ctrl->subsys;
	memset(id, 0, sizeof(*id));
	/* vid/ssvid/ieee stay 0: no PCI vendor. */
	nvme_ascii_field(id->sn, sizeof(id->sn), s->serial);
	nvme_ascii_field(id->mn, sizeof(id->mn), s->model);
	nvme_ascii_field(id->fr, sizeof(id->fr), s->firmware);
	id->mdts = (uint8_t)ctrl->mdts;
	id->cntlid = htole16(ctrl->cntlid);
	id->ver = htole32(s->vs);
	id->aerl = NVMF_AERL;
	id->kas = htole16(NVMF_KAS);
	/* SGLS bits 1:0 = 01b: SGLs supported, no alignment rule; keyed where the transport is. */
	uint32_t sgls = 1;
	if (ctrl->transport->ops->keyed_sgl)
		sgls |= NVME_CTRL_SGLS_KEYED;
	id->sgls = htole32(sgls);
	strncpy(id->subnqn, s->cfg->nqn, sizeof(id->subnqn) - 1);
	/* Fabrics (NVMe-oF 1.1 section 4.1): capsule sizes in 16-byte units. */
	id->ioccsz = htole32(NVME_SQE_SIZE / 16);
	id->iorcsz = htole32(NVME_CQE_SIZE / 16);
	id->msdbd = ctrl->transport->ops->msdbd;
}

static void identify_ctrl(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvmf_subsys *s = ctrl->subsys;
	struct nvme_id_ctrl *id = req->data;

	nvmf_identify_ctrl_common(ctrl, id);
	id->rab = 6;
	/* Several ports and several controllers (hosts or paths) may reach one subsystem;
	 * the Linux host wants CMIC and NMIC set to accept the same namespace twice. */
	id->cmic = NVME_CTRL_CMIC_MULTI_PORT | NVME_CTRL_CMIC_MULTI_CTRL;
	id->oaes = htole32(NVME_CTRL_OAES_NA);
	/* 128-bit host ID (Connect carries it); traffic based keep alive: the core refreshes
	 * the keep-alive timer on every command, so the host may skip Keep Alives. */
	id->ctratt = htole32(NVME_CTRL_CTRATT_128_ID | NVME_CTRL_CTRATT_TBKAS);
	id->cntrltype = NVME_CTRL_CNTRLTYPE_IO;
	id->acl = 3;
	id->frmw = NVME_CTRL_FRMW_1ST_RO | (1 << 1);   /* one slot, read-only */
	id->lpa = NVME_CTRL_LPA_CMD_EFFECTS | NVME_CTRL_LPA_EXTENDED;
	id->elpe = NVMF_ERROR_LOG_ENTRIES - 1;
	id->npss = 0;
	id->sqes = 0x66;
	id->cqes = 0x44;
	id->maxcmd = htole16(ctrl->queue_size);
	id->nn = htole32(NVMF_MAX_NSID);
	id->oncs = htole16(NVME_CTRL_ONCS_COMPARE | NVME_CTRL_ONCS_DSM |
			   NVME_CTRL_ONCS_WRITE_ZEROES);
	/* VWC bit 0; bits 2:1 = 00b: Flush of NSID FFFFFFFFh support not reported (nvmet). */
	id->vwc = nvmf_subsys_has_vwc(s) ? NVME_CTRL_VWC_PRESENT : 0;
	/* In-capsule data: SGL offsets, and larger command capsules. */
	if (ctrl->inline_data_size)
		id->sgls |= htole32(NVME_CTRL_SGLS_OFFSET);
	id->ioccsz = htole32((NVME_SQE_SIZE + ctrl->inline_data_size) / 16);
	id->icdoff = 0;
	id->fcatt = 0;                                 /* dynamic controller model */
	nvmf_req_complete(req, 0);
}

static void identify_ns(struct nvmf_req *req)
{
	struct nvme_id_ns *id = req->data;
	struct nvmf_ns *ns = nvmf_subsys_ns(req->sq->ctrl->subsys, le32toh(req->cmd->nsid));

	memset(id, 0, sizeof(*id));
	if (!ns) {             /* a valid but inactive NSID reads as zeroes (5.17.2.1) */
		nvmf_req_complete(req, 0);
		return;
	}
	/* Fully provisioned: every block of the namespace counts as in use. */
	id->nsze = id->ncap = id->nuse = htole64(nvmf_ns_nlb(ns));
	id->nlbaf = 0;                                 /* one format, */
	id->flbas = 0;                                 /* that one, no metadata */
	id->nmic = NVME_NS_NMIC_SHARED;                /* see CMIC */
	/* Deallocated blocks read as zeroes (001b) and Write Zeroes may deallocate: every
	 * backend guarantees zeroes after DISCARD and WRITE_ZEROES (subsystem/backend.h). */
	id->dlfeat = NVME_NS_DLFEAT_RB_ALL_0S | NVME_NS_DLFEAT_WRITE_ZEROES;
	if (ns->has_nguid)
		memcpy(id->nguid, ns->nguid, sizeof(id->nguid));
	if (ns->has_eui64)
		memcpy(id->eui64, ns->eui64, sizeof(id->eui64));
	id->lbaf[0].ds = (uint8_t)ns->lba_shift;
	nvmf_req_complete(req, 0);
}

/* CNS 02h: up to 1024 active NSIDs greater than the command's NSID, ascending. */
static void identify_active_list(struct nvmf_req *req)
{
	const struct nvmf_subsys *s = req->sq->ctrl->subsys;
	uint32_t start = le32toh(req->cmd->nsid);
	__le32 *list = req->data;
	size_t n = 0;

	memset(list, 0, NVME_IDENTIFY_DATA_SIZE);
	for (uint32_t nsid = start + 1; nsid <= s->max_nsid && n < NVME_ID_NS_LIST_MAX; nsid++)
		if (nvmf_subsys_ns(s, nsid))
			list[n++] = htole32(nsid);
	nvmf_req_complete(req, 0);
}

/* Append one Namespace Identification Descriptor (Figure 280) at *off. */
static void put_desc(uint8_t *buf, size_t *off, uint8_t type, uint8_t len, const void *id)
{
	struct nvme_ns_id_desc *d = (struct nvme_ns_id_desc *)(buf + *off);
	d->nidt = type;
	d->nidl = len;
	memcpy(d->nid, id, len);
	*off += sizeof(*d) + len;
}

/* CNS 03h: the identifiers the namespace has, then its command set (NVM). */
static void identify_desc_list(struct nvmf_req *req)
{
	struct nvmf_ns *ns = nvmf_subsys_ns(req->sq->ctrl->subsys, le32toh(req->cmd->nsid));
	uint8_t *buf = req->data;
	const uint8_t csi = NVME_CSI_NVM;
	size_t off = 0;

	memset(buf, 0, NVME_IDENTIFY_DATA_SIZE);
	if (!ns) {             /* nvmet: an inactive NSID has no descriptors to give */
		nvmf_req_complete(req, nvme_generic(NVME_SC_INVALID_NS) | NVME_SC_DNR);
		return;
	}
	if (ns->has_eui64)
		put_desc(buf, &off, NVME_NIDT_EUI64, NVME_NIDT_EUI64_LEN, ns->eui64);
	if (ns->has_nguid)
		put_desc(buf, &off, NVME_NIDT_NGUID, NVME_NIDT_NGUID_LEN, ns->nguid);
	if (ns->has_uuid)
		put_desc(buf, &off, NVME_NIDT_UUID, NVME_NIDT_UUID_LEN, ns->uuid);
	put_desc(buf, &off, NVME_NIDT_CSI, NVME_NIDT_CSI_LEN, &csi);
	nvmf_req_complete(req, 0);
}

/* Valid NSIDs are 1..NN (NVMe Base 3.2.1.2); FFFFFFFFh (broadcast) is not accepted by
 * Identify Namespace here since we have no Namespace Management (nvmet likewise). */
static bool nsid_valid(uint32_t nsid)
{
	return nsid >= 1 && nsid <= NVMF_MAX_NSID;
}

static nvme_status_t parse_identify(struct nvmf_req *req)
{
	uint32_t nsid = le32toh(req->cmd->nsid);

	switch (cdw10(req) & 0xff) {
	case NVME_IDENTIFY_CNS_NS:
		if (!nsid_valid(nsid))
			return nvme_generic(NVME_SC_INVALID_NS);
		req->execute = identify_ns;
		break;
	case NVME_IDENTIFY_CNS_CTRL:
		req->execute = identify_ctrl;
		break;
	case NVME_IDENTIFY_CNS_NS_ACTIVE_LIST:
		/* Figure 274: FFFFFFFEh and FFFFFFFFh are invalid starting points. */
		if (nsid >= 0xfffffffeu)
			return nvme_generic(NVME_SC_INVALID_NS);
		req->execute = identify_active_list;
		break;
	case NVME_IDENTIFY_CNS_NS_DESC_LIST:
		if (!nsid_valid(nsid))
			return nvme_generic(NVME_SC_INVALID_NS);
		req->execute = identify_desc_list;
		break;
	default:
		return nvme_generic(NVME_SC_INVALID_FIELD);
	}
	req->dir = NVMF_XFER_C2H;
	req->data_len = NVME_IDENTIFY_DATA_SIZE;
	return 0;
}

/* ---- Get Log Page (NVMe Base 2.0 section 5.16) ---- */

uint32_t nvmf_get_log_len(const struct nvme_sqe *cmd)
{
	/* NUMD: NUMDL cdw10 31:16, NUMDU cdw11 15:0; 0's based dwords. */
	uint64_t numd = (le32toh(cmd->cdw10) >> 16) | (uint64_t)(le32toh(cmd->cdw11) & 0xffff) << 16;
	uint64_t len = (numd + 1) * 4;
	return len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
}

uint64_t nvmf_get_log_offset(const struct nvme_sqe *cmd)
{
	return le32toh(cmd->cdw12) | (uint64_t)le32toh(cmd->cdw13) << 32;
}

nvme_status_t nvmf_parse_get_log(struct nvmf_req *req)
{
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t len = nvmf_get_log_len(req->cmd);
	/* MDTS bounds every transfer (1.4 Figure 247: larger is Invalid Field); without
	 * MDTS the 24-bit keyed SGL length is the limit anyway. */
	uint64_t max = ctrl->mdts ? (uint64_t)4096 << ctrl->mdts : (1u << 24) - 1;

	if (nvmf_get_log_offset(req->cmd) & 3)      /* LPOL bits 1:0 must be 0 */
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (len > max)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	req->dir = NVMF_XFER_C2H;
	req->data_len = len;
	return 0;
}

nvme_status_t nvmf_copy_log(struct nvmf_req *req, const void *log, size_t len)
{
	uint64_t off = nvmf_get_log_offset(req->cmd);

	if (off > len)
		return nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
	nvmf_log_window(req->data, req->data_len, log, len, off);
	return 0;
}

static int cmp_error_desc(const void *a, const void *b)
{
	const struct nvmf_error_entry *x = a, *y = b;
	return x->error_count < y->error_count ? 1 : x->error_count > y->error_count ? -1 : 0;
}

/* LID 01h: 64-byte entries, newest first; unused entries are zero. */
static void log_error(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvmf_error_entry e[NVMF_ERROR_LOG_ENTRIES];
	struct nvme_error_log_page log[NVMF_ERROR_LOG_ENTRIES];

	/* Sort by error_count rather than trusting ring positions; count 0 = unused. */
	pthread_mutex_lock(&ctrl->error_lock);
	memcpy(e, ctrl->errors, sizeof(e));
	pthread_mutex_unlock(&ctrl->error_lock);
	qsort(e, NVMF_ERROR_LOG_ENTRIES, sizeof(e[0]), cmp_error_desc);
	memset(log, 0, sizeof(log));
	for (size_t i = 0; i < NVMF_ERROR_LOG_ENTRIES && e[i].error_count; i++) {
		log[i].error_count = htole64(e[i].error_count);
		log[i].sqid = htole16(e[i].sqid);
		log[i].cmdid = e[i].cmdid;        /* stored as received: opaque wire bytes */
		log[i].status_field = htole16((uint16_t)(e[i].status << 1)); /* phase bit 0 */
		log[i].parm_error_location = htole16(e[i].param_loc);
		log[i].lba = htole64(e[i].lba);
		log[i].nsid = htole32(e[i].nsid);
		log[i].trtype = ctrl->transport->ops->trtype;
	}
	nvmf_req_complete(req, nvmf_copy_log(req, log, sizeof(log)));
}

/* LID 02h: controller-wide health (LPA bit 0 clear: no per-namespace data). */
static void log_smart(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvme_smart_log log;

	memset(&log, 0, sizeof(log));
	log.temperature[0] = SMART_TEMP_KELVIN & 0xff;
	log.temperature[1] = SMART_TEMP_KELVIN >> 8;
	log.avail_spare = 100;
	log.spare_thresh = 10;
	put_le128(log.data_units_read, __atomic_load_n(&ctrl->units_read, __ATOMIC_RELAXED));
	put_le128(log.data_units_written, __atomic_load_n(&ctrl->units_written, __ATOMIC_RELAXED));
	put_le128(log.host_reads, __atomic_load_n(&ctrl->host_reads, __ATOMIC_RELAXED));
	put_le128(log.host_writes, __atomic_load_n(&ctrl->host_writes, __ATOMIC_RELAXED));
	put_le128(log.num_err_log_entries, ctrl->error_count);
	nvmf_req_complete(req, nvmf_copy_log(req, &log, sizeof(log)));
}

/* LID 03h: slot 1 is active and holds the subsystem's firmware revision. */
static void log_fw_slot(struct nvmf_req *req)
{
	struct nvme_firmware_slot log;

	memset(&log, 0, sizeof(log));
	log.afi = 1;
	nvme_ascii_field(log.frs[0], sizeof(log.frs[0]), req->sq->ctrl->subsys->firmware);
	nvmf_req_complete(req, nvmf_copy_log(req, &log, sizeof(log)));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* LID 04h: NSIDs ascending, or FFFFFFFFh alone after more than 1024 changes. Reading
 * with RAE clear empties the list and re-arms the namespace notice (5.16.1.5). */
static void log_changed_ns(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	__le32 log[NVMF_CHANGED_NS_MAX];
	uint32_t sorted[NVMF_CHANGED_NS_MAX];

	memset(log, 0, sizeof(log));
	if (ctrl->nr_changed_ns > NVMF_CHANGED_NS_MAX) {
		log[0] = htole32(NVME_NSID_ALL);
	} else {
		memcpy(sorted, ctrl->changed_ns, ctrl->nr_changed_ns * sizeof(sorted[0]));
		qsort(sorted, ctrl->nr_changed_ns, sizeof(sorted[0]), cmp_u32);
		for (unsigned i = 0; i < ctrl->nr_changed_ns; i++)
			log[i] = htole32(sorted[i]);
	}
	nvme_status_t st = nvmf_copy_log(req, log, sizeof(log));
	if (!st && !(cdw10(req) & (1u << 15))) {
		ctrl->nr_changed_ns = 0;
		ctrl->aen_masked &= ~AEN_NS_ATTR;
	}
	nvmf_req_complete(req, st);
}

/* LID 05h: what we implement; commands that may change block content have LBCC. */
static void log_cmd_effects(struct nvmf_req *req)
{
	static const uint8_t admin[] = {
		nvme_admin_get_log_page, nvme_admin_identify, nvme_admin_abort_cmd,
		nvme_admin_set_features, nvme_admin_get_features, nvme_admin_async_event,
		nvme_admin_keep_alive,
	};
	static const uint8_t io_read[] = { nvme_cmd_flush, nvme_cmd_read, nvme_cmd_compare };
	static const uint8_t io_write[] = { nvme_cmd_write, nvme_cmd_write_zeroes, nvme_cmd_dsm };
	struct nvme_cmd_effects_log *log = malloc(sizeof(*log));

	if (!log) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
		return;
	}
	memset(log, 0, sizeof(*log));
	for (size_t i = 0; i < sizeof(admin); i++)
		log->acs[admin[i]] = htole32(NVME_CMD_EFFECTS_CSUPP);
	for (size_t i = 0; i < sizeof(io_read); i++)
		log->iocs[io_read[i]] = htole32(NVME_CMD_EFFECTS_CSUPP);
	for (size_t i = 0; i < sizeof(io_write); i++)
		log->iocs[io_write[i]] = htole32(NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC);
	nvme_status_t st = nvmf_copy_log(req, log, sizeof(*log));
	free(log);
	nvmf_req_complete(req, st);
}

static nvme_status_t parse_get_log(struct nvmf_req *req)
{
	uint32_t nsid = le32toh(req->cmd->nsid);

	switch (cdw10(req) & 0xff) {
	case NVME_LOG_LID_ERROR:       req->execute = log_error; break;
	case NVME_LOG_LID_SMART:
		/* LPA bit 0 clear: only the controller-wide page (1.4 section 5.14.1.2). */
		if (nsid != 0 && nsid != NVME_NSID_ALL)
			return nvme_generic(NVME_SC_INVALID_FIELD);
		req->execute = log_smart;
		break;
	case NVME_LOG_LID_FW_SLOT:     req->execute = log_fw_slot; break;
	case NVME_LOG_LID_CHANGED_NS:  req->execute = log_changed_ns; break;
	case NVME_LOG_LID_CMD_EFFECTS: req->execute = log_cmd_effects; break;
	default:
		return nvme_cmd_specific(NVME_SC_INVALID_LOG_PAGE);
	}
	return nvmf_parse_get_log(req);
}

/* ---- Set / Get Features (NVMe Base 2.0 sections 5.21 / 5.27) ---- */

/* I/O queues a controller may have: the subsystem's qid_max (at least 1 to report). */
static uint16_t queue_limit(const struct nvmf_tgt_ctrl *ctrl)
{
	return ctrl->max_qid ? ctrl->max_qid : 1;
}

static bool feature_supported(uint8_t fid, bool discovery)
{
	switch (fid) {
	case NVME_FEAT_FID_KATO:
	case NVME_FEAT_FID_ASYNC_EVENT:
		return true;
	case NVME_FEAT_FID_NUM_QUEUES:
	case NVME_FEAT_FID_VOLATILE_WC:
	case NVME_FEAT_FID_HOST_ID:
		return !discovery;
	default:
		return false;
	}
}

/* Async Event Configuration bits a controller accepts: Discovery Log Change notices on
 * discovery, SMART warnings and namespace notices otherwise. */
static uint32_t aen_supported(const struct nvmf_tgt_ctrl *ctrl)
{
	return ctrl->subsys->type == NVMF_SUBSYS_DISCOVERY ? AEN_DISC_CHANGE : AEN_SMART_CRIT | AEN_NS_ATTR;
}

static void set_result(struct nvmf_req *req, uint32_t dw0)
{
	req->cqe->result.u32 = htole32(dw0);
}

static void execute_set_features(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t v = cdw11(req);

	switch (cdw10(req) & 0xff) {
	case NVME_FEAT_FID_NUM_QUEUES: {
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
		set_result(req, (uint32_t)(n - 1) | (uint32_t)(n - 1) << 16);
		break;
	}
	case NVME_FEAT_FID_ASYNC_EVENT:
		ctrl->aen_cfg = v;
		set_result(req, v);
		break;
	case NVME_FEAT_FID_KATO: {
		/* KAS is 1 s: round up to whole seconds, as nvmet does; 0 disables. */
		uint64_t ms = ((uint64_t)v + 999) / 1000 * 1000;
		ctrl->kato_ms = ms > UINT32_MAX ? UINT32_MAX / 1000 * 1000 : (uint32_t)ms;
		__atomic_store_n(&ctrl->last_keep_alive_ms, req->sq->pg->now_ms, __ATOMIC_RELAXED);
		break;
	}
	case NVME_FEAT_FID_VOLATILE_WC:
		__atomic_store_n(&ctrl->vwc_enabled, (v & 1) != 0, __ATOMIC_RELAXED);
		break;
	}
	nvmf_req_complete(req, 0);
}

static void execute_get_features(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint8_t fid = cdw10(req) & 0xff;
	unsigned sel = (cdw10(req) >> 8) & 7;

	if (sel == NVME_GET_FEATURES_SEL_SUPPORTED) {
		/* Capabilities (Figure 294): bit 2 changeable; nothing saveable or per-ns.
		 * The host ID is fixed by Connect on fabrics. */
		set_result(req, fid == NVME_FEAT_FID_HOST_ID ? 0 : 1u << 2);
		nvmf_req_complete(req, 0);
		return;
	}
	/* Default and saved read as current: nothing is saveable, and the defaults are
	 * what Connect set up. */
	switch (fid) {
	case NVME_FEAT_FID_NUM_QUEUES: {
		uint16_t n = ctrl->nr_io_queues ? ctrl->nr_io_queues : queue_limit(ctrl);
		set_result(req, (uint32_t)(n - 1) | (uint32_t)(n - 1) << 16);
		break;
	}
	case NVME_FEAT_FID_ASYNC_EVENT: set_result(req, ctrl->aen_cfg); break;
	case NVME_FEAT_FID_KATO:        set_result(req, ctrl->kato_ms); break;
	case NVME_FEAT_FID_VOLATILE_WC: set_result(req, ctrl->vwc_enabled ? 1 : 0); break;
	case NVME_FEAT_FID_HOST_ID:
		memcpy(req->data, ctrl->hostid, sizeof(ctrl->hostid));
		break;
	}
	nvmf_req_complete(req, 0);
}

nvme_status_t nvmf_parse_features(struct nvmf_req *req)
{
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	bool set = req->cmd->opcode == nvme_admin_set_features;
	uint8_t fid = cdw10(req) & 0xff;
	uint32_t v = cdw11(req);

	if (set && (cdw10(req) & (1u << 31)))          /* SV: nothing is saveable */
		return nvme_cmd_specific(NVME_SC_FEATURE_NOT_SAVEABLE);
	if (!feature_supported(fid, ctrl->subsys->type == NVMF_SUBSYS_DISCOVERY))
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (set) {
		switch (fid) {
		case NVME_FEAT_FID_NUM_QUEUES:   /* FFFFh would mean 65536 queues */
			if ((v & 0xffff) == 0xffff || (v >> 16) == 0xffff)
				return nvme_generic(NVME_SC_INVALID_FIELD);
			break;
		case NVME_FEAT_FID_ASYNC_EVENT:
			if (v & ~aen_supported(ctrl))
				return nvme_generic(NVME_SC_INVALID_FIELD);
			break;
		case NVME_FEAT_FID_VOLATILE_WC:  /* 5.27.1.4: no cache, nothing to set */
			if (!nvmf_subsys_has_vwc(ctrl->subsys))
				return nvme_generic(NVME_SC_INVALID_FIELD);
			break;
		case NVME_FEAT_FID_HOST_ID:      /* set by Connect; nvmet answers the same */
			return nvme_generic(NVME_SC_CMD_SEQ_ERROR);
		}
		req->execute = execute_set_features;
		return 0;
	}
	unsigned sel = (cdw10(req) >> 8) & 7;
	if (sel > NVME_GET_FEATURES_SEL_SUPPORTED)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (fid == NVME_FEAT_FID_HOST_ID && sel != NVME_GET_FEATURES_SEL_SUPPORTED) {
		if (!(v & 1))          /* EXHID: only the 128-bit host identifier exists */
			return nvme_generic(NVME_SC_INVALID_FIELD);
		req->dir = NVMF_XFER_C2H;
		req->data_len = sizeof(ctrl->hostid);
	}
	req->execute = execute_get_features;
	return 0;
}

/* ---- Asynchronous events (NVMe Base 2.0 section 5.2) ---- */

/* Complete the oldest parked AER with the pending event, if both exist. */
static void aen_deliver(struct nvmf_tgt_ctrl *ctrl)
{
	if (!ctrl->pending_aen || !ctrl->nr_aer)
		return;
	struct nvmf_req *req = ctrl->aer[0];
	ctrl->nr_aer--;
	memmove(&ctrl->aer[0], &ctrl->aer[1], ctrl->nr_aer * sizeof(ctrl->aer[0]));
	ctrl->aer[ctrl->nr_aer] = NULL;
	set_result(req, ctrl->pending_aen);
	ctrl->pending_aen = 0;
	nvmf_req_complete(req, 0);
}

void nvmf_execute_aer(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;

	if (ctrl->nr_aer >= NVMF_AERL + 1) {
		nvmf_req_complete(req, nvme_cmd_specific(NVME_SC_ASYNC_LIMIT) | NVME_SC_DNR);
		return;
	}
	ctrl->aer[ctrl->nr_aer++] = req;    /* not completed until an event happens */
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
				ctrl->nr_changed_ns++;          /* overflow: FFFFFFFFh in the log */
			else
				ctrl->changed_ns[ctrl->nr_changed_ns++] = nsid;
		}
	}
	/* One notice until the host reads log 04h (5.2.1: the event type is masked). */
	if (!(ctrl->aen_cfg & AEN_NS_ATTR) || (ctrl->aen_masked & AEN_NS_ATTR))
		return;
	ctrl->aen_masked |= AEN_NS_ATTR;
	ctrl->pending_aen = AEN_NS_CHANGED_DW0;
	aen_deliver(ctrl);
}

void nvmf_tgt_ctrl_notify_disc_changed(struct nvmf_tgt_ctrl *ctrl)
{
	if (!(ctrl->aen_cfg & AEN_DISC_CHANGE) || (ctrl->aen_masked & AEN_DISC_CHANGE))
		return;
	ctrl->aen_masked |= AEN_DISC_CHANGE;
	ctrl->pending_aen = AEN_DISC_CHANGED_DW0;
	aen_deliver(ctrl);
}

void nvmf_tgt_ctrl_disc_log_read(struct nvmf_tgt_ctrl *ctrl)
{
	ctrl->aen_masked &= ~AEN_DISC_CHANGE;
}

void nvmf_tgt_ctrl_fail_aers(struct nvmf_tgt_ctrl *ctrl, nvme_status_t status)
{
	while (ctrl->nr_aer) {
		struct nvmf_req *req = ctrl->aer[--ctrl->nr_aer];
		ctrl->aer[ctrl->nr_aer] = NULL;
		nvmf_req_complete(req, status);
	}
}

/* ---- Keep Alive, Abort ---- */

void nvmf_execute_keep_alive(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;

	/* Keep Alive with the timer disabled (KATO 0): Keep Alive Timeout Invalid, as nvmet
	 * answers (the Linux host sends none then). */
	if (!ctrl->kato_ms) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_KAT_INVALID) | NVME_SC_DNR);
		return;
	}
	__atomic_store_n(&ctrl->last_keep_alive_ms, req->sq->pg->now_ms, __ATOMIC_RELAXED);
	nvmf_req_complete(req, 0);
}

/* Abort is mandatory but may do nothing: dword 0 bit 0 = 1, "command not aborted". */
static void execute_abort(struct nvmf_req *req)
{
	set_result(req, 1);
	nvmf_req_complete(req, 0);
}

nvme_status_t nvmf_parse_admin_cmd(struct nvmf_req *req)
{
	/* nvmet_check_ctrl_status(): nothing but Fabrics commands before CC.EN/CSTS.RDY. */
	if (!nvmf_tgt_ctrl_ready(req->sq->ctrl))
		return nvme_generic(NVME_SC_CMD_SEQ_ERROR);
	switch (req->cmd->opcode) {
	case nvme_admin_identify:
		return parse_identify(req);
	case nvme_admin_get_log_page:
		return parse_get_log(req);
	case nvme_admin_abort_cmd:
		req->execute = execute_abort;
		return 0;
	default:
		return nvmf_parse_shared_admin_cmd(req);
	}
}

nvme_status_t nvmf_parse_shared_admin_cmd(struct nvmf_req *req)
{
	switch (req->cmd->opcode) {
	case nvme_admin_set_features:
	case nvme_admin_get_features:
		return nvmf_parse_features(req);
	case nvme_admin_async_event:
		req->execute = nvmf_execute_aer;
		return 0;
	case nvme_admin_keep_alive:
		req->execute = nvmf_execute_keep_alive;
		return 0;
	default:
		return nvme_generic(NVME_SC_INVALID_OPCODE);
	}
}
