/* SPDX-License-Identifier: MIT */
/*
 * Ports in the kernel's ephemeral port range (net.ipv4.ip_local_port_range, 32768-60999
 * by default). The kernel gives an outgoing TCP connection a local port from it, and
 * rdma_cm does the same for an outgoing RDMA connection in its own port space. A port of
 * ours in that range binds while it is free, but any outgoing connection of the machine
 * may hold it while the target is down, and the next start then fails to bind
 * (EADDRINUSE). So the target warns when it starts listening on one; it does not refuse.
 */
#ifndef NVMF_TARGET_EPHEMERAL_H
#define NVMF_TARGET_EPHEMERAL_H

#include <stdbool.h>
#include <stddef.h>
#include "subsystem/config.h"
#include "util/ephemeral.h"

struct nvmf_tgt;

/* nvmf_port_ephemeral_warning - when port @pc (tcp or rdma) listens on a trsvcid in
 * [@lo, @hi]: the one-line warning naming the port and the range into @msg (@len bytes),
 * true. False for any other port or trtype (@msg untouched). */
bool nvmf_port_ephemeral_warning(const struct nvmf_port_config *pc, long lo, long hi, char *msg,
				 size_t len);

/* nvmf_tgt_ephemeral_warning - that warning for @pc into @msg (@len bytes), true when it
 * applies; the range is read from tgt->ephemeral_range_path (NULL: the kernel's). A range
 * that cannot be read is no warning. */
bool nvmf_tgt_ephemeral_warning(const struct nvmf_tgt *tgt, const struct nvmf_port_config *pc,
				char *msg, size_t len);
/* nvmf_tgt_warn_ephemeral - log that warning for @pc, which @tgt now listens on, when it
 * applies. */
void nvmf_tgt_warn_ephemeral(const struct nvmf_tgt *tgt, const struct nvmf_port_config *pc);

#endif
