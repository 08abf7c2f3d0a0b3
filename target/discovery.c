/* SPDX-License-Identifier: MIT */
/*
 * The discovery controller (NVMe-oF 1.1 section 5): Identify Controller, the Discovery
 * Log Page (LID 70h), Keep Alive Timer and Async Event Configuration features, Keep
 * Alive and AER. Everything else is Invalid Command Opcode.
 *
 * The log lists, for every port and every subsystem exposed on it that the connected
 * host may use, one entry (port order, then the port's subsystem order). nvmet lists only
 * the port the host came through; listing all ports gives multipath hosts every path.
 *
 * genctr: tgt->disc_genctr plus a content hash of the entries this host gets
 * (nvmf_disc_log_hash). It changes exactly when what the host sees changes, whoever
 * edits ports or subsystems, and stays equal across the header/entries/header reads a
 * host makes; tgt->disc_genctr lets the owner force a change anyway.
 */
#include <stdlib.h>
#include <string.h>
#include "nvme/disc_log.h"
#include "nvme/identify.h"
#include "target/admin.h"


/* One record plus the storage of its traddr string when it is not the port's. */
struct disc_entry {
	struct nvmf_disc_rec rec;
	char traddr[NVMF_TRADDR_MAX];
};

/*
 * Fill @e for @s on @port as seen by @req's host: the transport gives the address fields
 * and TSAS (it knows the address of the host's connection, for a wildcard listener),
 * the core the rest. Returns false when the transport has no address of the port's
 * family for this host (a wildcard port of the other family): the entry is left out.
 */
static bool make_entry(struct disc_entry *e, const struct nvmf_req *req,
		       const struct nvmf_port *port, const struct nvmf_subsys *s)
{
	const struct nvmf_port_config *pc = port->cfg;

	memset(e, 0, sizeof(*e));
	if (!port->transport->ops->disc_entry(port, req->sq, &e->rec, e->traddr))
		return false;
	e->rec.subtype = NVME_NQN_NVME;
	/* Secure channel bits only: we do not offer disabling SQ flow control. */
	e->rec.treq = pc->treq & 0x3;
	e->rec.portid = pc->portid;
	e->rec.cntlid = 0xffff;                /* dynamic controller model */
	e->rec.asqsz = NVMF_ADMIN_QUEUE_SIZE;
	e->rec.subnqn = s->cfg->nqn;
	return true;
}

/*
 * The entries @req's host may see, in a malloc'd array (*out, *n). Returns 0 or
 * INTERNAL (out of memory).
 */
static nvme_status_t collect(const struct nvmf_req *req, struct disc_entry **out, size_t *n)
{
	const struct nvmf_tgt *tgt = req->sq->tgt;
	const char *hostnqn = req->sq->ctrl->hostnqn;
	size_t max = 0, cnt = 0;

	for (size_t p = 0; p < tgt->n_ports; p++)
		max += tgt->ports[p]->n_subsys;
	struct disc_entry *e = calloc(max ? max : 1, sizeof(*e));
	if (!e)
		return nvme_generic(NVME_SC_INTERNAL);
	for (size_t p = 0; p < tgt->n_ports; p++) {
		const struct nvmf_port *port = tgt->ports[p];
		for (size_t i = 0; i < port->n_subsys; i++) {
			const struct nvmf_subsys *s = port->subsys[i];
			if (s->type != NVMF_SUBSYS_NVME || !nvmf_subsys_host_allowed(s, hostnqn))
				continue;
			if (make_entry(&e[cnt], req, port, s))
				cnt++;
		}
	}
	*out = e;
	*n = cnt;
	return 0;
}

static void disc_get_log(struct nvmf_req *req)
{
	struct disc_entry *e;
	size_t n;
	nvme_status_t st = collect(req, &e, &n);

	if (st) {
		nvmf_req_complete(req, st);
		return;
	}
	struct nvmf_disc_rec *recs = calloc(n ? n : 1, sizeof(*recs));
	size_t len = nvmf_disc_log_size(n);
	void *log = recs && len != SIZE_MAX ? malloc(len) : NULL;
	if (!log) {
		st = nvme_generic(NVME_SC_INTERNAL);
	} else {
		for (size_t i = 0; i < n; i++)
			recs[i] = e[i].rec;
		uint64_t genctr = req->sq->tgt->disc_genctr + nvmf_disc_log_hash(recs, n);
		nvmf_disc_log_build(log, genctr, recs, n);
		st = nvmf_copy_log(req, log, len);
		if (!st && !(le32toh(req->cmd->cdw10) & (1u << 15)))   /* RAE clear */
			nvmf_tgt_ctrl_disc_log_read(req->sq->ctrl);
	}
	free(log);
	free(recs);
	free(e);
	nvmf_req_complete(req, st);
}

/* Identify Controller of a discovery controller (NVMe-oF 1.1 section 5.2). */
static void disc_identify_ctrl(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvme_id_ctrl *id = req->data;

	nvmf_identify_ctrl_common(ctrl, id);            /* admin capsules only: IOCCSZ 4 */
	id->ctratt = htole32(NVME_CTRL_CTRATT_TBKAS);   /* any command refreshes keep-alive */
	id->oaes = htole32(NVME_CTRL_OAES_DL);          /* Discovery Log Page Change notices */
	id->cntrltype = NVME_CTRL_CNTRLTYPE_DISCOVERY;
	id->lpa = NVME_CTRL_LPA_EXTENDED;               /* NUMDU and LPO honoured */
	id->maxcmd = htole16(NVMF_ADMIN_QUEUE_SIZE);
	id->nn = 0;                                     /* no namespaces */
	nvmf_req_complete(req, 0);
}

void nvmf_tgt_disc_changed(struct nvmf_tgt *tgt)
{
	tgt->disc_genctr++;
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (c->subsys->type == NVMF_SUBSYS_DISCOVERY && !c->deleting)
			nvmf_tgt_ctrl_notify_disc_changed(c);
}

nvme_status_t nvmf_parse_discovery_cmd(struct nvmf_req *req)
{
	/* Not before CC.EN / CSTS.RDY. nvmet answers INVALID_OPCODE here; Command Sequence
	 * Error says what is wrong and matches the I/O controller. */
	if (!nvmf_tgt_ctrl_ready(req->sq->ctrl))
		return nvme_generic(NVME_SC_CMD_SEQ_ERROR);
	switch (req->cmd->opcode) {
	case nvme_admin_identify:
		if ((le32toh(req->cmd->cdw10) & 0xff) != NVME_IDENTIFY_CNS_CTRL)
			return nvme_generic(NVME_SC_INVALID_FIELD);
		req->execute = disc_identify_ctrl;
		req->dir = NVMF_XFER_C2H;
		req->data_len = NVME_IDENTIFY_DATA_SIZE;
		return 0;
	case nvme_admin_get_log_page:
		if ((le32toh(req->cmd->cdw10) & 0xff) != NVME_LOG_LID_DISCOVER)
			return nvme_cmd_specific(NVME_SC_INVALID_LOG_PAGE);
		req->execute = disc_get_log;
		return nvmf_parse_get_log(req);
	default:
		return nvmf_parse_shared_admin_cmd(req);
	}
}
