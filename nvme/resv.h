/* SPDX-License-Identifier: MIT */
/*
 * NVMe reservations as pure rules (NVMe Base 2.0 section 8.19, and the commands of
 * sections 7.2 Reservation Acquire, 7.3 Reservation Register, 7.4 Reservation Release,
 * 7.5 Reservation Report): the state of one namespace (registrants by 128-bit Host
 * Identifier, their keys, the holder, the type, the generation, PTPL), what each command
 * does to it and answers, the notifications it causes, the Reservation Report data, and
 * which I/O a host may do under a reservation. No I/O, no allocation: the target owns the
 * state's memory (target/resv.c), holds the commands' data and delivers the notices.
 *
 * Where the spec leaves a choice the rules follow the Linux target (nvmet, pr.c), and
 * SPDK where nvmet departs from the spec; each such place says so.
 *
 * Keys and every field here are host endian; the command data (CRKEY, NRKEY, PRKEY) is
 * decoded by the caller (little endian on the wire). Statuses include DNR.
 */
#ifndef NVMF_NVME_RESV_H
#define NVMF_NVME_RESV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nvme/wire.h"

/* Bytes of each command's data (figures 2.0 "Reservation ... Data Structure"). */
#define NVME_RESV_REGISTER_DATA 16u /* CRKEY le64, NRKEY le64 */
#define NVME_RESV_ACQUIRE_DATA  16u /* CRKEY le64, PRKEY le64 */
#define NVME_RESV_RELEASE_DATA  8u  /* CRKEY le64 */
/* Reservation Report, extended data structure (EDS = 1): a 64-byte header (struct
 * nvme_resv_status) and 64 bytes per registrant (struct nvme_registered_ctrl_ext). */
#define NVME_RESV_REPORT_HDR    64u
#define NVME_RESV_REPORT_ENTRY  64u

/* Registrants a namespace keeps at most (REGCTL is 16 bits; a bound on what hosts may
 * make the target hold). */
#define NVME_RESV_MAX_REGS 1024u

/* Command Dword 10 (figures 2.0 7.2-7.4): the action in bits 2:0 (RREGA, RACQA, RRELA),
 * IEKEY bit 3, RTYPE bits 15:8 (Acquire, Release), CPTPL bits 31:30 (Register). Dword 11
 * of Reservation Report: EDS bit 0; its dword 10 is NUMD (0's based dwords). */
#define NVME_RESV_ACTION(cdw10) ((cdw10)&7u)
#define NVME_RESV_IEKEY(cdw10)  (((cdw10) >> 3) & 1u)
#define NVME_RESV_RTYPE(cdw10)  ((uint8_t)((cdw10) >> 8))
#define NVME_RESV_CPTPL(cdw10)  ((cdw10) >> 30)
#define NVME_RESV_REPORT_EDS    1u

/* One registrant: a host and its reservation key. */
struct nvme_resv_reg {
	uint8_t hostid[16];
	uint64_t rkey;
};

/*
 * A namespace's reservation state. The registrants are in registration order, one per
 * host (every controller of a host shares its registration). Types 5 and 6 (All
 * Registrants) make every registrant a holder, and the reservation lasts while there is
 * one; otherwise regs[holder] holds it.
 */
struct nvme_resv_state {
	uint32_t gen;    /* Generation: bumped by every successful Register,
					    * Preempt (and Abort) and Clear; wraps */
	uint8_t rtype;   /* NVME_RESERVATION_RTYPE_*, 0: none held */
	bool ptpl;       /* Persist Through Power Loss state */
	uint32_t holder; /* index in regs while rtype is 1-4 */
	uint32_t nregs;
	struct nvme_resv_reg *regs; /* the caller's array: a command may register one
					    * host, so it needs room for nregs + 1 */
};

/* A notification a command causes: a Reservation Notification log page of @type
 * (enum nvme_resv_notify_rnlpt) for every controller of host @hostid (section 8.19.10;
 * the controller's Reservation Notification Mask may suppress it). */
struct nvme_resv_notice {
	uint8_t hostid[16];
	uint8_t type;
};

/* What a command does to the namespace's data, for the access rules (figure 2.0
 * "Command Behavior in the Presence of a Reservation"). */
enum nvme_resv_group {
	NVME_RESV_GROUP_NONE,  /* never refused by a reservation (Identify,
					    * the reservation commands themselves, ...) */
	NVME_RESV_GROUP_READ,  /* Read, Compare, Verify */
	NVME_RESV_GROUP_WRITE, /* Flush, Write, Write Uncorrectable, Write Zeroes,
					    * Dataset Management, Copy, Zone Management Send,
					    * Zone Append */
};

/* What a host may not do under the current reservation: nvme_resv_deny's bits. */
#define NVME_RESV_DENY_READ  1u
#define NVME_RESV_DENY_WRITE 2u

/* nvme_resv_cmd_group - the group of I/O command @opcode. */
enum nvme_resv_group nvme_resv_cmd_group(uint8_t opcode);

/* nvme_resv_all_regs - @rtype is an All Registrants type (5, 6). */
static inline bool nvme_resv_all_regs(uint8_t rtype)
{
	return rtype == NVME_RESERVATION_RTYPE_WEAR || rtype == NVME_RESERVATION_RTYPE_EAAR;
}

/* nvme_resv_find - the index of @hostid's registration in @st, or -1. */
int nvme_resv_find(const struct nvme_resv_state *st, const uint8_t hostid[16]);

/* nvme_resv_is_holder - registrant @i holds the reservation (a holder of an All
 * Registrants type is every registrant). False without a reservation. */
bool nvme_resv_is_holder(const struct nvme_resv_state *st, uint32_t i);

/*
 * nvme_resv_deny - the command groups host @hostid may not use (NVME_RESV_DENY_* bits)
 * while @st holds: nothing without a reservation or for a holder; for Write Exclusive,
 * writes of everyone else; Exclusive Access, reads and writes of everyone else; the
 * Registrants Only and All Registrants forms, writes (Write Exclusive) or reads and
 * writes (Exclusive Access) of hosts that are not registered.
 */
uint8_t nvme_resv_deny(const struct nvme_resv_state *st, const uint8_t hostid[16]);

/*
 * The commands. Each checks the command's fields, applies it to @st in place when it
 * succeeds (@st is left as it was on any error) and returns the status: 0, or with DNR
 * Invalid Field in Command (reserved action values, RTYPE 0 or above 6, IEKEY on Acquire
 * or Release, CPTPL 01b or a PTPL the namespace cannot keep, PRKEY 0 against a holder of
 * a single-holder type, a Release of another type than the one held), Reservation
 * Conflict (the host is not registered, a key does not match, a reservation held by
 * another host, a PRKEY that matches no registrant), Internal Error without DNR (the
 * namespace holds NVME_RESV_MAX_REGS registrants). @host is the issuing controller's Host
 * Identifier. @notices (room for the number of registrants before the command) receives
 * the notifications to send, *@nnotices their count; never one for @host itself.
 */
/* nvme_resv_exec_register - Reservation Register (7.3): register NRKEY, unregister (CRKEY),
 * replace CRKEY by NRKEY; IEKEY skips the CRKEY check; CPTPL 10b/11b sets PTPL to 0/1
 * (11b needs @ptpl_capable). Unregistering the holder releases the reservation (a
 * Reservation Released notice to the other registrants for the Registrants Only types);
 * of an All Registrants type, only the last registrant's leaving ends it. */
nvme_status_t nvme_resv_exec_register(struct nvme_resv_state *st, const uint8_t host[16],
				      uint32_t cdw10, uint64_t crkey, uint64_t nrkey,
				      bool ptpl_capable, struct nvme_resv_notice *notices,
				      unsigned *nnotices);
/* nvme_resv_exec_acquire - Reservation Acquire (7.2): acquire RTYPE (again by the holder of
 * that type: success, nothing changes), or preempt registrants by PRKEY (section 8.19.7):
 * with the holder's key, its reservation passes to @host with RTYPE and the other
 * registrants of that key are unregistered; another non-zero key unregisters its
 * registrants; PRKEY 0 under an All Registrants type unregisters everyone else and gives
 * @host the reservation. Unregistered hosts get Registration Preempted; a type changed
 * under the remaining registrants, Reservation Released. Preempt and Abort
 * (NVME_RESERVATION_RACQA_PREEMPT_AND_ABORT) changes the state the same way; waiting for
 * the preempted hosts' commands is the caller's. */
nvme_status_t nvme_resv_exec_acquire(struct nvme_resv_state *st, const uint8_t host[16],
				     uint32_t cdw10, uint64_t crkey, uint64_t prkey,
				     struct nvme_resv_notice *notices, unsigned *nnotices);
/* nvme_resv_exec_release - Reservation Release (7.4): release (by a holder; anyone else's
 * succeeds and changes nothing; the other registrants hear Reservation Released unless
 * the type was Write Exclusive or Exclusive Access) or clear (every registration and the
 * reservation; the other registrants hear Reservation Preempted). */
nvme_status_t nvme_resv_exec_release(struct nvme_resv_state *st, const uint8_t host[16],
				     uint32_t cdw10, uint64_t crkey,
				     struct nvme_resv_notice *notices, unsigned *nnotices);

/* nvme_resv_clear - what Reservation Release with Clear (7.4) does to @st, for host @host
 * (NULL: for the target's operator, who is no registrant): every registration and the
 * reservation are gone and the generation moves on; every registrant but @host hears
 * Reservation Preempted (@notices: room for st->nregs). PTPL is left as it is. */
void nvme_resv_clear(struct nvme_resv_state *st, const uint8_t *host,
		     struct nvme_resv_notice *notices, unsigned *nnotices);

/*
 * nvme_resv_report_fill - the Reservation Status Extended Data Structure of @st (section 7.5,
 * figures "Reservation Status Extended Data Structure" and "Registered Controller
 * Extended Data Structure") cut to the first @len bytes of @buf (NUMD's truncation; the
 * rest of @buf is zeroed): GEN, RTYPE, REGCTL (every registrant, however many fit), PTPLS,
 * then one entry per registrant with CNTLID FFFFh (dynamic controllers: the registration
 * is the host's), RCSTS bit 0 for holders, RKEY and the 128-bit HOSTID; little endian.
 * Returns the bytes of the whole structure.
 */
size_t nvme_resv_report_fill(const struct nvme_resv_state *st, void *buf, size_t len);

/* nvme_resv_type_name - "write-exclusive", "exclusive-access", "write-exclusive-registrants-only",
 * "exclusive-access-registrants-only", "write-exclusive-all-registrants",
 * "exclusive-access-all-registrants", "none" (0), "?" otherwise. */
const char *nvme_resv_type_name(uint8_t rtype);

#endif
