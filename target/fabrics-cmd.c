/* SPDX-License-Identifier: MIT */
/*
 * Fabrics commands (NVMe-oF 1.1 section 3): Connect for admin and I/O queues, Property
 * Get and Property Set. Connect errors carry IATTR/IPO in dword 0 so the host can tell
 * which field was wrong (3.3.2: bits 15:0 the byte offset, bit 16 set when the offset is
 * in the Connect data rather than the SQE).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "target/auth.h"
#include "target/core.h"
#include "target/log.h"
#include "nvme/fabrics.h"
#include "util/secret.h"

#define IPO_SQE(off)  ((uint32_t)(off))
#define IPO_DATA(off) ((uint32_t)(1u << 16 | (off)))

/* Byte offset of a Connect SQE field, for IPO. */
#define CONNECT_OFF(field) offsetof(struct nvmf_connect_sqe, field)

static uint8_t fctype(const struct nvmf_req *req)
{
	return nvmf_sqe_fctype(req->cmd);
}

static nvme_status_t connect_invalid(struct nvmf_req *req, uint32_t ipo)
{
	req->cqe->result.u32 = htole32(ipo);
	return nvme_cmd_specific(NVME_SC_CONNECT_INVALID_PARAM) | NVME_SC_DNR;
}

#define NQN_FIELD 256 /* bytes of an NQN field in the Connect data */

/* The Connect data's NQNs are 256-byte fields; never trust them to be terminated. An
 * NQN longer than 223 characters matches nothing, so it is rejected like an unknown one. */
static void connect_nqns(const struct nvmf_connect_data *d, char *subnqn, char *hostnqn)
{
	memcpy(subnqn, d->subsysnqn, NQN_FIELD);
	subnqn[NQN_FIELD] = 0;
	memcpy(hostnqn, d->hostnqn, NQN_FIELD);
	hostnqn[NQN_FIELD] = 0;
}

/* A DH-HMAC-CHAP secret or TLS PSK sent as the host or subsystem NQN (a key pasted in the
 * wrong place) is never a name: refused as an invalid parameter at its field before the
 * NQN is looked up, kept, listed or logged. The log line shows the NQN with the secret
 * replaced. Returns the status, or 0 when neither NQN holds one. */
static nvme_status_t connect_refuse_secret(struct nvmf_req *req, uint16_t qid, const char *subnqn,
					   const char *hostnqn)
{
	bool sub = nvmf_text_has_secret(subnqn);
	if (!sub && !nvmf_text_has_secret(hostnqn))
		return 0;
	struct nvmf_sq *sq = req->sq;
	char shown[NQN_FIELD + 1];
	snprintf(shown, sizeof(shown), "%s", sub ? subnqn : hostnqn);
	nvmf_text_redact_secrets(shown);
	for (char *p = shown; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	nvmf_log(sq->tgt, NVMF_LOG_WARNING,
		 "Connect from %s (port %u, queue %u) refused: its %s NQN \"%s\" holds a secret, "
		 "which is never a name",
		 sq->peer[0] ? sq->peer : "?", sq->port->cfg->portid, qid,
		 sub ? "subsystem" : "host", shown);
	return connect_invalid(req, IPO_DATA(sub ? offsetof(struct nvmf_connect_data, subsysnqn) :
						   offsetof(struct nvmf_connect_data, hostnqn)));
}

/* A queue in a TLS secure channel was admitted by the PSK of one host for one subsystem
 * (its identity's NQNs): a Connect naming another host or subsystem would borrow that
 * admission. Refused as an invalid parameter at the field that differs (the kernel host
 * derives the identity from the same NQNs it connects with). Returns the status or 0. */
static nvme_status_t connect_refuse_tls(struct nvmf_req *req, uint16_t qid, const char *subnqn,
					const char *hostnqn)
{
	struct nvmf_sq *sq = req->sq;
	const char *th, *ts;
	if (!sq->transport->ops->tls_peer || !sq->transport->ops->tls_peer(sq, &th, &ts))
		return 0;
	bool host = strcmp(th, hostnqn) != 0;
	if (!host && !strcmp(ts, subnqn))
		return 0;
	nvmf_log(sq->tgt, NVMF_LOG_WARNING,
		 "Connect from %s (port %u, queue %u) refused: its %s NQN %s is not the one of "
		 "the TLS PSK identity it connected with (%s)",
		 sq->peer[0] ? sq->peer : "?", sq->port->cfg->portid, qid,
		 host ? "host" : "subsystem", host ? hostnqn : subnqn, host ? th : ts);
	return connect_invalid(req, IPO_DATA(host ? offsetof(struct nvmf_connect_data, hostnqn) :
						    offsetof(struct nvmf_connect_data, subsysnqn)));
}

/* The Connect data, copied out of the command's buffer: in-capsule data sits wherever
 * the host's SGL offset put it, with no alignment for CNTLID's le16. */
static void connect_data(const struct nvmf_req *req, struct nvmf_connect_data *d)
{
	memcpy(d, req->data, sizeof(*d));
}

/* The queue's side of a successful Connect. A host that asks to disable SQ flow control
 * (CATTR bit 2, NVMe-oF 1.1 Figure 20; every port advertises it, TREQ bit 2) gets it on
 * any transport: the core only stops reporting SQHD, the Connect response's SQHD is FFFFh
 * (as nvmet and FreeBSD's nvmft answer) and later CQEs' 0 (reserved). */
static void connected(struct nvmf_req *req, struct nvmf_tgt_ctrl *ctrl,
		      const struct nvmf_connect_cmd *cmd)
{
	struct nvmf_sq *sq = req->sq;
	sq->ctrl = ctrl;
	sq->qid = cmd->qid;
	sq->size = (uint16_t)(cmd->sqsize + 1);
	/* The Connect took slot 0 (the queue had no size when nvmf_req_init counted it):
	 * its response shows the head past it, as nvmet's does. */
	sq->sqhd = 1;
	sq->sqflow_disabled = cmd->cattr & NVMF_CONNECT_CATTR_SQFLOW_DISABLE;
	if (sq->sqflow_disabled)
		req->cqe->sq_head = htole16(0xffff);
	req->cqe->result.u32 = htole32(ctrl->cntlid | nvmf_sq_auth_connected(sq));
}

/* The subsystem an admin Connect names. The discovery subsystem answers to its configured
 * NQN (discovery.nqn) and to the well-known discovery NQN both, as nvmet does: a host's
 * plain `nvme discover` asks for the well-known one whatever the target calls its
 * discovery service (NVMe Base 2.0: a discovery controller with a unique NQN still
 * answers to the well-known one). The loader keeps the well-known NQN
 * from naming an NVM subsystem, so the answer is never ambiguous. */
static struct nvmf_subsys *connect_subsys(struct nvmf_tgt *tgt, const char *subnqn)
{
	if (tgt->disc && !strcmp(subnqn, NVMF_DISC_NQN))
		return tgt->disc;
	return nvmf_tgt_find_subsys(tgt, subnqn);
}

static void execute_admin_connect(struct nvmf_req *req)
{
	struct nvmf_connect_data data;
	const struct nvmf_connect_data *d = &data;
	struct nvmf_sq *sq = req->sq;
	struct nvmf_tgt *tgt = sq->tgt;
	struct nvmf_connect_cmd cmd;
	char subnqn[NQN_FIELD + 1], hostnqn[NQN_FIELD + 1];
	nvme_status_t st;

	nvmf_connect_decode(req->cmd, &cmd);
	connect_data(req, &data);
	connect_nqns(d, subnqn, hostnqn);
	if ((st = connect_refuse_secret(req, cmd.qid, subnqn, hostnqn)) ||
	    (st = connect_refuse_tls(req, cmd.qid, subnqn, hostnqn)))
		goto out;
	/* Admin queue: 1..NVMF_ADMIN_QUEUE_SIZE entries; sqsize is 0's based. */
	if (cmd.sqsize == 0 || cmd.sqsize >= NVMF_ADMIN_QUEUE_SIZE) {
		st = connect_invalid(req, IPO_SQE(CONNECT_OFF(sqsize)));
		goto out;
	}
	/* The main group owns the controllers: an admin queue the transport placed as an
	 * I/O queue (its transport-level qid was not 0) cannot hold one. */
	if (sq->pg != nvmf_tgt_main_pg(tgt)) {
		st = connect_invalid(req, IPO_SQE(CONNECT_OFF(qid)));
		goto out;
	}
	/* Dynamic controller model: the host must ask for "any" controller. */
	if (le16toh(d->cntlid) != 0xffff) {
		st = connect_invalid(req, IPO_DATA(offsetof(struct nvmf_connect_data, cntlid)));
		goto out;
	}
	struct nvmf_subsys *s = connect_subsys(tgt, subnqn);
	if (!s || !nvmf_port_has_subsys(sq->port, s)) {
		st = connect_invalid(req, IPO_DATA(offsetof(struct nvmf_connect_data, subsysnqn)));
		goto out;
	}
	if (strlen(hostnqn) > NVMF_NQN_MAX || !nvmf_subsys_host_allowed(s, hostnqn)) {
		req->cqe->result.u32 =
			htole32(IPO_DATA(offsetof(struct nvmf_connect_data, hostnqn)));
		st = nvme_cmd_specific(NVME_SC_CONNECT_INVALID_HOST) | NVME_SC_DNR;
		goto out;
	}
	/* Admin queues are placed on the main group, which owns the controllers. */
	struct nvmf_tgt_ctrl *ctrl = nvmf_tgt_ctrl_alloc(tgt, sq->pg, s, sq->port, sq->transport,
							 hostnqn, d->hostid, cmd.kato);
	if (!ctrl) {
		st = nvme_cmd_specific(NVME_SC_CONNECT_CTRL_BUSY);
		goto out;
	}
	nvmf_tgt_ctrl_attach(ctrl, sq, 0);
	connected(req, ctrl, &cmd);
	snprintf(ctrl->peer, sizeof(ctrl->peer), "%s", sq->peer);
	nvmf_log(tgt, NVMF_LOG_INFO,
		 "controller %u of %s: host %s connected from %s (port %u, KATO %u ms)",
		 ctrl->cntlid, s->cfg->nqn, hostnqn, sq->peer[0] ? sq->peer : "?",
		 sq->port->cfg->portid, ctrl->kato_ms);
	st = 0;
out:
	/* The main group owns the port's counters, as it does every admin queue. */
	if (st)
		sq->port->connects_refused++;
	else
		sq->port->connects++;
	nvmf_req_complete(req, st);
}

/* I/O queue Connect, second half: back on the queue's group with the main group's answer. */
static void io_connect_answer(void *arg)
{
	struct nvmf_req *req = arg;
	struct nvmf_connect_cmd cmd;
	nvmf_connect_decode(req->cmd, &cmd);
	if (!req->connect_status)
		connected(req, req->connect_ctrl, &cmd);
	nvmf_req_complete(req, req->connect_status);
}

/* First half, on the main group (the controllers' owner): find the controller, check, and
 * attach the queue. The queue's group does not touch @req meanwhile. */
static void io_connect_attach(void *arg)
{
	struct nvmf_req *req = arg;
	struct nvmf_connect_data data;
	const struct nvmf_connect_data *d = &data;
	struct nvmf_sq *sq = req->sq;
	struct nvmf_connect_cmd cmd;
	char subnqn[NQN_FIELD + 1], hostnqn[NQN_FIELD + 1];
	nvme_status_t st;

	nvmf_connect_decode(req->cmd, &cmd);
	connect_data(req, &data);
	connect_nqns(d, subnqn, hostnqn);
	if ((st = connect_refuse_secret(req, cmd.qid, subnqn, hostnqn)) ||
	    (st = connect_refuse_tls(req, cmd.qid, subnqn, hostnqn)))
		goto out;
	struct nvmf_tgt_ctrl *ctrl = nvmf_tgt_ctrl_find(sq->tgt, subnqn, le16toh(d->cntlid));
	if (!ctrl || ctrl->deleting || ctrl->port != sq->port) {
		st = connect_invalid(req, IPO_DATA(offsetof(struct nvmf_connect_data, cntlid)));
		goto out;
	}
	if (strcmp(ctrl->hostnqn, hostnqn)) {
		st = connect_invalid(req, IPO_DATA(offsetof(struct nvmf_connect_data, hostnqn)));
		goto out;
	}
	if (cmd.qid > ctrl->max_qid) {
		st = connect_invalid(req, IPO_SQE(CONNECT_OFF(qid)));
		goto out;
	}
	if (cmd.sqsize == 0 || cmd.sqsize >= ctrl->queue_size) {
		st = connect_invalid(req, IPO_SQE(CONNECT_OFF(sqsize)));
		goto out;
	}
	if (ctrl->sqs[cmd.qid]) {
		st = nvme_generic(NVME_SC_CMD_SEQ_ERROR) | NVME_SC_DNR;
		goto out;
	}
	nvmf_tgt_ctrl_attach(ctrl, sq, cmd.qid);
	req->connect_ctrl = ctrl;
	st = 0;
out:
	req->connect_status = st;
	req->msg.fn = io_connect_answer;
	if (sq->pg == nvmf_tgt_main_pg(sq->tgt))
		io_connect_answer(req);
	else
		nvmf_pg_post(sq->pg, &req->msg);
}

static void execute_io_connect(struct nvmf_req *req)
{
	struct nvmf_pg *main_pg = nvmf_tgt_main_pg(req->sq->tgt);
	req->msg.fn = io_connect_attach;
	req->msg.arg = req;
	if (req->sq->pg == main_pg)
		io_connect_attach(req);
	else
		nvmf_pg_post(main_pg, &req->msg);
}

nvme_status_t nvmf_parse_connect_cmd(struct nvmf_req *req)
{
	struct nvmf_connect_cmd cmd;
	if (fctype(req) != nvme_fabrics_type_connect)
		return nvme_generic(NVME_SC_INVALID_OPCODE);
	nvmf_connect_decode(req->cmd, &cmd);
	if (cmd.recfmt != 0)
		return nvme_cmd_specific(NVME_SC_CONNECT_FORMAT);
	req->dir = NVMF_XFER_H2C;
	req->data_len = NVMF_CONNECT_DATA_SIZE;
	req->execute = cmd.qid == 0 ? execute_admin_connect : execute_io_connect;
	return 0;
}

static void execute_prop_get(struct nvmf_req *req)
{
	uint64_t val = 0;
	struct nvmf_property_cmd p;
	nvmf_property_decode(req->cmd, &p);
	nvme_status_t st = nvmf_tgt_ctrl_prop_get(req->sq->ctrl, p.ofst,
						  p.attrib & NVMF_PROP_ATTRIB_SIZE8, &val);
	req->cqe->result.u64 = htole64(val);
	nvmf_req_complete(req, st);
}

static void execute_prop_set(struct nvmf_req *req)
{
	struct nvmf_property_cmd p;
	nvmf_property_decode(req->cmd, &p);
	nvme_status_t st = nvmf_tgt_ctrl_prop_set(req->sq->ctrl, req, p.ofst,
						  p.attrib & NVMF_PROP_ATTRIB_SIZE8, p.value);
	if (st != NVMF_PROP_PENDING)
		nvmf_req_complete(req, st);
}

nvme_status_t nvmf_parse_fabrics_cmd(struct nvmf_req *req)
{
	/* Authentication runs on every queue (target/auth.c). */
	if (fctype(req) == nvme_fabrics_type_auth_send ||
	    fctype(req) == nvme_fabrics_type_auth_receive)
		return nvmf_parse_auth_cmd(req);
	/* Properties live on the admin queue; a connected queue takes no second Connect. */
	if (req->sq->qid != 0)
		return nvme_generic(NVME_SC_INVALID_OPCODE);
	switch (fctype(req)) {
	case nvme_fabrics_type_property_get:
		req->execute = execute_prop_get;
		return 0;
	case nvme_fabrics_type_property_set:
		req->execute = execute_prop_set;
		return 0;
	default:
		return nvme_generic(NVME_SC_INVALID_OPCODE);
	}
}
