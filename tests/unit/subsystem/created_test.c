/*
 * The record of backing files created or served under nvmf_create (subsystem/created.c):
 * kept in a file, read back, and a missing recorded file is refused by name rather than
 * created again empty.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "subsystem/created.h"
#include "tests/unit/suites.h"

static char Dir[64], Rec[96], Img[96];

static void setup(void)
{
	snprintf(Dir, sizeof(Dir), "/tmp/nvmf-created-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(Dir));
	snprintf(Rec, sizeof(Rec), "%s/config.json.created.json", Dir);
	snprintf(Img, sizeof(Img), "%s/ns.img", Dir);
}

static void teardown(void)
{
	unlink(Rec);
	unlink(Img);
	rmdir(Dir);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void missing_record_is_empty_and_an_entry_added_is_read_back(void)
{
	setup();
	struct nvmf_created c;
	char err[512];
	CU_ASSERT_EQUAL_FATAL(nvmf_created_open(&c, Rec, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.n, 0);
	CU_ASSERT_EQUAL(access(Rec, F_OK), -1); /* nothing written until something is */
	CU_ASSERT_EQUAL(nvmf_created_add(&c, Img, 0, err, sizeof(err)), 0);
	nvmf_created_free(&c);
	CU_ASSERT_EQUAL_FATAL(nvmf_created_open(&c, Rec, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.n, 1);
	CU_ASSERT_STRING_EQUAL(nvmf_created_when(&c, Img), "1970-01-01T00:00:00Z");
	CU_ASSERT_PTR_NULL(nvmf_created_when(&c, "/elsewhere.img"));
	nvmf_created_free(&c);
	teardown();
}

static void missing_recorded_file_under_nvmf_create_is_refused_by_name(void)
{
	setup();
	struct nvmf_created c;
	char err[1024], want[1024];
	CU_ASSERT_EQUAL_FATAL(nvmf_created_open(&c, Rec, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_created_add(&c, Img, 86400, err, sizeof(err)), 0);
	struct nvmf_ns_config nc = { .nsid = 4,
				     .enable = true,
				     .path = Img,
				     .create = true,
				     .kind = NVMF_BACKEND_FILE,
				     .size_bytes = 1 << 20 };
	snprintf(want, sizeof(want),
		 "%s: created or served by this target (nvmf_create) since "
		 "1970-01-02T00:00:00Z, now missing: refusing to create an empty one (restore "
		 "the file, or mount its file system; to start empty, create it yourself or "
		 "remove its entry from %s)",
		 Img, Rec);
	CU_ASSERT_EQUAL(nvmf_created_check(&c, &nc, err, sizeof(err)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* The same from a whole config, named as the loader names a namespace. */
	struct nvmf_subsys_config sc = { .nqn = "nqn.x", .ns = &nc, .n_ns = 1 };
	struct nvmf_config cfg = { .subsystems = &sc, .n_subsystems = 1 };
	CU_ASSERT_EQUAL(nvmf_created_check_config(&c, &cfg, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "subsystems[0].namespaces[0] (subsystem nqn.x, "
					   "namespace 4): "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	/* Not asked to create it, or the file is there, or no record: nothing to say. */
	nc.create = false;
	CU_ASSERT_EQUAL(nvmf_created_check(&c, &nc, err, sizeof(err)), 0);
	nc.create = true;
	CU_ASSERT_EQUAL(nvmf_created_check(NULL, &nc, err, sizeof(err)), 0);
	write_file(Img, "");
	CU_ASSERT_EQUAL(nvmf_created_check(&c, &nc, err, sizeof(err)), 0);
	nvmf_created_free(&c);
	teardown();
}

static void broken_record_is_refused_naming_it(void)
{
	setup();
	struct nvmf_created c;
	char err[512], want[512];
	write_file(Rec, "{\"version\": 1, \"created\": [{\"path\": \"ns.img\", \"at\": \"x\"}]}");
	CU_ASSERT_EQUAL(nvmf_created_open(&c, Rec, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "%s: created[0]: needs \"path\" (absolute) and \"at\" (a time)", Rec);
	CU_ASSERT_STRING_EQUAL(err, want);
	write_file(Rec, "{\"version\": 2, \"created\": []}");
	CU_ASSERT_EQUAL(nvmf_created_open(&c, Rec, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "%s: not a record of created files (version 1, \"created\": [...])", Rec);
	CU_ASSERT_STRING_EQUAL(err, want);
	write_file(Rec, "{");
	CU_ASSERT_EQUAL(nvmf_created_open(&c, Rec, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(strncmp(err, Rec, strlen(Rec)), 0);
	teardown();
}

const struct unit_test created_tests[] = {
	{ "missing_record_is_empty_and_an_entry_added_is_read_back",
	  missing_record_is_empty_and_an_entry_added_is_read_back },
	{ "missing_recorded_file_under_nvmf_create_is_refused_by_name",
	  missing_recorded_file_under_nvmf_create_is_refused_by_name },
	{ "broken_record_is_refused_naming_it", broken_record_is_refused_naming_it },
	{ NULL, NULL },
};
