/* SPDX-License-Identifier: MIT */
/*
 * I/O commands on a passthru namespace (target/passthru.h): after the core's checks
 * (namespace, ANA, reservation access: target/io-cmd.c), a command the drive supports
 * goes to it as the host sent it, with the data the host's SGL describes, and the
 * drive's status and result come back as they are. Reservation commands and the halves
 * of a fused Compare and Write never get here: the core keeps them (its reservations
 * span every host, which the drive, seeing one host, cannot; its Compare and Write runs
 * the drive's Read and Write under the namespace lock).
 */
#include <errno.h>
#include <string.h>
#include "subsystem/nvme-drive.h"
#include "target/admin.h"
#include "target/passthru.h"

uint32_t nvmf_passthru_data_len(const struct nvme_sqe *cmd)
{
	const struct nvme_sgl_desc *d = &cmd->dptr;
	if ((d->keyed.type >> 4) == NVME_SGL_TYPE_KEYED_DATA)
		return nvme_sgl_keyed_length(d);
	return le32toh(d->unkeyed.length);
}

nvme_status_t nvmf_passthru_parse_data(struct nvmf_req *req, uint32_t max_transfer)
{
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t len = nvmf_passthru_data_len(req->cmd);
	/* Opcode bits 1:0 give the direction (NVMe Base 2.0 figure 86); both at once has no
	 * fabrics transfer. */
	switch (req->cmd->opcode & 3) {
	case 0:
		if (len)
			return nvme_generic(NVME_SC_INVALID_FIELD);
		req->dir = NVMF_XFER_NONE;
		break;
	case 1:
		req->dir = NVMF_XFER_H2C;
		break;
	case 2:
		req->dir = NVMF_XFER_C2H;
		break;
	default:
		return nvme_generic(NVME_SC_INVALID_FIELD);
	}
	/* No more than the drive moves in one command, nor the controller's MDTS (NVMe Base
	 * 2.0 figure 275: Invalid Field in Command). */
	if (len > max_transfer || nvmf_mdts_exceeded(ctrl, len))
		return nvme_generic(NVME_SC_INVALID_FIELD);
	req->data_len = len;
	return 0;
}

/* The NVM command set's opcodes a drive without an effects log is taken to support
 * (NVM Command Set 1.0 figure 17, reservations aside: the core has them). */
static bool known_nvm_opcode(uint8_t op)
{
	switch (op) {
	case nvme_cmd_flush:
	case nvme_cmd_write:
	case nvme_cmd_read:
	case nvme_cmd_write_uncor:
	case nvme_cmd_compare:
	case nvme_cmd_write_zeroes:
	case nvme_cmd_dsm:
	case nvme_cmd_verify:
	case nvme_cmd_copy:
		return true;
	}
	return false;
}

static void passthru_io_done(struct nvmf_bdev_io *io, int err)
{
	struct nvmf_req *req = io->ctx;
	nvme_status_t st;
	if (err == -ETIMEDOUT) {
		/* Past io_timeout (or the driver's): the kernel aborted it, as the admin
		 * worker answers one past admin_timeout. Retryable: no DNR. */
		st = nvme_generic(NVME_SC_ABORT_REQ);
	} else if (err) {
		/* The command never reached the drive, or was lost on the way. */
		st = nvmf_io_backend_status(req, io, err, req->dir == NVMF_XFER_H2C);
	} else {
		st = io->nvme_status;
		req->cqe->result.u64 = htole64(io->nvme_result);
		if (!st)
			nvmf_io_count(req);
	}
	nvmf_req_complete(req, st);
}

static void execute_passthru_io(struct nvmf_req *req)
{
	req->bio.cmd = req->cmd;
	nvmf_req_bio_submit(req, NVMF_BDEV_NVME_CMD, 0, req->data_len, req->data, passthru_io_done);
}

nvme_status_t nvmf_parse_passthru_io(struct nvmf_req *req)
{
	const struct nvmf_drive *d = req->ns->bdev->drive;
	uint8_t op = req->cmd->opcode;
	bool supported = d->has_effects ?
				 (nvmf_drive_effects(d, false, op) & NVME_CMD_EFFECTS_CSUPP) :
				 known_nvm_opcode(op);
	if (!supported)
		return nvme_generic(NVME_SC_INVALID_OPCODE);
	nvme_status_t st = nvmf_passthru_parse_data(req, d->max_transfer);
	if (st)
		return st;
	req->slba = (uint64_t)le32toh(req->cmd->cdw11) << 32 | le32toh(req->cmd->cdw10);
	req->execute = execute_passthru_io;
	return 0;
}
