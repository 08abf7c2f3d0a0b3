/* SPDX-License-Identifier: MIT */
/*
 * USDT probes of provider "nvmf" (<sys/sdt.h>, package systemtap-sdt-dev), in the manner
 * of nvmet's tracepoints and SPDK's spdk_trace: where a request is received, executed,
 * handed to and returned by its backend, and answered, and where a transport's
 * connection or queue changes state. Each is a nop instruction and an ELF note
 * (`readelf -n build/nvmf-target` lists them): free while nothing is attached, and no
 * semaphore is tested since every argument is already at hand. bpftrace and perf read
 * them; docs/tracing.md lists them with their arguments and one-liners.
 *
 * At most six arguments each: bpftrace (0.17, Debian 12) reads arg0-arg5 only.
 *
 * Arguments, all host endian: req, conn: addresses (unique while in flight, so the key
 * that pairs receive with response: qid and cid repeat across controllers); qid: 0 for
 * the admin queue; cid: the host's Command Identifier; opcode: the command's opcode
 * (0x7f: a Fabrics command); nsid: the SQE's Namespace Identifier, 0 for a Fabrics
 * command (whose bytes 4-7 are no NSID); lengths, offsets: bytes; status: the NVMe status
 * field, (SCT << 8 | SC) plus 0x4000 for Do Not Retry, 0 on success; result: 0 or a
 * negative errno; trtype, peer, why: NUL-terminated strings (why may be "").
 */
#ifndef NVMF_TARGET_PROBES_H
#define NVMF_TARGET_PROBES_H

#include <sys/sdt.h>

/* A command capsule arrived and its request is set up (target/core.c nvmf_req_init). */
#define NVMF_PROBE_REQUEST_RECEIVE(req, qid, cid, opcode, nsid) \
	DTRACE_PROBE5(nvmf, request_receive, req, qid, cid, opcode, nsid)
/* Its data is in and its handler runs (nvmf_req_execute); data_len: bytes it moves. */
#define NVMF_PROBE_REQUEST_EXECUTE(req, qid, cid, opcode, nsid, data_len) \
	DTRACE_PROBE6(nvmf, request_execute, req, qid, cid, opcode, nsid, data_len)
/* Its backend I/O is handed over (target/io-cmd.c): op is enum nvmf_bdev_op (0 read,
 * 1 write, 2 flush, 3 write zeroes, 4 discard); fires again for a retry after a full ring. */
#define NVMF_PROBE_BACKEND_SUBMIT(req, nsid, op, offset, len) \
	DTRACE_PROBE5(nvmf, backend_submit, req, nsid, op, offset, len)
/* The backend finished it: result 0 or a negative errno. */
#define NVMF_PROBE_BACKEND_COMPLETE(req, nsid, op, result) \
	DTRACE_PROBE4(nvmf, backend_complete, req, nsid, op, result)
/* Its completion goes to the transport (nvmf_req_complete), status as above. */
#define NVMF_PROBE_REQUEST_RESPONSE(req, qid, cid, opcode, nsid, status) \
	DTRACE_PROBE6(nvmf, request_response, req, qid, cid, opcode, nsid, status)
/* Its queue died before it executed (nvmf_req_abandon): there is no response. */
#define NVMF_PROBE_REQUEST_ABANDON(req, qid, cid) \
	DTRACE_PROBE3(nvmf, request_abandon, req, qid, cid)

/* A transport accepted a connection from @peer ("addr:port"); no queue yet. */
#define NVMF_PROBE_CONN_ACCEPT(trtype, conn, peer) \
	DTRACE_PROBE3(nvmf, conn_accept, trtype, conn, peer)
/* The connection's Fabrics Connect named its queue @qid (it now serves requests). */
#define NVMF_PROBE_QUEUE_CONNECT(trtype, conn, qid) \
	DTRACE_PROBE3(nvmf, queue_connect, trtype, conn, qid)
/* The connection ends in order (host disconnect, controller deleted, shutdown). */
#define NVMF_PROBE_CONN_DISCONNECT(trtype, conn, qid, why) \
	DTRACE_PROBE4(nvmf, conn_disconnect, trtype, conn, qid, why)
/* The connection ends on an error (protocol, transport, resources): @why says which. */
#define NVMF_PROBE_CONN_ERROR(trtype, conn, qid, why) \
	DTRACE_PROBE4(nvmf, conn_error, trtype, conn, qid, why)

#endif
