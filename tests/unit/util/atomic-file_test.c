/* Atomic file replacement (util/atomic-file.c): the new contents in full, the mode asked
 * for, no temporary left behind; on failure the old file as it was and a message naming
 * the file. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "tests/unit/suites.h"
#include "util/atomic-file.h"

struct dir {
	char path[64];
	char file[96];
};

static void dir_make(struct dir *d)
{
	snprintf(d->path, sizeof(d->path), "/tmp/util-atomic-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(d->path));
	snprintf(d->file, sizeof(d->file), "%s/state.json", d->path);
}

/* Entries of @d (none of them hidden: the temporary is "state.json.tmp.PID"). */
static int dir_entries(const struct dir *d)
{
	char pattern[80];
	glob_t g;
	snprintf(pattern, sizeof(pattern), "%s/*", d->path);
	if (glob(pattern, 0, NULL, &g))
		return 0;
	int n = (int)g.gl_pathc;
	globfree(&g);
	return n;
}

static void dir_remove(struct dir *d)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	buf[0] = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

static int write_text(const char *path, const char *a, const char *b, mode_t mode, char *err,
		      size_t errlen)
{
	struct iovec iov[2] = { { (void *)(uintptr_t)a, strlen(a) },
				{ (void *)(uintptr_t)b, strlen(b) } };
	return nvmf_atomic_write(path, iov, 2, mode, err, errlen);
}

static void new_file_holds_every_buffer_in_order_with_its_mode(void)
{
	struct dir d = { .path = "" };
	dir_make(&d);
	char err[256] = "", buf[64];
	mode_t old = umask(022);
	CU_ASSERT_EQUAL(write_text(d.file, "{\"a\": 1}", "\n", 0600, err, sizeof(err)), 0);
	umask(old);
	slurp(d.file, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "{\"a\": 1}\n");
	struct stat st;
	CU_ASSERT_EQUAL(stat(d.file, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_EQUAL(dir_entries(&d), 1); /* no temporary left */
	dir_remove(&d);
}

static void existing_file_is_replaced_whole(void)
{
	struct dir d = { .path = "" };
	dir_make(&d);
	char err[256], buf[64];
	CU_ASSERT_EQUAL(write_text(d.file, "a much longer old text", "", 0644, err, sizeof(err)),
			0);
	CU_ASSERT_EQUAL(write_text(d.file, "new", "", 0644, err, sizeof(err)), 0);
	slurp(d.file, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "new");
	CU_ASSERT_EQUAL(dir_entries(&d), 1);
	dir_remove(&d);
}

/* The temporary's name is taken by a directory with something in it: the write fails
 * before the old file is touched. */
static void failure_to_create_the_temporary_leaves_the_old_file(void)
{
	struct dir d = { .path = "" };
	dir_make(&d);
	char err[256], buf[64], tmp[160], inner[200];
	CU_ASSERT_EQUAL(write_text(d.file, "old", "", 0644, err, sizeof(err)), 0);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", d.file, (int)getpid());
	CU_ASSERT_EQUAL_FATAL(mkdir(tmp, 0700), 0);
	snprintf(inner, sizeof(inner), "%s/x", tmp);
	CU_ASSERT_EQUAL_FATAL(mkdir(inner, 0700), 0);
	CU_ASSERT_EQUAL(write_text(d.file, "new", "", 0644, err, sizeof(err)), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, d.file));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "written beside itself, then renamed"));
	slurp(d.file, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "old");
	dir_remove(&d);
}

/* The rename fails (the path is a directory that is not empty): nothing replaced, the
 * temporary removed. */
static void failed_rename_removes_the_temporary(void)
{
	struct dir d = { .path = "" };
	dir_make(&d);
	char err[256], inner[160];
	CU_ASSERT_EQUAL_FATAL(mkdir(d.file, 0700), 0);
	snprintf(inner, sizeof(inner), "%s/keep", d.file);
	CU_ASSERT_EQUAL_FATAL(mkdir(inner, 0700), 0);
	int rc = write_text(d.file, "new", "", 0644, err, sizeof(err));
	CU_ASSERT(rc == -EISDIR || rc == -ENOTEMPTY || rc == -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, d.file));
	struct stat st;
	CU_ASSERT_EQUAL(stat(inner, &st), 0); /* the directory as it was */
	CU_ASSERT_EQUAL(dir_entries(&d), 1);  /* no temporary left */
	dir_remove(&d);
}

static void missing_directory_and_long_name_are_errors(void)
{
	char err[256];
	CU_ASSERT_EQUAL(write_text("/nonexistent-dir-of-util-test/x", "a", "", 0644, err,
				   sizeof(err)),
			-ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent-dir-of-util-test/x: "));
	static char longname[PATH_MAX + 8];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[0] = '/';
	CU_ASSERT_EQUAL(write_text(longname, "a", "", 0644, err, sizeof(err)), -ENAMETOOLONG);
	CU_ASSERT_EQUAL(strncmp(err, longname, 64), 0); /* named (the rest cut to @err) */
}

const struct unit_test util_atomic_file_tests[] = {
	{ "new_file_holds_every_buffer_in_order_with_its_mode",
	  new_file_holds_every_buffer_in_order_with_its_mode },
	{ "existing_file_is_replaced_whole", existing_file_is_replaced_whole },
	{ "failure_to_create_the_temporary_leaves_the_old_file",
	  failure_to_create_the_temporary_leaves_the_old_file },
	{ "failed_rename_removes_the_temporary", failed_rename_removes_the_temporary },
	{ "missing_directory_and_long_name_are_errors",
	  missing_directory_and_long_name_are_errors },
	{ NULL, NULL }
};
