/* SPDX-License-Identifier: MIT */
/*
 * Admin commands of an NVM subsystem controller (NVMe Base 2.0 section 5, as NVMe-oF 1.1
 * section 4 restricts them for fabrics): the command table, Keep Alive and Abort. The
 * other commands have a file each (target/admin.h); the discovery controller takes the
 * shared ones (nvmf_parse_shared_admin_cmd).
 */
#include "target/admin.h"
#include "target/passthru.h"

const struct nvmf_cmd_def *nvmf_cmd_find(const struct nvmf_cmd_def *table, size_t n, uint8_t opcode)
{
	for (size_t i = 0; i < n; i++)
		if (table[i].opcode == opcode)
			return &table[i];
	return NULL;
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
	nvmf_feature_result(req, 1);
	nvmf_req_complete(req, 0);
}

static nvme_status_t parse_abort(struct nvmf_req *req)
{
	req->execute = execute_abort;
	return 0;
}

static nvme_status_t parse_aer(struct nvmf_req *req)
{
	req->execute = nvmf_execute_aer;
	return 0;
}

static nvme_status_t parse_keep_alive(struct nvmf_req *req)
{
	req->execute = nvmf_execute_keep_alive;
	return 0;
}

/* Both controller types. */
static const struct nvmf_cmd_def shared_cmds[] = {
	{ nvme_admin_set_features, NVME_CMD_EFFECTS_CSUPP, nvmf_parse_features, false },
	{ nvme_admin_get_features, NVME_CMD_EFFECTS_CSUPP, nvmf_parse_features, false },
	{ nvme_admin_async_event, NVME_CMD_EFFECTS_CSUPP, parse_aer, false },
	{ nvme_admin_keep_alive, NVME_CMD_EFFECTS_CSUPP, parse_keep_alive, false },
};

/* An NVM subsystem's controller only. */
static const struct nvmf_cmd_def io_ctrl_cmds[] = {
	{ nvme_admin_get_log_page, NVME_CMD_EFFECTS_CSUPP, nvmf_parse_log_page, false },
	{ nvme_admin_identify, NVME_CMD_EFFECTS_CSUPP, nvmf_parse_identify, false },
	{ nvme_admin_abort_cmd, NVME_CMD_EFFECTS_CSUPP, parse_abort, false },
};

#define N_SHARED  (sizeof(shared_cmds) / sizeof(shared_cmds[0]))
#define N_IO_CTRL (sizeof(io_ctrl_cmds) / sizeof(io_ctrl_cmds[0]))

void nvmf_admin_cmd_effects(__le32 acs[256])
{
	for (size_t i = 0; i < N_SHARED; i++)
		acs[shared_cmds[i].opcode] = htole32(shared_cmds[i].effects);
	for (size_t i = 0; i < N_IO_CTRL; i++)
		acs[io_ctrl_cmds[i].opcode] = htole32(io_ctrl_cmds[i].effects);
}

nvme_status_t nvmf_parse_shared_admin_cmd(struct nvmf_req *req)
{
	const struct nvmf_cmd_def *d = nvmf_cmd_find(shared_cmds, N_SHARED, req->cmd->opcode);
	return d ? d->parse(req) : nvme_generic(NVME_SC_INVALID_OPCODE);
}

nvme_status_t nvmf_parse_admin_cmd_own(struct nvmf_req *req)
{
	const struct nvmf_cmd_def *d = nvmf_cmd_find(io_ctrl_cmds, N_IO_CTRL, req->cmd->opcode);
	return d ? d->parse(req) : nvmf_parse_shared_admin_cmd(req);
}

nvme_status_t nvmf_parse_admin_cmd(struct nvmf_req *req)
{
	/* nvmet_check_ctrl_status(): nothing but Fabrics commands before CC.EN/CSTS.RDY. */
	if (!nvmf_tgt_ctrl_ready(req->sq->ctrl))
		return nvme_generic(NVME_SC_CMD_SEQ_ERROR);
	/* A passthru subsystem's controller: its policy decides (target/passthru-admin.c). */
	if (req->sq->ctrl->subsys->drive)
		return nvmf_parse_passthru_admin(req);
	return nvmf_parse_admin_cmd_own(req);
}
