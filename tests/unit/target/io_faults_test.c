/*
 * The I/O path when the storage fails (target/io-cmd.c, the error log of target/ctrl.c
 * and admin-cmd.c, the backends' continuations in subsystem/backend.c, the poll group's
 * io_uring in subsystem/aio.c), through the whole stack: a host (libnvmf's queue code)
 * on the loop transport, the core, and real backends wrapped by the test-only fault
 * injection (tests/fault/fault.h) that fails, refuses or cuts short what they do.
 *
 * Namespaces: 1 = RAM, 512 B blocks; 2 = a file, 512 B blocks, buffered (page cache);
 * 3 = a file, 4 KiB blocks, O_DIRECT where the filesystem has it. Each 4 MiB. The file
 * namespaces go through io_uring even where the file is on a tmpfs (the test clears
 * in_memory) unless a test asks for the inline path of in-memory files.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "nvme/status.h"
#include "tests/fault/fault.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "util/clock.h"

#define SUBNQN   "nqn.2026-11.io.nvmf-rdma:faults"
#define NS_BYTES (4u << 20)

#define ST(sct, sc) ((int)nvme_status((sct), (sc)))
#define GEN(sc)     ST(NVME_SCT_GENERIC, (sc))
#define DNR(st)     ((int)((st) | NVME_SC_DNR))
#define READ_ERROR  ST(NVME_SCT_MEDIA, NVME_SC_READ_ERROR)  /* 2h/81h */
#define WRITE_FAULT ST(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT) /* 2h/80h */

struct fixture {
	struct fx fx;
	struct fxq q; /* I/O queue 1 */
	char dir[64], path2[96], path3[96];
};

static struct nvmf_ns *ns(struct fixture *f, uint32_t nsid)
{
	return nvmf_subsys_ns(fx_ctrl(&f->fx)->subsys, nsid);
}

static struct nvmf_ns_config *file_ns(struct nvmf_subsys_config *s, uint32_t nsid, uint32_t bs,
				      const char *path, bool buffered)
{
	struct nvmf_ns_config *c = fx_cfg_ns(s, nsid, NVMF_BACKEND_FILE, NS_BYTES, bs);
	c->path = strdup(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->path);
	c->create = true;
	c->buffered = buffered;
	return c;
}

/* The target of the header, its port allowing @queue_size entries, its poll group's
 * io_uring @ring_depth entries (0: the target's own); queue 1 connected with
 * @queue_size entries; every namespace wrapped; io_uring for the files. */
static struct fixture *setup_q(uint32_t queue_size, unsigned ring_depth)
{
	nvmf_fault_reset();
	nvmf_fault_set_ring_depth(ring_depth);
	struct fixture *f = calloc(1, sizeof(*f));
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/nvmf-faults-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(f->dir));
	snprintf(f->path2, sizeof(f->path2), "%s/ns2", f->dir);
	snprintf(f->path3, sizeof(f->path3), "%s/ns3", f->dir);
	struct nvmf_config *c = &f->fx.cfg;
	struct nvmf_subsys_config *s = fx_cfg_subsys(c, SUBNQN, NULL, 2);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, NS_BYTES, 512);
	file_ns(s, 2, 512, f->path2, true);
	file_ns(s, 3, 4096, f->path3, false);
	struct nvmf_port_config *p = fx_cfg_loop_port(c, 1, AF_INET, "127.0.0.1", "4420");
	p->max_queue_size = queue_size;
	fx_cfg_expose(p, SUBNQN);
	CU_ASSERT_FATAL(fx_boot(&f->fx, "127.0.0.1", "4420") == 0);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&f->fx.admin, 0, 31, SUBNQN, FX_HOSTNQN, 0xffff, 0,
					 &f->fx.cntlid, NULL),
			      0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(&f->fx.admin), 0);
	fx_queue_init(&f->fx, &f->q);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&f->q, 1, (uint16_t)(queue_size - 1), SUBNQN, FX_HOSTNQN,
					 f->fx.cntlid, 0, NULL, NULL),
			      0);
	for (uint32_t n = 1; n <= 3; n++)
		CU_ASSERT_EQUAL_FATAL(nvmf_fault_attach(ns(f, n)->bdev, n), 0);
	ns(f, 2)->bdev->in_memory = false;
	ns(f, 3)->bdev->in_memory = false;
	return f;
}

static struct fixture *setup(void)
{
	return setup_q(128, 0);
}

static void teardown(struct fixture *f)
{
	/* Nothing may be left waiting for the ring or the backend. */
	CU_ASSERT_PTR_NULL(fx_io(&f->fx)->retry_head);
	nvmf_fault_reset();
	fx_teardown(&f->fx);
	unlink(f->path2);
	unlink(f->path3);
	rmdir(f->dir);
	free(f);
}

static int add(const char *spec)
{
	struct nvmf_fault_rule r;
	size_t n;
	unsigned depth = 0;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(nvmf_fault_parse(spec, &r, 1, &n, &depth, err, sizeof(err)), 0);
	int id = nvmf_fault_add(&r);
	CU_ASSERT_FATAL(id >= 0);
	return id;
}

/* ---- commands ---- */

static struct nvme_sqe io_cmd(uint8_t opcode, uint32_t nsid, uint64_t slba, uint32_t nlb,
			      uint16_t cid)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.command_id = cid;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32((uint32_t)slba);
	c.cdw11 = htole32((uint32_t)(slba >> 32));
	c.cdw12 = htole32((nlb - 1) & 0xffff);
	return c;
}

static uint32_t bs_of(uint32_t nsid)
{
	return nsid == 3 ? 4096 : 512;
}

static int rw(struct fixture *f, uint8_t opcode, uint32_t nsid, uint64_t slba, uint32_t nlb,
	      void *buf, uint16_t cid)
{
	struct nvme_sqe c = io_cmd(opcode, nsid, slba, nlb, cid);
	return fx_cmd(&f->q, &c, buf, nlb * bs_of(nsid), NULL);
}

static int do_write(struct fixture *f, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf)
{
	return rw(f, nvme_cmd_write, nsid, slba, nlb, buf, 0x70);
}

static int do_read(struct fixture *f, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf)
{
	return rw(f, nvme_cmd_read, nsid, slba, nlb, buf, 0x71);
}

static int flush(struct fixture *f, uint32_t nsid)
{
	struct nvme_sqe c = io_cmd(nvme_cmd_flush, nsid, 0, 1, 0x72);
	c.cdw12 = 0;
	return fx_cmd(&f->q, &c, NULL, 0, NULL);
}

static int write_zeroes(struct fixture *f, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	struct nvme_sqe c = io_cmd(nvme_cmd_write_zeroes, nsid, slba, nlb, 0x73);
	return fx_cmd(&f->q, &c, NULL, 0, NULL);
}

static int deallocate(struct fixture *f, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	struct nvme_sqe c = io_cmd(nvme_cmd_dsm, nsid, 0, 1, 0x74);
	c.cdw10 = 0; /* one range */
	c.cdw11 = htole32(NVME_DSMGMT_AD);
	c.cdw12 = 0;
	struct nvme_dsm_range r = { .nlb = htole32(nlb), .slba = htole64(slba) };
	return fx_cmd(&f->q, &c, &r, sizeof(r), NULL);
}

/* The newest @n entries of the error log (Get Log Page 01h). */
static void error_log(struct fixture *f, struct nvme_error_log_page *e, unsigned n)
{
	uint32_t numd = n * (uint32_t)sizeof(*e) / 4 - 1;
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_get_log_page;
	c.command_id = 0x7;
	c.cdw10 = htole32(NVME_LOG_LID_ERROR | (numd & 0xffff) << 16);
	memset(e, 0xff, n * sizeof(*e));
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, e, n * (uint32_t)sizeof(*e), NULL), 0);
}

static void assert_entry(const struct nvme_error_log_page *e, uint64_t count, uint16_t cid,
			 int status, uint64_t lba, uint32_t nsid)
{
	CU_ASSERT_EQUAL(le64toh(e->error_count), count);
	CU_ASSERT_EQUAL(le16toh(e->sqid), 1);
	CU_ASSERT_EQUAL(le16toh(e->cmdid), cid);
	CU_ASSERT_EQUAL(le16toh(e->status_field), (uint16_t)(status << 1)); /* phase bit 0 */
	CU_ASSERT_EQUAL(le64toh(e->lba), lba);
	CU_ASSERT_EQUAL(le32toh(e->nsid), nsid);
	CU_ASSERT_EQUAL(le16toh(e->parm_error_location), 0xffff);
}

static void fill(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 9));
}

static uint8_t *buf_of(size_t len)
{
	void *p = NULL;
	CU_ASSERT_EQUAL_FATAL(posix_memalign(&p, 4096, len), 0);
	memset(p, 0xee, len);
	return p;
}

/* @nlb blocks written at @slba of @nsid read back as written. */
static void assert_round_trip(struct fixture *f, uint32_t nsid, uint64_t slba, uint32_t nlb,
			      unsigned seed)
{
	size_t len = (size_t)nlb * bs_of(nsid);
	uint8_t *out = buf_of(len), *in = buf_of(len);
	fill(out, len, seed);
	CU_ASSERT_EQUAL(do_write(f, nsid, slba, nlb, out), 0);
	CU_ASSERT_EQUAL(do_read(f, nsid, slba, nlb, in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, len), 0);
	free(out);
	free(in);
}

/* ---- failing operations: status and error log ---- */

static void read_error_in_a_bad_range_returns_unrecovered_read_error_and_is_logged(void)
{
	struct fixture *f = setup();
	/* The same rule on RAM (inline) and on the file (io_uring). */
	add("nsid=1,op=read,lba=100-199,fail=EIO");
	add("nsid=2,op=read,lba=100-199,fail=EIO");
	uint8_t buf[8 * 512];
	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		uint64_t count = (nsid - 1) * 2;
		assert_round_trip(f, nsid, 88, 12, nsid); /* 88-99: just below the range */
		assert_round_trip(f, nsid, 200, 8, nsid); /* just above it */
		CU_ASSERT_EQUAL(rw(f, nvme_cmd_read, nsid, 96, 8, buf, 0x2a),
				READ_ERROR); /* 96-103 */
		CU_ASSERT_EQUAL(rw(f, nvme_cmd_read, nsid, 199, 1, buf, 0x2b), READ_ERROR);
		/* Writes are not affected: the rule is for reads. */
		CU_ASSERT_EQUAL(do_write(f, nsid, 150, 8, buf), 0);

		struct nvme_error_log_page e[3];
		error_log(f, e, 3);
		/* Newest first; the LBA is the command's starting LBA (as nvmet reports it). */
		assert_entry(&e[0], count + 2, 0x2b, READ_ERROR, 199, nsid);
		assert_entry(&e[1], count + 1, 0x2a, READ_ERROR, 96, nsid);
	}
	teardown(f);
}

static void write_error_returns_write_fault_and_other_blocks_stay_writable(void)
{
	struct fixture *f = setup();
	add("nsid=2,op=write,lba=50-59,fail=EIO");
	uint8_t buf[8 * 512] = { 0 };
	CU_ASSERT_EQUAL(rw(f, nvme_cmd_write, 2, 48, 8, buf, 0x31), WRITE_FAULT);
	struct nvme_error_log_page e[1];
	error_log(f, e, 1);
	assert_entry(&e[0], 1, 0x31, WRITE_FAULT, 48, 2);
	assert_round_trip(f, 2, 60, 8, 5);
	assert_round_trip(f, 2, 40, 10, 6);
	/* The failed write counted as an error, not as data written (SMART). */
	CU_ASSERT_EQUAL(fx_io_stats(&f->fx).host_writes, 2);
	teardown(f);
}

static void enospc_returns_capacity_exceeded_with_dnr(void)
{
	struct fixture *f = setup();
	add("nsid=2,op=write,fail=ENOSPC");
	add("nsid=2,op=write_zeroes,fail=ENOSPC");
	uint8_t buf[4 * 512] = { 0 };
	CU_ASSERT_EQUAL(rw(f, nvme_cmd_write, 2, 1000, 4, buf, 0x41),
			DNR(GEN(NVME_SC_CAP_EXCEEDED)));
	CU_ASSERT_EQUAL(write_zeroes(f, 2, 7, 2), DNR(GEN(NVME_SC_CAP_EXCEEDED)));
	struct nvme_error_log_page e[2];
	error_log(f, e, 2);
	assert_entry(&e[0], 2, 0x73, DNR(GEN(NVME_SC_CAP_EXCEEDED)), 7, 2);
	assert_entry(&e[1], 1, 0x41, DNR(GEN(NVME_SC_CAP_EXCEEDED)), 1000, 2);
	CU_ASSERT_EQUAL(do_read(f, 2, 1000, 4, buf), 0);
	teardown(f);
}

/* How many times @needle occurs in @hay. */
static unsigned count_of(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* A backend error reaches the log, not only a counter: one error line naming the
 * subsystem, the namespace, its file and the errno; a storm of them gives one line per
 * 10 s per namespace, the next one counting those not logged. */
static void backend_errors_are_logged_naming_the_namespace_and_rate_limited(void)
{
	struct fixture *f = setup();
	add("nsid=2,op=write,fail=ENOSPC");
	add("nsid=3,op=read,fail=EIO");
	uint8_t buf[4 * 4096] = { 0 };
	struct fx_stderr cap;
	fx_stderr_begin(&cap);
	for (int i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(rw(f, nvme_cmd_write, 2, 8, 4, buf, 0x41),
				DNR(GEN(NVME_SC_CAP_EXCEEDED)));
	CU_ASSERT_EQUAL(do_read(f, 3, 2, 1, buf), READ_ERROR); /* its own limit */
	f->fx.now += 9999;
	CU_ASSERT_EQUAL(rw(f, nvme_cmd_write, 2, 8, 4, buf, 0x41), DNR(GEN(NVME_SC_CAP_EXCEEDED)));
	f->fx.now += 1;
	CU_ASSERT_EQUAL(rw(f, nvme_cmd_write, 2, 8, 4, buf, 0x41), DNR(GEN(NVME_SC_CAP_EXCEEDED)));
	fx_stderr_end(&cap);
	char want[512];
	snprintf(want, sizeof(want),
		 "nvmf-target: backend: error: subsystem " SUBNQN ": namespace 2 (file %s): "
		 "write of 2048 bytes at byte 4096 failed: No space left on device (errno 28); "
		 "the host gets CAP_EXCEEDED|DNR\n",
		 f->path2);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, want));
	snprintf(want, sizeof(want),
		 "namespace 2 (file %s): write of 2048 bytes at byte 4096 failed: No space left "
		 "on device (errno 28); the host gets CAP_EXCEEDED|DNR (and 100 more errors "
		 "since the last line)\n",
		 f->path2);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, want));
	snprintf(want, sizeof(want),
		 "namespace 3 (file %s): read of 4096 bytes at byte 8192 failed: Input/output "
		 "error (errno 5); the host gets UNRECOVERED_READ_ERROR\n",
		 f->path3);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, want));
	/* 102 errors on namespace 2: two lines; one on namespace 3: one. */
	CU_ASSERT_EQUAL(count_of(cap.text, "namespace 2 ("), 2);
	CU_ASSERT_EQUAL(count_of(cap.text, "namespace 3 ("), 1);
	CU_ASSERT_EQUAL(count_of(cap.text, "\n"), 3);
	teardown(f);
}

static void flush_failure_reaches_the_host_as_write_fault(void)
{
	struct fixture *f = setup();
	int id = add("op=flush,fail=EIO");
	CU_ASSERT_EQUAL(flush(f, 2), WRITE_FAULT);
	CU_ASSERT_EQUAL(flush(f, 3), WRITE_FAULT);
	struct nvme_error_log_page e[1];
	error_log(f, e, 1);
	assert_entry(&e[0], 2, 0x72, WRITE_FAULT, 0, 3);
	/* A FUA write is a write, then a flush: it fails with it. */
	uint8_t buf[512] = { 0 };
	struct nvme_sqe c = io_cmd(nvme_cmd_write, 2, 0, 1, 0x50);
	c.cdw12 = htole32(le32toh(c.cdw12) | (1u << 30));
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, sizeof(buf), NULL), WRITE_FAULT);
	/* RAM has no volatile cache: its Flush never reaches the backend, so it succeeds. */
	CU_ASSERT_EQUAL(flush(f, 1), 0);
	CU_ASSERT_EQUAL(nvmf_fault_fired(id), 3);
	nvmf_fault_reset();
	CU_ASSERT_EQUAL(flush(f, 2), 0);
	teardown(f);
}

static void deallocate_and_write_zeroes_errors_return_write_fault(void)
{
	struct fixture *f = setup();
	add("nsid=3,op=discard,fail=EIO");
	add("nsid=3,op=write_zeroes,fail=EIO");
	uint8_t out[4 * 4096], in[4 * 4096];
	fill(out, sizeof(out), 9);
	CU_ASSERT_EQUAL(do_write(f, 3, 8, 4, out), 0);
	CU_ASSERT_EQUAL(deallocate(f, 3, 8, 2), WRITE_FAULT);
	CU_ASSERT_EQUAL(write_zeroes(f, 3, 10, 2), WRITE_FAULT);
	CU_ASSERT_EQUAL(do_read(f, 3, 8, 4, in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0); /* nothing was zeroed */
	struct nvme_error_log_page e[2];
	error_log(f, e, 2);
	assert_entry(&e[0], 2, 0x73, WRITE_FAULT, 10, 3);
	assert_entry(&e[1], 1, 0x74, WRITE_FAULT, 8, 3);
	teardown(f);
}

static void every_third_read_fails_and_the_others_return_the_data(void)
{
	struct fixture *f = setup();
	int id = add("nsid=1,op=read,every=3,fail=EIO");
	uint8_t out[512], in[512];
	fill(out, sizeof(out), 4);
	CU_ASSERT_EQUAL(do_write(f, 1, 5, 1, out), 0);
	for (unsigned i = 1; i <= 9; i++) {
		memset(in, 0, sizeof(in));
		int st = do_read(f, 1, 5, 1, in);
		CU_ASSERT_EQUAL(st, i % 3 ? 0 : READ_ERROR);
		if (i % 3)
			CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
	}
	CU_ASSERT_EQUAL(nvmf_fault_fired(id), 3);
	CU_ASSERT_EQUAL(fx_ctrl(&f->fx)->error_count, 3);
	CU_ASSERT_EQUAL(fx_io_stats(&f->fx).host_reads, 6);
	teardown(f);
}

/* ---- refused submits: the command waits, then succeeds ---- */

static void busy_backend_makes_the_command_wait_then_succeed(void)
{
	struct fixture *f = setup();
	int w = add("nsid=2,op=write,busy,count=5");
	int r = add("nsid=1,op=read,busy,count=3");
	assert_round_trip(f, 2, 300, 16, 7);
	assert_round_trip(f, 1, 300, 16, 8);
	CU_ASSERT_EQUAL(nvmf_fault_fired(w), 5);
	CU_ASSERT_EQUAL(nvmf_fault_fired(r), 3);
	CU_ASSERT_EQUAL(fx_ctrl(&f->fx)->error_count, 0);
	teardown(f);
}

static void ring_without_free_entries_parks_the_command_until_one_frees(void)
{
	struct fixture *f = setup();
	/* The file backend's own io_uring calls find no entry: it returns -EAGAIN and the
	 * core parks the command on the retry list. */
	int id = add("nsid=2,sqe_full,count=4");
	assert_round_trip(f, 2, 12, 8, 11);
	CU_ASSERT_EQUAL(nvmf_fault_fired(id), 4);
	CU_ASSERT_EQUAL(flush(f, 2), 0);
	teardown(f);
}

/* ---- short transfers ---- */

/* The bytes at @off of the file @path, as the kernel has them. */
static void assert_file_holds(const char *path, off_t off, const uint8_t *want, size_t len)
{
	int fd = open(path, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t *got = buf_of(len);
	CU_ASSERT_EQUAL(pread(fd, got, len, off), (ssize_t)len);
	CU_ASSERT_EQUAL(memcmp(got, want, len), 0);
	free(got);
	close(fd);
}

static void short_io_uring_transfers_are_continued_and_the_data_is_right(void)
{
	struct fixture *f = setup();
	/* 1000 bytes per entry on the buffered file: 66 entries for 64 KiB, most of them
	 * starting in the middle of a block. */
	int id2 = add("nsid=2,short=1000");
	size_t len = 64 * 1024;
	uint8_t *out = buf_of(len), *in = buf_of(len);
	fill(out, len, 12);
	CU_ASSERT_EQUAL(do_write(f, 2, 1024, (uint32_t)(len / 512), out), 0);
	CU_ASSERT_EQUAL(nvmf_fault_fired(id2), 66);
	assert_file_holds(f->path2, 1024 * 512, out, len);
	CU_ASSERT_EQUAL(do_read(f, 2, 1024, (uint32_t)(len / 512), in), 0);
	CU_ASSERT_EQUAL(nvmf_fault_fired(id2), 132);
	CU_ASSERT_EQUAL(memcmp(in, out, len), 0);
	/* Namespace 3 is O_DIRECT (where the filesystem allows it): cut to whole blocks. */
	int id3 = add("nsid=3,short=5000");
	fill(out, len, 13);
	memset(in, 0, len);
	CU_ASSERT_EQUAL(do_write(f, 3, 32, (uint32_t)(len / 4096), out), 0);
	CU_ASSERT_EQUAL(do_read(f, 3, 32, (uint32_t)(len / 4096), in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, len), 0);
	CU_ASSERT_EQUAL(nvmf_fault_fired(id3), ns(f, 3)->bdev->direct ? 2 * 16 : 2 * 14);
	assert_file_holds(f->path3, 32 * 4096, out, len);
	free(out);
	free(in);
	teardown(f);
}

static void short_transfers_of_in_memory_files_are_continued(void)
{
	struct fixture *f = setup();
	ns(f, 2)->bdev->in_memory = true; /* pread/pwrite inside submit */
	int id = add("nsid=2,short=777");
	size_t len = 32 * 1024;
	uint8_t *out = buf_of(len), *in = buf_of(len);
	fill(out, len, 14);
	CU_ASSERT_EQUAL(do_write(f, 2, 7, (uint32_t)(len / 512), out), 0);
	CU_ASSERT_EQUAL(do_read(f, 2, 7, (uint32_t)(len / 512), in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, len), 0);
	CU_ASSERT_EQUAL(nvmf_fault_fired(id), 2 * 43); /* 42 x 777 + 134 bytes, each way */
	assert_file_holds(f->path2, 7 * 512, out, len);
	free(out);
	free(in);
	teardown(f);
}

static void write_that_makes_no_progress_fails_with_write_fault(void)
{
	struct fixture *f = setup();
	add("nsid=2,op=write,short=0");
	uint8_t buf[8 * 512] = { 0 };
	CU_ASSERT_EQUAL(do_write(f, 2, 0, 8, buf), WRITE_FAULT); /* io_uring */
	ns(f, 2)->bdev->in_memory = true;
	CU_ASSERT_EQUAL(do_write(f, 2, 0, 8, buf), WRITE_FAULT); /* inline */
	CU_ASSERT_EQUAL(do_read(f, 2, 0, 8, buf), 0);
	teardown(f);
}

static void continuation_the_ring_refuses_once_goes_on_after_a_submit(void)
{
	struct fixture *f = setup();
	int cut = add("nsid=2,op=read,short=4096,count=1");
	int full = add("nsid=2,op=read,sqe_full,cont,count=1");
	size_t len = 16 * 1024;
	uint8_t *out = buf_of(len), *in = buf_of(len);
	fill(out, len, 15);
	CU_ASSERT_EQUAL(do_write(f, 2, 64, (uint32_t)(len / 512), out), 0);
	CU_ASSERT_EQUAL(do_read(f, 2, 64, (uint32_t)(len / 512), in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, len), 0);
	CU_ASSERT_EQUAL(nvmf_fault_fired(cut), 1);
	CU_ASSERT_EQUAL(nvmf_fault_fired(full), 1);
	free(out);
	free(in);
	teardown(f);
}

static void continuation_the_ring_refuses_twice_fails_with_unrecovered_read_error(void)
{
	struct fixture *f = setup();
	add("nsid=2,op=read,short=4096,count=1");
	int full = add("nsid=2,op=read,sqe_full,cont,count=2");
	uint8_t buf[16 * 512];
	CU_ASSERT_EQUAL(rw(f, nvme_cmd_read, 2, 64, 16, buf, 0x61), READ_ERROR);
	CU_ASSERT_EQUAL(nvmf_fault_fired(full), 2);
	struct nvme_error_log_page e[1];
	error_log(f, e, 1);
	assert_entry(&e[0], 1, 0x61, READ_ERROR, 64, 2);
	CU_ASSERT_EQUAL(do_read(f, 2, 64, 16, buf), 0); /* the ring is fine again */
	teardown(f);
}

/* ---- io_uring_submit failing ---- */

static void io_uring_submit_failing_for_a_while_only_delays_the_command(void)
{
	struct fixture *f = setup();
	int id = add("submit=EAGAIN,count=3");
	assert_round_trip(f, 2, 500, 8, 16);
	CU_ASSERT_EQUAL(nvmf_fault_fired(id), 3);
	add("submit=EBUSY,count=2");
	CU_ASSERT_EQUAL(flush(f, 3), 0);
	teardown(f);
}

static void io_uring_submit_failing_for_good_fails_the_commands_without_hanging(void)
{
	struct fixture *f = setup();
	/* ENXIO: the ring cannot be used any more (io_uring_enter(2)); unlike EAGAIN and
	 * EBUSY, trying again does not help. */
	int id = add("submit=ENXIO");
	uint8_t buf[8 * 4096];
	fill(buf, sizeof(buf), 17);
	uint64_t t0 = nvmf_mono_ms();
	CU_ASSERT_EQUAL(rw(f, nvme_cmd_write, 2, 0, 8, buf, 0x65), GEN(NVME_SC_INTERNAL));
	CU_ASSERT_EQUAL(do_read(f, 3, 0, 8, buf), GEN(NVME_SC_INTERNAL));
	CU_ASSERT_EQUAL(flush(f, 2), GEN(NVME_SC_INTERNAL));
	CU_ASSERT(nvmf_mono_ms() - t0 < 5000); /* answered, not timed out */
	CU_ASSERT(nvmf_fault_fired(id) >= 1);
	struct nvme_error_log_page e[1];
	error_log(f, e, 1);
	assert_entry(&e[0], 3, 0x72, GEN(NVME_SC_INTERNAL), 0, 2);
	/* Nothing is left in the ring; RAM, which needs no io_uring, still serves. */
	CU_ASSERT_EQUAL(nvmf_tgt_main_pg(&f->fx.tgt)->aio.inflight, 0);
	CU_ASSERT_EQUAL(nvmf_tgt_main_pg(&f->fx.tgt)->aio.queued, 0);
	assert_round_trip(f, 1, 0, 8, 18);
	teardown(f);
}

/* ---- the smallest resources: many more commands than there is room for ---- */

/*
 * The smallest I/O queue the configuration allows (param.max_queue_size 16) kept full
 * with 4 KiB writes, then reads, 512 of each, on a file namespace behind an io_uring of
 * one entry (two completions: at most two I/Os in the kernel) whose backend also refuses
 * every fifth submit: commands pile up on the core's retry list, and every one of them
 * completes, in any order, with its data.
 */
static void many_more_commands_than_ring_entries_all_complete_with_their_data(void)
{
	enum { QSIZE = 16, N = 512, BLOCKS = 8 };
	struct fixture *f = setup_q(QSIZE, 1);
	CU_ASSERT_EQUAL(nvmf_tgt_main_pg(&f->fx.tgt)->aio.depth, 1);
	int busy = add("nsid=2,busy,every=5");
	struct fx_cmd *h = calloc(QSIZE, sizeof(*h));
	int slot[QSIZE];
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	bool parked_seen = false;
	for (int pass = 0; pass < 2; pass++) {
		uint8_t opcode = pass ? nvme_cmd_read : nvme_cmd_write;
		unsigned next = 0, answered = 0, failed = 0, wrong = 0;
		for (unsigned s = 0; s < QSIZE; s++)
			slot[s] = -1;
		uint64_t t0 = nvmf_mono_ms();
		while (answered < N) {
			for (unsigned s = 0; s < QSIZE; s++) {
				if (slot[s] < 0 || !fx_done(&h[s]))
					continue;
				answered++;
				failed += h[s].status != 0;
				if (pass) {
					uint8_t want[BLOCKS * 512];
					fill(want, sizeof(want), (unsigned)slot[s]);
					wrong += memcmp(h[s].data, want, sizeof(want)) != 0;
				}
				slot[s] = -1;
			}
			for (unsigned s = 0; s < QSIZE && next < N; s++) {
				if (slot[s] >= 0)
					continue;
				uint8_t data[BLOCKS * 512];
				fill(data, sizeof(data), next);
				struct nvme_sqe c = io_cmd(opcode, 2, (uint64_t)next * BLOCKS,
							   BLOCKS, (uint16_t)s);
				int rc = fx_start(&f->q, &h[s], &c, pass ? NULL : data,
						  sizeof(data));
				if (rc == -EAGAIN)
					break; /* the queue is full: wait for answers */
				CU_ASSERT_EQUAL_FATAL(rc, 0);
				slot[s] = (int)next++;
			}
			parked_seen |= fx_io(&f->fx)->retry_head != NULL;
			if (!nvmf_loop_drive(&f->fx.tgt))
				usleep(100); /* the kernel is still at it */
			if (nvmf_mono_ms() - t0 > 30000) {
				CU_FAIL("commands left without an answer");
				break;
			}
		}
		CU_ASSERT_EQUAL(answered, N);
		CU_ASSERT_EQUAL(failed, 0);
		CU_ASSERT_EQUAL(wrong, 0);
	}
	CU_ASSERT_TRUE(parked_seen);
	CU_ASSERT(nvmf_fault_fired(busy) >= 2 * N / 5);
	CU_ASSERT_EQUAL(fx_ctrl(&f->fx)->error_count, 0);
	CU_ASSERT_EQUAL(fx_io_stats(&f->fx).host_writes, N);
	CU_ASSERT_EQUAL(fx_io_stats(&f->fx).host_reads, N);
	free(h);
	teardown(f);
}

const struct unit_test io_faults_tests[] = {
	{ "backend_errors_are_logged_naming_the_namespace_and_rate_limited",
	  backend_errors_are_logged_naming_the_namespace_and_rate_limited },
	{ "read_error_in_a_bad_range_returns_unrecovered_read_error_and_is_logged",
	  read_error_in_a_bad_range_returns_unrecovered_read_error_and_is_logged },
	{ "write_error_returns_write_fault_and_other_blocks_stay_writable",
	  write_error_returns_write_fault_and_other_blocks_stay_writable },
	{ "enospc_returns_capacity_exceeded_with_dnr", enospc_returns_capacity_exceeded_with_dnr },
	{ "flush_failure_reaches_the_host_as_write_fault",
	  flush_failure_reaches_the_host_as_write_fault },
	{ "deallocate_and_write_zeroes_errors_return_write_fault",
	  deallocate_and_write_zeroes_errors_return_write_fault },
	{ "every_third_read_fails_and_the_others_return_the_data",
	  every_third_read_fails_and_the_others_return_the_data },
	{ "busy_backend_makes_the_command_wait_then_succeed",
	  busy_backend_makes_the_command_wait_then_succeed },
	{ "ring_without_free_entries_parks_the_command_until_one_frees",
	  ring_without_free_entries_parks_the_command_until_one_frees },
	{ "short_io_uring_transfers_are_continued_and_the_data_is_right",
	  short_io_uring_transfers_are_continued_and_the_data_is_right },
	{ "short_transfers_of_in_memory_files_are_continued",
	  short_transfers_of_in_memory_files_are_continued },
	{ "write_that_makes_no_progress_fails_with_write_fault",
	  write_that_makes_no_progress_fails_with_write_fault },
	{ "continuation_the_ring_refuses_once_goes_on_after_a_submit",
	  continuation_the_ring_refuses_once_goes_on_after_a_submit },
	{ "continuation_the_ring_refuses_twice_fails_with_unrecovered_read_error",
	  continuation_the_ring_refuses_twice_fails_with_unrecovered_read_error },
	{ "io_uring_submit_failing_for_a_while_only_delays_the_command",
	  io_uring_submit_failing_for_a_while_only_delays_the_command },
	{ "io_uring_submit_failing_for_good_fails_the_commands_without_hanging",
	  io_uring_submit_failing_for_good_fails_the_commands_without_hanging },
	{ "many_more_commands_than_ring_entries_all_complete_with_their_data",
	  many_more_commands_than_ring_entries_all_complete_with_their_data },
	{ NULL, NULL },
};
