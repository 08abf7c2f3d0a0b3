/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/TCP target transport (NVMe over Fabrics TCP Transport Specification 1.0):
 * nvmf_tcp_transport_ops plugs it into the core (target/transport.h). Files:
 *   transport.c   the transport object, listeners (IPv4/IPv6, non-blocking, on the main
 *                 group), accepted connections up to their first CapsuleCmd (ICReq ->
 *                 ICResp, the Connect's QID), the hand-over to the core, discovery
 *   conn.c        one connection per NVMe queue: receiving and checking PDUs, fatal
 *                 errors (C2HTermReq), teardown
 *   request.c     one command: CapsuleCmd, in-capsule data, R2T/H2CData, C2HData,
 *                 CapsuleResp (the core's queue_response)
 *   poll-group.c  the transport's part of a poll group: an epoll set of its sockets (a
 *                 wait descriptor of the group), batched sends, data buffers
 * Data moves through the sockets by copy (recv into a per-connection buffer, then into a
 * command's buffer; sendmsg from the command's buffer); no MSG_ZEROCOPY.
 */
#ifndef NVMF_TCP_TARGET_TRANSPORT_H
#define NVMF_TCP_TARGET_TRANSPORT_H

#include <sys/socket.h>
#include "target/transport.h"

struct nvmf_port;

/*
 * The ops table: name "tcp", trtype NVMF_TRTYPE_TCP, MSDBD 1, no keyed SGLs; I/O queues
 * of up to 1024 entries, up to 16 KiB of in-capsule data on I/O queues (8 KiB on admin
 * queues, NVME_TCP_ADMIN_CCSZ), 8 MiB per command. Listens on ports with trtype "tcp".
 */
extern const struct nvmf_transport_ops nvmf_tcp_transport_ops;

/*
 * nvmf_tcp_port_bound - the local address @port's listening socket is bound to (its
 * port number is the one the kernel chose when the config's trsvcid is "0", as tests
 * use). Main group thread. Returns 0, or -ENOENT when @port does not listen on TCP.
 */
int nvmf_tcp_port_bound(const struct nvmf_port *port, struct sockaddr_storage *out);

#endif
