/* A small regular file read whole (util/read-file.c): the bytes and their count; a
 * directory, a character device, a FIFO and a socket refused by what they are (the FIFO
 * without waiting for a writer); a file past the limit refused naming the limit, by its
 * size or by what a read finds; a missing file with its errno. A key file's one line: its
 * trailing white space cut, a NUL inside refused; its mode without group or other bits. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "tests/unit/suites.h"
#include "util/read-file.h"

static char Dir[64], Path[96];

static void dir_make(void)
{
	snprintf(Dir, sizeof(Dir), "/tmp/util-readfile-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(Dir));
	snprintf(Path, sizeof(Path), "%s/f", Dir);
}

static void put(const char *bytes, size_t n)
{
	FILE *f = fopen(Path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

static void regular_file_is_read_whole_with_its_length(void)
{
	dir_make();
	put("{\"a\":\0 1}", 9);
	size_t len = 0;
	int rc = 1;
	char err[128] = "";
	char *t = nvmf_read_regular_file(Path, 100, &len, &rc, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(len, 9);
	CU_ASSERT_EQUAL(memcmp(t, "{\"a\":\0 1}", 10), 0); /* NUL added after */
	free(t);
	put("", 0);
	t = nvmf_read_regular_file(Path, 100, &len, &rc, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_EQUAL(t[0], '\0');
	free(t);
	/* exactly the limit is allowed, one byte more is not */
	static char big[10000];
	memset(big, 'x', sizeof(big));
	put(big, sizeof(big));
	t = nvmf_read_regular_file(Path, sizeof(big), &len, &rc, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(len, sizeof(big));
	free(t);
	CU_ASSERT_PTR_NULL(
		nvmf_read_regular_file(Path, sizeof(big) - 1, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -EFBIG);
	CU_ASSERT_STRING_EQUAL(err, "is larger than 9999 bytes (the limit for this file)");
	unlink(Path);
	rmdir(Dir);
}

static void other_kinds_of_file_are_refused_by_name(void)
{
	dir_make();
	size_t len;
	int rc;
	char err[128];
	CU_ASSERT_PTR_NULL(nvmf_read_regular_file(Dir, 100, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -EISDIR);
	CU_ASSERT_STRING_EQUAL(err, "is a directory");
	/* /dev/zero would grow memory without end */
	CU_ASSERT_PTR_NULL(
		nvmf_read_regular_file("/dev/zero", 1u << 20, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "is a character device, not a regular file");
	/* a FIFO nobody writes: refused at once, not waited on */
	CU_ASSERT_EQUAL_FATAL(mkfifo(Path, 0600), 0);
	CU_ASSERT_PTR_NULL(nvmf_read_regular_file(Path, 100, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "is a FIFO, not a regular file");
	unlink(Path);
	/* a socket cannot be opened at all: its errno */
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", Path);
	CU_ASSERT_EQUAL_FATAL(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	CU_ASSERT_PTR_NULL(nvmf_read_regular_file(Path, 100, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -ENXIO);
	CU_ASSERT_STRING_EQUAL(err, strerror(ENXIO));
	close(s);
	unlink(Path);
	CU_ASSERT_PTR_NULL(nvmf_read_regular_file(Path, 100, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -ENOENT);
	CU_ASSERT_STRING_EQUAL(err, strerror(ENOENT));
	rmdir(Dir);
}

/* The limit in MiB when it is whole MiBs (the message operators meet); a file past it
 * refused before anything is read. */
static void limit_is_named_in_mib_and_checked_before_reading(void)
{
	dir_make();
	FILE *f = fopen(Path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(ftruncate(fileno(f), (off_t)NVMF_CONFIG_FILE_MAX + 1), 0); /* sparse */
	fclose(f);
	size_t len;
	int rc;
	char err[128];
	CU_ASSERT_PTR_NULL(
		nvmf_read_regular_file(Path, NVMF_CONFIG_FILE_MAX, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -EFBIG);
	CU_ASSERT_STRING_EQUAL(err, "is larger than 16 MiB (the limit for this file)");
	unlink(Path);
	rmdir(Dir);
}

/* A file whose size says less than it holds (/proc's files say 0): the read stops at
 * the limit all the same. */
static void a_read_past_the_limit_is_refused_whatever_the_size_said(void)
{
	size_t len;
	int rc;
	char err[128];
	char *t =
		nvmf_read_regular_file("/proc/self/status", 1u << 20, &len, &rc, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT(len > 16);
	CU_ASSERT_EQUAL(strncmp(t, "Name:", 5), 0);
	free(t);
	CU_ASSERT_PTR_NULL(
		nvmf_read_regular_file("/proc/self/status", 16, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -EFBIG);
	CU_ASSERT_STRING_EQUAL(err, "is larger than 16 bytes (the limit for this file)");
}

static void secret_line_loses_its_trailing_white_space_and_refuses_a_nul(void)
{
	dir_make();
	size_t len = 99;
	int rc = 1;
	char err[128] = "";
	put("NVMeTLSkey-1:01:abc:\r\n \t\n", 25);
	char *t = nvmf_read_secret_line(Path, 100, &len, &rc, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(len, 20);
	CU_ASSERT_STRING_EQUAL(t, "NVMeTLSkey-1:01:abc:");
	free(t);
	/* leading white space is the key's own: kept, so the parser names it */
	put(" k\n", 3);
	t = nvmf_read_secret_line(Path, 100, &len, &rc, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(t, " k");
	free(t);
	put("\n\n", 2);
	t = nvmf_read_secret_line(Path, 100, &len, &rc, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(len, 0);
	free(t);
	put("abc\0\0\0", 6); /* NULs at the end are not white space */
	CU_ASSERT_PTR_NULL(nvmf_read_secret_line(Path, 100, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	put("abc\0def\n", 8);
	CU_ASSERT_PTR_NULL(nvmf_read_secret_line(Path, 100, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "holds a NUL byte: not a line of text");
	/* the file reader's own refusals come through */
	CU_ASSERT_PTR_NULL(nvmf_read_secret_line(Dir, 100, &len, &rc, err, sizeof(err)));
	CU_ASSERT_EQUAL(rc, -EISDIR);
	unlink(Path);
	rmdir(Dir);
}

/* A key file: private at 0600 and 0400, refused with its mode at any group or other
 * bit, and a missing one with stat's errno. */
static void secret_file_must_have_no_group_or_other_bits(void)
{
	dir_make();
	put("k\n", 2);
	char err[128] = "";
	CU_ASSERT_EQUAL(chmod(Path, 0600), 0);
	CU_ASSERT_EQUAL(nvmf_secret_file_private(Path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(chmod(Path, 0400), 0);
	CU_ASSERT_EQUAL(nvmf_secret_file_private(Path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(chmod(Path, 0640), 0);
	CU_ASSERT_EQUAL(nvmf_secret_file_private(Path, err, sizeof(err)), -EACCES);
	CU_ASSERT_STRING_EQUAL(err, "can be read by others (mode 0640): chmod 600 it");
	CU_ASSERT_EQUAL(chmod(Path, 0604), 0);
	CU_ASSERT_EQUAL(nvmf_secret_file_private(Path, err, sizeof(err)), -EACCES);
	unlink(Path);
	CU_ASSERT_EQUAL(nvmf_secret_file_private(Path, err, sizeof(err)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err, strerror(ENOENT));
	rmdir(Dir);
}

const struct unit_test util_read_file_tests[] = {
	{ "secret_file_must_have_no_group_or_other_bits",
	  secret_file_must_have_no_group_or_other_bits },
	{ "regular_file_is_read_whole_with_its_length",
	  regular_file_is_read_whole_with_its_length },
	{ "other_kinds_of_file_are_refused_by_name", other_kinds_of_file_are_refused_by_name },
	{ "limit_is_named_in_mib_and_checked_before_reading",
	  limit_is_named_in_mib_and_checked_before_reading },
	{ "a_read_past_the_limit_is_refused_whatever_the_size_said",
	  a_read_past_the_limit_is_refused_whatever_the_size_said },
	{ "secret_line_loses_its_trailing_white_space_and_refuses_a_nul",
	  secret_line_loses_its_trailing_white_space_and_refuses_a_nul },
	{ NULL, NULL }
};
