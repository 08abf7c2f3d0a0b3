/* SPDX-License-Identifier: MIT */
/*
 * Passthru backend: one namespace of a raw NVMe drive a passthru subsystem serves
 * (subsystem/nvme-drive.h). A host's I/O command passes as it is (NVMF_BDEV_NVME_CMD);
 * what the target core itself asks (READ and WRITE of a fused Compare and Write, FLUSH,
 * WRITE_ZEROES, DISCARD) becomes the NVMe command that does it (NVM Command Set 3.3:
 * Read 02h, Write 01h, Flush 00h, Write Zeroes 08h, Dataset Management 09h with the
 * deallocate attribute), split where one command cannot carry it all (NLB is 16 bits,
 * a Read or Write at most the drive's max_transfer).
 *
 * A namespace with metadata (ms > 0, necessarily extended-LBA: a separate buffer is
 * refused at open) holds data and metadata interleaved: a translated READ or WRITE
 * would move (1 << lba_shift) + ms bytes a block, which the core's buffers, sized in data
 * blocks, do not hold. Those two are refused (-EOPNOTSUPP); a host's own Read and Write
 * pass through with the metadata inline in its buffer.
 */
#include "subsystem/backend.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NLB_MAX 65536u /* blocks one Read/Write/Write Zeroes covers (16-bit NLB, 0's based) */

struct nvmf_bdev *nvmf_bdev_open_passthru(struct nvmf_drive *drive, uint32_t nsid, char *err,
					  size_t errlen)
{
	const struct nvmf_drive_ns *ns = nvmf_drive_ns_find(drive, nsid);
	if (!ns) {
		snprintf(err, errlen, "%s nsid %u: no such active namespace", drive->path, nsid);
		return NULL;
	}
	if (ns->refused[0]) {
		snprintf(err, errlen, "%s %s", drive->path, ns->refused);
		return NULL;
	}
	struct nvmf_bdev *b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "%s nsid %u: out of memory", drive->path, nsid);
		return NULL;
	}
	const struct nvme_id_ctrl *id = (const struct nvme_id_ctrl *)drive->id_ctrl;
	b->ops = &nvmf_backend_passthru_ops;
	b->kind = NVMF_BACKEND_PASSTHRU;
	b->fd = -1;
	b->block_size = 1u << ns->lba_shift;
	b->size = ns->nsze << ns->lba_shift;
	b->volatile_cache = id->vwc & 1;
	b->drive = drive;
	b->drive_nsid = nsid;
	b->drive_ns = malloc(sizeof(*b->drive_ns));
	if (!b->drive_ns) {
		free(b);
		snprintf(err, errlen, "%s nsid %u: out of memory", drive->path, nsid);
		return NULL;
	}
	*b->drive_ns = *ns;
	/* Its own descriptor of the namespace's char device: a rescan that finds the
	 * namespace gone closes the drive's (ns_close) while this backend may still drain
	 * commands; theirs must not land on a closed, or reused, descriptor. */
	if (ns->fd >= 0 && (b->drive_ns->fd = fcntl(ns->fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "%s nsid %u: %s", drive->path, nsid, strerror(errno));
		free(b->drive_ns);
		free(b);
		return NULL;
	}
	if (ns->ms)
		nvmf_bdev_note(b,
			       "%s nsid %u: %u bytes of metadata inline per block: hosts' commands "
			       "pass through, but the target's own reads and writes (fused "
			       "Compare and Write) are refused",
			       drive->path, nsid, ns->ms);
	return b;
}

static void passthru_close(struct nvmf_bdev *b)
{
	if (b->drive_ns && b->drive_ns->fd >= 0)
		close(b->drive_ns->fd);
	free(b->drive_ns);
	b->drive_ns = NULL;
	b->drive = NULL; /* the subsystem's: closed with it */
}

/* The drive answered (or lost: @err) a host's command: its status and result as they are. */
static void cmd_done(struct nvmf_drive_io *dio, int err)
{
	struct nvmf_bdev_io *io = container_of(dio, struct nvmf_bdev_io, dio);
	io->nvme_status = dio->status;
	io->nvme_result = dio->result;
	io->done_bytes = err ? 0 : io->len;
	io->done(io, err);
}

/* One chunk's length in bytes from io->done_bytes on. */
static uint64_t chunk_len(const struct nvmf_bdev *b, const struct nvmf_bdev_io *io)
{
	uint64_t left = io->len - io->done_bytes, bs = b->block_size;
	uint64_t max = (uint64_t)NLB_MAX * bs;
	if (io->op == NVMF_BDEV_DISCARD)
		max = (uint64_t)UINT32_MAX * bs; /* a range's NLB is 32 bits, 1's based */
	else if (io->op != NVMF_BDEV_WRITE_ZEROES && b->drive->max_transfer / bs * bs < max)
		max = b->drive->max_transfer / bs * bs;
	if (max == 0)
		max = bs;
	return left < max ? left : max;
}

static void rw_chunk_done(struct nvmf_drive_io *dio, int err);

/* Builds and queues the command for the next chunk of translated @io. */
static int submit_chunk(struct nvmf_bdev *b, const struct nvmf_drive_ns *ns, struct nvmf_aio *aio,
			struct nvmf_bdev_io *io)
{
	struct nvme_sqe c = { 0 };
	uint64_t len = chunk_len(b, io), off = io->offset + io->done_bytes;
	uint64_t slba = off >> ns->lba_shift, nlb = len >> ns->lba_shift;
	void *buf = NULL;
	uint32_t blen = 0;
	c.nsid = htole32(ns->nsid);
	switch (io->op) {
	case NVMF_BDEV_READ:
	case NVMF_BDEV_WRITE:
	case NVMF_BDEV_WRITE_ZEROES:
		c.opcode = io->op == NVMF_BDEV_READ  ? nvme_cmd_read :
			   io->op == NVMF_BDEV_WRITE ? nvme_cmd_write :
						       nvme_cmd_write_zeroes;
		c.cdw10 = htole32((uint32_t)slba);
		c.cdw11 = htole32((uint32_t)(slba >> 32));
		c.cdw12 = htole32((uint32_t)(nlb - 1));
		if (io->op != NVMF_BDEV_WRITE_ZEROES) {
			buf = (char *)io->buf + io->done_bytes;
			blen = (uint32_t)len;
		}
		break;
	case NVMF_BDEV_DISCARD: {
		/* One range (NR 0), attribute deallocate (CDW11 bit 2). */
		uint32_t n32 = htole32((uint32_t)nlb);
		uint64_t s64 = htole64(slba);
		memset(io->dsm_range, 0, 4);
		memcpy(io->dsm_range + 4, &n32, 4);
		memcpy(io->dsm_range + 8, &s64, 8);
		c.opcode = nvme_cmd_dsm;
		c.cdw11 = htole32(1u << 2);
		buf = io->dsm_range;
		blen = sizeof(io->dsm_range);
		break;
	}
	case NVMF_BDEV_FLUSH:
		c.opcode = nvme_cmd_flush;
		break;
	case NVMF_BDEV_NVME_CMD:
	case NVMF_BDEV_COMPARE_AND_WRITE: /* never reaches here: nvmf_bdev_submit */
		break;
	}
	io->dio.done = rw_chunk_done;
	io->dio.ctx = b;
	io->dio.status = 0;
	io->dio.result = 0;
	return b->drive->ops->io_submit(b->drive, ns, aio, &c, buf, blen, &io->dio);
}

/* A translated chunk finished: the next one, or the request's end. The drive completes
 * inline or from the ring of the poll group that submitted, so the next chunk goes on the
 * same ring (io->ring). A full ring there cannot be waited for from a completion: the
 * request fails (-EIO); only requests longer than one command can meet it. */
static void rw_chunk_done(struct nvmf_drive_io *dio, int err)
{
	struct nvmf_bdev_io *io = container_of(dio, struct nvmf_bdev_io, dio);
	struct nvmf_bdev *b = dio->ctx;
	io->nvme_status = dio->status;
	io->nvme_result = dio->result;
	if (err || dio->status) {
		io->done(io, err ? err : -EIO);
		return;
	}
	if (io->op == NVMF_BDEV_FLUSH) {
		io->done(io, 0);
		return;
	}
	io->done_bytes += chunk_len(b, io);
	if (io->done_bytes >= io->len) {
		io->done(io, 0);
		return;
	}
	int rc = submit_chunk(b, b->drive_ns, io->ring, io);
	if (rc < 0)
		io->done(io, rc == -EAGAIN ? -EIO : rc);
}

static int passthru_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	const struct nvmf_drive_ns *ns = b->drive_ns;
	io->nvme_status = 0;
	io->nvme_result = 0;
	if (io->op == NVMF_BDEV_NVME_CMD) {
		if (!io->cmd || io->len > UINT32_MAX) {
			io->done(io, -EINVAL);
			return 0;
		}
		io->dio.done = cmd_done;
		io->dio.ctx = b;
		return b->drive->ops->io_submit(b->drive, ns, aio, io->cmd, io->buf,
						(uint32_t)io->len, &io->dio);
	}
	if (ns->ms && (io->op == NVMF_BDEV_READ || io->op == NVMF_BDEV_WRITE)) {
		io->done(io, -EOPNOTSUPP); /* its buffer would need the metadata inline */
		return 0;
	}
	io->ring = aio;
	return submit_chunk(b, ns, aio, io);
}

const struct nvmf_bdev_ops nvmf_backend_passthru_ops = {
	.name = "passthru",
	.close = passthru_close,
	.submit = passthru_submit,
};
