/* SPDX-License-Identifier: MIT */
/*
 * The admin command set of the target's controllers, one file per concern: Identify
 * (target/identify.c), Get Log Page (target/log-page.c), Set/Get Features
 * (target/features.c), asynchronous events (target/aen.c), the dispatch, Keep Alive and
 * Abort (target/admin-cmd.c). The discovery controller (target/discovery.c) takes the
 * shared pieces.
 *
 * What a controller supports is written once, in tables: the admin and I/O command
 * tables give the parsers and the Commands Supported and Effects log (05h), the log page
 * table gives the handlers and the Supported Log Pages log (00h), the feature table the
 * handlers and Get Features' capabilities. A command, log page or feature added to its
 * table is reported by those logs without another edit.
 *
 * Parsers check what is knowable from the SQE and return a status (the core adds DNR,
 * target/core.c); handlers write req->data (data_len bytes) and finish with
 * nvmf_req_complete(). Where the spec leaves room we follow the Linux target (nvmet).
 */
#ifndef NVMF_TARGET_ADMIN_H
#define NVMF_TARGET_ADMIN_H

#include <stdbool.h>
#include <stdint.h>
#include "target/core.h"

/* One command a controller takes: its opcode, its parser and its Commands Supported and
 * Effects entry (NVMe Base 2.0 figure 210: NVME_CMD_EFFECTS_CSUPP, _LBCC, ...). */
struct nvmf_cmd_def {
	uint8_t opcode;
	uint32_t effects;
	nvme_status_t (*parse)(struct nvmf_req *req);
	bool resv; /* a reservation command: reported only where the
					    * subsystem has reservations (Identify ONCS bit 5) */
};

/* nvmf_cmd_find - the entry of @opcode among @n entries of @table, or NULL. */
const struct nvmf_cmd_def *nvmf_cmd_find(const struct nvmf_cmd_def *table, size_t n,
					 uint8_t opcode);

/* nvmf_admin_cmd_effects / nvmf_io_cmd_effects - the effects of every admin / I/O
 * command a controller of NVM subsystem @s takes, little endian, into @acs / @iocs (256
 * entries each, indexed by opcode; entries of unsupported opcodes are left as they are;
 * the reservation commands only when a namespace of @s has reservations, as ONCS says).
 * (target/admin-cmd.c, target/io-cmd.c) */
void nvmf_admin_cmd_effects(__le32 acs[256]);
void nvmf_io_cmd_effects(const struct nvmf_subsys *s, __le32 iocs[256]);

/* The Copy limits of a namespace (Identify Namespace, NVM Command Set 1.0 section 4.1.5:
 * MSSRL bytes 75:74, MCL 79:76, MSRC 80), counts of logical blocks except msrc: the most
 * source ranges, 0's based. */
struct nvmf_copy_limits {
	uint16_t mssrl; /* blocks in one source range */
	uint32_t mcl;   /* blocks in all source ranges of one Copy */
	uint8_t msrc;   /* source ranges - 1 */
};
/* MDTS and the buffer shifts count units of the minimum memory page size, 4 KiB
 * (CAP.MPSMIN = 0): a shift of n is 4096 << n bytes. */
#define NVMF_MDTS_UNIT_SHIFT 12

/* nvmf_mdts_exceeded - whether a transfer of @len bytes is more than @ctrl's MDTS allows
 * (none: no limit); such a command is Invalid Field in Command (NVMe Base 2.0 figure
 * 275). (target/io-cmd.c) */
bool nvmf_mdts_exceeded(const struct nvmf_tgt_ctrl *ctrl, uint64_t len);

/* nvmf_io_buf_shift - the largest buffer a Copy or Verify of @ctrl takes in the target,
 * as log2 of 4 KiB units: MDTS, 8 (1 MiB) without one, at most 14 (64 MiB); also VSL
 * (NVM Command Set Identify Controller byte 0). (target/io-cmd.c) */
uint32_t nvmf_io_buf_shift(const struct nvmf_tgt_ctrl *ctrl);
/* nvmf_copy_limits - @ns's Copy limits for @ctrl into @lim: MCL is nvmf_io_buf_shift's
 * bytes in blocks, MSSRL that within 16 bits, MSRC 127 (128 ranges). Every one is enforced
 * by Copy (Command Size Limit Exceeded). (target/io-cmd.c) */
void nvmf_copy_limits(const struct nvmf_tgt_ctrl *ctrl, const struct nvmf_ns *ns,
		      struct nvmf_copy_limits *lim);

/* ---- shared with the discovery controller ---- */

/* nvmf_parse_admin_cmd_own - an admin command of an NVM subsystem's controller by the
 * target's own tables (no readiness check): what a passthru controller keeps
 * (target/passthru-admin.c). */
nvme_status_t nvmf_parse_admin_cmd_own(struct nvmf_req *req);

/* nvmf_identify_ctrl_common - zero @id (4 KiB) and fill what both controller types report
 * the same way: SN/MN/FR, MDTS, CNTLID, VER, AERL, KAS, SGLS (keyed per transport), SUBNQN,
 * IOCCSZ/IORCSZ for admin-only capsules, MSDBD (NVMe Base 2.0 figure 276, NVMe-oF 1.1
 * section 4.1). Little endian on the wire. */
void nvmf_identify_ctrl_common(const struct nvmf_tgt_ctrl *ctrl, struct nvme_id_ctrl *id);
/* nvmf_get_log_len - Get Log Page NUMD (cdw10/11) as bytes; LPO (cdw12/13) as offset. */
uint32_t nvmf_get_log_len(const struct nvme_sqe *cmd);
uint64_t nvmf_get_log_offset(const struct nvme_sqe *cmd);
/* nvmf_copy_log - copy @len bytes of a log at req's offset into req->data, zero filling
 * past the end of the log; fails with INVALID_FIELD when the offset is past the end. */
nvme_status_t nvmf_copy_log(struct nvmf_req *req, const void *log, size_t len);
/* nvmf_parse_get_log - Get Log Page checks common to all LIDs: LPO dword aligned and the
 * length within MDTS, else INVALID_FIELD; sets dir C2H and data_len. The LID is the
 * caller's. (NVMe Base 2.0 section 5.16) */
nvme_status_t nvmf_parse_get_log(struct nvmf_req *req);
/* nvmf_parse_shared_admin_cmd - the admin commands both controller types take the same
 * way (Set/Get Features, Asynchronous Event Request, Keep Alive); INVALID_OPCODE for any
 * other opcode. */
nvme_status_t nvmf_parse_shared_admin_cmd(struct nvmf_req *req);
/* nvmf_execute_keep_alive - Keep Alive (target/admin-cmd.c); nvmf_execute_aer -
 * Asynchronous Event Request, parked until an event (target/aen.c). */
void nvmf_execute_keep_alive(struct nvmf_req *req);
void nvmf_execute_aer(struct nvmf_req *req);

/* ---- Identify (target/identify.c, NVMe Base 2.0 section 5.17) ---- */

/* nvmf_parse_identify - Identify of an NVM subsystem's controller: CNS, NSID checks;
 * 4 KiB controller to host. INVALID_NS / INVALID_FIELD otherwise. */
nvme_status_t nvmf_parse_identify(struct nvmf_req *req);
/* nvmf_parse_identify_cs - the I/O Command Set specific CNS values of an NVM subsystem's
 * controller (target/identify-cs.c): 05h (CSI NVM, an active NSID, else INVALID_FIELD /
 * INVALID_NS), 06h (CSI NVM, else INVALID_FIELD), 07h (NSID below FFFFFFFEh, else
 * INVALID_NS); sets execute. The caller sets the 4 KiB transfer. */
nvme_status_t nvmf_parse_identify_cs(struct nvmf_req *req);
/* nvmf_identify_ns_io_hints - NSFEAT bit 4 and NPWG, NPWA, NPDG, NPDA, NOWS of @id
 * (Identify Namespace, NVM Command Set 1.0 figure 97: 0's based counts of logical
 * blocks, little endian) from @ns's backend hints (subsystem/backend.h). */
void nvmf_identify_ns_io_hints(const struct nvmf_ns *ns, struct nvme_id_ns *id);

/* ---- Get Log Page (target/log-page.c, NVMe Base 2.0 section 5.16) ---- */

/* One log page a controller returns. */
struct nvmf_log_page {
	uint8_t lid;
	uint16_t lidsp; /* LID Specific Parameter bits log 00h reports for
					    * it (bits 31:16 of its entry) */
	nvme_status_t (*parse)(struct nvmf_req *req); /* checks beyond the common ones
					    * (NSID, LSP); NULL: none */
	void (*execute)(struct nvmf_req *req);
};

/* nvmf_parse_log_page - Get Log Page for an I/O (NVM subsystem) controller: the LID from
 * the table, else Invalid Log Page; then the common checks (nvmf_parse_get_log). */
nvme_status_t nvmf_parse_log_page(struct nvmf_req *req);
/* nvmf_parse_log_page_in - the same over another table (@n entries): the discovery
 * controller's. */
nvme_status_t nvmf_parse_log_page_in(struct nvmf_req *req, const struct nvmf_log_page *table,
				     size_t n);
/* nvmf_supported_logs - the Supported Log Pages log (LID 00h, NVMe Base 2.0 figure 204)
 * of @n entries of @table into @log (256 entries of le32: bit 0 LSUPP, bits 31:16
 * LIDSP), every other entry zero. */
void nvmf_supported_logs(const struct nvmf_log_page *table, size_t n, __le32 log[256]);
/* nvmf_log_rae - the Retain Asynchronous Event bit (cdw10 bit 15) of a Get Log Page:
 * when clear, reading the log re-arms its event (nvmf_tgt_ctrl_aen_log_read). */
bool nvmf_log_rae(const struct nvmf_req *req);
/* nvmf_log_lsp - the Log Specific Parameter (cdw10 bits 14:8, NVMe Base 2.0 figure 197). */
uint8_t nvmf_log_lsp(const struct nvmf_req *req);

/* ---- Set / Get Features (target/features.c, NVMe Base 2.0 sections 5.21 / 5.27) ---- */

/* One feature a controller has. Capabilities as Get Features SEL 011b reports them
 * (figure 294): NVME_FEAT_CAP_* bits 0 saveable (never here), 1 namespace specific,
 * 2 changeable. */
struct nvmf_feature {
	uint8_t fid;
	bool discovery; /* a discovery controller has it too */
	uint32_t caps;  /* Get Features SEL 011b dword 0 */
	/* Set: checks knowable from the SQE (NULL: none), then the handler, which completes
	 * the request. NULL set: Set Features of this FID is refused (as the table says). */
	nvme_status_t (*check_set)(struct nvmf_req *req);
	void (*set)(struct nvmf_req *req);
	/* Get: checks (NULL: none) and the handler (dword 0 in the CQE, or data). */
	nvme_status_t (*check_get)(struct nvmf_req *req);
	void (*get)(struct nvmf_req *req);
};

#define NVMF_FEAT_CAP_NS_SPECIFIC (1u << 1)
#define NVMF_FEAT_CAP_CHANGEABLE  (1u << 2)

/* nvmf_parse_features - Set/Get Features for either controller type from the feature
 * table: SV -> FEATURE_NOT_SAVEABLE, an FID the controller does not have -> INVALID_FIELD,
 * SEL above 011b -> INVALID_FIELD, then the feature's own checks. */
nvme_status_t nvmf_parse_features(struct nvmf_req *req);
/* nvmf_feature_result - set CQE dword 0 of @req (host endian @dw0). */
void nvmf_feature_result(struct nvmf_req *req, uint32_t dw0);
/* nvmf_fid_supported_effects - the FID Supported and Effects log (LID 12h, NVMe Base 2.0
 * FID Supported and Effects data structure) of @ctrl from the feature table into @log (256 entries of le32, by FID):
 * FSUPP and the scope (namespace for the namespace specific features, else controller);
 * no feature here changes user data, namespaces or capabilities. Others are left zero. */
void nvmf_fid_supported_effects(const struct nvmf_tgt_ctrl *ctrl, __le32 log[256]);
/* nvmf_ctrl_features_init - the features' values of a new I/O or discovery controller
 * @ctrl: Arbitration AB 111b (no burst limit), the Composite Temperature's over threshold
 * NVMF_TEMP_WARNING_KELVIN (Identify WCTEMP) and under threshold 0 K, Error Recovery TLER
 * 0, Write Atomicity Normal DN 0. */
void nvmf_ctrl_features_init(struct nvmf_tgt_ctrl *ctrl);
/* nvmf_ctrl_temp_warning - @kelvin (the Composite Temperature) is at or over @ctrl's over
 * threshold or at or under its under threshold: SMART critical warning bit 1 (NVMe Base
 * 2.0, SMART / Health Information log and Temperature Threshold). */
bool nvmf_ctrl_temp_warning(const struct nvmf_tgt_ctrl *ctrl, uint16_t kelvin);

/* The Composite Temperature's warning threshold, Identify WCTEMP and the default over
 * threshold of the Temperature Threshold feature: 343 K (70 C), what QEMU reports. */
#define NVMF_TEMP_WARNING_KELVIN 343

/* ---- Asynchronous events (target/aen.c, NVMe Base 2.0 section 5.2) ---- */

/* The events a controller may report. Each has its Asynchronous Event Configuration bit
 * (0: always enabled), its CQE dword 0 and the log page whose read re-arms it: after a
 * notice of a kind is reported, that kind is masked until the host reads the log with
 * RAE clear (5.2.1). */
enum nvmf_aen_kind {
	NVMF_AEN_NS_CHANGED,   /* Namespace Attribute Changed: AEC bit 8, log 04h */
	NVMF_AEN_ANA_CHANGE,   /* ANA Change: AEC bit 11, log 0Ch */
	NVMF_AEN_DISC_CHANGED, /* Discovery Log Page Change: AEC bit 31, log 70h */
	NVMF_AEN_RESV_LOG,     /* Reservation Log Page Available (I/O Command
					    * Specific status): no AEC bit, log 80h */
	NVMF_AEN_KINDS
};

/* nvmf_tgt_ctrl_aen - on ctrl->pg: report a @kind event to @ctrl's host when it enabled
 * the kind and the kind is not masked (the event is then masked); completes a parked AER
 * now, or when the host sends one. */
void nvmf_tgt_ctrl_aen(struct nvmf_tgt_ctrl *ctrl, enum nvmf_aen_kind kind);
/* nvmf_tgt_ctrl_aen_log_read - on ctrl->pg: the host read @kind's log page with RAE
 * clear: the kind is unmasked (a later event is reported again). */
void nvmf_tgt_ctrl_aen_log_read(struct nvmf_tgt_ctrl *ctrl, enum nvmf_aen_kind kind);
/* nvmf_aen_supported - the Asynchronous Event Configuration bits @ctrl accepts (and
 * OAES reports): Discovery Log Page Change on a discovery controller; SMART warnings,
 * Namespace Attribute and ANA Change notices on an I/O controller. */
uint32_t nvmf_aen_supported(const struct nvmf_tgt_ctrl *ctrl);

#endif
