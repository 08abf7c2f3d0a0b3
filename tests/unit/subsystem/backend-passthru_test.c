/* Unit tests for subsystem/backend-passthru.c on the in-memory drive
 * (tests/unit/support/fake-drive.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "subsystem/backend.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"
#include "tests/unit/support/fake-drive.h"

/* Runs @io (completes inline on the fake) and returns its status. */
static int run(struct nvmf_bdev *b, struct nvmf_bdev_io *io)
{
	struct waiter w = { 0 };
	io->done = io_done;
	io->ctx = &w;
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, NULL, io), 0);
	CU_ASSERT_EQUAL(w.calls, 1);
	io->ctx = NULL; /* done ran (inline): @w goes out of scope */
	return w.status;
}

static void open_takes_the_drive_namespace_geometry(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0,sepmeta", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct nvmf_bdev *b1 = nvmf_bdev_open_passthru(d, 1, err, sizeof(err));
	struct nvmf_bdev *b2 = nvmf_bdev_open_passthru(d, 2, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b2);
	CU_ASSERT_EQUAL(b1->kind, NVMF_BACKEND_PASSTHRU);
	CU_ASSERT_STRING_EQUAL(b1->ops->name, "passthru");
	CU_ASSERT_EQUAL(b1->block_size, 512);
	CU_ASSERT_EQUAL(b1->size, 1 << 20);
	CU_ASSERT_TRUE(b1->volatile_cache); /* the fake's VWC */
	CU_ASSERT_PTR_EQUAL(b1->drive, d);
	CU_ASSERT_EQUAL(b1->drive_nsid, 1);
	CU_ASSERT_STRING_EQUAL(b1->note, "");
	/* 4096 B + 8 B inline: the block size is the data size, and a note says what the
	 * target's own reads and writes cannot do there. */
	CU_ASSERT_EQUAL(b2->block_size, 4096);
	CU_ASSERT_EQUAL(b2->size, 256 * 4096);
	CU_ASSERT_PTR_NOT_NULL(strstr(b2->note, "8 bytes of metadata inline"));
	CU_ASSERT_PTR_NULL(nvmf_bdev_open_passthru(d, 3, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "/dev/fake0,sepmeta nsid 3: 8 bytes of metadata in a "
				    "separate buffer, which no fabrics transport carries");
	CU_ASSERT_PTR_NULL(nvmf_bdev_open_passthru(d, 9, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "/dev/fake0,sepmeta nsid 9: no such active namespace");
	nvmf_bdev_close(b1);
	nvmf_bdev_close(b2);
	nvmf_drive_close(d);
}

/* WRITE and READ become Write and Read, split at max_transfer (128 KiB): the drive's
 * memory holds what was written, and it reads back. */
static void write_then_read_back_through_the_drive(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct fake_drive *f = fake_drive_of(d);
	struct nvmf_bdev *b = nvmf_bdev_open_passthru(d, 1, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	size_t len = 256 * 1024;
	char *out = aligned_buf(len), *in = aligned_buf(len);
	fill(out, len, 5);
	struct nvmf_bdev_io io = { .op = NVMF_BDEV_WRITE, .offset = 4096, .len = len, .buf = out };
	CU_ASSERT_EQUAL(run(b, &io), 0);
	CU_ASSERT_EQUAL(f->io_calls, 2);
	CU_ASSERT_EQUAL(f->last_io.opcode, nvme_cmd_write);
	CU_ASSERT_EQUAL(le32toh(f->last_io.cdw10), 8 + 256); /* second half's SLBA */
	CU_ASSERT_EQUAL(le32toh(f->last_io.cdw12), 255);     /* 256 blocks, 0's based */
	CU_ASSERT_EQUAL(memcmp(fake_drive_ns_data(f, 1, 8), out, len), 0);
	io = (struct nvmf_bdev_io){ .op = NVMF_BDEV_READ, .offset = 4096, .len = len, .buf = in };
	CU_ASSERT_EQUAL(run(b, &io), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, len), 0);
	CU_ASSERT_EQUAL(f->host_reads, 2);
	io = (struct nvmf_bdev_io){ .op = NVMF_BDEV_FLUSH };
	CU_ASSERT_EQUAL(run(b, &io), 0);
	CU_ASSERT_EQUAL(f->last_io.opcode, nvme_cmd_flush);
	free(out);
	free(in);
	nvmf_bdev_close(b);
	nvmf_drive_close(d);
}

static void write_zeroes_and_discard_reach_the_drive(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct fake_drive *f = fake_drive_of(d);
	struct nvmf_bdev *b = nvmf_bdev_open_passthru(d, 1, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	memset(fake_drive_ns_data(f, 1, 0), 0x5a, 64 * 512);
	struct nvmf_bdev_io io = { .op = NVMF_BDEV_WRITE_ZEROES, .offset = 512, .len = 1024 };
	CU_ASSERT_EQUAL(run(b, &io), 0);
	CU_ASSERT_EQUAL(f->last_io.opcode, nvme_cmd_write_zeroes);
	io = (struct nvmf_bdev_io){ .op = NVMF_BDEV_DISCARD, .offset = 8192, .len = 4096 };
	CU_ASSERT_EQUAL(run(b, &io), 0);
	CU_ASSERT_EQUAL(f->last_io.opcode, nvme_cmd_dsm);
	CU_ASSERT_EQUAL(le32toh(f->last_io.cdw11), 4); /* deallocate */
	const uint8_t *m = fake_drive_ns_data(f, 1, 0);
	CU_ASSERT_EQUAL(m[511], 0x5a);
	CU_ASSERT_TRUE(all_zero(m + 512, 1024));
	CU_ASSERT_EQUAL(m[1536], 0x5a);
	CU_ASSERT_EQUAL(m[8191], 0x5a);
	CU_ASSERT_TRUE(all_zero(m + 8192, 4096));
	CU_ASSERT_EQUAL(m[8192 + 4096], 0x5a);
	nvmf_bdev_close(b);
	nvmf_drive_close(d);
}

/* A host's command passes as it is; the drive's status comes back with done(0). */
static void host_command_passes_with_the_drive_status(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct fake_drive *f = fake_drive_of(d);
	struct nvmf_bdev *b = nvmf_bdev_open_passthru(d, 2, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	uint8_t blk[4104];
	fill(blk, sizeof(blk), 9);
	struct nvme_sqe c = { .opcode = nvme_cmd_write };
	c.cdw10 = htole32(3);
	struct nvmf_bdev_io io = {
		.op = NVMF_BDEV_NVME_CMD, .cmd = &c, .buf = blk, .len = sizeof(blk)
	};
	CU_ASSERT_EQUAL(run(b, &io), 0);
	CU_ASSERT_EQUAL(io.nvme_status, 0);
	CU_ASSERT_EQUAL(memcmp(fake_drive_ns_data(f, 2, 3), blk, sizeof(blk)), 0); /* with
				 * its 8 bytes of metadata */
	blk[100] ^= 1;
	c.opcode = nvme_cmd_compare;
	CU_ASSERT_EQUAL(run(b, &io), 0);
	CU_ASSERT_EQUAL(io.nvme_status,
			nvme_status(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED) | NVME_SC_DNR);
	/* The target's own READ cannot carry the metadata: refused. */
	io = (struct nvmf_bdev_io){ .op = NVMF_BDEV_READ, .len = 4096, .buf = blk };
	CU_ASSERT_EQUAL(run(b, &io), -EOPNOTSUPP);
	nvmf_bdev_close(b);
	nvmf_drive_close(d);
}

/* The drive failing a translated command: -EIO, with its status kept. */
static void drive_error_is_eio_with_the_status(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct nvmf_bdev *b = nvmf_bdev_open_passthru(d, 1, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	fake_drive_set_ns(fake_drive_of(d), 1, false, 0); /* gone under us */
	char buf[512];
	struct nvmf_bdev_io io = { .op = NVMF_BDEV_READ, .len = 512, .buf = buf };
	CU_ASSERT_EQUAL(run(b, &io), -EIO);
	CU_ASSERT_EQUAL(io.nvme_status, nvme_generic(NVME_SC_INVALID_NS) | NVME_SC_DNR);
	nvmf_bdev_close(b);
	nvmf_drive_close(d);
}

/* The backend holds its own descriptor of the namespace: the drive closing its own (a
 * rescan that found the namespace gone) leaves the backend's open. */
static void backend_keeps_its_own_descriptor_of_the_namespace(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	d->ns[0].fd = fd; /* as the Linux drive's ns_open sets it */
	struct nvmf_bdev *b = nvmf_bdev_open_passthru(d, 1, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_NOT_EQUAL(b->drive_ns->fd, fd);
	close(fd);
	d->ns[0].fd = -1;
	CU_ASSERT_NOT_EQUAL(fcntl(b->drive_ns->fd, F_GETFD), -1); /* still open */
	nvmf_bdev_close(b);
	nvmf_drive_close(d);
}

const struct unit_test backend_passthru_tests[] = {
	{ "backend_keeps_its_own_descriptor_of_the_namespace",
	  backend_keeps_its_own_descriptor_of_the_namespace },
	{ "open_takes_the_drive_namespace_geometry", open_takes_the_drive_namespace_geometry },
	{ "write_then_read_back_through_the_drive", write_then_read_back_through_the_drive },
	{ "write_zeroes_and_discard_reach_the_drive", write_zeroes_and_discard_reach_the_drive },
	{ "host_command_passes_with_the_drive_status", host_command_passes_with_the_drive_status },
	{ "drive_error_is_eio_with_the_status", drive_error_is_eio_with_the_status },
	{ NULL, NULL },
};
