/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/RDMA transport of the target (NVMe-oF 1.1 section 7.3, RDMA transport binding).
 * It owns everything verbs: the rdma_cm listeners, one RC QP per NVMe queue, per poll
 * group a CQ and an SRQ per device with their completion channels, registered buffer
 * pools and work-request posting. It plugs into the core through this ops table
 * (target/transport.h) and nothing else; the core's poll groups run its pollers.
 */
#ifndef NVMF_RDMA_TARGET_TRANSPORT_H
#define NVMF_RDMA_TARGET_TRANSPORT_H

#include "target/transport.h"

extern const struct nvmf_transport_ops nvmf_rdma_transport_ops;

#endif
