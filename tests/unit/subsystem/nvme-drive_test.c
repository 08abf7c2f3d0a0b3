/* Unit tests for subsystem/nvme-drive.c, the generic half of a drive, on the in-memory
 * controller (tests/unit/support/fake-drive.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "subsystem/nvme-drive.h"
#include "tests/unit/suites.h"
#include "tests/unit/support/fake-drive.h"

static void load_reads_controller_effects_and_namespaces(void)
{
	char err[256] = "";
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	const struct nvme_id_ctrl *id = (const struct nvme_id_ctrl *)d->id_ctrl;
	CU_ASSERT_EQUAL(memcmp(id->sn, FAKE_DRIVE_SN, strlen(FAKE_DRIVE_SN)), 0);
	CU_ASSERT_EQUAL(le16toh(id->cntlid), FAKE_DRIVE_CNTLID);
	CU_ASSERT_TRUE(d->has_effects);
	CU_ASSERT_EQUAL(d->n_ns, 2);
	const struct nvmf_drive_ns *n1 = nvmf_drive_ns_find(d, 1), *n2 = nvmf_drive_ns_find(d, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n2);
	CU_ASSERT_EQUAL(n1->lba_shift, 9);
	CU_ASSERT_EQUAL(n1->nsze, 2048);
	CU_ASSERT_EQUAL(n1->ms, 0);
	CU_ASSERT_STRING_EQUAL(n1->refused, "");
	CU_ASSERT_EQUAL(n2->lba_shift, 12);
	CU_ASSERT_EQUAL(n2->nsze, 256);
	CU_ASSERT_EQUAL(n2->ms, 8);
	CU_ASSERT_TRUE(n2->extended);
	CU_ASSERT_STRING_EQUAL(n2->refused, "");
	CU_ASSERT_STRING_EQUAL(n2->path, "/dev/fake0n2"); /* ns_open ran */
	CU_ASSERT_PTR_NULL(nvmf_drive_ns_find(d, 3));
	CU_ASSERT_EQUAL(fake_drive_of(d)->ns_opens, 2);
	nvmf_drive_close(d);
}

static void effects_entry_of_admin_and_io_opcodes(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	uint32_t fmt = nvmf_drive_effects(d, true, nvme_admin_format_nvm);
	CU_ASSERT_TRUE(fmt & NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_TRUE(fmt & NVME_CMD_EFFECTS_NCC);
	CU_ASSERT_EQUAL(nvmf_drive_effects(d, false, nvme_cmd_write),
			NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC);
	CU_ASSERT_EQUAL(nvmf_drive_effects(d, false, nvme_cmd_read), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(nvmf_drive_effects(d, false, 0x7f), 0); /* not listed */
	nvmf_drive_close(d);

	/* LPA bit 1 clear: the log is never asked for, every entry reads 0. */
	d = fake_drive_open("/dev/fake0,noeffects", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_FALSE(d->has_effects);
	CU_ASSERT_EQUAL(nvmf_drive_effects(d, true, nvme_admin_format_nvm), 0);
	CU_ASSERT_NOT_EQUAL(fake_drive_of(d)->last_admin.opcode, nvme_admin_get_log_page);
	nvmf_drive_close(d);
}

static void separate_metadata_namespace_is_listed_refused(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0,sepmeta", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n_ns, 3);
	const struct nvmf_drive_ns *n3 = nvmf_drive_ns_find(d, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n3);
	CU_ASSERT_FALSE(n3->extended);
	CU_ASSERT_STRING_EQUAL(n3->refused, "nsid 3: 8 bytes of metadata in a separate buffer, "
					    "which no fabrics transport carries");
	nvmf_drive_close(d);
}

static void load_failure_names_the_drive_and_the_command(void)
{
	char err[256] = "";
	CU_ASSERT_PTR_NULL(fake_drive_open("/dev/fake0,fail=06", err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "/dev/fake0,fail=06: Identify Controller failed: the drive "
				    "answered status 0x6");
	CU_ASSERT_PTR_NULL(fake_drive_open("/dev/fake0,nsbusy=2", err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "/dev/fake0,nsbusy=2 nsid 2: busy");
	CU_ASSERT_PTR_NULL(fake_drive_open("/dev/nvme9", err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "/dev/nvme9: No such file or directory");
}

/* Format NVM 4096 B without metadata on ns 1, namespace 2 deleted, 4 created: the rescan
 * follows, keeping what ns_open took for the namespace still there. */
static void rescan_follows_format_and_inventory_changes(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct fake_drive *f = fake_drive_of(d);
	struct nvme_sqe c = { .opcode = nvme_admin_format_nvm };
	c.nsid = htole32(1);
	c.cdw10 = htole32(1); /* lbaf 1: 4096 B */
	uint16_t st = 0xffff;
	uint64_t res;
	CU_ASSERT_EQUAL(d->ops->admin(d, &c, NULL, 0, 0, &st, &res), 0);
	CU_ASSERT_EQUAL(st, 0);
	fake_drive_set_ns(f, 2, false, 0);
	fake_drive_set_ns(f, 4, true, 100);
	CU_ASSERT_EQUAL(nvmf_drive_rescan(d, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(d->n_ns, 2);
	const struct nvmf_drive_ns *n1 = nvmf_drive_ns_find(d, 1), *n4 = nvmf_drive_ns_find(d, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n4);
	CU_ASSERT_EQUAL(n1->lba_shift, 12);
	CU_ASSERT_EQUAL(n1->nsze, 256);
	CU_ASSERT_STRING_EQUAL(n1->path, "/dev/fake0n1"); /* kept, not reopened */
	CU_ASSERT_EQUAL(n4->nsze, 100);
	CU_ASSERT_PTR_NULL(nvmf_drive_ns_find(d, 2));
	CU_ASSERT_EQUAL(f->ns_opens, 3);  /* 1, 2, then 4 */
	CU_ASSERT_EQUAL(f->ns_closes, 1); /* 2 */
	nvmf_drive_close(d);
}

/* A rescan failing half way leaves the drive as it was, and closes what it opened. */
static void failed_rescan_leaves_the_namespaces_as_they_were(void)
{
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct fake_drive *f = fake_drive_of(d);
	fake_drive_set_ns(f, 3, true, 64);
	fake_drive_set_ns(f, 4, true, 64);
	f->fail_ns_open = 4;
	CU_ASSERT_EQUAL(nvmf_drive_rescan(d, err, sizeof(err)), -EBUSY);
	CU_ASSERT_STRING_EQUAL(err, "/dev/fake0 nsid 4: busy");
	CU_ASSERT_EQUAL(d->n_ns, 2);
	CU_ASSERT_PTR_NULL(nvmf_drive_ns_find(d, 3));
	CU_ASSERT_EQUAL(f->ns_opens, 3);  /* 1, 2, 3 */
	CU_ASSERT_EQUAL(f->ns_closes, 1); /* 3 again */
	CU_ASSERT_STRING_EQUAL(nvmf_drive_ns_find(d, 2)->path, "/dev/fake0n2");
	nvmf_drive_close(d);
}

static void close_frees_the_drive_and_null_is_nothing(void)
{
	nvmf_drive_close(NULL);
	char err[256];
	struct nvmf_drive *d = fake_drive_open("/dev/fake0", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	nvmf_drive_close(d); /* no leak under ASan: the fake frees its namespaces */
}

const struct unit_test nvme_drive_tests[] = {
	{ "load_reads_controller_effects_and_namespaces",
	  load_reads_controller_effects_and_namespaces },
	{ "effects_entry_of_admin_and_io_opcodes", effects_entry_of_admin_and_io_opcodes },
	{ "separate_metadata_namespace_is_listed_refused",
	  separate_metadata_namespace_is_listed_refused },
	{ "load_failure_names_the_drive_and_the_command",
	  load_failure_names_the_drive_and_the_command },
	{ "rescan_follows_format_and_inventory_changes",
	  rescan_follows_format_and_inventory_changes },
	{ "failed_rescan_leaves_the_namespaces_as_they_were",
	  failed_rescan_leaves_the_namespaces_as_they_were },
	{ "close_frees_the_drive_and_null_is_nothing", close_frees_the_drive_and_null_is_nothing },
	{ NULL, NULL },
};
