/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the NVMe/RDMA CM private data (nvme/rdma-cm.h). Input: 6 bytes of
 * port limits (admin queue size, I/O queue size, max qid; le16 each), 4 bytes of CM
 * event status (le32, for the host's reject message), then the private data as the CM
 * delivered it (any length: the target reads a REQ from it, the host a REJ).
 * Checked: a REQ the target accepts is within the limits it was given; one it refuses is
 * refused with a reject status it can name; building a REQ or REJ and parsing it back
 * gives what was built.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/rdma-cm.h"
#include "rdma/host/host.h"

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 10)
		return 0;
	struct nvme_rdma_cm_limits lim = {
		.admin_queue_size = get16(data),
		.io_queue_size = get16(data + 2),
		.max_qid = get16(data + 4),
	};
	int status = (int)(data[6] | data[7] << 8 | data[8] << 16 | (uint32_t)data[9] << 24);
	const uint8_t *pdata = data + 10;
	size_t len = size - 10;
	/* A copy of exactly @len bytes: a read past them is a finding. */
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, pdata, len);

	struct nvme_rdma_cm_conn conn;
	memset(&conn, 0xa5, sizeof(conn));
	int rc = nvme_rdma_cm_parse_req(len ? copy : NULL, len, &lim, &conn);
	if (rc == 0) {
		uint16_t max = conn.qid ? lim.io_queue_size : lim.admin_queue_size;
		if (conn.qid > lim.max_qid || conn.recv_depth < 2 || conn.recv_depth > max ||
		    conn.hrqsize < conn.recv_depth)
			abort();
	} else if (rc < NVME_RDMA_CM_INVALID_LEN || rc > NVME_RDMA_CM_INVALID_HRQSIZE ||
		   !strcmp(nvme_rdma_cm_status_str(rc), "unknown")) {
		abort();
	}
	/* The same bytes as a reject, as the host reads them. */
	int sts = nvme_rdma_cm_parse_rej(len ? copy : NULL, len);
	if ((len < sizeof(struct nvme_rdma_cm_rej)) != (sts < 0) || sts > 0xffff)
		abort();
	char msg[160];
	if (nvmf_rh_reject_msg(status, len ? copy : NULL, len, msg, sizeof(msg)) != -ECONNREFUSED ||
	    !memchr(msg, '\0', sizeof(msg)))
		abort();
	(void)nvme_rdma_cm_status_str(status);

	/* Round trips: what the host builds the target reads back. */
	uint16_t qid = get16(data), qsize = get16(data + 2);
	struct nvme_rdma_cm_req req;
	nvme_rdma_cm_build_req(&req, qid, qsize);
	struct nvme_rdma_cm_limits wide = { 0xffff, 0xffff, 0xffff };
	rc = nvme_rdma_cm_parse_req(&req, sizeof(req), &wide, &conn);
	if (qsize >= 2 &&
	    (rc || conn.qid != qid || conn.recv_depth != qsize || conn.hrqsize != qsize))
		abort();
	if (qsize < 2 && rc != NVME_RDMA_CM_INVALID_HSQSIZE)
		abort();
	struct nvme_rdma_cm_rej rej;
	nvme_rdma_cm_build_rej(&rej, (uint16_t)status);
	if (nvme_rdma_cm_parse_rej(&rej, sizeof(rej)) != (uint16_t)status)
		abort();
	free(copy);
	return 0;
}
