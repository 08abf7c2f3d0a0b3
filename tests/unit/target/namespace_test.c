/*
 * Namespaces changed live (target/namespace.c) through the whole stack: a host on the
 * loop transport with the Namespace Attribute notice enabled and an AER outstanding,
 * an I/O queue, and the target in driven mode (tests/unit/target/fixture.h).
 *
 * Namespaces at the start: 1 = RAM 1 MiB, 512 B blocks; 2 = RAM 1 MiB, 4 KiB blocks.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "subsystem/created.h"
#include "target/namespace.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

#define GEN(sc) ((int)nvme_status(NVME_SCT_GENERIC, (sc)))
#define MIB     (1u << 20)

static struct fx F;
static struct fxq Q; /* I/O queue 1 */
static struct fx_cmd Aer;

static struct nvmf_subsys *subsys(void)
{
	return nvmf_tgt_find_subsys(&F.tgt, FX_SUBNQN);
}

static struct nvme_sqe mk(uint8_t opcode, uint32_t nsid, uint32_t c10, uint32_t c11)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32(c10);
	c.cdw11 = htole32(c11);
	return c;
}

static struct nvme_sqe rw(uint8_t opcode, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	struct nvme_sqe c = mk(opcode, nsid, (uint32_t)slba, (uint32_t)(slba >> 32));
	c.cdw12 = htole32(nlb - 1);
	return c;
}

static void submit_aer(void)
{
	struct nvme_sqe c = mk(nvme_admin_async_event, 0, 0, 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&F.admin, &Aer, &c, NULL, 0), 0);
}

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&F), 0);
	struct nvme_sqe c = mk(nvme_admin_set_features, 0, NVME_FEAT_FID_ASYNC_EVENT, 1u << 8);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&F.admin, &c, NULL, 0, NULL), 0);
	submit_aer();
	CU_ASSERT_FALSE(fx_done(&Aer));
	fx_queue_init(&F, &Q);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&Q, 1, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, NULL),
			      0);
}

static void teardown(void)
{
	fx_teardown(&F);
}

/* The target's clock moves on and it runs: timers (the drain check) fire. */
static void tick(void)
{
	F.now += 5;
	nvmf_loop_drive(&F.tgt);
}

/* Log 04h as the host reads it (RAE clear): the first @n entries into @out. */
static void changed_list(uint32_t *out, unsigned n)
{
	__le32 list[1024];
	struct nvme_sqe c = mk(nvme_admin_get_log_page, NVME_NSID_ALL,
			       NVME_LOG_LID_CHANGED_NS | (uint32_t)(sizeof(list) / 4 - 1) << 16, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&F.admin, &c, list, sizeof(list), NULL), 0);
	for (unsigned i = 0; i < n; i++)
		out[i] = le32toh(list[i]);
}

static uint64_t identify_nsze(uint32_t nsid)
{
	struct nvme_id_ns id;
	struct nvme_sqe c = mk(nvme_admin_identify, nsid, NVME_IDENTIFY_CNS_NS, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&F.admin, &c, &id, sizeof(id), NULL), 0);
	return le64toh(id.nsze);
}

static struct nvmf_ns_config ram_ns(uint32_t nsid, uint64_t bytes, uint32_t bs)
{
	struct nvmf_ns_config nc;
	memset(&nc, 0, sizeof(nc));
	nc.nsid = nsid;
	nc.enable = true;
	nc.kind = NVMF_BACKEND_RAM;
	nc.size_bytes = bytes;
	nc.block_size = bs;
	return nc;
}

static void assert_notice(void)
{
	CU_ASSERT_TRUE_FATAL(fx_done(&Aer));
	CU_ASSERT_EQUAL(le16toh(Aer.cqe.status) >> 1, 0);
	CU_ASSERT_EQUAL(le32toh(Aer.cqe.result.u32), 0x00040002u);
}

/* ---- add ---- */

static void added_namespace_is_announced_and_serves_io(void)
{
	setup();
	struct nvmf_ns_config nc = ram_ns(7, 2 * MIB, 512);
	uint32_t nsid = 0;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(nsid, 7);
	nvmf_loop_drive(&F.tgt);
	assert_notice();
	uint32_t list[2];
	changed_list(list, 2);
	CU_ASSERT_EQUAL(list[0], 7);
	CU_ASSERT_EQUAL(list[1], 0);
	CU_ASSERT_EQUAL(identify_nsze(7), 2 * MIB / 512);
	uint8_t out[4096], in[4096];
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + 3);
	struct nvme_sqe w = rw(nvme_cmd_write, 7, 100, 8), r = rw(nvme_cmd_read, 7, 100, 8);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &w, out, sizeof(out), NULL), 0);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, in, sizeof(in), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
	/* The running configuration lists it. */
	CU_ASSERT_EQUAL(subsys()->cfg->n_ns, 3);
	CU_ASSERT_EQUAL(subsys()->cfg->ns[2].nsid, 7);
	teardown();
}

static void nsid_zero_takes_the_lowest_free_one(void)
{
	setup();
	struct nvmf_ns_config nc[2] = { ram_ns(0, MIB, 512), ram_ns(0, MIB, 512) };
	uint32_t nsid[2];
	char err[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_add(&F.tgt, subsys(), nc, 2, nsid, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(nsid[0], 3);
	CU_ASSERT_EQUAL(nsid[1], 4);
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(subsys(), 4));
	teardown();
}

static void nsid_in_use_is_refused_and_nothing_changes(void)
{
	setup();
	struct nvmf_ns_config nc = ram_ns(2, MIB, 512);
	uint32_t nsid;
	char err[256] = "";
	struct nvmf_ns *before = nvmf_subsys_ns(subsys(), 2);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)),
			-EEXIST);
	CU_ASSERT_STRING_EQUAL(err, "namespaces[0]: nsid 2 is in use in subsystem " FX_SUBNQN);
	CU_ASSERT_PTR_EQUAL(nvmf_subsys_ns(subsys(), 2), before);
	CU_ASSERT_EQUAL(subsys()->cfg->n_ns, 2);
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_FALSE(fx_done(&Aer));
	/* The same nsid twice in one call. */
	struct nvmf_ns_config two[2] = { ram_ns(9, MIB, 512), ram_ns(9, MIB, 512) };
	uint32_t ids[2];
	CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&F.tgt, subsys(), two, 2, ids, err, sizeof(err)), -EEXIST);
	CU_ASSERT_STRING_EQUAL(err, "namespaces[1]: nsid 9 is in use in subsystem " FX_SUBNQN);
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(), 9));
	teardown();
}

static void second_of_three_failing_adds_none(void)
{
	setup();
	struct nvmf_ns_config nc[3] = { ram_ns(5, MIB, 512), ram_ns(6, MIB, 512),
					ram_ns(8, MIB, 512) };
	nc[1].kind = NVMF_BACKEND_FILE;
	nc[1].path = "/nonexistent/nvmf-test/ns6";
	uint32_t ids[3];
	char err[256] = "";
	CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&F.tgt, subsys(), nc, 3, ids, err, sizeof(err)), -EIO);
	CU_ASSERT_STRING_EQUAL(
		err,
		"namespaces[1] (nsid 6): /nonexistent/nvmf-test/ns6: No such file or directory");
	for (uint32_t n = 5; n <= 8; n++)
		CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(), n));
	CU_ASSERT_EQUAL(subsys()->cfg->n_ns, 2);
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_FALSE(fx_done(&Aer));
	struct nvme_sqe r = rw(nvme_cmd_read, 5, 0, 1);
	uint8_t b[512];
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, b, sizeof(b), NULL), GEN(NVME_SC_INVALID_NS) | NVME_SC_DNR);
	teardown();
}

/* ---- remove while a command is in the backend ---- */

static void removed_namespace_closes_after_its_last_command(void)
{
	setup();
	bool closed = false;
	struct nvmf_ns *ns1 = nvmf_subsys_ns(subsys(), 1);
	struct fx_held_bdev *h = fx_held_bdev_new(512, MIB, &closed);
	struct nvmf_bdev *ram = ns1->bdev;
	ns1->bdev = &h->b;

	struct fx_cmd w;
	struct nvme_sqe c = rw(nvme_cmd_write, 1, 0, 1);
	uint8_t data[512];
	memset(data, 0x5a, sizeof(data));
	CU_ASSERT_EQUAL_FATAL(fx_start(&Q, &w, &c, data, sizeof(data)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h->io);
	char err[256];
	CU_ASSERT_EQUAL(nvmf_tgt_ns_remove(&F.tgt, subsys(), 1, err, sizeof(err)), 0);
	/* Gone for new commands at once, announced, but open while the write is in flight. */
	struct nvme_sqe r = rw(nvme_cmd_read, 1, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, data, sizeof(data), NULL),
			GEN(NVME_SC_INVALID_NS) | NVME_SC_DNR);
	assert_notice();
	for (int i = 0; i < 4; i++)
		tick();
	CU_ASSERT_FALSE(closed);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_draining(&F.tgt), 1);
	CU_ASSERT_FALSE(fx_done(&w));
	/* The write finishes normally; then the backend is closed. */
	h->io->done_bytes = h->io->len;
	h->io->done(h->io, 0);
	tick();
	CU_ASSERT_TRUE(fx_done(&w));
	CU_ASSERT_EQUAL(le16toh(w.cqe.status) >> 1, 0);
	tick();
	CU_ASSERT_TRUE(closed);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_draining(&F.tgt), 0);
	CU_ASSERT_EQUAL(subsys()->cfg->n_ns, 1);
	CU_ASSERT_EQUAL(subsys()->cfg->ns[0].nsid, 2);
	nvmf_bdev_close(ram);
	/* Namespace 2 went on serving. */
	struct nvme_sqe r2 = rw(nvme_cmd_read, 2, 0, 1);
	uint8_t b4[4096];
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r2, b4, sizeof(b4), NULL), 0);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_remove(&F.tgt, subsys(), 1, err, sizeof(err)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err, "subsystem " FX_SUBNQN " has no namespace 1");
	teardown();
}

static void disabled_namespace_is_inactive_until_enabled(void)
{
	setup();
	char err[256];
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&F.tgt, subsys(), 2, false, err, sizeof(err)), 1);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&F.tgt, subsys(), 2, false, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(subsys()->cfg->ns[1].enable);
	nvmf_loop_drive(&F.tgt);
	assert_notice();
	uint8_t b[4096];
	struct nvme_sqe r = rw(nvme_cmd_read, 2, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, b, sizeof(b), NULL), GEN(NVME_SC_INVALID_NS) | NVME_SC_DNR);
	tick();
	CU_ASSERT_EQUAL(nvmf_tgt_ns_draining(&F.tgt), 0);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&F.tgt, subsys(), 2, true, err, sizeof(err)), 1);
	CU_ASSERT_TRUE(subsys()->cfg->ns[1].enable);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, b, sizeof(b), NULL), 0);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&F.tgt, subsys(), 3, true, err, sizeof(err)), -ENOENT);
	teardown();
}

/* A RAM namespace disabled and enabled again reads back what was written before (its
 * memory is kept while it is disabled); removed and added anew, it is empty. */
static void disabled_ram_namespace_keeps_its_data_until_removed(void)
{
	setup();
	char err[256];
	uint8_t out[4096], in[4096];
	static const uint8_t zero[4096];
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 13 + 5);
	struct nvme_sqe w = rw(nvme_cmd_write, 2, 3, 1), r = rw(nvme_cmd_read, 2, 3, 1);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&Q, &w, out, sizeof(out), NULL), 0);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&F.tgt, subsys(), 2, false, err, sizeof(err)), 1);
	for (int i = 0; i < 4; i++)
		tick();
	CU_ASSERT_EQUAL(nvmf_tgt_ns_draining(&F.tgt), 0); /* closed for I/O */
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, in, sizeof(in), NULL),
			GEN(NVME_SC_INVALID_NS) | NVME_SC_DNR);
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_enable(&F.tgt, subsys(), 2, true, err, sizeof(err)), 1);
	memset(in, 0, sizeof(in));
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, in, sizeof(in), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
	/* Disabled and enabled before the drain ends: the same memory still. */
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&F.tgt, subsys(), 2, false, err, sizeof(err)), 1);
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_enable(&F.tgt, subsys(), 2, true, err, sizeof(err)), 1);
	tick();
	memset(in, 0, sizeof(in));
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, in, sizeof(in), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
	/* Removed while disabled: the data goes with it. */
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&F.tgt, subsys(), 2, false, err, sizeof(err)), 1);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_remove(&F.tgt, subsys(), 2, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(subsys()->kept);
	tick();
	struct nvmf_ns_config nc = ram_ns(2, MIB, 4096);
	uint32_t nsid = 0;
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)),
			      0);
	memset(in, 0xff, sizeof(in));
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, in, sizeof(in), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(in, zero, sizeof(in)), 0);
	teardown();
}

/* An add that created a file and then failed (a later entry of the batch takes the same
 * nsid) removes the file it created and records nothing; a file that was there before
 * stays. */
static void failed_add_removes_only_the_file_it_created(void)
{
	setup();
	char dir[] = "/tmp/nvmf-nsfail-XXXXXX", rec[96], img[96], err[1024];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(rec, sizeof(rec), "%s/rec.json", dir);
	snprintf(img, sizeof(img), "%s/ns.img", dir);
	struct nvmf_created record;
	CU_ASSERT_EQUAL_FATAL(nvmf_created_open(&record, rec, err, sizeof(err)), 0);
	F.tgt.created = &record;
	struct nvmf_ns_config ncs[2] = { ram_ns(9, MIB, 512), ram_ns(9, MIB, 512) };
	ncs[0].kind = NVMF_BACKEND_FILE;
	ncs[0].path = img;
	ncs[0].create = ncs[0].buffered = true;
	uint32_t nsids[2];
	CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&F.tgt, subsys(), ncs, 2, nsids, err, sizeof(err)),
			-EEXIST);
	CU_ASSERT_STRING_EQUAL(err, "namespaces[1]: nsid 9 is in use in subsystem " FX_SUBNQN);
	CU_ASSERT_EQUAL(access(img, F_OK), -1); /* created by the failed add: gone */
	CU_ASSERT_PTR_NULL(nvmf_created_when(&record, img));
	CU_ASSERT_EQUAL(access(rec, F_OK), -1); /* nothing recorded */
	/* The same with the file there before: it stays, with its data. */
	int fd = open(img, O_RDWR | O_CREAT, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(pwrite(fd, "data", 4, 0), 4);
	CU_ASSERT_EQUAL(ftruncate(fd, MIB), 0);
	close(fd);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&F.tgt, subsys(), ncs, 2, nsids, err, sizeof(err)),
			-EEXIST);
	struct stat st;
	CU_ASSERT_EQUAL(stat(img, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, MIB);
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(), 9));
	F.tgt.created = NULL;
	nvmf_created_free(&record);
	unlink(img);
	unlink(rec);
	rmdir(dir);
	teardown();
}

/* A file created at add (nvmf_create) is recorded; the running config no longer asks to
 * create it (config_save writes what exists); deleted, it is never created again empty. */
static void created_file_is_recorded_and_never_created_again_empty(void)
{
	setup();
	char dir[] = "/tmp/nvmf-nscreate-XXXXXX", rec[96], img[96], err[1024];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(rec, sizeof(rec), "%s/rec.json", dir);
	snprintf(img, sizeof(img), "%s/ns.img", dir);
	struct nvmf_created record;
	CU_ASSERT_EQUAL_FATAL(nvmf_created_open(&record, rec, err, sizeof(err)), 0);
	F.tgt.created = &record;
	struct nvmf_ns_config nc = ram_ns(5, MIB, 512);
	nc.kind = NVMF_BACKEND_FILE;
	nc.path = img;
	nc.create = true;
	nc.buffered = true;
	uint32_t nsid = 0;
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(access(img, F_OK), 0);
	CU_ASSERT_PTR_NOT_NULL(nvmf_created_when(&record, img));
	CU_ASSERT_FALSE(subsys()->cfg->ns[2].create);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_remove(&F.tgt, subsys(), 5, err, sizeof(err)), 0);
	tick();
	unlink(img);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "now missing: refusing to create an empty one"));
	CU_ASSERT_EQUAL(access(img, F_OK), -1);
	CU_ASSERT_EQUAL(subsys()->cfg->n_ns, 2);
	F.tgt.created = NULL;
	nvmf_created_free(&record);
	unlink(rec);
	rmdir(dir);
	teardown();
}

/* A backing file deleted while served is noticed (fstat: no link left) and logged once. */
static void deleted_backing_file_is_noticed_and_logged(void)
{
	setup();
	char dir[] = "/tmp/nvmf-nsunlink-XXXXXX", img[96], err[512];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/ns.img", dir);
	int fd = open(img, O_CREAT | O_WRONLY, 0644);
	CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, MIB) == 0);
	close(fd);
	struct nvmf_ns_config nc = ram_ns(5, 0, 512);
	nc.kind = NVMF_BACKEND_FILE;
	nc.path = img;
	nc.buffered = true;
	uint32_t nsid = 0;
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_check_unlinked(&F.tgt), 0);
	CU_ASSERT_FALSE(nvmf_subsys_ns(subsys(), 5)->unlinked);
	unlink(img);
	struct fx_stderr log;
	fx_stderr_begin(&log);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_check_unlinked(&F.tgt), 1);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_check_unlinked(&F.tgt), 1);
	fx_stderr_end(&log);
	CU_ASSERT_TRUE(nvmf_subsys_ns(subsys(), 5)->unlinked);
	CU_ASSERT_PTR_NOT_NULL(strstr(log.text, "namespace 5: its backing file "));
	CU_ASSERT_PTR_NOT_NULL(strstr(log.text, "ns.img was deleted while served"));
	const char *first = strstr(log.text, "was deleted");
	CU_ASSERT_PTR_NULL(first ? strstr(first + 1, "was deleted") : NULL); /* once */
	CU_ASSERT_EQUAL(nvmf_tgt_ns_remove(&F.tgt, subsys(), 5, err, sizeof(err)), 0);
	tick();
	rmdir(dir);
	teardown();
}

/* ---- resize ---- */

static void grown_namespace_takes_io_past_its_old_end(void)
{
	setup();
	uint8_t b[512];
	memset(b, 0xc3, sizeof(b));
	struct nvme_sqe w = rw(nvme_cmd_write, 1, MIB / 512, 1);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &w, b, sizeof(b), NULL), GEN(NVME_SC_LBA_RANGE) | NVME_SC_DNR);
	char err[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_resize(&F.tgt, subsys(), 1, 2 * MIB, err, sizeof(err)),
			      0);
	nvmf_loop_drive(&F.tgt);
	assert_notice();
	CU_ASSERT_EQUAL(identify_nsze(1), 2 * MIB / 512);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &w, b, sizeof(b), NULL), 0);
	uint8_t in[512];
	struct nvme_sqe r = rw(nvme_cmd_read, 1, MIB / 512, 1);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, in, sizeof(in), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(in, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(subsys()->cfg->ns[0].size_bytes, 2 * MIB);
	/* Shrunk back: past the end again, and a later grow reads zeroes there. */
	CU_ASSERT_EQUAL(nvmf_tgt_ns_resize(&F.tgt, subsys(), 1, MIB, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, in, sizeof(in), NULL), GEN(NVME_SC_LBA_RANGE) | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_resize(&F.tgt, subsys(), 1, 2 * MIB, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, in, sizeof(in), NULL), 0);
	static const uint8_t zero[512];
	CU_ASSERT_EQUAL(memcmp(in, zero, sizeof(in)), 0);
	teardown();
}

static void resize_to_a_partial_block_is_refused(void)
{
	setup();
	char err[256] = "";
	CU_ASSERT_EQUAL(nvmf_tgt_ns_resize(&F.tgt, subsys(), 2, MIB + 512, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err,
			       "subsystem " FX_SUBNQN ", namespace 2: size 1049088 bytes is not "
			       "a positive multiple of the block size (4096)");
	CU_ASSERT_EQUAL(identify_nsze(2), MIB / 4096);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_resize(&F.tgt, subsys(), 5, MIB, err, sizeof(err)), -ENOENT);
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_FALSE(fx_done(&Aer));
	teardown();
}

/* ---- following a device's size ---- */

/* A file in a new folder under /tmp, @bytes long (sparse), for a namespace's backing. */
static void temp_file(char *dir, size_t dlen, char *path, size_t plen, uint64_t bytes)
{
	snprintf(dir, dlen, "/tmp/nvmf-ns-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, plen, "%s/dev", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL_FATAL(ftruncate(fileno(f), (off_t)bytes), 0);
	fclose(f);
}

/* Namespace 3 over @path as a block device namespace: opened as a file, then given the
 * bdev backend's ops, whose size query (nvmf_backend_fd_size) reads a regular file's
 * size where a block device's is read with BLKGETSIZE64: the file stands in for a device
 * an lvextend grows (no block device can be made in a unit test). The add's notice is
 * consumed and a new AER parked. */
static struct nvmf_ns *device_ns(const char *path)
{
	struct nvmf_ns_config nc = ram_ns(3, 0, 512);
	nc.kind = NVMF_BACKEND_FILE;
	nc.path = (char *)path;
	uint32_t nsid;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)),
			      0);
	struct nvmf_ns *ns = nvmf_subsys_ns(subsys(), 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
	ns->bdev->ops = &nvmf_backend_bdev_ops;
	nvmf_loop_drive(&F.tgt);
	assert_notice();
	uint32_t list[1];
	changed_list(list, 1);
	submit_aer();
	return ns;
}

static void device_namespace_follows_its_growth_at_identify_with_a_notice(void)
{
	setup();
	char dir[64], path[80];
	temp_file(dir, sizeof(dir), path, sizeof(path), MIB);
	device_ns(path);
	CU_ASSERT_EQUAL(identify_nsze(3), MIB / 512);
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_FALSE(fx_done(&Aer)); /* nothing changed: no notice */
	uint8_t b[512];
	memset(b, 0x5a, sizeof(b));
	struct nvme_sqe w = rw(nvme_cmd_write, 3, MIB / 512, 1);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &w, b, sizeof(b), NULL), GEN(NVME_SC_LBA_RANGE) | NVME_SC_DNR);
	CU_ASSERT_EQUAL_FATAL(truncate(path, 2 * MIB), 0); /* the device grew (lvextend) */
	struct fx_stderr cap;
	fx_stderr_begin(&cap);
	CU_ASSERT_EQUAL(identify_nsze(3), 2 * MIB / 512); /* the host's next look sees it */
	fx_stderr_end(&cap);
	char want[256];
	snprintf(want, sizeof(want),
		 "nvmf-target: core: subsystem " FX_SUBNQN ": namespace 3 (%s): the device grew "
		 "from 1048576 to 2097152 bytes\n",
		 path);
	CU_ASSERT_STRING_EQUAL(cap.text, want);
	nvmf_loop_drive(&F.tgt);
	assert_notice(); /* the other controllers hear of it */
	uint32_t list[2];
	changed_list(list, 2);
	CU_ASSERT_EQUAL(list[0], 3);
	CU_ASSERT_EQUAL(list[1], 0);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &w, b, sizeof(b), NULL), 0); /* past the old end */
	uint8_t in[512];
	struct nvme_sqe r = rw(nvme_cmd_read, 3, MIB / 512, 1);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, in, sizeof(in), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(in, b, sizeof(b)), 0);
	teardown();
	unlink(path);
	rmdir(dir);
}

/* "namespace resize" without a size: a device namespace takes its device's size; a
 * shrink is followed too, but as an error in the log; a RAM namespace has no device. */
static void resize_without_size_follows_the_device_and_logs_a_shrink(void)
{
	setup();
	char dir[64], path[80], err[256] = "";
	temp_file(dir, sizeof(dir), path, sizeof(path), 2 * MIB);
	device_ns(path);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_resize(&F.tgt, subsys(), 3, 0, err, sizeof(err)), 0);
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_FALSE(fx_done(&Aer)); /* same size: nothing to tell */
	CU_ASSERT_EQUAL_FATAL(truncate(path, 3 * MIB), 0);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_resize(&F.tgt, subsys(), 3, 0, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(nvmf_ns_nlb(nvmf_subsys_ns(subsys(), 3)), 3 * MIB / 512);
	nvmf_loop_drive(&F.tgt);
	assert_notice();
	uint32_t list[1];
	changed_list(list, 1);
	submit_aer();
	CU_ASSERT_EQUAL_FATAL(truncate(path, MIB), 0); /* shrunk under the target */
	struct fx_stderr cap;
	fx_stderr_begin(&cap);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_resize(&F.tgt, subsys(), 3, 0, err, sizeof(err)), 0);
	fx_stderr_end(&cap);
	char want[320];
	snprintf(want, sizeof(want),
		 "nvmf-target: core: error: subsystem " FX_SUBNQN ": namespace 3 (%s): the device "
		 "shrank from 3145728 to 1048576 bytes; hosts now see the new size, and the data "
		 "past it is gone for them\n",
		 path);
	CU_ASSERT_STRING_EQUAL(cap.text, want);
	CU_ASSERT_EQUAL(identify_nsze(3), MIB / 512);
	nvmf_loop_drive(&F.tgt);
	assert_notice();
	uint8_t b[512];
	struct nvme_sqe r = rw(nvme_cmd_read, 3, MIB / 512, 1);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &r, b, sizeof(b), NULL), GEN(NVME_SC_LBA_RANGE) | NVME_SC_DNR);
	/* RAM decides its own size. */
	CU_ASSERT_EQUAL(nvmf_tgt_ns_resize(&F.tgt, subsys(), 1, 0, err, sizeof(err)), -ENOTSUP);
	CU_ASSERT_STRING_EQUAL(err, "subsystem " FX_SUBNQN ", namespace 1: a \"ram\" namespace "
				    "has no device to follow: give size_bytes");
	CU_ASSERT_EQUAL(nvmf_ns_nlb(nvmf_subsys_ns(subsys(), 1)), MIB / 512);
	teardown();
	unlink(path);
	rmdir(dir);
}

/* A thin file larger than its file system's free space is warned of when it is added:
 * writes would fail with ENOSPC once it fills. */
static void thin_file_beyond_the_free_space_is_warned_of_at_add(void)
{
	setup();
	char dir[64], path[80];
	struct statvfs v;
	CU_ASSERT_EQUAL_FATAL(statvfs("/tmp", &v), 0);
	uint64_t size = ((uint64_t)v.f_bavail * v.f_frsize + 2 * MIB) & ~(uint64_t)(MIB - 1);
	temp_file(dir, sizeof(dir), path, sizeof(path), size);
	struct nvmf_ns_config nc = ram_ns(3, 0, 512);
	nc.kind = NVMF_BACKEND_FILE;
	nc.path = path;
	uint32_t nsid;
	char err[256] = "";
	struct fx_stderr cap;
	fx_stderr_begin(&cap);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)), 0);
	fx_stderr_end(&cap);
	char want[400];
	snprintf(want, sizeof(want),
		 "nvmf-target: backend: warning: subsystem " FX_SUBNQN ", namespace 3 (%s): thin "
		 "file: %llu of its %llu bytes are not allocated yet, and its file system has ",
		 path, (unsigned long long)size, (unsigned long long)size);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, " bytes free: writes will fail with ENOSPC "
						"(hosts get Capacity Exceeded) once it fills\n"));
	teardown();
	unlink(path);
	rmdir(dir);
}

/* ---- statistics ---- */

static void statistics_count_each_command_and_its_bytes(void)
{
	setup();
	uint8_t b[4096];
	memset(b, 1, sizeof(b));
	for (int i = 0; i < 10; i++) {
		struct nvme_sqe w = rw(nvme_cmd_write, 2, (uint64_t)i, 1);
		CU_ASSERT_EQUAL(fx_cmd(&Q, &w, b, sizeof(b), NULL), 0);
	}
	for (int i = 0; i < 3; i++) {
		struct nvme_sqe r = rw(nvme_cmd_read, 2, (uint64_t)i, 1);
		CU_ASSERT_EQUAL(fx_cmd(&Q, &r, b, sizeof(b), NULL), 0);
	}
	struct nvme_sqe bad = rw(nvme_cmd_read, 2, MIB / 4096, 1);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &bad, b, sizeof(b), NULL), GEN(NVME_SC_LBA_RANGE) | NVME_SC_DNR);
	struct nvme_sqe fl = mk(nvme_cmd_flush, 2, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&Q, &fl, NULL, 0, NULL), 0);
	const struct nvmf_ns_pg_stats *st = &nvmf_subsys_ns(subsys(), 2)->stats[0];
	CU_ASSERT_EQUAL(st->writes, 10);
	CU_ASSERT_EQUAL(st->write_bytes, 40960);
	CU_ASSERT_EQUAL(st->reads, 4); /* the failed one counts, without bytes */
	CU_ASSERT_EQUAL(st->read_bytes, 3 * 4096);
	CU_ASSERT_EQUAL(st->other, 1);
	CU_ASSERT_EQUAL(st->errors, 1);
	CU_ASSERT_EQUAL(st->inflight, 0);
	uint64_t lat = 0;
	for (int i = 0; i < NVMF_LAT_BUCKETS; i++)
		lat += st->lat[i];
	CU_ASSERT_EQUAL(lat, 15);
	CU_ASSERT_EQUAL(nvmf_subsys_ns(subsys(), 1)->stats[0].writes, 0);
	teardown();
}

/* One file, or one identifier in a subsystem, backs one namespace only: a second add by
 * another name of the same file (a symlink, "..") or with the same UUID is refused. */
static void a_file_or_an_identifier_serves_one_namespace(void)
{
	setup();
	char dir[] = "/tmp/nvmf-uniq-XXXXXX", path[64], link[64], dotted[96];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f.img", dir);
	snprintf(link, sizeof(link), "%s/l.img", dir);
	snprintf(dotted, sizeof(dotted), "%s/../%s/f.img", dir, strrchr(dir, '/') + 1);
	struct nvmf_ns_config nc = ram_ns(5, MIB, 512);
	nc.kind = NVMF_BACKEND_FILE;
	nc.path = path;
	nc.create = nc.buffered = true;
	uint32_t nsid;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL_FATAL(symlink(path, link), 0);
	char want[256];
	snprintf(want, sizeof(want),
		 "namespaces[0] (nsid 6): %s already backs namespace 5 of " FX_SUBNQN, path);
	const char *names[] = { path, link, dotted };
	for (int i = 0; i < 3; i++) {
		nc.nsid = 6;
		nc.path = (char *)names[i];
		CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&F.tgt, subsys(), &nc, 1, &nsid, err, sizeof(err)),
				-EEXIST);
		CU_ASSERT_STRING_EQUAL(err, want);
	}
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(), 6));
	struct nvmf_ns_config a = ram_ns(7, MIB, 512), b = ram_ns(8, MIB, 512);
	a.has_uuid = b.has_uuid = true;
	memset(a.uuid, 0x42, 16);
	memset(b.uuid, 0x42, 16);
	struct nvmf_ns_config two[2] = { a, b };
	uint32_t ids[2];
	CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&F.tgt, subsys(), two, 2, ids, err, sizeof(err)), -EEXIST);
	CU_ASSERT_STRING_EQUAL(err, "namespaces[1] (nsid 8): device.uuid is namespace 7's too "
				    "(identifiers are unique in a subsystem)");
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(), 7));
	CU_ASSERT_EQUAL(subsys()->cfg->n_ns, 3);
	teardown();
	unlink(link);
	unlink(path);
	rmdir(dir);
}

const struct unit_test namespace_tests[] = {
	{ "failed_add_removes_only_the_file_it_created",
	  failed_add_removes_only_the_file_it_created },
	{ "a_file_or_an_identifier_serves_one_namespace",
	  a_file_or_an_identifier_serves_one_namespace },
	{ "added_namespace_is_announced_and_serves_io",
	  added_namespace_is_announced_and_serves_io },
	{ "nsid_zero_takes_the_lowest_free_one", nsid_zero_takes_the_lowest_free_one },
	{ "nsid_in_use_is_refused_and_nothing_changes",
	  nsid_in_use_is_refused_and_nothing_changes },
	{ "second_of_three_failing_adds_none", second_of_three_failing_adds_none },
	{ "removed_namespace_closes_after_its_last_command",
	  removed_namespace_closes_after_its_last_command },
	{ "disabled_ram_namespace_keeps_its_data_until_removed",
	  disabled_ram_namespace_keeps_its_data_until_removed },
	{ "created_file_is_recorded_and_never_created_again_empty",
	  created_file_is_recorded_and_never_created_again_empty },
	{ "deleted_backing_file_is_noticed_and_logged",
	  deleted_backing_file_is_noticed_and_logged },
	{ "disabled_namespace_is_inactive_until_enabled",
	  disabled_namespace_is_inactive_until_enabled },
	{ "grown_namespace_takes_io_past_its_old_end", grown_namespace_takes_io_past_its_old_end },
	{ "resize_to_a_partial_block_is_refused", resize_to_a_partial_block_is_refused },
	{ "device_namespace_follows_its_growth_at_identify_with_a_notice",
	  device_namespace_follows_its_growth_at_identify_with_a_notice },
	{ "resize_without_size_follows_the_device_and_logs_a_shrink",
	  resize_without_size_follows_the_device_and_logs_a_shrink },
	{ "thin_file_beyond_the_free_space_is_warned_of_at_add",
	  thin_file_beyond_the_free_space_is_warned_of_at_add },
	{ "statistics_count_each_command_and_its_bytes",
	  statistics_count_each_command_and_its_bytes },
	{ NULL, NULL },
};
