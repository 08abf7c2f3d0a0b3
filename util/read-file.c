/* SPDX-License-Identifier: MIT */
/* A small regular file read whole, with a size limit (see read-file.h). */
#include "util/read-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_name(mode_t mode)
{
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

static char *fail(int *rc, int e, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static char *fail(int *rc, int e, char *err, size_t errlen, const char *fmt, ...)
{
	*rc = -e;
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return NULL;
}

static char *too_big(int *rc, size_t max, char *err, size_t errlen)
{
	if (max % (1u << 20) == 0)
		return fail(rc, EFBIG, err, errlen,
			    "is larger than %zu MiB (the limit for this file)", max >> 20);
	return fail(rc, EFBIG, err, errlen, "is larger than %zu bytes (the limit for this file)",
		    max);
}

char *nvmf_read_regular_file(const char *path, size_t max, size_t *len, int *rc, char *err,
			     size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fail(rc, errno, err, errlen, "%s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		return fail(rc, e, err, errlen, "%s", strerror(e));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return fail(rc, EISDIR, err, errlen, "is a directory");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(rc, EINVAL, err, errlen, "is %s, not a regular file",
			    kind_name(st.st_mode));
	}
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return too_big(rc, max, err, errlen);
	}
	/* The size may change under us (a file being written, /proc's size 0): read to the
	 * end, but never past max. */
	size_t cap = (size_t)st.st_size + 1 < 4096 ? 4096 : (size_t)st.st_size + 1, n = 0;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (!buf) {
			close(fd);
			return fail(rc, ENOMEM, err, errlen, "out of memory");
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return fail(rc, e, err, errlen, "read: %s", strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(buf);
			close(fd);
			return too_big(rc, max, err, errlen);
		}
		if (n == cap) {
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *g = realloc(buf, cap + 1);
			if (!g)
				free(buf);
			buf = g;
		}
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	*rc = 0;
	return buf;
}

char *nvmf_read_secret_line(const char *path, size_t max, size_t *len, int *rc, char *err,
			    size_t errlen)
{
	size_t n = 0;
	char *text = nvmf_read_regular_file(path, max, &n, rc, err, errlen);
	if (!text)
		return NULL;
	while (n && text[n - 1] && strchr(" \t\r\n", text[n - 1])) /* strchr finds a NUL too */
		text[--n] = '\0';
	if (strlen(text) != n) {
		explicit_bzero(text, n);
		free(text);
		return fail(rc, EINVAL, err, errlen, "holds a NUL byte: not a line of text");
	}
	*len = n;
	return text;
}

int nvmf_secret_file_private(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st)) {
		int e = errno;
		snprintf(err, errlen, "%s", strerror(e));
		return -e;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen, "can be read by others (mode %04o): chmod 600 it",
			 (unsigned)(st.st_mode & 07777));
		return -EACCES;
	}
	return 0;
}
