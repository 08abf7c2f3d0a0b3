/* SPDX-License-Identifier: MIT */
/*
 * The discovery controller (NVMe-oF 1.1 section 5): Identify Controller, Get Log Page of
 * its own log table (Supported Log Pages 00h, the Discovery Log Page 70h), Keep Alive
 * Timer and Async Event Configuration features, Keep Alive and AER. Everything else is
 * Invalid Command Opcode.
 *
 * The log (nvmf_target.discovery_log, subsystem/config.h) lists, for every port ("all-
 * ports", the default: multipath hosts see every path) or only for the port the host came
 * in on ("host-port", as nvmet, or when the host sets LSP PLEO, Port Local Entries Only,
 * NVMe Base 2.0 figure 262), in port order:
 *   - the discovery subsystem itself on that port (subtype 3, "current discovery
 *     subsystem", TP 8013), with EFLAGS DUPRETINFO (it returns this same log: nvme-cli's
 *     connect-all skips it) and EPCSD (this controller takes explicit persistent
 *     connections: KATO, Discovery Log Page Change events). nvmet lists the entry too,
 *     with EFLAGS 0;
 *   - each subsystem exposed there that the host may use (subtype 2);
 *   - the port's enabled referrals (subtype 1, the well-known discovery NQN), as nvmet.
 * A port of the other address family than the host's connection (a wildcard listener
 * with no address of that family for this host) is left out whole.
 *
 * genctr: tgt->disc_genctr plus a content hash of the entries this host gets
 * (nvmf_disc_log_hash). It changes exactly when what the host sees changes, whoever
 * edits ports or subsystems, and stays equal across the header/entries/header reads a
 * host makes; tgt->disc_genctr lets the owner force a change anyway.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "nvme/disc_log.h"
#include "nvme/disc_trtype.h"
#include "nvme/identify.h"
#include "target/admin.h"

/* One record plus the storage of its traddr string when it is not the port's. */
struct disc_entry {
	struct nvmf_disc_rec rec;
	char traddr[256]; /* TRADDR's field: NVMe-oF 1.1 figure 38 */
};

/*
 * Fill @e with an entry of @subtype for @subnqn on @port as seen by @req's host. The
 * address is the port's; a wildcard listener's TRADDR is the local address the host's
 * connection arrived at (its transport's ops->local_addr, asked only when @req's queue
 * is that transport's own; nvmet's disc_traddr), and TSAS is the port's transport
 * type's (nvme/disc_trtype.h). Returns false when the port is a wildcard of the other
 * address family than that connection (or the address is unknown): the entry is left
 * out.
 */
static bool port_entry(struct disc_entry *e, const struct nvmf_req *req,
		       const struct nvmf_port *port, uint8_t subtype, const char *subnqn)
{
	const struct nvmf_port_config *pc = port->cfg;
	const struct nvmf_transport *t = port->transport;
	struct sockaddr_storage ss;
	const struct sockaddr *local = NULL;

	memset(e, 0, sizeof(*e));
	if (req->sq->transport == t && t->ops->local_addr && !t->ops->local_addr(req->sq, &ss))
		local = (const struct sockaddr *)&ss;
	if (!nvmf_disc_ip_traddr(pc->traddr, pc->adrfam, local, e->traddr, sizeof(e->traddr)))
		return false;
	e->rec.trtype = t->ops->trtype;
	e->rec.adrfam = nvmf_disc_adrfam(pc->adrfam);
	e->rec.trsvcid = pc->trsvcid;
	e->rec.traddr = e->traddr;
	nvmf_disc_tsas(&e->rec);
	if (pc->tsas) /* TLS 1.3 on a tcp port (NVMe/TCP transport spec, figure 14) */
		e->rec.tcp_sectype = pc->tsas;
	e->rec.subtype = subtype;
	/* The configured secure channel bits, and SQ flow control disable supported: the
	 * core takes CATTR bit 2 on every transport (target/fabrics-cmd.c), and nvmet
	 * advertises it on every port. libnvme's connect-all then asks for it. */
	e->rec.treq = (uint8_t)((pc->treq & 0x3) | NVMF_TREQ_DISABLE_SQFLOW);
	e->rec.portid = pc->portid;
	e->rec.cntlid = 0xffff; /* dynamic controller model */
	e->rec.asqsz = NVMF_ADMIN_QUEUE_SIZE;
	e->rec.subnqn = subnqn;
	if (subtype == NVME_NQN_CURR)
		e->rec.eflags = NVMF_DISC_EFLAGS_DUPRETINFO | NVMF_DISC_EFLAGS_EPCSD;
	return true;
}

/* Fill @e with referral @r (subtype 1): the referred service's address as configured
 * (valid while the log is built), the well-known discovery NQN, TSAS as nvmet gives a
 * referral of that transport (nvme/disc_trtype.h). False for a trtype the codec does
 * not know (the config admits rdma and tcp only): left out. */
static bool referral_entry(struct disc_entry *e, const struct nvmf_referral_config *r)
{
	memset(e, 0, sizeof(*e));
	return !nvmf_disc_referral(&e->rec, r->trtype, r->adrfam, r->traddr, r->trsvcid, r->treq,
				   r->portid, NVMF_ADMIN_QUEUE_SIZE);
}

/* Whether @port's entries go to @req's host under the configured mode or the host's
 * Port Local Entries Only. */
static bool port_listed(const struct nvmf_req *req, const struct nvmf_port *port)
{
	const struct nvmf_tgt *tgt = req->sq->tgt;

	if (tgt->cfg->target.discovery_log == NVMF_DISC_LOG_HOST_PORT ||
	    (nvmf_log_lsp(req) & NVMF_LOG_DISC_LSP_PLEO))
		return port == req->sq->port;
	return true;
}

/* Append @port's entries for @req's host at e[*cnt]: the discovery subsystem, the
 * subsystems the host may use, the enabled referrals. */
static void port_entries(const struct nvmf_req *req, const struct nvmf_port *port,
			 struct disc_entry *e, size_t *cnt)
{
	const struct nvmf_tgt *tgt = req->sq->tgt;
	const char *hostnqn = req->sq->ctrl->hostnqn;

	if (!port_entry(&e[*cnt], req, port, NVME_NQN_CURR, tgt->disc->cfg->nqn))
		return;
	(*cnt)++;
	for (size_t i = 0; i < port->n_subsys; i++) {
		const struct nvmf_subsys *s = port->subsys[i];
		if (s->type != NVMF_SUBSYS_NVME || !nvmf_subsys_host_allowed(s, hostnqn))
			continue;
		if (port_entry(&e[*cnt], req, port, NVME_NQN_NVME, s->cfg->nqn))
			(*cnt)++;
	}
	for (size_t i = 0; i < port->cfg->n_referrals; i++)
		if (port->cfg->referrals[i].enable &&
		    referral_entry(&e[*cnt], &port->cfg->referrals[i]))
			(*cnt)++;
}

/*
 * The entries @req's host may see, in a malloc'd array (*out, *n). Returns 0 or
 * INTERNAL (out of memory).
 */
static nvme_status_t collect(const struct nvmf_req *req, struct disc_entry **out, size_t *n)
{
	const struct nvmf_tgt *tgt = req->sq->tgt;
	size_t max = 0, cnt = 0;

	for (size_t p = 0; p < tgt->n_ports; p++)
		max += 1 + tgt->ports[p]->n_subsys + tgt->ports[p]->cfg->n_referrals;
	struct disc_entry *e = calloc(max ? max : 1, sizeof(*e));
	if (!e)
		return nvme_generic(NVME_SC_INTERNAL);
	for (size_t p = 0; p < tgt->n_ports; p++)
		if (port_listed(req, tgt->ports[p]))
			port_entries(req, tgt->ports[p], e, &cnt);
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
		if (!st && !nvmf_log_rae(req))
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

	nvmf_identify_ctrl_common(ctrl, id);          /* admin capsules only: IOCCSZ 4 */
	id->ctratt = htole32(NVME_CTRL_CTRATT_TBKAS); /* any command refreshes keep-alive */
	id->oaes = htole32(NVME_CTRL_OAES_DL);        /* Discovery Log Page Change notices */
	id->cntrltype = NVME_CTRL_CNTRLTYPE_DISCOVERY;
	id->lpa = NVME_CTRL_LPA_EXTENDED; /* NUMDU and LPO honoured */
	id->maxcmd = htole16(NVMF_ADMIN_QUEUE_SIZE);
	id->nn = 0; /* no namespaces */
	nvmf_req_complete(req, 0);
}

static void disc_supported_logs(struct nvmf_req *req);

/* The discovery controller's log pages (NVMe Base 2.0 figure 202, discovery column);
 * of the Discovery log's LSP bits only PLEO is honoured (no extended entries, no
 * "all subsystems" listing). */
static const struct nvmf_log_page disc_logs[] = {
	{ NVME_LOG_LID_SUPPORTED_LOG_PAGES, 0, NULL, disc_supported_logs },
	{ NVME_LOG_LID_DISCOVER, NVMF_LOG_DISC_LID_PLEOS, NULL, disc_get_log },
};
#define N_DISC_LOGS (sizeof(disc_logs) / sizeof(disc_logs[0]))

/* LID 00h: the table above. */
static void disc_supported_logs(struct nvmf_req *req)
{
	struct nvme_supported_log_pages log;

	nvmf_supported_logs(disc_logs, N_DISC_LOGS, log.lid_support);
	nvmf_req_complete(req, nvmf_copy_log(req, &log, sizeof(log)));
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
		return nvmf_parse_log_page_in(req, disc_logs, N_DISC_LOGS);
	default:
		return nvmf_parse_shared_admin_cmd(req);
	}
}
