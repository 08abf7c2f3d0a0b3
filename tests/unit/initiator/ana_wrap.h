/* A host transport over the loop host (loop_host.h) that plays Asymmetric Namespace
 * Access (NVMe Base 2.0 section 8.1) for libnvmf's tests: our real target serves every
 * command, and this layer
 *   - sets the ANA fields of every Identify Controller answer (CMIC bit 3, ANATT, ANACAP,
 *     ANAGRPMAX, NANAGRPID, MNAN; NN and AERL on request) and ANAGRPID in Identify
 *     Namespace;
 *   - rewrites the answer to Get Log Page 0Ch (passed on, so a lost connection shows):
 *     the log built from the per-path group states and the namespaces' groups below
 *     (honouring RGO, offset and length), or raw bytes a test wrote (a malformed log no
 *     correct target sends), with a success status;
 *   - answers an I/O command for a namespace whose group is inaccessible, persistent loss
 *     or change on that path with the ANA path status (SCT 3 without DNR), as nvmet does,
 *     without passing it to the target (on a live connection only), and the next I/O
 *     command of a path with a status a test chose.
 * Paths are told apart by the address a queue dialed: path N is 127.0.0.(N+1) (the loop
 * host's ports, loop_host_params.n_ports). The state is process-wide (one wrapped target
 * at a time) and every call is thread safe. */
#ifndef NVMF_TESTS_UNIT_INITIATOR_ANA_WRAP_H
#define NVMF_TESTS_UNIT_INITIATOR_ANA_WRAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tests/unit/loop/host/loop_host.h"

#define AW_MAX_PATHS  4
#define AW_MAX_GROUPS 8 /* the groups the built log lists: 1..AW_MAX_GROUPS */

/* Identify Controller fields the wrapper writes (zero: the default given). */
struct ana_wrap_id {
	bool no_ana;        /* CMIC bit 3 clear, the ANA fields zero */
	uint8_t anatt;      /* default 10 (seconds) */
	uint32_t anagrpmax; /* default AW_MAX_GROUPS */
	uint32_t nanagrpid; /* default AW_MAX_GROUPS */
	uint32_t mnan;      /* default 0 (the host then sizes by NN) */
	uint32_t nn;        /* 0: the target's */
	uint8_t cmic_clear; /* CMIC bits to clear (NVME_CTRL_CMIC_*) */
	bool aerl_set;      /* AERL (0's based) becomes @aerl; else the target's */
	uint8_t aerl;
};

/* ana_wrap_new - wrap @lh's host transport; every group optimized on every path,
 * namespaces 1 and 2 in group 1, groups 1..AW_MAX_GROUPS listed. Resets all state. */
const struct nvmf_host_transport *ana_wrap_new(struct loop_host *lh, const struct ana_wrap_id *id);
/* ana_wrap_set_state - group @grpid's state on @path (NVME_ANA_STATE_*); moves the log's
 * change count. */
void ana_wrap_set_state(unsigned path, uint32_t grpid, uint8_t state);
/* ana_wrap_set_group - namespace @nsid (1..16) is in group @grpid (0: listed nowhere,
 * and Identify Namespace says @anagrpid). */
void ana_wrap_set_group(uint32_t nsid, uint32_t grpid, uint32_t anagrpid);
/* ana_wrap_set_raw - answer log 0Ch with these @len bytes (the rest zero) on every path;
 * NULL: the built log again. */
void ana_wrap_set_raw(const void *bytes, size_t len);
/* ana_wrap_bump_every - move the change count before every @n-th log read (0: never). */
void ana_wrap_bump_every(unsigned n);
/* ana_wrap_fail_next_io - the next I/O command on @path is answered with @status (the
 * CQE status field without the phase bit) instead of reaching the target. */
void ana_wrap_fail_next_io(unsigned path, uint16_t status);
/* ana_wrap_spoil_ns_ids - Identify Namespace through @path reports another NGUID. */
void ana_wrap_spoil_ns_ids(unsigned path);
/* What the wrapper saw: log 0Ch commands (all paths), the last one's CDW10 and its
 * length in bytes; I/O commands passed to the target on @path, answered with a path
 * status on @path. */
unsigned ana_wrap_log_reads(void);
uint32_t ana_wrap_last_log_cdw10(void);
uint32_t ana_wrap_last_log_len(void);
unsigned ana_wrap_io_passed(unsigned path);
unsigned ana_wrap_io_refused(unsigned path);

/* aw_log_header / aw_log_desc - build raw logs: the 16-byte header at @p; a descriptor at
 * @p with @n NSIDs from @nsids (returns its length). */
void aw_log_header(uint8_t *p, uint64_t chgcnt, uint16_t ngrps);
size_t aw_log_desc(uint8_t *p, uint32_t grpid, uint8_t state, uint64_t chgcnt, uint32_t n,
		   const uint32_t *nsids);

#endif
