/* SPDX-License-Identifier: MIT */
/*
 * NVMe completion status helpers: short names for logs and tests, and the mapping from
 * backend errno values to NVMe statuses.
 *
 * A status is nvme_status_t from nvme/wire.h: (DNR << 14) | (More << 13) | (CRD << 11) |
 * (SCT << 8) | SC, host endian, no phase bit (NVMe Base 2.0 section 4.2.3). Values of
 * SC come from libnvme's NVME_SC_*, SCT from NVME_SCT_*.
 */
#ifndef NVMF_NVME_STATUS_H
#define NVMF_NVME_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include "nvme/wire.h"

/* The SCT and SC bits of a status, without DNR, More and CRD. */
#define NVME_STATUS_CODE_MASK 0x07ffu

/* Length of a buffer that always holds nvme_status_format()'s output, NUL included. */
#define NVME_STATUS_STR_MAX 48

/*
 * nvme_status_name - short upper-case name of @st, e.g. "INVALID_FIELD", "LBA_RANGE",
 * "CONNECT_INVALID_PARAM", "UNRECOVERED_READ_ERROR". DNR, More and CRD are ignored.
 * @fabrics: how to read command-specific codes 80h-85h, which NVMe gives two meanings:
 *           true = the Fabrics command set (NVMe-oF 1.1 section 3.5: Connect and
 *           Disconnect errors, 0x180 CONNECT_FORMAT ... 0x184 CONNECT_INVALID_HOST),
 *           false = the NVM command set (0x180 CONFLICTING_ATTRIBUTES, 0x181 INVALID_PI,
 *           0x182 WRITE_TO_READ_ONLY_RANGE, 0x183 CMD_SIZE_LIMIT_EXCEEDED).
 * Returns a static string, never NULL: "UNKNOWN" for codes without a name here (use
 * nvme_status_format() for the value).
 */
const char *nvme_status_name(nvme_status_t st, bool fabrics);

/*
 * nvme_status_format - @st as text into @buf (@len bytes, NVME_STATUS_STR_MAX suffices):
 * the name, or "UNKNOWN(sct=0x1,sc=0x99)" for unnamed codes, followed by "|DNR" and/or
 * "|MORE" when those bits are set, e.g. "INVALID_FIELD|DNR". Truncates to fit @len
 * (always NUL terminated when @len > 0). Returns @buf.
 */
char *nvme_status_format(nvme_status_t st, bool fabrics, char *buf, size_t len);

/*
 * nvme_status_from_errno - the status for a failed backend I/O.
 * @err:      a negative errno as backends return it (a positive value is read as its
 *            negative: 5 and -5 both mean EIO); 0 gives 0 (success).
 * @is_write: the command stored data (Write, Write Zeroes, ...), which picks the media
 *            error for EIO.
 * Mapping (NVMe Base 2.0 section 4.2.3):
 *   -EIO       write: Write Fault (SCT 2, 80h); otherwise Unrecovered Read Error (SCT 2,
 *              81h). DNR clear: a media error may be transient, so the host may retry.
 *   -ENOSPC    Capacity Exceeded (generic 81h) | DNR.
 *   -EFBIG     write: Write Fault (SCT 2, 80h) | DNR (past RLIMIT_FSIZE or the file
 *              system's largest file: the namespace is not full, and a retry fails the
 *              same); otherwise Internal Error | DNR.
 *   -EINVAL    Invalid Field in Command (generic 02h) | DNR.
 *   -EOPNOTSUPP Invalid Command Opcode (generic 01h) | DNR.
 *   -EROFS     Namespace is Write Protected (generic 20h) | DNR.
 *   -ESHUTDOWN Asymmetric Access Inaccessible (SCT 3, 02h), DNR clear: Ceph's
 *              EBLOCKLISTED, this gateway fenced off an rbd image, so a multipath host
 *              retries on another path.
 *   anything else  Internal Error (generic 06h), DNR clear (ENOMEM, EAGAIN, ... may pass).
 */
nvme_status_t nvme_status_from_errno(int err, bool is_write);

#endif
