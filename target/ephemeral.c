/* SPDX-License-Identifier: MIT */
/* Ports in the kernel's ephemeral port range (see ephemeral.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "target/core.h"
#include "target/ephemeral.h"
#include "target/log.h"

bool nvmf_port_ephemeral_warning(const struct nvmf_port_config *pc, long lo, long hi, char *msg,
				 size_t len)
{
	bool tcp = !strcmp(pc->trtype, "tcp");
	if (!tcp && strcmp(pc->trtype, "rdma"))
		return false;
	char *end;
	long svc = strtol(pc->trsvcid[0] ? pc->trsvcid : "4420", &end, 10);
	if (*end || svc < lo || svc > hi)
		return false;
	char a[96];
	snprintf(
		msg, len,
		"port %u (%s %s): %ld is in the kernel's ephemeral port range %ld-%ld "
		"(net.ipv4.ip_local_port_range): an outgoing %s connection of this machine may take "
		"it while the target is down, and the next start would fail to bind; choose a port "
		"outside the range",
		pc->portid, pc->trtype, nvmf_port_config_addr(pc, a, sizeof(a)), svc, lo, hi,
		tcp ? "TCP" : "RDMA (rdma_cm)");
	return true;
}

bool nvmf_tgt_ephemeral_warning(const struct nvmf_tgt *tgt, const struct nvmf_port_config *pc,
				char *msg, size_t len)
{
	long lo = 0, hi = -1; /* no range unless the file gives one */
	return !nvmf_ephemeral_range(tgt->ephemeral_range_path, &lo, &hi) &&
	       nvmf_port_ephemeral_warning(pc, lo, hi, msg, len);
}

void nvmf_tgt_warn_ephemeral(const struct nvmf_tgt *tgt, const struct nvmf_port_config *pc)
{
	char msg[512];
	if (nvmf_tgt_ephemeral_warning(tgt, pc, msg, sizeof(msg)))
		nvmf_log(tgt, NVMF_LOG_WARNING, "%s", msg);
}
