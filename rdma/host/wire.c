/* SPDX-License-Identifier: MIT */
/*
 * Pure helpers of the RDMA host transport (see rdma/host/host.h): how a reject reads,
 * how much data a capsule may carry, address parsing. No verbs calls: unit tested
 * directly.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/rdma-cm.h"
#include "rdma/host/host.h"
#include "util/addr.h"

/* Names of the IB CM reject reasons a host meets in practice (IBTA 12.6.7.2). */
static const char *ib_rej_reason(int status)
{
	switch (status) {
	case 1:
		return "no QP";
	case 2:
		return "no EEC";
	case 3:
		return "no resources";
	case 4:
		return "timeout";
	case 5:
		return "unsupported request";
	case NVMF_RH_IB_REJ_INVALID_SID:
		return "nothing listens on that port (invalid service ID)";
	case 14:
		return "invalid transport type";
	case 26:
		return "invalid private data length";
	case 27:
		return "port redirect";
	case NVMF_RH_IB_REJ_CONSUMER:
		return "consumer reject";
	default:
		return NULL;
	}
}

int nvmf_rh_reject_msg(int status, const void *pdata, size_t len, char *buf, size_t buflen)
{
	/* iWARP reports -ECONNREFUSED with the private data; IB/RoCE reason 28. */
	bool consumer = status == NVMF_RH_IB_REJ_CONSUMER || status == -ECONNREFUSED;
	int sts = consumer ? nvme_rdma_cm_parse_rej(pdata, len) : -1;
	if (sts >= 0) {
		snprintf(buf, buflen, "rejected by target: NVMe/RDMA status %d (%s)", sts,
			 nvme_rdma_cm_status_str(sts));
	} else if (consumer) {
		snprintf(buf, buflen, "rejected by target (no NVMe/RDMA status)");
	} else {
		const char *why = ib_rej_reason(status);
		if (why)
			snprintf(buf, buflen, "rejected: %s (CM reason %d)", why, status);
		else
			snprintf(buf, buflen, "rejected: CM reason %d", status);
	}
	return -ECONNREFUSED;
}

uint32_t nvmf_rh_incapsule_size(uint32_t ioccsz)
{
	if (ioccsz < 4 || ioccsz > (UINT32_MAX - 64) / 16)
		return ioccsz < 4 ? 0 : NVMF_RH_MAX_INCAPSULE;
	uint32_t n = ioccsz * 16 - NVME_SQE_SIZE;
	return n > NVMF_RH_MAX_INCAPSULE ? NVMF_RH_MAX_INCAPSULE : n;
}

int nvmf_rh_parse_addr(const char *traddr, const char *trsvcid, struct sockaddr_storage *ss,
		       char *err, size_t errlen)
{
	memset(ss, 0, sizeof(*ss));
	const char *svc = trsvcid && *trsvcid ? trsvcid : NVMF_RH_DEFAULT_PORT;
	uint16_t port;
	if (nvmf_port_parse(svc, &port)) {
		snprintf(err, errlen, "trsvcid '%s': not a port number (1-65535)", svc);
		return -EINVAL;
	}
	if (!traddr || !*traddr) {
		snprintf(err, errlen, "traddr missing");
		return -EINVAL;
	}
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, traddr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		return 0;
	}
	if (inet_pton(AF_INET6, traddr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		return 0;
	}
	snprintf(err, errlen, "traddr '%s': not a numeric IPv4 or IPv6 address", traddr);
	return -EINVAL;
}
