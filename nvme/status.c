/* SPDX-License-Identifier: MIT */
/* NVMe status names and errno mapping (NVMe Base 2.0 section 4.2.3, NVMe-oF 1.1 3.5). */
#include "nvme/status.h"

#include <errno.h>
#include <stdio.h>

struct status_name {
	uint16_t code; /* (SCT << 8) | SC */
	const char *name;
};

#define GEN(sc)  (uint16_t)((NVME_SCT_GENERIC << 8) | (sc))
#define CMD(sc)  (uint16_t)((NVME_SCT_CMD_SPECIFIC << 8) | (sc))
#define MED(sc)  (uint16_t)((NVME_SCT_MEDIA << 8) | (sc))
#define PATH(sc) (uint16_t)((NVME_SCT_PATH << 8) | (sc))

/* Codes whose meaning does not depend on the command set. */
static const struct status_name common_names[] = {
	{ GEN(NVME_SC_SUCCESS), "SUCCESS" },
	{ GEN(NVME_SC_INVALID_OPCODE), "INVALID_OPCODE" },
	{ GEN(NVME_SC_INVALID_FIELD), "INVALID_FIELD" },
	{ GEN(NVME_SC_CMDID_CONFLICT), "CMDID_CONFLICT" },
	{ GEN(NVME_SC_DATA_XFER_ERROR), "DATA_XFER_ERROR" },
	{ GEN(NVME_SC_POWER_LOSS), "POWER_LOSS" },
	{ GEN(NVME_SC_INTERNAL), "INTERNAL" },
	{ GEN(NVME_SC_ABORT_REQ), "ABORT_REQ" },
	{ GEN(NVME_SC_ABORT_QUEUE), "ABORT_QUEUE" },
	{ GEN(NVME_SC_FUSED_FAIL), "FUSED_FAIL" },
	{ GEN(NVME_SC_FUSED_MISSING), "FUSED_MISSING" },
	{ GEN(NVME_SC_INVALID_NS), "INVALID_NS" },
	{ GEN(NVME_SC_CMD_SEQ_ERROR), "CMD_SEQ_ERROR" },
	{ GEN(NVME_SC_SGL_INVALID_LAST), "SGL_INVALID_LAST" },
	{ GEN(NVME_SC_SGL_INVALID_COUNT), "SGL_INVALID_COUNT" },
	{ GEN(NVME_SC_SGL_INVALID_DATA), "DATA_SGL_LEN_INVALID" },
	{ GEN(NVME_SC_SGL_INVALID_METADATA), "METADATA_SGL_LEN_INVALID" },
	{ GEN(NVME_SC_SGL_INVALID_TYPE), "SGL_INVALID_TYPE" },
	{ GEN(NVME_SC_CMB_INVALID_USE), "CMB_INVALID_USE" },
	{ GEN(NVME_SC_PRP_INVALID_OFFSET), "PRP_INVALID_OFFSET" },
	{ GEN(NVME_SC_AWU_EXCEEDED), "AWU_EXCEEDED" },
	{ GEN(NVME_SC_OP_DENIED), "OP_DENIED" },
	{ GEN(NVME_SC_SGL_INVALID_OFFSET), "SGL_INVALID_OFFSET" },
	{ GEN(0x17), "SGL_INVALID_SUBTYPE" },
	{ GEN(NVME_SC_HOSTID_FORMAT), "HOSTID_FORMAT" },
	{ GEN(NVME_SC_KAT_EXPIRED), "KAT_EXPIRED" },
	{ GEN(NVME_SC_KAT_INVALID), "KAT_INVALID" },
	{ GEN(NVME_SC_CMD_ABORTED_PREMEPT), "ABORTED_PREEMPT" },
	{ GEN(NVME_SC_SANITIZE_FAILED), "SANITIZE_FAILED" },
	{ GEN(NVME_SC_SANITIZE_IN_PROGRESS), "SANITIZE_IN_PROGRESS" },
	{ GEN(NVME_SC_SGL_INVALID_GRANULARITY), "SGL_INVALID_GRANULARITY" },
	{ GEN(NVME_SC_NS_WRITE_PROTECTED), "NS_WRITE_PROTECTED" },
	{ GEN(NVME_SC_CMD_INTERRUPTED), "CMD_INTERRUPTED" },
	{ GEN(NVME_SC_TRAN_TPORT_ERROR), "TRANSIENT_TRANSPORT_ERROR" },
	{ GEN(NVME_SC_LBA_RANGE), "LBA_RANGE" },
	{ GEN(NVME_SC_CAP_EXCEEDED), "CAP_EXCEEDED" },
	{ GEN(NVME_SC_NS_NOT_READY), "NS_NOT_READY" },
	{ GEN(NVME_SC_RESERVATION_CONFLICT), "RESERVATION_CONFLICT" },
	{ GEN(NVME_SC_FORMAT_IN_PROGRESS), "FORMAT_IN_PROGRESS" },
	/* Command specific, admin commands (00h-7Fh: one meaning each). */
	{ CMD(NVME_SC_CQ_INVALID), "CQ_INVALID" },
	{ CMD(NVME_SC_QID_INVALID), "INVALID_QID" },
	{ CMD(NVME_SC_QUEUE_SIZE), "INVALID_QUEUE_SIZE" },
	{ CMD(NVME_SC_ABORT_LIMIT), "ABORT_LIMIT" },
	{ CMD(NVME_SC_ASYNC_LIMIT), "ASYNC_LIMIT" },
	{ CMD(NVME_SC_FIRMWARE_SLOT), "FIRMWARE_SLOT" },
	{ CMD(NVME_SC_FIRMWARE_IMAGE), "FIRMWARE_IMAGE" },
	{ CMD(NVME_SC_INVALID_VECTOR), "INVALID_VECTOR" },
	{ CMD(NVME_SC_INVALID_LOG_PAGE), "INVALID_LOG_PAGE" },
	{ CMD(NVME_SC_INVALID_FORMAT), "INVALID_FORMAT" },
	{ CMD(NVME_SC_INVALID_QUEUE), "INVALID_QUEUE_DELETION" },
	{ CMD(NVME_SC_FEATURE_NOT_SAVEABLE), "FEATURE_NOT_SAVEABLE" },
	{ CMD(NVME_SC_FEATURE_NOT_CHANGEABLE), "FEATURE_NOT_CHANGEABLE" },
	{ CMD(NVME_SC_FEATURE_NOT_PER_NS), "FEATURE_NOT_PER_NS" },
	{ CMD(NVME_SC_NS_INSUFFICIENT_CAP), "NS_INSUFFICIENT_CAP" },
	{ CMD(NVME_SC_NS_ID_UNAVAILABLE), "NS_ID_UNAVAILABLE" },
	{ CMD(NVME_SC_NS_ALREADY_ATTACHED), "NS_ALREADY_ATTACHED" },
	{ CMD(NVME_SC_NS_IS_PRIVATE), "NS_IS_PRIVATE" },
	{ CMD(NVME_SC_NS_NOT_ATTACHED), "NS_NOT_ATTACHED" },
	{ CMD(NVME_SC_CTRL_LIST_INVALID), "CTRL_LIST_INVALID" },
	{ CMD(NVME_SC_INVALID_CTRL_ID), "INVALID_CTRL_ID" },
	{ CMD(NVME_SC_ANA_GROUP_ID_INVALID), "ANA_GROUP_ID_INVALID" },
	{ CMD(NVME_SC_IOCS_NOT_SUPPORTED), "IOCS_NOT_SUPPORTED" },
	{ CMD(NVME_SC_IOCS_NOT_ENABLED), "IOCS_NOT_ENABLED" },
	{ CMD(NVME_SC_IOCS_COMBINATION_REJECTED), "IOCS_COMBINATION_REJECTED" },
	{ CMD(NVME_SC_INVALID_IOCS), "INVALID_IOCS" },
	{ CMD(NVME_SC_ID_UNAVAILABLE), "ID_UNAVAILABLE" },
	/* Media and data integrity errors. */
	{ MED(NVME_SC_WRITE_FAULT), "WRITE_FAULT" },
	{ MED(NVME_SC_READ_ERROR), "UNRECOVERED_READ_ERROR" },
	{ MED(NVME_SC_GUARD_CHECK), "GUARD_CHECK" },
	{ MED(NVME_SC_APPTAG_CHECK), "APPTAG_CHECK" },
	{ MED(NVME_SC_REFTAG_CHECK), "REFTAG_CHECK" },
	{ MED(NVME_SC_COMPARE_FAILED), "COMPARE_FAILED" },
	{ MED(NVME_SC_ACCESS_DENIED), "ACCESS_DENIED" },
	{ MED(NVME_SC_UNWRITTEN_BLOCK), "UNWRITTEN_BLOCK" },
	/* Path related. */
	{ PATH(NVME_SC_ANA_INTERNAL_PATH_ERROR), "INTERNAL_PATH_ERROR" },
	{ PATH(NVME_SC_ANA_PERSISTENT_LOSS), "ANA_PERSISTENT_LOSS" },
	{ PATH(NVME_SC_ANA_INACCESSIBLE), "ANA_INACCESSIBLE" },
	{ PATH(NVME_SC_ANA_TRANSITION), "ANA_TRANSITION" },
	{ PATH(NVME_SC_CTRL_PATH_ERROR), "CTRL_PATH_ERROR" },
	{ PATH(NVME_SC_HOST_PATH_ERROR), "HOST_PATH_ERROR" },
	{ PATH(NVME_SC_CMD_ABORTED_BY_HOST), "ABORTED_BY_HOST" },
};

/* Command specific 80h and up, Fabrics command set (NVMe-oF 1.1 section 3.5 and 5). */
static const struct status_name fabrics_names[] = {
	{ CMD(NVME_SC_CONNECT_FORMAT), "CONNECT_FORMAT" },
	{ CMD(NVME_SC_CONNECT_CTRL_BUSY), "CONNECT_CTRL_BUSY" },
	{ CMD(NVME_SC_CONNECT_INVALID_PARAM), "CONNECT_INVALID_PARAM" },
	{ CMD(NVME_SC_CONNECT_RESTART_DISC), "CONNECT_RESTART_DISC" },
	{ CMD(NVME_SC_CONNECT_INVALID_HOST), "CONNECT_INVALID_HOST" },
	{ CMD(NVME_SC_DISCONNECT_INVALID_QTYPE), "DISCONNECT_INVALID_QTYPE" },
	{ CMD(NVME_SC_DISCOVERY_RESTART), "DISCOVERY_RESTART" },
	{ CMD(NVME_SC_AUTH_REQUIRED), "AUTH_REQUIRED" },
};

/* Command specific 80h and up, NVM command set (NVM Command Set 1.0 section 3.3). */
static const struct status_name nvm_names[] = {
	{ CMD(NVME_SC_BAD_ATTRIBUTES), "CONFLICTING_ATTRIBUTES" },
	{ CMD(NVME_SC_INVALID_PI), "INVALID_PI" },
	{ CMD(NVME_SC_READ_ONLY), "WRITE_TO_READ_ONLY_RANGE" },
	{ CMD(NVME_SC_CMD_SIZE_LIMIT_EXCEEDED), "CMD_SIZE_LIMIT_EXCEEDED" },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *lookup(const struct status_name *t, size_t n, uint16_t code)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	return NULL;
}

/* NULL when the code has no name. */
static const char *find_name(nvme_status_t st, bool fabrics)
{
	uint16_t code = st & NVME_STATUS_CODE_MASK;
	const char *name;

	/* Command-specific 80h-BFh are command-set specific: pick the set first. */
	if ((code >> 8) == NVME_SCT_CMD_SPECIFIC && (code & 0xff) >= 0x80) {
		if (fabrics)
			return lookup(fabrics_names, ARRAY_LEN(fabrics_names), code);
		return lookup(nvm_names, ARRAY_LEN(nvm_names), code);
	}
	name = lookup(common_names, ARRAY_LEN(common_names), code);
	return name;
}

const char *nvme_status_name(nvme_status_t st, bool fabrics)
{
	const char *name = find_name(st, fabrics);

	return name ? name : "UNKNOWN";
}

char *nvme_status_format(nvme_status_t st, bool fabrics, char *buf, size_t len)
{
	const char *name = find_name(st, fabrics);
	const char *dnr = (st & NVME_SC_DNR) ? "|DNR" : "";
	const char *more = (st & NVME_SC_MORE) ? "|MORE" : "";

	if (!len)
		return buf;
	if (name)
		snprintf(buf, len, "%s%s%s", name, dnr, more);
	else
		snprintf(buf, len, "UNKNOWN(sct=%#x,sc=%#04x)%s%s",
			 (unsigned)(st >> NVME_SCT_SHIFT) & NVME_SCT_MASK,
			 (unsigned)st & NVME_SC_MASK, dnr, more);
	return buf;
}

nvme_status_t nvme_status_from_errno(int err, bool is_write)
{
	if (err > 0)
		err = -err;
	switch (err) {
	case 0:
		return 0;
	case -EIO:
		return nvme_status(NVME_SCT_MEDIA,
				   is_write ? NVME_SC_WRITE_FAULT : NVME_SC_READ_ERROR);
	case -ENOSPC:
		return nvme_generic(NVME_SC_CAP_EXCEEDED) | NVME_SC_DNR;
	case -EFBIG:
		/* The file may not grow there (RLIMIT_FSIZE, the file system's largest file):
		 * the namespace has room, so not Capacity Exceeded; retrying gives the same. */
		return (is_write ? nvme_status(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT) :
				   nvme_generic(NVME_SC_INTERNAL)) |
		       NVME_SC_DNR;
	case -EINVAL:
		return nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
	case -EOPNOTSUPP:
		return nvme_generic(NVME_SC_INVALID_OPCODE) | NVME_SC_DNR;
	case -EROFS:
		return nvme_generic(NVME_SC_NS_WRITE_PROTECTED) | NVME_SC_DNR;
	case -ESHUTDOWN:
		/* Ceph's EBLOCKLISTED (108): the cluster blocklisted this gateway's client,
		 * another gateway having broken our lock on the rbd image. This path cannot
		 * serve the namespace any more, another can: Asymmetric Access Inaccessible
		 * without DNR makes a multipath host retry on its other paths (NVMe Base 2.0
		 * 8.1.3.3). */
		return nvme_status(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);
	default:
		return nvme_generic(NVME_SC_INTERNAL);
	}
}
