/* SPDX-License-Identifier: MIT */
/*
 * Fault injection, for tests only: never linked into build/nvmf-target or libnvmf.
 *
 * Test binaries (build/unit-tests, build/tests/nvmf-target-fault) link the files of tests/fault
 * with the linker's --wrap for a few functions of the target (Makefile FAULT_WRAP):
 *
 *   nvmf_bdev_open      a namespace opened while a rule may apply to its nsid gets a
 *                       wrapping backend (fault-bdev.c): its submit decides per rule to
 *                       fail the I/O with an errno, refuse it with -EAGAIN (ring full),
 *                       or hand it to the real backend (ram, file, ...);
 *   nvmf_aio_init       the io_uring depth of poll groups (nvmf_fault_set_ring_depth);
 *   nvmf_aio_read/write/fsync/fallocate, pread/pwrite
 *                       the real backend's calls on the fd of a wrapped namespace: cut to
 *                       fewer bytes (short transfers the backend must continue) or refused
 *                       as if the io_uring had no free entry;
 *   io_uring_submit     the submission system call fails with an errno.
 *
 * Without rules every wrapper passes straight through. Rules are global (one table, a
 * mutex: poll-group threads may match at once); a backend opened while no rule names its
 * namespace is not wrapped at all.
 *
 * Spec text (the NVMF_FAULT environment variable of nvmf-target-fault, nvmf_fault_load):
 * clauses separated by ';', a clause is items separated by ',':
 *
 *   nsid=N             the namespace (any subsystem); default: every namespace
 *   op=OP              read, write, flush, write_zeroes, discard, any (default)
 *   lba=A[-B]          only I/O touching blocks A..B (inclusive); a flush has no LBA and
 *                      never matches a rule with a range
 *   every=N            only every Nth matching I/O (default 1: each)
 *   count=N            at most N times in all (default: no limit)
 *   and one action:
 *   fail=ERRNO         complete with -ERRNO (EIO, ENOSPC, EINVAL, ... or a number)
 *   busy               submit returns -EAGAIN: the core parks the command and retries
 *   short=BYTES        each read/write system call or io_uring entry of the namespace's
 *                      fd moves at most BYTES (0: nothing); a direct (O_DIRECT) fd gets
 *                      BYTES rounded down to whole blocks, at least one
 *   sqe_full           the namespace's io_uring entries are refused (-EAGAIN, as when the
 *                      ring is full); with "cont", only continuations of short transfers
 *   submit=ERRNO       io_uring_submit fails with -ERRNO (every ring; nsid, op and lba
 *                      do not apply)
 *   or the clause ring_depth=N: poll groups made from now on get io_urings of N entries.
 *
 * Example: "nsid=1,op=read,lba=2048-2303,fail=EIO;nsid=1,op=flush,fail=EIO;nsid=2,busy,every=3"
 *
 * Matching: rules are tried in the order they were added; each rule whose namespace, op
 * and range match counts the I/O, and the first rule whose every/count let it act decides.
 */
#ifndef NVMF_TESTS_FAULT_FAULT_H
#define NVMF_TESTS_FAULT_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "subsystem/backend.h"

#define NVMF_FAULT_MAX_RULES 32
#define NVMF_FAULT_ANY_OP    (-1)

enum nvmf_fault_action {
	NVMF_FAULT_FAIL,     /* complete the I/O with err, the real backend never sees it */
	NVMF_FAULT_BUSY,     /* submit returns -EAGAIN */
	NVMF_FAULT_SHORT,    /* system calls / io_uring entries move at most short_bytes */
	NVMF_FAULT_SQE_FULL, /* io_uring queue calls return -EAGAIN */
	NVMF_FAULT_SUBMIT,   /* io_uring_submit returns err */
};

struct nvmf_fault_rule {
	uint32_t nsid;                /* 0: every namespace */
	int op;                       /* enum nvmf_bdev_op, or NVMF_FAULT_ANY_OP */
	bool has_lba;                 /* only I/O touching [lba_first, lba_last] */
	uint64_t lba_first, lba_last; /* blocks of the namespace, inclusive */
	uint32_t every;               /* 0 or 1: each match */
	uint32_t count;               /* 0: no limit */
	enum nvmf_fault_action action;
	int err;              /* FAIL, SUBMIT: a negative errno */
	uint32_t short_bytes; /* SHORT */
	bool cont_only;       /* SQE_FULL: continuations of a short transfer only */
};

/* A rule matching every I/O of @nsid (0: any) with @op, acting @action: fill in the rest. */
struct nvmf_fault_rule nvmf_fault_rule(uint32_t nsid, int op, enum nvmf_fault_action action);

/* nvmf_fault_add - append @r to the table. Returns its id (for nvmf_fault_fired), or -1
 * when the table is full. */
int nvmf_fault_add(const struct nvmf_fault_rule *r);
/* nvmf_fault_fired - how often rule @id acted. */
uint64_t nvmf_fault_fired(int id);
/* nvmf_fault_reset - no rules, default ring depth. Wrapped backends stay wrapped (and
 * pass everything through). */
void nvmf_fault_reset(void);
/* nvmf_fault_set_ring_depth - io_uring entries of the rings initialised from now on
 * (a power of two); 0: what the caller asks for. */
void nvmf_fault_set_ring_depth(unsigned depth);

/*
 * nvmf_fault_parse - the rules of @spec (see above) into @rules (@max of them), their
 * number in *@n, a ring_depth clause in *@ring_depth (left alone when there is none).
 * Returns 0, or -1 with "clause N: ..." in @err.
 */
int nvmf_fault_parse(const char *spec, struct nvmf_fault_rule *rules, size_t max, size_t *n,
		     unsigned *ring_depth, char *err, size_t errlen);
/* nvmf_fault_load - parse @spec and add its rules (and ring depth). 0 or -1 with @err. */
int nvmf_fault_load(const char *spec, char *err, size_t errlen);
/* nvmf_fault_describe - @r as spec text (one clause) into @buf. Returns @buf. */
char *nvmf_fault_describe(const struct nvmf_fault_rule *r, char *buf, size_t len);

/*
 * nvmf_fault_attach - wrap the open backend @b of namespace @nsid (0 when no rule should
 * single it out), so that the rules apply to it from now on. Idempotent. nvmf_bdev_close
 * unwraps and frees the wrapper. Returns 0 or -ENOMEM.
 */
int nvmf_fault_attach(struct nvmf_bdev *b, uint32_t nsid);
/* nvmf_fault_detach - give @b its real ops back and free the wrapper (for a test that
 * changes b->ops itself afterwards). */
void nvmf_fault_detach(struct nvmf_bdev *b);
/* nvmf_fault_attached - @b has the wrapper. */
bool nvmf_fault_attached(const struct nvmf_bdev *b);

/* ---- between the parts of tests/fault (not for tests) ---- */

/* What one I/O or call is, for matching. */
struct nvmf_fault_io {
	uint32_t nsid;
	int op;       /* enum nvmf_bdev_op */
	bool has_lba; /* false: a flush (no LBA) */
	uint64_t lba_first, lba_last;
	bool cont; /* a continuation of a short transfer */
};

/* fault_fire - the first rule with @action among @actions (a bit per action) that acts
 * on @io, copied into *@out. Counts the I/O in every rule it matches up to that one.
 * Returns false when none acts. */
bool fault_fire(unsigned actions, const struct nvmf_fault_io *io, struct nvmf_fault_rule *out);
/* fault_wants - some rule (not SUBMIT) may act on namespace @nsid. */
bool fault_wants(uint32_t nsid);
/* fault_ring_depth - the depth set by nvmf_fault_set_ring_depth (0: none). */
unsigned fault_ring_depth(void);

/* fault_fd_lookup - the namespace, block size and O_DIRECT flag of a wrapped backend
 * whose fd is @fd. Returns false when no wrapped backend has it. */
bool fault_fd_lookup(int fd, uint32_t *nsid, uint32_t *block_size, bool *direct);

#define FAULT_BIT(a) (1u << (a))

#endif
