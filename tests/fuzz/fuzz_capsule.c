/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: command capsules through the loop transport into the whole target
 * (core, controllers, Fabrics/admin/I/O/discovery commands, RAM and null backends).
 *
 * Each input gets a target of its own, built and torn down as the unit tests' fixture
 * does (tests/unit/target/fixture.h: driven mode, auto drive off, fake clock), so no
 * state survives from one input to the next and nothing runs on another thread. The
 * host is raw loop queues (loop/loop.h: capsules go exactly as built): up to NQ
 * transport connections, slot 0 meant as the admin queue.
 *
 * The input is a setup byte (see boot) and a sequence of steps (tests/fuzz/fuzz_input.h
 * fields); each step starts with a byte: bits 3:0 the step (enum step), bit 7 "do not run the target after it" (so that
 * several capsules are in flight at once). The target runs after every other step and
 * every CQE is reaped; the cntlid of a successful admin Connect is remembered for the
 * I/O queue Connects. At the end every queue is disconnected: the target must release
 * all of them (no queue stuck) and free everything (LeakSanitizer).
 *
 * Commands: any opcode with fuzzed nsid, flags, command id and dwords; SGLs of every
 * kind (keyed 0x40/0x4F with the queue's key inside the memory they name, another key,
 * outside the memory, in-capsule 0x01 at any offset and length, any other descriptor
 * raw); data taken partly from the input. Seeds: tests/fuzz/corpus/capsule/ (made by
 * tests/fuzz/make-seeds).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "nvme/sgl.h"
#include "target/auth.h"
#include "target/log.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/unit/target/fixture.h"
#include "nvme/fabrics.h"

#define NQ         4 /* transport connections: slot 0 admin, 1..3 I/O */
#define MAX_STEPS  256
#define ARENA_SIZE (2u << 20) /* host memory keyed SGLs point into */
#define ANY_NQN    "nqn.2026-11.io.nvmf-rdma:anyhost"
#define ICD_MAX    16384 /* the loop transport's largest receive buffer */

enum step {
	STEP_OPEN,    /* transport connection of a slot */
	STEP_CONNECT, /* Fabrics Connect on a slot */
	STEP_PROP_GET,
	STEP_PROP_SET,
	STEP_ENABLE,     /* Property Set CC on the admin slot from a table of useful values */
	STEP_ADMIN,      /* any command on the admin slot */
	STEP_IO,         /* any command on an I/O slot */
	STEP_FABRICS,    /* opcode 0x7f with any fctype, any slot */
	STEP_CLOCK,      /* the target's clock moves on, keep-alive checked */
	STEP_DISCONNECT, /* the host drops a slot's connection */
	STEP_DRIVE,      /* run the target now */
	STEP_BREAK,      /* every connection fails at once */
	STEP_QUICK,      /* admin Connect + CC.EN + I/O Connect on slot 1, well formed */
	STEP_CMD,        /* any opcode, any slot */
	NR_STEPS,
};

struct host {
	struct fx f;
	struct nvmf_loop_raw *q[NQ];
	uint16_t qid[NQ];     /* transport-level qid of each open slot */
	uint16_t cntlid;      /* of the last admin Connect that succeeded */
	uint16_t connect_cid; /* command id of the last admin Connect sent */
	uint16_t next_cid;
	uint32_t arena_off;
	uint32_t arena_used; /* bytes of the arena this input touched */
};

static uint8_t arena[ARENA_SIZE];
static bool trace; /* FUZZ_TRACE=1: every capsule and CQE on stderr */

/* Host memory for one command: @len bytes, or what the arena holds (the arena is
 * reused round robin); the bytes given in *@got. */
static uint8_t *region(struct host *h, uint32_t len, uint32_t *got)
{
	if (len > ARENA_SIZE)
		len = ARENA_SIZE;
	if (h->arena_off + len > ARENA_SIZE)
		h->arena_off = 0;
	uint8_t *p = arena + h->arena_off;
	h->arena_off += (len + 63) & ~63u;
	if (h->arena_off > ARENA_SIZE)
		h->arena_off = ARENA_SIZE;
	if (h->arena_off > h->arena_used)
		h->arena_used = h->arena_off;
	*got = len;
	return p;
}

/* The target of one input; @setup (the input's first byte) bit 0: two I/O poll groups
 * beside the main one (nvmf_target.threads 2, still driven: no thread), so that I/O
 * queues live on other groups than their controllers; bit 1: FX_HOSTNQN must
 * authenticate (DH-HMAC-CHAP host and controller keys, target/auth.c), with the null
 * group, or with ffdhe2048 when bit 2 is set too. */
static int boot(struct host *h, uint8_t setup)
{
	memset(h, 0, sizeof(*h));
	struct fx *f = &h->f;
	struct nvmf_subsys_config *s = fx_cfg_subsys(&f->cfg, FX_SUBNQN, FX_HOSTNQN, 3);
	if (setup & 1)
		f->cfg.target.threads = 2;
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_ns(s, 2, NVMF_BACKEND_NULL, 1u << 20, 4096);
	/* nsid 3 absent; 4 takes reservations (target/resv*.c) */
	fx_cfg_ns(s, 4, NVMF_BACKEND_RAM, 8 * 512, 512)->resv_enable = true;
	struct nvmf_ns_config *off = fx_cfg_ns(s, 5, NVMF_BACKEND_NULL, 1u << 16, 512);
	off->enable = false;
	struct nvmf_subsys_config *any = fx_cfg_subsys(&f->cfg, ANY_NQN, NULL, 1);
	fx_cfg_ns(any, 1, NVMF_BACKEND_NULL, 1u << 20, 512);
	/* Small queues and receive buffers: every input connects its queues anew, and the
	 * target's slots are allocated per connection. */
	struct nvmf_port_config *p = fx_cfg_loop_port(&f->cfg, 1, AF_INET, "0.0.0.0", "4420");
	p->max_queue_size = 32;
	p->inline_data_size = 4096;
	fx_cfg_expose(p, FX_SUBNQN);
	fx_cfg_expose(p, ANY_NQN);
	if (fx_boot(f, "127.0.0.1", "4420"))
		return -1;
	nvmf_log_level_set_all(&f->tgt, NVMF_LOG_ERROR);
	char err[256];
	if ((setup & 2) &&
	    nvmf_tgt_host_auth_set(
		    &f->tgt, FX_HOSTNQN,
		    "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:",
		    "DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:", "hmac(sha256)",
		    (setup & 4) ? "ffdhe2048" : "null", err, sizeof(err)))
		abort(); /* the harness's own keys are valid */
	h->cntlid = 0xffff;
	return 0;
}

static void reap(struct host *h)
{
	for (unsigned i = 0; i < NQ; i++) {
		struct nvme_cqe cqe[64];
		int n;
		while (h->q[i] && (n = nvmf_loop_raw_reap(h->q[i], cqe, 64)) > 0)
			for (int k = 0; k < n; k++) {
				if (trace)
					fprintf(stderr,
						"  slot %u: cqe cid %u status 0x%x dw0 0x%x\n", i,
						cqe[k].command_id, le16toh(cqe[k].status) >> 1,
						le32toh(cqe[k].result.u32));
				if (le16toh(cqe[k].status) & 1)
					abort(); /* the phase bit is 0 on fabrics */
				if (i == 0 && cqe[k].command_id == h->connect_cid &&
				    !(le16toh(cqe[k].status) >> 1))
					h->cntlid = (uint16_t)le32toh(cqe[k].result.u32);
			}
	}
}

static void run(struct host *h)
{
	nvmf_loop_drive(&h->f.tgt);
	reap(h);
}

static void close_slot(struct host *h, unsigned slot)
{
	nvmf_loop_raw_disconnect(h->q[slot]);
	h->q[slot] = NULL;
}

static void open_slot(struct host *h, unsigned slot, uint16_t qid, uint16_t size)
{
	if (h->q[slot])
		close_slot(h, slot);
	if (nvmf_loop_raw_connect(&h->f.tgt, "127.0.0.1", "4420", qid, size, &h->q[slot]))
		h->q[slot] = NULL;
	h->qid[slot] = qid;
}

/* The slot a step names, opened (as its default queue) when it is not yet. */
static struct nvmf_loop_raw *slot_q(struct host *h, unsigned slot)
{
	if (!h->q[slot])
		open_slot(h, slot, (uint16_t)slot, 32);
	return h->q[slot];
}

/* A data length: mostly sizes commands use, else any 24-bit one. */
static uint32_t data_len(struct fuzz_in *in)
{
	static const uint32_t lens[] = { 0,    4,    8,    16,   64,    512,
					 1024, 2048, 4096, 8192, 65536, 1u << 20 };
	uint8_t s = fi_u8(in);
	if (s < 0xf0)
		return lens[s % (sizeof(lens) / sizeof(lens[0]))];
	return fi_u32(in) & NVME_SGL_KEYED_MAX_LEN;
}

/* The first bytes of @p (@len long) from the input, the rest zero. */
static void fill(struct fuzz_in *in, uint8_t *p, uint32_t len)
{
	uint32_t k = fi_u8(in);
	memset(p, 0, len);
	fi_bytes(in, p, k < len ? k : len);
}

/* What a capsule carries besides the SQE. */
struct capsule {
	struct nvme_sqe sqe;
	uint8_t icd[ICD_MAX];
	uint32_t icd_len;
	uint8_t *mem;
	uint32_t mem_len;
};

/*
 * The data pointer of @c by SGL mode @mode, with @want bytes of data (keyed memory or
 * in-capsule data filled partly from the input). @inline_max: what the queue's capsules
 * may carry.
 */
static void build_sgl(struct host *h, struct fuzz_in *in, struct capsule *c, unsigned mode,
		      uint32_t key, uint32_t inline_max)
{
	uint32_t len = data_len(in);
	switch (mode) {
	case 0: /* no data, as the Linux host sends it */
		nvme_sgl_set_keyed(&c->sqe, 0, 0, 0, false);
		break;
	case 1: /* keyed, inside the memory the capsule names */
	case 2:
		c->mem = region(h, len, &c->mem_len);
		fill(in, c->mem, c->mem_len);
		nvme_sgl_set_keyed(&c->sqe, (uintptr_t)c->mem, len, key, mode == 2);
		break;
	case 3: { /* in-capsule, any offset and length */
		c->icd_len = fi_u16(in) % (inline_max + 1);
		fill(in, c->icd, c->icd_len);
		uint8_t sel = fi_u8(in); /* offset: 0, small, or any */
		uint32_t off = sel & 1 ? (sel & 2 ? fi_u32(in) : fi_u8(in)) : 0;
		nvme_sgl_set_incapsule(&c->sqe, off,
				       sel & 4 ? len : c->icd_len - (off < c->icd_len ? off : 0));
		break;
	}
	case 4: /* keyed with another key */
		c->mem = region(h, len, &c->mem_len);
		nvme_sgl_set_keyed(&c->sqe, (uintptr_t)c->mem, len, key ^ (fi_u32(in) | 1), false);
		break;
	case 5: { /* keyed, partly or wholly outside the memory named */
		c->mem = region(h, len / 2, &c->mem_len);
		uint64_t addr = (uintptr_t)c->mem + (fi_u8(in) & 1 ? fi_u64(in) : fi_u16(in));
		nvme_sgl_set_keyed(&c->sqe, addr, len, key, false);
		break;
	}
	case 6: /* any descriptor and PSDT, raw; any in-capsule data */
		fi_bytes(in, &c->sqe.dptr, sizeof(c->sqe.dptr));
		c->sqe.flags = fi_u8(in);
		c->icd_len = fi_u16(in) % (inline_max + 1);
		fill(in, c->icd, c->icd_len);
		if (fi_u8(in) & 1)
			c->mem = region(h, len, &c->mem_len);
		break;
	default: /* as a host would: small writes in the capsule, the rest keyed */
		if (len && len <= inline_max && (c->sqe.opcode & 1)) {
			c->icd_len = len;
			fill(in, c->icd, len);
			nvme_sgl_set_incapsule(&c->sqe, 0, len);
		} else {
			c->mem = region(h, len, &c->mem_len);
			fill(in, c->mem, c->mem_len);
			nvme_sgl_set_keyed(&c->sqe, (uintptr_t)c->mem, len, key, false);
		}
		break;
	}
}

static void send_capsule(struct host *h, unsigned slot, struct capsule *c)
{
	if (!h->q[slot])
		return;
	/* -EAGAIN (queue full), -EINVAL (too much data), -ECONNRESET: the host's errors. */
	int rc = nvmf_loop_raw_send(h->q[slot], &c->sqe, c->icd_len ? c->icd : NULL, c->icd_len,
				    c->mem, c->mem_len);
	if (trace)
		fprintf(stderr,
			"slot %u: opcode 0x%02x fctype 0x%02x cid %u nsid 0x%x sgl 0x%02x "
			"icd %u mem %u: %d\n",
			slot, c->sqe.opcode, ((const uint8_t *)&c->sqe)[NVMF_SQE_FCTYPE_OFF],
			c->sqe.command_id, le32toh(c->sqe.nsid), c->sqe.dptr.keyed.type, c->icd_len,
			c->mem_len, rc);
}

static uint32_t nsid_of(struct fuzz_in *in, unsigned sel)
{
	static const uint32_t ids[] = { 1, 2, 4, 0, 0xffffffffu, 3, 5 };
	return sel < 7 ? ids[sel] : fi_u32(in);
}

/*
 * A command on @slot: @opcode (and for Fabrics @fctype), then from the input a mode byte
 * (bits 2:0 nsid, 5:3 SGL mode, 6 raw flags byte, 7 raw command id) and cdw10-15.
 */
static void command(struct host *h, struct fuzz_in *in, unsigned slot, uint8_t opcode)
{
	struct nvmf_loop_raw *q = slot_q(h, slot);
	if (!q)
		return;
	static struct capsule c;
	memset(&c, 0, sizeof(c));
	c.sqe.opcode = opcode;
	uint8_t mode = fi_u8(in);
	c.sqe.nsid = htole32(nsid_of(in, mode & 7));
	if (opcode == nvme_admin_fabrics)
		((uint8_t *)&c.sqe)[NVMF_SQE_FCTYPE_OFF] = fi_u8(in);
	fi_bytes(in, &c.sqe.cdw10, 24);
	c.sqe.command_id = mode & 0x80 ? fi_u16(in) : h->next_cid++;
	build_sgl(h, in, &c, (mode >> 3) & 7, nvmf_loop_raw_key(q), nvmf_loop_raw_inline(q));
	if (mode & 0x40)
		c.sqe.flags = fi_u8(in);
	send_capsule(h, slot, &c);
}

static void property(struct host *h, struct fuzz_in *in, unsigned slot, bool set)
{
	static const uint32_t offs[] = {
		NVMF_PROP_CAP,   NVMF_PROP_VS, NVMF_PROP_CC, NVMF_PROP_CSTS,
		0x20 /* NSSR */, 0x04,         0x18,         0x24
	};
	if (!slot_q(h, slot))
		return;
	static struct capsule c;
	memset(&c, 0, sizeof(c));
	c.sqe.opcode = nvme_admin_fabrics;
	uint8_t *p = (uint8_t *)&c.sqe;
	p[NVMF_SQE_FCTYPE_OFF] = set ? nvme_fabrics_type_property_set :
				       nvme_fabrics_type_property_get;
	uint8_t sel = fi_u8(in);
	p[NVMF_PROP_ATTRIB] = sel & 0x80 ? fi_u8(in) : (sel >> 6) & 1;
	uint32_t off = sel & 0x20 ? fi_u32(in) : offs[sel & 7];
	uint64_t val = set ? fi_u64(in) : 0;
	off = htole32(off);
	val = htole64(val);
	memcpy(p + NVMF_PROP_OFFSET, &off, 4);
	memcpy(p + NVMF_PROP_VALUE, &val, 8);
	c.sqe.command_id = h->next_cid++;
	nvme_sgl_set_keyed(&c.sqe, 0, 0, 0, false);
	send_capsule(h, slot, &c);
}

/* CC values worth reaching: enable, shutdown (normal, abrupt), disable, wrong sizes. */
static void enable(struct host *h, struct fuzz_in *in)
{
	static const uint32_t ccs[] = {
		1u | 6u << 16 | 4u << 20,            /* EN, IOSQES 6, IOCQES 4 */
		1u | 6u << 16 | 4u << 20 | 1u << 14, /* + SHN normal */
		1u | 6u << 16 | 4u << 20 | 2u << 14, /* + SHN abrupt */
		0,                                   /* disable: controller reset */
		1u,                                  /* EN with IOSQES/IOCQES 0 */
		1u | 6u << 16 | 4u << 20 | 1u << 4,  /* CSS 001b */
		1u | 6u << 16 | 4u << 20 | 7u << 7,  /* MPS 7 */
		1u | 6u << 16 | 4u << 20 | 1u << 11, /* AMS 001b */
	};
	if (!slot_q(h, 0))
		return;
	static struct capsule c;
	memset(&c, 0, sizeof(c));
	c.sqe.opcode = nvme_admin_fabrics;
	uint8_t *p = (uint8_t *)&c.sqe;
	p[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_property_set;
	uint32_t off = htole32(NVMF_PROP_CC), val = htole32(ccs[fi_u8(in) % 8]);
	memcpy(p + NVMF_PROP_OFFSET, &off, 4);
	memcpy(p + NVMF_PROP_VALUE, &val, 4);
	c.sqe.command_id = h->next_cid++;
	nvme_sgl_set_keyed(&c.sqe, 0, 0, 0, false);
	send_capsule(h, 0, &c);
}

/* Fabrics Connect on @slot: fields chosen from useful values or raw, the Connect data
 * through a keyed SGL (or any SGL mode). @well_formed: the values that succeed. */
static void fabrics_connect(struct host *h, struct fuzz_in *in, unsigned slot, bool well_formed)
{
	struct nvmf_loop_raw *q = slot_q(h, slot);
	if (!q)
		return;
	static struct capsule c;
	memset(&c, 0, sizeof(c));
	uint8_t *p = (uint8_t *)&c.sqe;
	c.sqe.opcode = nvme_admin_fabrics;
	p[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	uint8_t sel = well_formed ? 0 : fi_u8(in);
	uint8_t sel2 = well_formed ? 0 : fi_u8(in);
	uint16_t qid = sel & 1 ? fi_u16(in) : h->qid[slot];
	uint16_t sqsize = sel & 2 ? fi_u16(in) : (slot ? 15 : 31);
	uint32_t kato = sel & 4 ? fi_u32(in) : 0;
	uint16_t recfmt = sel & 8 ? fi_u16(in) : 0;
	p[NVMF_CONNECT_CATTR] = sel & 16 ? fi_u8(in) : 0;
	memcpy(p + NVMF_CONNECT_RECFMT, &(uint16_t){ htole16(recfmt) }, 2);
	memcpy(p + NVMF_CONNECT_QID, &(uint16_t){ htole16(qid) }, 2);
	memcpy(p + NVMF_CONNECT_SQSIZE, &(uint16_t){ htole16(sqsize) }, 2);
	memcpy(p + NVMF_CONNECT_KATO, &(uint32_t){ htole32(kato) }, 4);
	c.sqe.command_id = sel & 32 ? fi_u16(in) : h->next_cid++;
	if (slot == 0)
		h->connect_cid = c.sqe.command_id;

	struct nvmf_connect_data d;
	memset(&d, 0, sizeof(d));
	for (int i = 0; i < 16; i++)
		d.hostid[i] = (uint8_t)(0xa0 + i);
	if (sel & 64)
		fi_bytes(in, d.hostid, 16);
	uint16_t cntlid = qid ? h->cntlid : 0xffff;
	switch (sel2 & 3) {
	case 1:
		cntlid = 0xffff;
		break;
	case 2:
		cntlid = fi_u16(in);
		break;
	case 3:
		cntlid = h->cntlid ^ 1;
		break;
	default:
		break;
	}
	d.cntlid = htole16(cntlid);
	static const char *const subs[] = { FX_SUBNQN, ANY_NQN, NVMF_DISC_NQN };
	static const char *const hosts[] = { FX_HOSTNQN, FX_OTHER_HOSTNQN, "" };
	unsigned s = (sel2 >> 2) & 3, hn = (sel2 >> 4) & 3;
	if (s < 3)
		strcpy(d.subsysnqn, subs[s]);
	else
		fi_bytes(in, d.subsysnqn, sizeof(d.subsysnqn)); /* maybe unterminated */
	if (hn < 3)
		strcpy(d.hostnqn, hosts[hn]);
	else
		fi_bytes(in, d.hostnqn, sizeof(d.hostnqn));
	if (sel2 & 0x40)
		fi_bytes(in, d.rsvd4, 16); /* reserved bytes the target must ignore */
	if (sel2 & 0x80) {
		/* Any SGL: the Connect data may not arrive at all. */
		uint8_t mode = fi_u8(in);
		build_sgl(h, in, &c, mode & 7, nvmf_loop_raw_key(q), nvmf_loop_raw_inline(q));
		if (c.mem && c.mem_len)
			memcpy(c.mem, &d, c.mem_len < sizeof(d) ? c.mem_len : sizeof(d));
		/* In the capsule, the data goes where the descriptor's offset says. */
		uint64_t off = le64toh(c.sqe.dptr.addr);
		if (c.icd_len && off < c.icd_len)
			memcpy(c.icd + off, &d,
			       c.icd_len - off < sizeof(d) ? c.icd_len - off : sizeof(d));
	} else {
		c.mem = region(h, sizeof(d), &c.mem_len);
		memcpy(c.mem, &d, sizeof(d));
		nvme_sgl_set_keyed(&c.sqe, (uintptr_t)c.mem, sizeof(d), nvmf_loop_raw_key(q),
				   false);
	}
	send_capsule(h, slot, &c);
}

static void quick(struct host *h, struct fuzz_in *in)
{
	open_slot(h, 0, 0, 32);
	fabrics_connect(h, in, 0, true);
	run(h);
	enable(h, &(struct fuzz_in){ NULL, 0 }); /* table entry 0: EN */
	run(h);
	open_slot(h, 1, 1, 32);
	fabrics_connect(h, in, 1, true);
}

static void step(struct host *h, struct fuzz_in *in)
{
	uint8_t op = fi_u8(in);
	unsigned slot;
	switch ((op & 0x0f) % NR_STEPS) {
	case STEP_OPEN: {
		uint8_t sel = fi_u8(in);
		slot = sel % NQ;
		uint16_t qid = sel & 0x80 ? fi_u16(in) : (uint16_t)slot;
		uint16_t size = (uint16_t)(sel & 0x40 ? fi_u16(in) % 300 : 32);
		open_slot(h, slot, qid, size);
		break;
	}
	case STEP_CONNECT:
		fabrics_connect(h, in, fi_u8(in) % NQ, false);
		break;
	case STEP_PROP_GET:
	case STEP_PROP_SET:
		slot = fi_u8(in) % NQ;
		property(h, in, slot, (op & 0x0f) == STEP_PROP_SET);
		break;
	case STEP_ENABLE:
		enable(h, in);
		break;
	case STEP_ADMIN:
		command(h, in, 0, fi_u8(in));
		break;
	case STEP_IO:
		slot = 1 + fi_u8(in) % (NQ - 1);
		command(h, in, slot, fi_u8(in));
		break;
	case STEP_FABRICS:
		command(h, in, fi_u8(in) % NQ, nvme_admin_fabrics);
		break;
	case STEP_CLOCK:
		/* And the keep-alive check the target's 100 ms timer makes. */
		h->f.now += (uint64_t)fi_u16(in) * 8;
		nvmf_tgt_check_keep_alive(&h->f.tgt);
		break;
	case STEP_DISCONNECT:
		close_slot(h, fi_u8(in) % NQ);
		break;
	case STEP_DRIVE:
		break;
	case STEP_BREAK:
		nvmf_loop_break(&h->f.tgt);
		break;
	case STEP_QUICK:
		quick(h, in);
		break;
	default:
		slot = fi_u8(in) % NQ;
		command(h, in, slot, fi_u8(in));
		break;
	}
	if (!(op & 0x80))
		run(h);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *t = getenv("FUZZ_TRACE");
	trace = t && *t == '1';
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct host h;
	struct fuzz_in in = { data, size };
	if (boot(&h, fi_u8(&in)))
		abort();
	for (unsigned i = 0; i < MAX_STEPS && !fi_done(&in); i++)
		step(&h, &in);
	run(&h);
	for (unsigned i = 0; i < NQ; i++)
		close_slot(&h, i);
	/* Every queue the host dropped is released: none is stuck in the target. */
	if (nvmf_tgt_live_queues(&h.f.tgt)) {
		fprintf(stderr, "fuzz_capsule: %u queue(s) not released\n",
			nvmf_tgt_live_queues(&h.f.tgt));
		abort();
	}
	fx_teardown(&h.f);
	memset(arena, 0, h.arena_used); /* the next input starts from zeroes too */
	return 0;
}
