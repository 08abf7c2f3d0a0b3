/* SPDX-License-Identifier: MIT */
/*
 * The kernel's ephemeral port range (net.ipv4.ip_local_port_range, 32768-60999 by
 * default): the local ports the kernel gives outgoing TCP connections, and rdma_cm
 * outgoing RDMA connections in its own port space. A listening port in it may be held by
 * any outgoing connection while the target is down (target/ephemeral.h warns about it;
 * a transport names it when a bind fails with EADDRINUSE).
 */
#ifndef NVMF_UTIL_EPHEMERAL_H
#define NVMF_UTIL_EPHEMERAL_H

#define NVMF_EPHEMERAL_RANGE_PATH "/proc/sys/net/ipv4/ip_local_port_range"

/* nvmf_ephemeral_range - the range in @path (NULL: NVMF_EPHEMERAL_RANGE_PATH), two
 * decimal port numbers, into *@lo and *@hi (inclusive). 0, or -errno: the file's open
 * error, -EINVAL when it does not hold two ports lo <= hi of 1-65535. */
int nvmf_ephemeral_range(const char *path, long *lo, long *hi);

#endif
