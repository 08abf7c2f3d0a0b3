/* SPDX-License-Identifier: MIT */
/*
 * Reading a small text file whole (a configuration, a subsystem for nvmf-targetctl),
 * written once: only a regular file, and only up to a limit, so that a path naming
 * /dev/zero, a FIFO with nobody writing, a directory or a huge file is refused by name
 * instead of blocking or growing memory without bound.
 */
#ifndef NVMF_UTIL_READ_FILE_H
#define NVMF_UTIL_READ_FILE_H
#include <stddef.h>

/* The largest configuration the target and nvmf-targetctl read: 16 MiB (a config of
 * thousands of namespaces is a few MiB). */
#define NVMF_CONFIG_FILE_MAX (16u << 20)

/*
 * nvmf_read_regular_file - the whole of @path, at most @max bytes, in a malloc'ed buffer
 * with a NUL added after its *@len bytes (the text may hold NULs of its own: use *@len).
 * The file is opened without blocking (a FIFO does not wait for a writer) and checked
 * before any read. Returns the buffer, or NULL with -errno in *@rc and a message in @err
 * that does not repeat @path (callers prefix it):
 *   -EISDIR  "is a directory"
 *   -EINVAL  "is a character device, not a regular file" (block device, FIFO, socket
 *            likewise; the message names which)
 *   -EFBIG   "is larger than 16 MiB (the limit for this file)" (@max as given, in MiB
 *            when a whole number of them, else in bytes), from its size or from what a
 *            read found past @max
 *   -errno   of open: strerror's text, e.g. "No such file or directory"; of read:
 *            "read: " and strerror's text
 *   -ENOMEM  "out of memory"
 */
char *nvmf_read_regular_file(const char *path, size_t max, size_t *len, int *rc, char *err,
			     size_t errlen);

/*
 * nvmf_read_secret_line - a key file as `nvme gen-tls-key` and `nvme gen-dhchap-key`
 * write it: one line of text. As nvmf_read_regular_file (at most @max bytes), then the
 * trailing white space (space, tab, CR, LF) cut off; *@len is the line's length in bytes,
 * NUL not counted. The buffer holds a secret: the caller wipes it (explicit_bzero) before
 * freeing it. Errors: nvmf_read_regular_file's, and -EINVAL "holds a NUL byte: not a line
 * of text"; on error whatever was read is wiped and freed.
 */
char *nvmf_read_secret_line(const char *path, size_t max, size_t *len, int *rc, char *err,
			    size_t errlen);

/*
 * nvmf_secret_file_private - whether @path (a key file) is kept from other users: no
 * group or other permission bits, as the target and nvmf require of a secret's file (ssh
 * asks the same of a private key). 0; -EACCES with "can be read by others (mode 0644):
 * chmod 600 it" in @err (no path: callers put it first); -errno of stat with its text.
 */
int nvmf_secret_file_private(const char *path, char *err, size_t errlen);

#endif
