/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/RDMA transport of the target (NVMe-oF 1.1 section 7.3, RDMA transport binding).
 * It owns everything verbs: the rdma_cm listeners, one RC QP per NVMe queue, the CQ and
 * its completion channel, registered buffer pools and work-request posting. It plugs into
 * the core through struct nvmf_transport_ops (target/core.h) and nothing else.
 *
 * The caller's thread runs nvmf_rdma_poll() in a loop: it handles CM events, reaps
 * completions in batches, advances each request, lets the backend's io_uring run
 * (tgt->io), posts what the pass produced once per QP and sleeps on the completion
 * channel, the CM channel and the aio eventfd when there has been no work for
 * idle_poll_us. With nvmf_target.threads > 1 the I/O queues are served by that many
 * worker threads of the transport instead (rdma/worker.c).
 */
#ifndef NVMF_RDMA_TRANSPORT_H
#define NVMF_RDMA_TRANSPORT_H

#include <stddef.h>
#include "target/core.h"

struct nvmf_rdma_transport;

/*
 * nvmf_rdma_create - set up the transport for @tgt (pools are created lazily when the
 * first device is seen, on the device's NUMA node). Returns NULL with @err set.
 */
struct nvmf_rdma_transport *nvmf_rdma_create(struct nvmf_tgt *tgt, char *err, size_t errlen);

/*
 * nvmf_rdma_listen - listen on @port (traddr/trsvcid, IPv4 or IPv6, wildcard allowed).
 * Returns 0 or -1 with @err naming the address and the reason (e.g. no RDMA device on
 * that address: "rdma_bind_addr 1.2.3.4:4420: Cannot assign requested address").
 */
int nvmf_rdma_listen(struct nvmf_rdma_transport *t, struct nvmf_port *port, char *err, size_t errlen);

/*
 * nvmf_rdma_poll - one pass of the poll loop; sleeps up to @max_sleep_ms when idle.
 * Returns the number of events handled (0 when it slept), or -1 on a fatal error.
 */
int nvmf_rdma_poll(struct nvmf_rdma_transport *t, int max_sleep_ms);

/*
 * nvmf_rdma_shutdown - stop listening, fail in-flight commands that have not reached the
 * backend, wait (polling, up to @timeout_ms) for those in the backend, disconnect every
 * queue and destroy all resources. The core's controllers are gone afterwards.
 */
void nvmf_rdma_shutdown(struct nvmf_rdma_transport *t, int timeout_ms);

#endif
