/* SPDX-License-Identifier: MIT */
/* Atomic file replacement (see atomic-file.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "util/atomic-file.h"

/* All of @len bytes of @p to @fd; 0 or an errno. */
static int write_all(int fd, const char *p, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);
		if (w < 0 && errno != EINTR)
			return errno;
		if (w > 0)
			off += (size_t)w;
	}
	return 0;
}

int nvmf_atomic_write(const char *path, const struct iovec *iov, int iovcnt, mode_t mode, char *err,
		      size_t errlen)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: name too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	/* A file of ours, made anew: not one someone left there (its mode, its owner), not
	 * through a link. A stale temporary of an earlier process of this pid goes first. */
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		int e = errno;
		/* Named by the file asked for: the temporary beside it is ours. */
		snprintf(err, errlen, "%s: %s (the file is written beside itself, then renamed)",
			 path, strerror(e));
		return -e;
	}
	int e = 0;
	for (int i = 0; i < iovcnt && !e; i++)
		e = write_all(fd, iov[i].iov_base, iov[i].iov_len);
	/* Durable before it replaces the old file: a crash leaves one or the other. */
	if (!e && fsync(fd) < 0)
		e = errno;
	if (close(fd) < 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) < 0)
		e = errno;
	if (e) {
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd); /* the rename itself */
		close(dfd);
	}
	return 0;
}
