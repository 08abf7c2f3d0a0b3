/* SPDX-License-Identifier: MIT */
/*
 * Admin commands of a passthru subsystem's controller (target/passthru.h). The policy:
 *
 *  - the target's own (never sent to the drive): Keep Alive, Asynchronous Event Request,
 *    Abort, Get/Set Features Asynchronous Event Configuration, Keep Alive Timer, Number
 *    of Queues, Host Identifier, Host Behavior Support and the reservation features;
 *    Identify lists (active namespaces: those served) and CNS values other than 00h,
 *    01h and 03h; Get Log Page ANA (0Ch), Changed Namespace List (04h), Reservation
 *    Notification (80h) and Discovery (70h): the fabrics side only the target knows;
 *  - passed to the drive, then fixed up: Identify Controller (CNS 01h: our controller
 *    ID, NQN, limits, fabrics fields, fused Compare and Write, OACS without what is
 *    refused), Identify Namespace (CNS 00h: shared, our RESCAP and ANA group, with
 *    clear_ids no EUI-64/NGUID) and its descriptor list (CNS 03h: with clear_ids only
 *    the command set);
 *  - passed as they are: the other log pages (error, SMART, effects without the
 *    commands refused here and the reservation commands, ...), the other
 *    features, Format NVM, Sanitize, Security Send/Receive, Device Self-test, Directive
 *    Send/Receive, Get LBA Status, vendor specific (C0h-FFh), and any other opcode the
 *    drive's effects log lists;
 *  - refused with Invalid Command Opcode: queue creation and deletion, Doorbell Buffer
 *    Config, Virtualization Management (a PCIe controller's), Namespace Management and
 *    Attachment (they would change what other hosts of the drive see), Firmware Commit
 *    and Image Download (an activation resets the drive under every host; the kernel's
 *    nvmet passthru refuses them too).
 *
 * A command passed runs on the subsystem's admin worker thread (blocking ioctl). One
 * whose effects (the drive's effects log: LBCC, NCC, NIC or CSE; Format NVM and Sanitize
 * when it has none) change data or namespaces runs with the namespaces it names drained
 * (the lock of fused Compare and Write, target/lba-lock.h: its NSID's, or every served
 * one for FFFFFFFFh), and the drive is rescanned after it: the served namespaces follow
 * (nvmf_tgt_passthru_sync), hosts hear of it by the Namespace Attribute Changed event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "subsystem/nvme-drive.h"
#include "target/admin.h"
#include "target/ana.h"
#include "target/lba-lock.h"
#include "target/passthru.h"
#include "target/resv.h"

/* A passed command's job, req->aux (freed at complete). */
struct pt_admin {
	struct nvmf_pt_job job;
	/* A command that changes namespaces drains those it names first: one lock holder
	 * per namespace (target/lba-lock.h takes a request as holder), each holding its
	 * namespace (nvmf_req_hold_ns) until unlocked; transport_priv points back at the
	 * command. Taken in ascending NSID, so two such commands never wait on each other. */
	unsigned n_locks, next; /* holders, and how many are locked */
	struct nvmf_req locks[];
};

static bool refused_opcode(uint8_t op)
{
	switch (op) {
	case nvme_admin_delete_sq:
	case nvme_admin_create_sq:
	case nvme_admin_delete_cq:
	case nvme_admin_create_cq:
	case nvme_admin_dbbuf:
	case nvme_admin_virtual_mgmt:
	case nvme_admin_ns_mgmt:
	case nvme_admin_ns_attach:
	case nvme_admin_fw_commit:
	case nvme_admin_fw_download:
		return true;
	}
	return false;
}

static bool owned_feature(uint8_t fid)
{
	switch (fid) {
	case NVME_FEAT_FID_ASYNC_EVENT:
	case NVME_FEAT_FID_KATO:
	case NVME_FEAT_FID_NUM_QUEUES:
	case NVME_FEAT_FID_HOST_ID:
	case NVME_FEAT_FID_HOST_BEHAVIOR:
	case NVME_FEAT_FID_RESV_MASK:
	case NVME_FEAT_FID_RESV_PERSIST:
		return true;
	}
	return false;
}

static bool owned_log(uint8_t lid)
{
	return lid == NVME_LOG_LID_ANA || lid == NVME_LOG_LID_CHANGED_NS ||
	       lid == NVME_LOG_LID_RESERVATION || lid == NVME_LOG_LID_DISCOVER;
}

/* ---- fix-ups of what the drive answered ---- */

/* log2 of what the drive moves per command in 4 KiB pages (0: unknown, no limit). */
static uint32_t drive_mdts(const struct nvmf_drive *d)
{
	uint32_t pages = d->max_transfer >> NVMF_MDTS_UNIT_SHIFT, m = 0;
	if (!pages)
		return 1; /* less than a page: say one page, the least MDTS can */
	while ((2u << m) <= pages)
		m++;
	return m;
}

static void fix_id_ctrl(struct nvmf_req *req, struct nvme_id_ctrl *id)
{
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	const struct nvmf_subsys *s = ctrl->subsys;
	struct nvme_id_ctrl *ours = calloc(1, sizeof(*ours));
	if (!ours)
		return;
	nvmf_identify_ctrl_common(ctrl, ours);
	memcpy(id->sn, ours->sn, sizeof(id->sn));
	memcpy(id->mn, ours->mn, sizeof(id->mn));
	memcpy(id->fr, ours->fr, sizeof(id->fr));
	uint32_t m = drive_mdts(s->drive);
	if (ctrl->mdts && ctrl->mdts < m)
		m = ctrl->mdts;
	id->mdts = (uint8_t)m;
	id->cntlid = ours->cntlid;
	id->ver = ours->ver;
	id->aerl = ours->aerl;
	id->kas = ours->kas;
	id->sgls = ours->sgls;
	if (ctrl->inline_data_size)
		id->sgls |= htole32(NVME_CTRL_SGLS_OFFSET);
	memcpy(id->subnqn, ours->subnqn, sizeof(id->subnqn));
	id->ioccsz = htole32((NVME_SQE_SIZE + ctrl->inline_data_size) / 16);
	id->iorcsz = ours->iorcsz;
	id->icdoff = 0;
	id->fcatt = 0; /* dynamic controller model */
	id->msdbd = ours->msdbd;
	id->cmic |= NVME_CTRL_CMIC_MULTI_PORT | NVME_CTRL_CMIC_MULTI_CTRL;
	id->oaes = htole32(nvmf_aen_supported(ctrl) & ~0xffu);
	id->ctratt |= htole32(NVME_CTRL_CTRATT_128_ID | NVME_CTRL_CTRATT_TBKAS);
	id->cntrltype = NVME_CTRL_CNTRLTYPE_IO;
	id->oacs &= htole16((uint16_t) ~(NVME_CTRL_OACS_NS_MGMT | NVME_CTRL_OACS_DBBUF_CFG |
					 NVME_CTRL_OACS_VIRT_MGMT | NVME_CTRL_OACS_FW));
	id->hmpre = id->hmmin = 0; /* no host memory buffer over fabrics */
	if ((id->sqes & 0xf) > 6 || !id->sqes)
		id->sqes = 0x66;
	if ((id->cqes & 0xf) > 4 || !id->cqes)
		id->cqes = 0x44;
	id->maxcmd = htole16(ctrl->queue_size);
	if (le32toh(id->nn) > NVMF_MAX_NSID || !id->nn)
		id->nn = htole32(NVMF_MAX_NSID);
	/* Reservations are the target's: the drive's own claim is dropped. */
	id->oncs &= htole16((uint16_t)~NVME_CTRL_ONCS_RESERVATIONS);
	if (nvmf_resv_subsys_enabled(s))
		id->oncs |= htole16(NVME_CTRL_ONCS_RESERVATIONS);
	/* Fused Compare and Write is the target's (target/caw.c): ACWU as its Identify. */
	uint64_t blocks = 65536;
	if (id->mdts && (4096ull << id->mdts) / 512 < blocks)
		blocks = (4096ull << id->mdts) / 512;
	id->fuses = htole16(NVME_CTRL_FUSES_COMPARE_AND_WRITE);
	id->acwu = htole16((uint16_t)(blocks - 1));
	nvmf_ana_identify_ctrl(ctrl, id);
	/* MNAN may not exceed NN (NVMe Base 2.0 figure 275): the drive's NN is often below
	 * the target's MNAN, and a Linux host with ANA refuses such a controller. */
	if (le32toh(id->mnan) > le32toh(id->nn))
		id->mnan = id->nn;
	free(ours);
}

static void fix_id_ns(struct nvmf_req *req, struct nvme_id_ns *id)
{
	const struct nvmf_subsys *s = req->sq->ctrl->subsys;
	const struct nvmf_ns *ns = nvmf_subsys_ns(s, le32toh(req->cmd->nsid));
	id->nmic |= NVME_NS_NMIC_SHARED;
	id->rescap = ns ? nvmf_resv_rescap(req->sq->tgt, ns) : 0;
	if (ns)
		id->anagrpid = htole32(__atomic_load_n(&ns->anagrpid, __ATOMIC_RELAXED));
	if (s->cfg->passthru.clear_ids) {
		memset(id->eui64, 0, sizeof(id->eui64));
		memset(id->nguid, 0, sizeof(id->nguid));
	}
}

/* CNS 03h with clear_ids: the drive's descriptors without its EUI-64, NGUID and UUID. */
static void fix_ns_desc(struct nvmf_req *req, uint8_t *buf, uint32_t len)
{
	if (!req->sq->ctrl->subsys->cfg->passthru.clear_ids)
		return;
	uint8_t *out = calloc(1, len);
	if (!out)
		return;
	uint32_t in = 0, o = 0;
	while (in + 4 <= len && buf[in]) {
		uint32_t n = 4u + buf[in + 1];
		if (in + n > len)
			break;
		uint8_t t = buf[in];
		if (t != NVME_NIDT_EUI64 && t != NVME_NIDT_NGUID && t != NVME_NIDT_UUID) {
			memcpy(out + o, buf + in, n);
			o += n;
		}
		in += n;
	}
	memcpy(buf, out, len);
	free(out);
}

/* Log 05h (Commands Supported and Effects, NVMe Base 2.0 figure 210) as the host may
 * use it: the admin commands refused here and the reservation commands (the target's,
 * off on a drive's namespaces) are not supported. Only a read from offset 0 (LPOL 0):
 * the entries are where the figure puts them. */
static void fix_effects(struct nvmf_req *req, uint8_t *buf, uint32_t len)
{
	if (le32toh(req->cmd->cdw12) || le32toh(req->cmd->cdw13))
		return;
	static const uint8_t resv[] = { nvme_cmd_resv_register, nvme_cmd_resv_report,
					nvme_cmd_resv_acquire, nvme_cmd_resv_release };
	for (unsigned op = 0; op < 256; op++)
		if (refused_opcode((uint8_t)op) && (op + 1) * 4 <= len)
			memset(buf + op * 4, 0, 4);
	for (size_t i = 0; i < sizeof(resv); i++)
		if (1024u + (resv[i] + 1u) * 4 <= len)
			memset(buf + 1024 + resv[i] * 4, 0, 4);
}

/* ---- running a command on the drive ---- */

static void job_run(struct nvmf_pt_job *job)
{
	struct nvmf_drive *d = job->pt->s->drive;
	job->rc = d->ops->admin(d, job->req->cmd, job->buf, job->len, job->pt->admin_timeout_ms,
				&job->status, &job->result);
	if (job->rescan && !job->rc) {
		job->rescan_err[0] = 0;
		job->rescan_rc = nvmf_drive_rescan(d, job->rescan_err, sizeof(job->rescan_err));
	}
}

static void lock_next(struct nvmf_req *req);
static void unlock_next(struct nvmf_req *req);

static void finished(struct nvmf_req *req)
{
	struct pt_admin *a = req->aux;
	struct nvmf_pt_job *job = &a->job;
	nvme_status_t st;
	if (job->rc) {
		/* Never answered: a timeout aborts as the spec's Command Abort Requested
		 * would not tell; the host retries (no DNR). */
		st = nvme_generic(job->rc == -ETIMEDOUT ? NVME_SC_ABORT_REQ : NVME_SC_INTERNAL);
	} else {
		st = job->status;
		req->cqe->result.u64 = htole64(job->result);
	}
	nvmf_req_complete(req, st);
}

static void job_done(struct nvmf_pt_job *job)
{
	struct nvmf_req *req = job->req;
	struct nvmf_tgt *tgt = req->sq->tgt;
	struct nvmf_subsys *s = req->sq->ctrl->subsys;
	if (!job->rc && !job->status && req->cmd->opcode == nvme_admin_identify) {
		switch (le32toh(req->cmd->cdw10) & 0xff) {
		case NVME_IDENTIFY_CNS_CTRL:
			fix_id_ctrl(req, job->buf);
			break;
		case NVME_IDENTIFY_CNS_NS:
			fix_id_ns(req, job->buf);
			break;
		case NVME_IDENTIFY_CNS_NS_DESC_LIST:
			fix_ns_desc(req, job->buf, job->len);
			break;
		}
	}
	if (!job->rc && !job->status && req->cmd->opcode == nvme_admin_get_log_page &&
	    (le32toh(req->cmd->cdw10) & 0xff) == NVME_LOG_LID_CMD_EFFECTS)
		fix_effects(req, job->buf, job->len);
	if (job->rescan && !job->rc) {
		if (job->rescan_rc)
			nvmf_log(tgt, NVMF_LOG_ERROR,
				 "subsystem %s: rescan of the drive after admin opcode %02xh: %s",
				 s->cfg->nqn, req->cmd->opcode, job->rescan_err);
		else
			nvmf_tgt_passthru_sync(tgt, s);
	}
	if (job->rescan)
		nvmf_pt_synced(job->pt);
	unlock_next(req);
}

static void lock_granted(struct nvmf_req *holder)
{
	lock_next(holder->transport_priv);
}

/* Lock the next namespace, or with all of them drained give the command to the worker. */
static void lock_next(struct nvmf_req *req)
{
	struct pt_admin *a = req->aux;
	if (a->next < a->n_locks) {
		nvmf_lba_lock(&a->locks[a->next++], lock_granted);
		return;
	}
	nvmf_pt_submit(&a->job);
}

static void unlocked(struct nvmf_req *holder)
{
	nvmf_req_release_ns(holder, 0);
	unlock_next(holder->transport_priv);
}

/* Let the locked namespaces go, last first, then answer the command. */
static void unlock_next(struct nvmf_req *req)
{
	struct pt_admin *a = req->aux;
	if (a->next) {
		nvmf_lba_unlock(&a->locks[--a->next], unlocked);
		return;
	}
	finished(req);
}

static void execute_passthru_admin(struct nvmf_req *req)
{
	struct pt_admin *a = req->aux;
	struct nvmf_subsys *s = req->sq->ctrl->subsys;
	if (a->job.rescan) {
		/* The namespaces it names: the one of its NSID, or all for FFFFFFFFh. */
		uint32_t nsid = le32toh(req->cmd->nsid), n = 0;
		for (uint32_t id = 1; id <= s->max_nsid; id++)
			if (nvmf_subsys_ns(s, id) && (nsid == 0xffffffffu || nsid == id))
				n++;
		struct pt_admin *grown = realloc(a, sizeof(*a) + n * sizeof(a->locks[0]));
		if (!grown) {
			nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
			return;
		}
		req->aux = a = grown;
		memset(a->locks, 0, n * sizeof(a->locks[0]));
		a->n_locks = 0;
		for (uint32_t id = 1; id <= s->max_nsid && a->n_locks < n; id++) {
			struct nvmf_ns *ns = nvmf_subsys_ns(s, id);
			if (!ns || (nsid != 0xffffffffu && nsid != id))
				continue;
			struct nvmf_req *h = &a->locks[a->n_locks++];
			h->sq = req->sq;
			h->cmd = req->cmd;
			h->start_us = req->start_us;
			h->transport_priv = req;
			nvmf_req_hold_ns(h, ns);
		}
	}
	a->job.buf = req->data;
	a->job.len = req->data_len;
	lock_next(req);
}

/* Whether admin @op's effects (NVMe Base 2.0 figure 210) change data or namespaces. */
static bool changes_namespaces(const struct nvmf_drive *d, uint8_t op)
{
	if (!d->has_effects)
		return op == nvme_admin_format_nvm || op == nvme_admin_sanitize_nvm;
	return nvmf_drive_effects(d, true, op) & (NVME_CMD_EFFECTS_LBCC | NVME_CMD_EFFECTS_NCC |
						  NVME_CMD_EFFECTS_NIC | NVME_CMD_EFFECTS_CSE_MASK);
}

/* @req goes to the drive: its data as the host's SGL says, in the direction opcode
 * bits 1:0 say. */
static nvme_status_t pass(struct nvmf_req *req)
{
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvmf_subsys *s = ctrl->subsys;
	uint8_t op = req->cmd->opcode;
	nvme_status_t st = nvmf_passthru_parse_data(req, s->drive->max_transfer);
	if (st)
		return st;
	struct pt_admin *a = calloc(1, sizeof(*a));
	if (!a)
		return nvme_generic(NVME_SC_INTERNAL);
	req->aux = a;
	a->job.run = job_run;
	a->job.done = job_done;
	a->job.pt = s->pt;
	a->job.pg = req->sq->pg;
	a->job.req = req;
	a->job.rescan = changes_namespaces(s->drive, op);
	req->execute = execute_passthru_admin;
	return 0;
}

nvme_status_t nvmf_parse_passthru_admin(struct nvmf_req *req)
{
	const struct nvmf_subsys *s = req->sq->ctrl->subsys;
	uint8_t op = req->cmd->opcode;
	uint32_t cdw10 = le32toh(req->cmd->cdw10);
	if (refused_opcode(op))
		return nvme_generic(NVME_SC_INVALID_OPCODE);
	switch (op) {
	case nvme_admin_keep_alive:
	case nvme_admin_async_event:
	case nvme_admin_abort_cmd:
		return nvmf_parse_admin_cmd_own(req);
	case nvme_admin_get_features:
	case nvme_admin_set_features:
		return owned_feature(cdw10 & 0xff) ? nvmf_parse_features(req) : pass(req);
	case nvme_admin_identify: {
		uint8_t cns = cdw10 & 0xff;
		uint32_t nsid = le32toh(req->cmd->nsid);
		if (cns == NVME_IDENTIFY_CNS_CTRL ||
		    ((cns == NVME_IDENTIFY_CNS_NS || cns == NVME_IDENTIFY_CNS_NS_DESC_LIST) &&
		     nvmf_subsys_ns(s, nsid)))
			return pass(req);
		return nvmf_parse_identify(req);
	}
	case nvme_admin_get_log_page:
		return owned_log(cdw10 & 0xff) ? nvmf_parse_log_page(req) : pass(req);
	}
	if (op >= 0xc0)
		return pass(req);
	switch (op) {
	case nvme_admin_format_nvm:
	case nvme_admin_sanitize_nvm:
	case nvme_admin_security_send:
	case nvme_admin_security_recv:
	case nvme_admin_dev_self_test:
	case nvme_admin_directive_send:
	case nvme_admin_directive_recv:
	case nvme_admin_get_lba_status:
		return pass(req);
	}
	if (nvmf_drive_effects(s->drive, true, op) & NVME_CMD_EFFECTS_CSUPP)
		return pass(req);
	return nvme_generic(NVME_SC_INVALID_OPCODE);
}
