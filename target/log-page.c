/* SPDX-License-Identifier: MIT */
/*
 * Get Log Page for an NVM subsystem's controller (NVMe Base 2.0 section 5.16): the
 * common checks and windows every log page shares (also the discovery controller's),
 * and the table of the log pages the controller returns: Supported Log Pages (00h),
 * Error Information (01h), SMART / Health (02h), Firmware Slot (03h), Changed Namespace
 * List (04h), Commands Supported and Effects (05h), Asymmetric Namespace Access (0Ch,
 * target/ana.c).
 * List (04h), Commands Supported and Effects (05h), Reservation Notification (80h).
 */
#include <stdlib.h>
#include <string.h>
#include "nvme/disc_log.h"
#include "nvme/identify.h"
#include "target/admin.h"
#include "target/ana.h"
#include "target/resv.h"

static_assert(sizeof(struct nvme_error_log_page) == 64, "error log entry is 64 bytes");
static_assert(sizeof(struct nvme_smart_log) == 512, "SMART log is 512 bytes");
static_assert(sizeof(struct nvme_firmware_slot) == 512, "firmware slot log is 512 bytes");
static_assert(sizeof(struct nvme_cmd_effects_log) == 4096, "effects log is 4 KiB");
static_assert(sizeof(struct nvme_supported_log_pages) == 1024, "supported log pages is 1 KiB");

/* SMART temperature: 323 K (50 C), what QEMU reports; we have no sensor. */
#define SMART_TEMP_KELVIN 323

static inline uint32_t cdw10(const struct nvmf_req *req)
{
	return le32toh(req->cmd->cdw10);
}

bool nvmf_log_rae(const struct nvmf_req *req)
{
	return (cdw10(req) >> 15) & 1;
}

uint8_t nvmf_log_lsp(const struct nvmf_req *req)
{
	return (cdw10(req) >> 8) & 0x7f;
}

/* Data Units Read / Written of the SMART log from a count of 512-byte units: "in
 * thousands of 512-byte units, rounded up" (NVMe Base 2.0, SMART / Health Information
 * log, bytes 47:32 and 63:48): 1 unit reads as 1, 1000 as 1, 1001 as 2. */
static uint64_t smart_data_units(uint64_t units)
{
	return units / 1000 + (units % 1000 != 0);
}

/* Little-endian 128-bit counter field (SMART log) from a 64-bit value. */
static void put_le128(uint8_t f[16], uint64_t v)
{
	memset(f, 0, 16);
	for (int i = 0; i < 8; i++)
		f[i] = (uint8_t)(v >> (8 * i));
}

uint32_t nvmf_get_log_len(const struct nvme_sqe *cmd)
{
	/* NUMD: NUMDL cdw10 31:16, NUMDU cdw11 15:0; 0's based dwords. */
	uint64_t numd = (le32toh(cmd->cdw10) >> 16) | (uint64_t)(le32toh(cmd->cdw11) & 0xffff)
							      << 16;
	uint64_t len = (numd + 1) * 4;
	return len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
}

uint64_t nvmf_get_log_offset(const struct nvme_sqe *cmd)
{
	return le32toh(cmd->cdw12) | (uint64_t)le32toh(cmd->cdw13) << 32;
}

nvme_status_t nvmf_parse_get_log(struct nvmf_req *req)
{
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t len = nvmf_get_log_len(req->cmd);
	/* MDTS bounds every transfer (1.4 Figure 247: larger is Invalid Field); without
	 * MDTS the 24-bit keyed SGL length is the limit anyway. */
	uint64_t max = ctrl->mdts ? (uint64_t)4096 << ctrl->mdts : (1u << 24) - 1;

	if (nvmf_get_log_offset(req->cmd) & 3) /* LPOL bits 1:0 must be 0 */
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (len > max)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	req->dir = NVMF_XFER_C2H;
	req->data_len = len;
	return 0;
}

nvme_status_t nvmf_copy_log(struct nvmf_req *req, const void *log, size_t len)
{
	uint64_t off = nvmf_get_log_offset(req->cmd);

	if (off > len)
		return nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
	nvmf_log_window(req->data, req->data_len, log, len, off);
	return 0;
}

static int cmp_error_desc(const void *a, const void *b)
{
	const struct nvmf_error_entry *x = a, *y = b;
	return x->error_count < y->error_count ? 1 : x->error_count > y->error_count ? -1 : 0;
}

/* LID 01h: 64-byte entries, newest first; unused entries are zero. */
static void log_error(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvmf_error_entry e[NVMF_ERROR_LOG_ENTRIES];
	struct nvme_error_log_page log[NVMF_ERROR_LOG_ENTRIES];

	/* Sort by error_count rather than trusting ring positions; count 0 = unused. */
	pthread_mutex_lock(&ctrl->error_lock);
	memcpy(e, ctrl->errors, sizeof(e));
	pthread_mutex_unlock(&ctrl->error_lock);
	qsort(e, NVMF_ERROR_LOG_ENTRIES, sizeof(e[0]), cmp_error_desc);
	memset(log, 0, sizeof(log));
	for (size_t i = 0; i < NVMF_ERROR_LOG_ENTRIES && e[i].error_count; i++) {
		log[i].error_count = htole64(e[i].error_count);
		log[i].sqid = htole16(e[i].sqid);
		log[i].cmdid = e[i].cmdid; /* stored as received: opaque wire bytes */
		log[i].status_field = htole16((uint16_t)(e[i].status << 1)); /* phase bit 0 */
		log[i].parm_error_location = htole16(e[i].param_loc);
		log[i].lba = htole64(e[i].lba);
		log[i].nsid = htole32(e[i].nsid);
		log[i].trtype = ctrl->transport->ops->trtype;
	}
	nvmf_req_complete(req, nvmf_copy_log(req, log, sizeof(log)));
}

/* LID 02h: controller-wide health (LPA bit 0 clear: no per-namespace data). */
static void log_smart(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvme_smart_log log;

	memset(&log, 0, sizeof(log));
	log.temperature[0] = SMART_TEMP_KELVIN & 0xff;
	log.temperature[1] = SMART_TEMP_KELVIN >> 8;
	/* A threshold the host set (Temperature Threshold feature) that the temperature
	 * crosses is a warning, as a drive's would be. */
	if (nvmf_ctrl_temp_warning(ctrl, SMART_TEMP_KELVIN))
		log.critical_warning |= NVME_SMART_CRIT_TEMPERATURE;
	log.avail_spare = 100;
	log.spare_thresh = 10;
	struct nvmf_io_stats io;
	nvmf_tgt_ctrl_io_stats(ctrl, &io);
	put_le128(log.data_units_read, smart_data_units(io.units_read));
	put_le128(log.data_units_written, smart_data_units(io.units_written));
	put_le128(log.host_reads, io.host_reads);
	put_le128(log.host_writes, io.host_writes);
	put_le128(log.num_err_log_entries, ctrl->error_count);
	nvmf_req_complete(req, nvmf_copy_log(req, &log, sizeof(log)));
}

/* LID 03h: slot 1 is active and holds the subsystem's firmware revision. */
static void log_fw_slot(struct nvmf_req *req)
{
	struct nvme_firmware_slot log;

	memset(&log, 0, sizeof(log));
	log.afi = 1;
	nvme_ascii_field(log.frs[0], sizeof(log.frs[0]), req->sq->ctrl->subsys->firmware);
	nvmf_req_complete(req, nvmf_copy_log(req, &log, sizeof(log)));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* LID 04h: NSIDs ascending, or FFFFFFFFh alone after more than 1024 changes. Reading
 * with RAE clear empties the list and re-arms the namespace notice (5.16.1.5). */
static void log_changed_ns(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	__le32 log[NVMF_CHANGED_NS_MAX];
	uint32_t sorted[NVMF_CHANGED_NS_MAX];

	memset(log, 0, sizeof(log));
	if (ctrl->nr_changed_ns > NVMF_CHANGED_NS_MAX) {
		log[0] = htole32(NVME_NSID_ALL);
	} else {
		memcpy(sorted, ctrl->changed_ns, ctrl->nr_changed_ns * sizeof(sorted[0]));
		qsort(sorted, ctrl->nr_changed_ns, sizeof(sorted[0]), cmp_u32);
		for (unsigned i = 0; i < ctrl->nr_changed_ns; i++)
			log[i] = htole32(sorted[i]);
	}
	nvme_status_t st = nvmf_copy_log(req, log, sizeof(log));
	if (!st && !nvmf_log_rae(req)) {
		ctrl->nr_changed_ns = 0;
		nvmf_tgt_ctrl_aen_log_read(ctrl, NVMF_AEN_NS_CHANGED);
	}
	nvmf_req_complete(req, st);
}

/* LID 05h: the command tables (target/admin-cmd.c, target/io-cmd.c) say what is
 * implemented and what each command may change. */
static void log_cmd_effects(struct nvmf_req *req)
{
	struct nvme_cmd_effects_log *log = calloc(1, sizeof(*log));

	if (!log) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
		return;
	}
	nvmf_admin_cmd_effects(log->acs);
	nvmf_io_cmd_effects(req->sq->ctrl->subsys, log->iocs);
	nvme_status_t st = nvmf_copy_log(req, log, sizeof(*log));
	free(log);
	nvmf_req_complete(req, st);
}

/* LID 12h (NVMe Base 2.0, FID Supported and Effects): the feature table (target/features.c) says
 * which FIDs exist, and their scope. */
static void log_fid_effects(struct nvmf_req *req)
{
	struct nvme_fid_supported_effects_log *log = calloc(1, sizeof(*log));

	if (!log) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
		return;
	}
	nvmf_fid_supported_effects(req->sq->ctrl, log->fid_support);
	nvme_status_t st = nvmf_copy_log(req, log, sizeof(*log));
	free(log);
	nvmf_req_complete(req, st);
}

/* LID 02h: LPA bit 0 clear, only the controller-wide page (1.4 section 5.14.1.2). */
static nvme_status_t parse_smart(struct nvmf_req *req)
{
	uint32_t nsid = le32toh(req->cmd->nsid);
	return nsid != 0 && nsid != NVME_NSID_ALL ? nvme_generic(NVME_SC_INVALID_FIELD) : 0;
}

static void log_supported(struct nvmf_req *req);

/* The log pages of an NVM subsystem's controller, by LID. */
static const struct nvmf_log_page io_logs[] = {
	{ NVME_LOG_LID_SUPPORTED_LOG_PAGES, 0, NULL, log_supported },
	{ NVME_LOG_LID_ERROR, 0, NULL, log_error },
	{ NVME_LOG_LID_SMART, 0, parse_smart, log_smart },
	{ NVME_LOG_LID_FW_SLOT, 0, NULL, log_fw_slot },
	{ NVME_LOG_LID_CHANGED_NS, 0, NULL, log_changed_ns },
	{ NVME_LOG_LID_CMD_EFFECTS, 0, NULL, log_cmd_effects },
	{ NVME_LOG_LID_FID_SUPPORTED_EFFECTS, 0, NULL, log_fid_effects },
	/* No LIDSP: NVMe Base 2.0 defines none for 0Ch, and nvmet reports none. */
	{ NVME_LOG_LID_ANA, 0, NULL, nvmf_ana_log },
	{ NVME_LOG_LID_RESERVATION, 0, NULL, nvmf_resv_log_page }, /* target/resv.c */
};
#define N_IO_LOGS (sizeof(io_logs) / sizeof(io_logs[0]))

void nvmf_supported_logs(const struct nvmf_log_page *table, size_t n, __le32 log[256])
{
	memset(log, 0, 256 * sizeof(log[0]));
	for (size_t i = 0; i < n; i++)
		log[table[i].lid] = htole32(1u | (uint32_t)table[i].lidsp << 16); /* LSUPP */
}

/* LID 00h (NVMe Base 2.0 section 5.16.1.1): every LID of the table above. */
static void log_supported(struct nvmf_req *req)
{
	struct nvme_supported_log_pages log;

	nvmf_supported_logs(io_logs, N_IO_LOGS, log.lid_support);
	nvmf_req_complete(req, nvmf_copy_log(req, &log, sizeof(log)));
}

nvme_status_t nvmf_parse_log_page_in(struct nvmf_req *req, const struct nvmf_log_page *table,
				     size_t n)
{
	uint8_t lid = cdw10(req) & 0xff;

	for (size_t i = 0; i < n; i++) {
		if (table[i].lid != lid)
			continue;
		nvme_status_t st = table[i].parse ? table[i].parse(req) : 0;
		if (st)
			return st;
		req->execute = table[i].execute;
		return nvmf_parse_get_log(req);
	}
	return nvme_cmd_specific(NVME_SC_INVALID_LOG_PAGE);
}

nvme_status_t nvmf_parse_log_page(struct nvmf_req *req)
{
	return nvmf_parse_log_page_in(req, io_logs, N_IO_LOGS);
}
