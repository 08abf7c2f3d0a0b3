/* SPDX-License-Identifier: MIT */
/*
 * Replacing a file atomically, written once: the new contents go to a temporary file
 * beside it ("PATH.tmp.PID", created anew: O_EXCL, O_NOFOLLOW), are made durable
 * (fsync), then renamed over PATH (rename(2) is atomic within a file system), and the
 * directory is synced so the rename itself survives a crash. A reader or a crash sees
 * the old file or the new one, never a mix; on any failure the old file is untouched
 * and the temporary file is removed.
 */
#ifndef NVMF_UTIL_ATOMIC_FILE_H
#define NVMF_UTIL_ATOMIC_FILE_H
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/*
 * nvmf_atomic_write - replace @path with the @iovcnt buffers of @iov, in order, as a new
 * file of @mode (before the umask; the owner is the caller). Returns 0, or -errno with
 * a message naming @path in @err: -ENAMETOOLONG (the temporary name does not fit
 * PATH_MAX), or the errno of open, write, fsync, close or rename. A failed fsync of the
 * directory after the rename is not reported (the new file is in place).
 */
int nvmf_atomic_write(const char *path, const struct iovec *iov, int iovcnt, mode_t mode, char *err,
		      size_t errlen);

#endif
