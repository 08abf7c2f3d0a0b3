/* SPDX-License-Identifier: MIT */
/*
 * nvme-drive-check CTRL STEP: drives a real NVMe controller through the Linux drive
 * (subsystem/nvme-drive-linux.c) for tests/integration/nvme_drive_test.sh, which runs it
 * in the VM against QEMU's emulated drive (no build machine has one). It writes on the
 * drive's namespace 1: never point it at a drive whose data matters.
 *   refusals   a namespace's block and char devices are refused naming CTRL
 *   exclusive  an open drive refuses a second open, holds its namespaces' block devices
 *              O_EXCL, and lets both go at close
 *   admin      Identify Controller, Get Features through ops->admin; the drive's error
 *              status as nvme_status_t; the same Get Features through io_uring
 *              (NVME_URING_CMD_ADMIN) gives the same result dword in res2
 *   open       only open and close: prints "opened", or the refusal and exits 1
 *   io         Write then Read through io_submit on the poll group's SQE128 ring: data
 *              equal, and equal to what the block device reads; an unaligned buffer; a
 *              read past the end gets LBA Out of Range
 * Prints what it saw, one line each, and "ok" or "FAIL: ..." last; exits 0 or 1.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nvme/wire.h"
#include "subsystem/nvme-drive.h"
/* After libnvme (nvme/wire.h): it keeps its own copy of these definitions. */
#include <linux/nvme_ioctl.h>
#ifndef NVME_URING_CMD_ADMIN /* libnvme 1.3's copy stops at the I/O command */
#define NVME_URING_CMD_ADMIN _IOWR('N', 0x82, struct nvme_uring_cmd)
#endif

static int failures;

#define CHECK(cond, ...)                     \
	do {                                 \
		if (!(cond)) {               \
			printf("FAIL: ");    \
			printf(__VA_ARGS__); \
			printf("\n");        \
			failures++;          \
		}                            \
	} while (0)

static struct nvmf_drive *open_drive(const char *ctrl)
{
	char err[512] = "";
	struct nvmf_drive *d = nvmf_drive_open(ctrl, err, sizeof(err));
	if (!d)
		printf("FAIL: open %s: %s\n", ctrl, err);
	return d;
}

/* @path refused with a message naming @ctrl. */
static void expect_namespace_refused(const char *path, const char *ctrl)
{
	char err[512] = "";
	struct nvmf_drive *d = nvmf_drive_open(path, err, sizeof(err));
	printf("open %s: %s\n", path, d ? "opened" : err);
	CHECK(!d, "%s opened", path);
	if (d)
		nvmf_drive_close(d);
	CHECK(strstr(err, "is an NVMe namespace") && strstr(err, ctrl),
	      "the refusal of %s does not name %s", path, ctrl);
}

static int step_refusals(const char *ctrl)
{
	const char *name = strrchr(ctrl, '/') ? strrchr(ctrl, '/') + 1 : ctrl;
	char p[64];
	snprintf(p, sizeof(p), "/dev/%sn1", name);
	expect_namespace_refused(p, ctrl);
	snprintf(p, sizeof(p), "/dev/ng%sn1", name + 4);
	expect_namespace_refused(p, ctrl);
	return 0;
}

static int step_exclusive(const char *ctrl)
{
	/* Someone else holds the namespace's block device O_EXCL (as a mount does): the
	 * open is refused naming it, and lets go of the controller. */
	char blk[64], err[512] = "";
	snprintf(blk, sizeof(blk), "%sn1", ctrl);
	int held = open(blk, O_RDONLY | O_EXCL);
	CHECK(held >= 0, "O_EXCL open of %s: %s", blk, strerror(errno));
	struct nvmf_drive *d = nvmf_drive_open(ctrl, err, sizeof(err));
	printf("open while %s is held O_EXCL: %s\n", blk, d ? "opened" : err);
	CHECK(!d && strstr(err, "is mounted or held by another user"),
	      "the open was not refused for the held namespace");
	if (d)
		nvmf_drive_close(d);
	if (held >= 0)
		close(held);

	d = open_drive(ctrl);
	if (!d)
		return 1;
	printf("opened %s (%s): max_transfer %u bytes, %zu namespace(s)\n", d->path, d->name,
	       d->max_transfer, d->n_ns);
	for (size_t i = 0; i < d->n_ns; i++)
		printf("  nsid %u: %s fd %d, %llu blocks of %u bytes%s%s\n", d->ns[i].nsid,
		       d->ns[i].path, d->ns[i].fd, (unsigned long long)d->ns[i].nsze,
		       1u << d->ns[i].lba_shift, d->ns[i].refused[0] ? ", refused: " : "",
		       d->ns[i].refused);
	CHECK(d->n_ns >= 1 && d->ns[0].fd >= 0, "namespace 1 not open");
	err[0] = '\0';
	struct nvmf_drive *again = nvmf_drive_open(ctrl, err, sizeof(err));
	printf("second open: %s\n", again ? "opened" : err);
	CHECK(!again && strstr(err, "is exported by"), "a second open was not refused");
	if (again)
		nvmf_drive_close(again);
	int fd = open(blk, O_RDONLY | O_EXCL);
	printf("O_EXCL open of %s while served: %s\n", blk, fd < 0 ? strerror(errno) : "opened");
	CHECK(fd < 0 && errno == EBUSY, "%s was not held exclusively", blk);
	if (fd >= 0)
		close(fd);
	nvmf_drive_close(d);
	fd = open(blk, O_RDONLY | O_EXCL);
	CHECK(fd >= 0, "%s still held after close: %s", blk, strerror(errno));
	if (fd >= 0)
		close(fd);
	d = open_drive(ctrl);
	CHECK(d != NULL, "reopening after close failed");
	if (d)
		nvmf_drive_close(d);
	return 0;
}

struct uring_op {
	struct nvmf_aio_op op;
	int res, calls;
};

static void uring_op_done(struct nvmf_aio_op *op, int res)
{
	struct uring_op *u = (struct uring_op *)op;
	u->res = res;
	u->calls++;
}

static void wait_ops(struct nvmf_aio *aio, const int *calls, int want)
{
	for (int i = 0; i < 10000 && *calls < want; i++) {
		nvmf_aio_flush(aio);
		if (!nvmf_aio_poll(aio, 64))
			usleep(1000);
	}
}

static int step_admin(const char *ctrl)
{
	struct nvmf_drive *d = open_drive(ctrl);
	if (!d)
		return 1;
	void *buf = aligned_alloc(4096, 4096);
	struct nvme_sqe c = { .opcode = 0x06 }; /* Identify, CNS 01h */
	c.cdw10 = htole32(1);
	uint16_t st = 0xffff;
	uint64_t res = 0;
	int rc = d->ops->admin(d, &c, buf, 4096, 5000, &st, &res);
	printf("Identify Controller: rc %d status 0x%x serial '%.20s' model '%.40s'\n", rc, st,
	       (char *)buf + 4, (char *)buf + 24);
	CHECK(rc == 0 && st == 0 && !memcmp(buf, d->id_ctrl, 4096),
	      "Identify Controller differs from the one the open read");

	/* CNS 0xff is reserved: Invalid Field in Command (generic 02h) with DNR. */
	c.cdw10 = htole32(0xff);
	rc = d->ops->admin(d, &c, buf, 4096, 5000, &st, &res);
	printf("Identify CNS ffh: rc %d status 0x%x\n", rc, st);
	CHECK(rc == 0 && (st & 0x7ff) == 0x002, "reserved CNS: status 0x%x, want 0x4002", st);

	/* Get Features, Number of Queues (07h): the result dword says how many. */
	struct nvme_sqe gf = { .opcode = 0x0a };
	gf.cdw10 = htole32(0x07);
	uint64_t nq = 0;
	rc = d->ops->admin(d, &gf, NULL, 0, 5000, &st, &nq);
	printf("Get Features Number of Queues (ioctl): rc %d status 0x%x result 0x%llx\n", rc, st,
	       (unsigned long long)nq);
	CHECK(rc == 0 && st == 0 && nq != 0, "Get Features through the ioctl");

	struct nvmf_aio aio;
	CHECK(nvmf_aio_init(&aio, 64) == 0 && aio.big, "no SQE128 ring");
	struct nvme_uring_cmd u = { .opcode = 0x0a, .cdw10 = 0x07 };
	struct uring_op op = { .op.done = uring_op_done };
	rc = nvmf_aio_uring_cmd(&aio, d->fd, NVME_URING_CMD_ADMIN, &u, sizeof(u), &op.op);
	wait_ops(&aio, &op.calls, 1);
	printf("Get Features Number of Queues (io_uring): queue %d, res %d res2 0x%llx\n", rc,
	       op.res, (unsigned long long)op.op.res2);
	CHECK(rc == 0 && op.calls == 1 && op.res == 0 && op.op.res2 == nq,
	      "io_uring admin result differs");
	nvmf_aio_fini(&aio);
	free(buf);
	nvmf_drive_close(d);
	return 0;
}

struct drive_op {
	struct nvmf_drive_io io;
	int err, calls;
};

static void drive_op_done(struct nvmf_drive_io *io, int err)
{
	struct drive_op *o = (struct drive_op *)io;
	o->err = err;
	o->calls++;
}

/* One command through io_submit, waited for. */
static int run_io(struct nvmf_drive *d, struct nvmf_aio *aio, uint8_t opcode, uint64_t slba,
		  uint32_t blocks, void *buf, struct drive_op *o)
{
	const struct nvmf_drive_ns *ns = nvmf_drive_ns_find(d, 1);
	struct nvme_sqe c = { .opcode = opcode };
	c.cdw10 = htole32((uint32_t)slba);
	c.cdw11 = htole32((uint32_t)(slba >> 32));
	c.cdw12 = htole32(blocks - 1);
	*o = (struct drive_op){ .io.done = drive_op_done, .io.status = 0xffff };
	int rc = d->ops->io_submit(d, ns, aio, &c, buf, blocks << ns->lba_shift, &o->io);
	if (rc)
		return rc;
	wait_ops(aio, &o->calls, 1);
	return 0;
}

static int step_io(const char *ctrl)
{
	struct nvmf_drive *d = open_drive(ctrl);
	if (!d)
		return 1;
	const struct nvmf_drive_ns *ns = nvmf_drive_ns_find(d, 1);
	CHECK(ns && ns->fd >= 0, "namespace 1 not open");
	if (!ns || ns->fd < 0)
		return 1;
	uint32_t bs = 1u << ns->lba_shift, blocks = 16;
	size_t len = (size_t)blocks * bs;
	/* Its block device: /dev/ngXnY's nvmeXnY (6.12 scans namespaces in parallel: nsid 1
	 * need not be n1). */
	char blk[64];
	snprintf(blk, sizeof(blk), "/dev/nvme%s", ns->path + strlen("/dev/ng"));
	uint8_t *out = aligned_alloc(4096, len), *in = aligned_alloc(4096, len + 4096);
	for (size_t i = 0; i < len; i++)
		out[i] = (uint8_t)(i * 13 + 7 + i / 4096);
	struct nvmf_aio aio;
	CHECK(nvmf_aio_init(&aio, 64) == 0 && aio.big, "no SQE128 ring");
	struct drive_op o;
	int rc = run_io(d, &aio, 0x01, 8, blocks, out, &o);
	printf("Write %u blocks at LBA 8: submit %d, err %d, status 0x%x\n", blocks, rc, o.err,
	       o.io.status);
	CHECK(rc == 0 && o.calls == 1 && o.err == 0 && o.io.status == 0, "Write failed");
	memset(in, 0, len);
	rc = run_io(d, &aio, 0x02, 8, blocks, in, &o);
	printf("Read back: submit %d, err %d, status 0x%x, data %s\n", rc, o.err, o.io.status,
	       memcmp(in, out, len) ? "DIFFERS" : "equal");
	CHECK(rc == 0 && o.err == 0 && o.io.status == 0 && !memcmp(in, out, len), "Read failed");

	/* An unaligned buffer: the kernel copies through a bounce buffer (blk_rq_map_user). */
	memset(in, 0, len + 1);
	rc = run_io(d, &aio, 0x02, 8, blocks, in + 1, &o);
	printf("Read into a buffer at an odd address: submit %d, err %d, status 0x%x, data %s\n",
	       rc, o.err, o.io.status, memcmp(in + 1, out, len) ? "DIFFERS" : "equal");

	/* Past the end: LBA Out of Range (generic 80h). */
	rc = run_io(d, &aio, 0x02, ns->nsze, 1, in, &o);
	printf("Read at LBA %llu (the end): submit %d, err %d, status 0x%x\n",
	       (unsigned long long)ns->nsze, rc, o.err, o.io.status);
	CHECK(rc == 0 && o.err == 0 && (o.io.status & 0x7ff) == 0x080,
	      "read past the end: status 0x%x, want LBA Out of Range", o.io.status);

	/* max_transfer at a buffer not page aligned (one page more to map), then more than
	 * the queue's max_hw_sectors_kb: the kernel refuses that whole (-EINVAL), never
	 * part of it. */
	size_t big = 2u << 20;
	uint8_t *huge = aligned_alloc(4096, big + 4096);
	rc = run_io(d, &aio, 0x02, 0, d->max_transfer / bs, huge + 512, &o);
	printf("Read of max_transfer %u bytes at a 512-byte offset: submit %d, err %d, status "
	       "0x%x\n",
	       d->max_transfer, rc, o.err, o.io.status);
	CHECK(rc == 0 && o.err == 0 && o.io.status == 0, "max_transfer read failed");
	rc = run_io(d, &aio, 0x02, 0, (uint32_t)(big / bs), huge, &o);
	printf("Read of %zu bytes: submit %d, err %d (%s), status 0x%x\n", big, rc, o.err,
	       strerror(-o.err), o.io.status);
	CHECK(rc == 0 && o.calls == 1 && (o.err < 0 || o.io.status), "a 2 MiB read passed");
	free(huge);
	nvmf_aio_fini(&aio);
	nvmf_drive_close(d);

	/* What the block device reads there now. */
	int fd = open(blk, O_RDONLY | O_DIRECT);
	ssize_t n = fd >= 0 ? pread(fd, in, len, 8 * (off_t)bs) : -1;
	printf("%s at LBA 8: %zd bytes, data %s\n", blk, n,
	       n == (ssize_t)len && !memcmp(in, out, len) ? "equal" : "DIFFERS");
	CHECK(n == (ssize_t)len && !memcmp(in, out, len), "the block device reads other data");
	if (fd >= 0)
		close(fd);
	free(out);
	free(in);
	return 0;
}

static int step_open(const char *ctrl)
{
	char err[512] = "";
	struct nvmf_drive *d = nvmf_drive_open(ctrl, err, sizeof(err));
	printf("%s\n", d ? "opened" : err);
	if (!d)
		return 1;
	nvmf_drive_close(d);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s /dev/nvmeX refusals|exclusive|admin|open|io\n", argv[0]);
		return 2;
	}
	int rc = !strcmp(argv[2], "refusals")  ? step_refusals(argv[1]) :
		 !strcmp(argv[2], "exclusive") ? step_exclusive(argv[1]) :
		 !strcmp(argv[2], "admin")     ? step_admin(argv[1]) :
		 !strcmp(argv[2], "open")      ? step_open(argv[1]) :
		 !strcmp(argv[2], "io")        ? step_io(argv[1]) :
						 (fprintf(stderr, "unknown step %s\n", argv[2]), 2);
	if (rc == 2)
		return 2;
	printf(failures || rc ? "FAIL\n" : "ok\n");
	return failures || rc ? 1 : 0;
}
