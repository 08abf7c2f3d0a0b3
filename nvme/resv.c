/* SPDX-License-Identifier: MIT */
/*
 * Reservation rules (see nvme/resv.h): the commands applied to a namespace's state, the
 * access each host keeps, the Reservation Report's bytes.
 */
#include <string.h>
#include "nvme/resv.h"

static_assert(sizeof(struct nvme_resv_status) == NVME_RESV_REPORT_HDR, "report header is 64 bytes");
static_assert(sizeof(struct nvme_registered_ctrl_ext) == NVME_RESV_REPORT_ENTRY,
	      "report entry is 64 bytes");

#define ST_OK       0
#define ST_FIELD    (nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR)
#define ST_CONFLICT (nvme_generic(NVME_SC_RESERVATION_CONFLICT) | NVME_SC_DNR)
/* Too many registrants: may pass once others leave, so no DNR. */
#define ST_FULL     nvme_generic(NVME_SC_INTERNAL)

/* Dynamic controllers: a registration belongs to the host, not to one controller. */
#define CNTLID_DYNAMIC 0xffffu

enum nvme_resv_group nvme_resv_cmd_group(uint8_t opcode)
{
	switch (opcode) {
	case nvme_cmd_read:
	case nvme_cmd_compare:
	case nvme_cmd_verify:
		return NVME_RESV_GROUP_READ;
	case nvme_cmd_flush:
	case nvme_cmd_write:
	case nvme_cmd_write_uncor:
	case nvme_cmd_write_zeroes:
	case nvme_cmd_dsm:
	case nvme_cmd_copy:
	case nvme_zns_cmd_mgmt_send:
	case nvme_zns_cmd_append:
		return NVME_RESV_GROUP_WRITE;
	default:
		return NVME_RESV_GROUP_NONE;
	}
}

int nvme_resv_find(const struct nvme_resv_state *st, const uint8_t hostid[16])
{
	for (uint32_t i = 0; i < st->nregs; i++)
		if (!memcmp(st->regs[i].hostid, hostid, 16))
			return (int)i;
	return -1;
}

bool nvme_resv_is_holder(const struct nvme_resv_state *st, uint32_t i)
{
	if (!st->rtype || i >= st->nregs)
		return false;
	return nvme_resv_all_regs(st->rtype) || i == st->holder;
}

uint8_t nvme_resv_deny(const struct nvme_resv_state *st, const uint8_t hostid[16])
{
	if (!st->rtype)
		return 0;
	int i = nvme_resv_find(st, hostid);
	bool registered = i >= 0, holder = registered && nvme_resv_is_holder(st, (uint32_t)i);
	switch (st->rtype) {
	case NVME_RESERVATION_RTYPE_WE:
		return holder ? 0 : NVME_RESV_DENY_WRITE;
	case NVME_RESERVATION_RTYPE_EA:
		return holder ? 0 : NVME_RESV_DENY_READ | NVME_RESV_DENY_WRITE;
	case NVME_RESERVATION_RTYPE_WERO:
	case NVME_RESERVATION_RTYPE_WEAR:
		return registered ? 0 : NVME_RESV_DENY_WRITE;
	case NVME_RESERVATION_RTYPE_EARO:
	case NVME_RESERVATION_RTYPE_EAAR:
		return registered ? 0 : NVME_RESV_DENY_READ | NVME_RESV_DENY_WRITE;
	default:
		return NVME_RESV_DENY_READ | NVME_RESV_DENY_WRITE; /* never stored */
	}
}

const char *nvme_resv_type_name(uint8_t rtype)
{
	static const char *const names[] = {
		"none",
		"write-exclusive",
		"exclusive-access",
		"write-exclusive-registrants-only",
		"exclusive-access-registrants-only",
		"write-exclusive-all-registrants",
		"exclusive-access-all-registrants",
	};
	return rtype < sizeof(names) / sizeof(names[0]) ? names[rtype] : "?";
}

/* ---- helpers ---- */

static bool valid_rtype(uint8_t rtype)
{
	return rtype >= NVME_RESERVATION_RTYPE_WE && rtype <= NVME_RESERVATION_RTYPE_EAAR;
}

static void notice(struct nvme_resv_notice *n, unsigned *nn, const uint8_t hostid[16], uint8_t type)
{
	memcpy(n[*nn].hostid, hostid, 16);
	n[*nn].type = type;
	(*nn)++;
}

/* Every registrant but @host hears @type. */
static void notice_others(const struct nvme_resv_state *st, const uint8_t *host, uint8_t type,
			  struct nvme_resv_notice *n, unsigned *nn)
{
	for (uint32_t i = 0; i < st->nregs; i++)
		if (!host || memcmp(st->regs[i].hostid, host, 16))
			notice(n, nn, st->regs[i].hostid, type);
}

/* Take registrant @i out. Returns true when that released a reservation: the holder of a
 * single-holder type left, or the last registrant of an All Registrants type. */
static bool remove_at(struct nvme_resv_state *st, uint32_t i)
{
	bool released = false;
	memmove(&st->regs[i], &st->regs[i + 1], (st->nregs - i - 1) * sizeof(st->regs[0]));
	st->nregs--;
	if (!st->rtype)
		return false;
	if (nvme_resv_all_regs(st->rtype)) {
		released = st->nregs == 0;
	} else if (i == st->holder) {
		released = true;
	} else if (i < st->holder) {
		st->holder--;
	}
	if (released) {
		st->rtype = 0;
		st->holder = 0;
	}
	return released;
}

/* Unregister every registrant with key @key except @keep (NULL: none), each but @host
 * told Registration Preempted. Returns how many were unregistered. */
static unsigned remove_by_key(struct nvme_resv_state *st, uint64_t key, const uint8_t *keep,
			      const uint8_t host[16], struct nvme_resv_notice *n, unsigned *nn)
{
	unsigned removed = 0;
	for (uint32_t i = st->nregs; i-- > 0;) {
		const struct nvme_resv_reg *r = &st->regs[i];
		if (r->rkey != key || (keep && !memcmp(r->hostid, keep, 16)))
			continue;
		if (memcmp(r->hostid, host, 16))
			notice(n, nn, r->hostid, NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED);
		remove_at(st, i);
		removed++;
	}
	return removed;
}

/* The registration of @host if its key is @crkey, else -1 (Reservation Conflict). */
static int registrant_with_key(const struct nvme_resv_state *st, const uint8_t host[16],
			       uint64_t crkey)
{
	int i = nvme_resv_find(st, host);
	return i >= 0 && st->regs[i].rkey == crkey ? i : -1;
}

/* ---- Reservation Register ---- */

nvme_status_t nvme_resv_exec_register(struct nvme_resv_state *st, const uint8_t host[16],
				      uint32_t cdw10, uint64_t crkey, uint64_t nrkey,
				      bool ptpl_capable, struct nvme_resv_notice *notices,
				      unsigned *nnotices)
{
	uint32_t action = NVME_RESV_ACTION(cdw10), cptpl = NVME_RESV_CPTPL(cdw10);
	bool iekey = NVME_RESV_IEKEY(cdw10);
	*nnotices = 0;
	/* Reserved action values and CPTPL 01b; PTPL on where it cannot be kept. */
	if (action > NVME_RESERVATION_RREGA_REPLACE_KEY || cptpl == 1 ||
	    (cptpl == NVME_RESERVATION_CPTPL_PERSIST && !ptpl_capable))
		return ST_FIELD;
	int i = nvme_resv_find(st, host);
	switch (action) {
	case NVME_RESERVATION_RREGA_REGISTER_KEY:
		/* Registering again with the same key succeeds; with another, conflicts. */
		if (i >= 0) {
			if (st->regs[i].rkey != nrkey)
				return ST_CONFLICT;
			break;
		}
		if (st->nregs >= NVME_RESV_MAX_REGS)
			return ST_FULL;
		memcpy(st->regs[st->nregs].hostid, host, 16);
		st->regs[st->nregs].rkey = nrkey;
		st->nregs++;
		break;
	case NVME_RESERVATION_RREGA_UNREGISTER_KEY: {
		if (i < 0 || (!iekey && st->regs[i].rkey != crkey))
			return ST_CONFLICT;
		uint8_t rtype = st->rtype;
		/* The holder leaving a Registrants Only reservation releases it for the others
		 * (nvmet and SPDK; Write Exclusive and Exclusive Access had only the holder's). */
		if (remove_at(st, (uint32_t)i) &&
		    (rtype == NVME_RESERVATION_RTYPE_WERO || rtype == NVME_RESERVATION_RTYPE_EARO))
			notice_others(st, host, NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED,
				      notices, nnotices);
		break;
	}
	case NVME_RESERVATION_RREGA_REPLACE_KEY:
		/* A host that is not registered has no key to replace, IEKEY or not (nvmet). */
		if (i < 0 || (!iekey && st->regs[i].rkey != crkey))
			return ST_CONFLICT;
		st->regs[i].rkey = nrkey; /* a holder stays the holder */
		break;
	}
	if (cptpl == NVME_RESERVATION_CPTPL_CLEAR)
		st->ptpl = false;
	else if (cptpl == NVME_RESERVATION_CPTPL_PERSIST)
		st->ptpl = true;
	st->gen++;
	return ST_OK;
}

/* ---- Reservation Acquire ---- */

/* Preempt (section 8.19.7) by registrant @me of @st. */
static nvme_status_t preempt(struct nvme_resv_state *st, uint32_t me, uint8_t rtype, uint64_t prkey,
			     struct nvme_resv_notice *n, unsigned *nn)
{
	uint8_t host[16];
	memcpy(host, st->regs[me].hostid, 16); /* indices move as registrants leave */
	if (!st->rtype) {
		/* No reservation: PRKEY names registrations to take away. */
		return remove_by_key(st, prkey, NULL, host, n, nn) ? ST_OK : ST_CONFLICT;
	}
	if (nvme_resv_all_regs(st->rtype)) {
		if (prkey) {
			/* The reservation stays with whoever is left (ends with the last). */
			return remove_by_key(st, prkey, NULL, host, n, nn) ? ST_OK : ST_CONFLICT;
		}
		/* PRKEY 0: everyone else goes; the reservation becomes @host's, of RTYPE. */
		for (uint32_t i = st->nregs; i-- > 0;)
			if (memcmp(st->regs[i].hostid, host, 16)) {
				notice(n, nn, st->regs[i].hostid,
				       NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED);
				remove_at(st, i);
			}
		st->rtype = rtype;
		st->holder = 0;
		return ST_OK;
	}
	uint64_t holder_key = st->regs[st->holder].rkey;
	if (prkey == holder_key) {
		/* The holder's key (its own, for the holder: a change of type): the holder and
		 * the others of that key are unregistered, and @host holds RTYPE. */
		uint8_t old = st->rtype;
		remove_by_key(st, prkey, host, host, n, nn);
		st->rtype = rtype;
		st->holder = (uint32_t)nvme_resv_find(st, host);
		/* A type changed under the remaining registrants: for them the reservation
		 * they knew is released (nvmet). */
		if (old != rtype)
			notice_others(st, host, NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED, n, nn);
		return ST_OK;
	}
	/* PRKEY 0 cannot name a holder whose key is not 0 (Invalid Field, as nvmet; SPDK
	 * answers Reservation Conflict). */
	if (!prkey)
		return ST_FIELD;
	return remove_by_key(st, prkey, NULL, host, n, nn) ? ST_OK : ST_CONFLICT;
}

nvme_status_t nvme_resv_exec_acquire(struct nvme_resv_state *st, const uint8_t host[16],
				     uint32_t cdw10, uint64_t crkey, uint64_t prkey,
				     struct nvme_resv_notice *notices, unsigned *nnotices)
{
	uint32_t action = NVME_RESV_ACTION(cdw10);
	uint8_t rtype = NVME_RESV_RTYPE(cdw10);
	*nnotices = 0;
	/* IEKEY is not for Acquire (reserved since 1.3: Invalid Field, as nvmet and SPDK). */
	if (action > NVME_RESERVATION_RACQA_PREEMPT_AND_ABORT || NVME_RESV_IEKEY(cdw10) ||
	    !valid_rtype(rtype))
		return ST_FIELD;
	int me = registrant_with_key(st, host, crkey);
	if (me < 0)
		return ST_CONFLICT;
	if (action == NVME_RESERVATION_RACQA_ACQUIRE) {
		if (!st->rtype) {
			st->rtype = rtype;
			st->holder = (uint32_t)me;
			return ST_OK;
		}
		/* A holder asking again for what it holds succeeds; anything else conflicts (a
		 * holder changes the type with a preempt of its own key). Every registrant holds
		 * an All Registrants reservation (SPDK; nvmet lets only its first registrant). */
		return nvme_resv_is_holder(st, (uint32_t)me) && st->rtype == rtype ? ST_OK :
										     ST_CONFLICT;
	}
	/* preempt() refuses before it changes anything (a PRKEY that matched nothing
	 * removed nothing). */
	nvme_status_t rc = preempt(st, (uint32_t)me, rtype, prkey, notices, nnotices);
	if (!rc)
		st->gen++;
	return rc;
}

/* ---- Reservation Release ---- */

void nvme_resv_clear(struct nvme_resv_state *st, const uint8_t *host,
		     struct nvme_resv_notice *notices, unsigned *nnotices)
{
	*nnotices = 0;
	notice_others(st, host, NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED, notices, nnotices);
	st->nregs = 0;
	st->rtype = 0;
	st->holder = 0;
	st->gen++;
}

nvme_status_t nvme_resv_exec_release(struct nvme_resv_state *st, const uint8_t host[16],
				     uint32_t cdw10, uint64_t crkey,
				     struct nvme_resv_notice *notices, unsigned *nnotices)
{
	uint32_t action = NVME_RESV_ACTION(cdw10);
	uint8_t rtype = NVME_RESV_RTYPE(cdw10);
	*nnotices = 0;
	if (action > NVME_RESERVATION_RRELA_CLEAR || NVME_RESV_IEKEY(cdw10) ||
	    (action == NVME_RESERVATION_RRELA_RELEASE && !valid_rtype(rtype)))
		return ST_FIELD;
	int me = registrant_with_key(st, host, crkey);
	if (me < 0)
		return ST_CONFLICT;
	if (action == NVME_RESERVATION_RRELA_CLEAR) {
		nvme_resv_clear(st, host, notices, nnotices);
		return ST_OK;
	}
	/* Releasing what one does not hold succeeds and changes nothing. */
	if (!nvme_resv_is_holder(st, (uint32_t)me))
		return ST_OK;
	if (rtype != st->rtype)
		return ST_FIELD;
	uint8_t old = st->rtype;
	st->rtype = 0;
	st->holder = 0;
	if (old != NVME_RESERVATION_RTYPE_WE && old != NVME_RESERVATION_RTYPE_EA)
		notice_others(st, host, NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED, notices,
			      nnotices);
	return ST_OK;
}

/* ---- Reservation Report ---- */

/* Copy @src (@n bytes) to @buf at @off, as much as fits in @len. */
static void put(uint8_t *buf, size_t len, size_t off, const void *src, size_t n)
{
	if (off >= len)
		return;
	memcpy(buf + off, src, n < len - off ? n : len - off);
}

size_t nvme_resv_report_fill(const struct nvme_resv_state *st, void *buf, size_t len)
{
	struct nvme_resv_status hdr;
	struct nvme_registered_ctrl_ext e;
	memset(buf, 0, len);
	memset(&hdr, 0, sizeof(hdr));
	hdr.gen = htole32(st->gen);
	hdr.rtype = st->rtype;
	hdr.regctl[0] = (uint8_t)st->nregs;
	hdr.regctl[1] = (uint8_t)(st->nregs >> 8);
	hdr.ptpls = st->ptpl;
	put(buf, len, 0, &hdr, sizeof(hdr));
	for (uint32_t i = 0; i < st->nregs; i++) {
		memset(&e, 0, sizeof(e));
		e.cntlid = htole16(CNTLID_DYNAMIC);
		e.rcsts = nvme_resv_is_holder(st, i);
		e.rkey = htole64(st->regs[i].rkey);
		memcpy(e.hostid, st->regs[i].hostid, 16);
		put(buf, len, NVME_RESV_REPORT_HDR + (size_t)i * NVME_RESV_REPORT_ENTRY, &e,
		    sizeof(e));
	}
	return NVME_RESV_REPORT_HDR + (size_t)st->nregs * NVME_RESV_REPORT_ENTRY;
}
