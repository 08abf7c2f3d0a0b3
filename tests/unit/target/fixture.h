/* The target under test, whole: libnvmf's queue code (initiator/internal.h) as the host,
 * the product loop transport, the core and the backends, in driven mode (no thread of
 * the target's own: the fixture runs it, so every test is deterministic). Built through
 * the real config model and nvmf_tgt_init, with a fake clock.
 *
 * Submit and poll do not run the target here (nvmf_loop_set_auto_drive false): a
 * synchronous command (fx_cmd) waits for its answer, which drives the target; an
 * asynchronous one (fx_start) runs the target until it has nothing left to do, and
 * fx_done only looks at what the host received. So a test can stop between "the target
 * parked it" and "the target finished it". */
#ifndef NVMF_TESTS_UNIT_TARGET_FIXTURE_H
#define NVMF_TESTS_UNIT_TARGET_FIXTURE_H
#include <stdio.h>
#include "target/core.h"
#include "loop/loop.h"
#include "nvme/fabrics.h"

#define FX_SUBNQN        "nqn.2026-11.io.nvmf-rdma:test1"
#define FX_HOSTNQN       "nqn.2026-11.io.nvmf-rdma:host1"
#define FX_OTHER_HOSTNQN "nqn.2026-11.io.nvmf-rdma:intruder"
#define FX_CMD_DATA      4096 /* bytes an asynchronous command carries at most */

struct fx;
struct nvmf_queue;

/* One host queue (admin or I/O). The transport connection is made by its first Connect,
 * with that Connect's qid. */
struct fxq {
	struct fx *f;
	struct nvmf_queue *q; /* libnvmf's */
	bool open;            /* transport connected */
	char subnqn[NVMF_CFG_NQN_MAX];
	struct fxq *next; /* in f->queues */
};

/* An asynchronous command (fx_start) and, once done, its completion. */
struct fx_cmd {
	struct fxq *q;
	bool done;
	int status; /* NVMe status (CQE status >> 1), or -errno */
	struct nvme_cqe cqe;
	uint16_t cid;
	uint32_t len;
	uint8_t data[FX_CMD_DATA]; /* sent for writes, filled for reads */
};

struct fx {
	struct nvmf_config cfg;
	struct nvmf_tgt tgt;
	struct nvmf_ctrl *host; /* libnvmf's controller state the queues refer to */
	struct fxq admin;
	uint16_t cntlid;
	uint64_t now;                 /* fake clock, ms */
	const char *traddr, *trsvcid; /* what the host dials */
	struct fxq *queues;
	unsigned admin_downs;        /* admin queues the target tore down */
	uint8_t connect_cattr;       /* CATTR of the Connects fx_connect* send (0 unless a test
				   * sets it: NVMF_CONNECT_CATTR_SQFLOW_DISABLE) */
	uint32_t down_cc, down_csts; /* their controller's CC and CSTS just before */
	/* How passthru subsystems open their drive (set before fx_boot; NULL: the real
	 * nvmf_drive_open): tests give tests/unit/support/fake-drive.h's. */
	struct nvmf_drive *(*drive_open)(const char *path, char *err, size_t errlen);
};

/* Configs built in code, as the loader builds them (nvmf_config_*_defaults first; the
 * target-wide ones with the first subsystem or port of a zeroed config). Each appends to
 * @c and returns what it added; they abort when out of memory. */
/* fx_cfg_subsys - subsystem @nqn with qid_max @qid_max; any host when @hostnqn is NULL,
 * else only @hostnqn, which joins @c's hosts[] (an allowed host has its entry). */
struct nvmf_subsys_config *fx_cfg_subsys(struct nvmf_config *c, const char *nqn,
					 const char *hostnqn, uint16_t qid_max);
/* fx_cfg_ns - enabled namespace @nsid of @kind, @bytes (a multiple of @block_size). */
struct nvmf_ns_config *fx_cfg_ns(struct nvmf_subsys_config *s, uint32_t nsid,
				 enum nvmf_backend_kind kind, uint64_t bytes, uint32_t block_size);
/* fx_cfg_loop_port - loop port @portid listening on @traddr:@trsvcid of @family
 * (AF_INET, AF_INET6), in-capsule 8 KiB, queues of 128 entries, exposing nothing yet. */
struct nvmf_port_config *fx_cfg_loop_port(struct nvmf_config *c, uint16_t portid, int family,
					  const char *traddr, const char *trsvcid);
/* fx_cfg_expose - @p exposes subsystem @nqn. */
void fx_cfg_expose(struct nvmf_port_config *p, const char *nqn);
/* fx_cfg_ana_group - @p defines ANA group @grpid in @state (NVME_ANA_STATE_*, 0: the
 * kernel's default), as a port's "ana_groups" entry. */
void fx_cfg_ana_group(struct nvmf_port_config *p, uint32_t grpid, uint8_t state);
/* fx_cfg_gateway - @g as the loader fills an nvmf_gateway object: gateway gw-a of group
 * g1 (/etc/ceph/ceph.conf, client.admin, pool rbd), a lease of @lease_s seconds, ANA
 * group 2 preferred on gw-a and, with @two_groups, group 3 preferred on gw-b. */
void fx_cfg_gateway(struct nvmf_gateway_config *g, uint32_t lease_s, bool two_groups);

/* fx_setup - target with FX_SUBNQN (host FX_HOSTNQN allowed) holding namespace 1
 * (RAM, 1 MiB, 512 B blocks) and namespace 2 (RAM, 1 MiB, 4 KiB blocks), exposed on
 * loop port 1 (0.0.0.0:4420, in-capsule 8 KiB, queues of 128). Returns 0 or -1. */
int fx_setup(struct fx *f);
/* fx_boot - the same from the caller's f->cfg (zero f first, fill f->cfg with the
 * nvmf_config_*_defaults and trtype "loop"); the host dials @traddr:@trsvcid. */
int fx_boot(struct fx *f, const char *traddr, const char *trsvcid);
/* fx_teardown - disconnect every open queue, shut the target down, free everything. */
void fx_teardown(struct fx *f);

/* fx_queue_init - a new host queue of @f (not connected). */
void fx_queue_init(struct fx *f, struct fxq *q);
/*
 * fx_connect - Fabrics Connect on @q: admin when @qid is 0 (with @cntlid 0xffff), else
 * an I/O queue of controller @cntlid; @sqsize 0's based; host ID a0 a1 .. af. Returns the
 * status (0, NVMe status, -errno); on success *@cntlid_out (may be NULL) gets the
 * controller ID. @cqe (may be NULL) gets the completion.
 */
int fx_connect(struct fxq *q, uint16_t qid, uint16_t sqsize, const char *subnqn,
	       const char *hostnqn, uint16_t cntlid, uint32_t kato_ms, uint16_t *cntlid_out,
	       struct nvme_cqe *cqe);
/* fx_connect_host - the same as host ID @hostid (16 bytes; NULL: a0 a1 .. af), for a
 * second host (another ID) or a second controller of one host (the same ID). */
int fx_connect_host(struct fxq *q, uint16_t qid, uint16_t sqsize, const char *subnqn,
		    const char *hostnqn, const uint8_t *hostid, uint16_t cntlid, uint32_t kato_ms,
		    uint16_t *cntlid_out, struct nvme_cqe *cqe);
/* fx_enable - Property Set CC.EN=1 (IOSQES 6, IOCQES 4), then CSTS.RDY must be 1. */
int fx_enable(struct fxq *admin);
/* fx_connect_admin - admin Connect as FX_HOSTNQN to FX_SUBNQN (KATO 5000 ms), CC.EN. */
int fx_connect_admin(struct fx *f);
/* fx_disconnect - the host drops @q (its outstanding commands fail with -ECONNABORTED). */
void fx_disconnect(struct fxq *q);

/*
 * fx_cmd - run @c on @q and wait for its answer in @cqe (may be NULL). @data: @len bytes
 * (the SGL length; NULL: a scratch buffer), sent for writes (opcode bit 0, Fabrics
 * fctype bit 0), filled for reads. The command keeps c->command_id when that id is free
 * in the queue's table (admin: 0..511; else libnvmf numbers it). A queue not connected
 * yet is connected as an admin queue first. Returns the status without the phase bit,
 * or -errno.
 */
int fx_cmd(struct fxq *q, const struct nvme_sqe *c, void *data, uint32_t len, struct nvme_cqe *cqe);
/* fx_start - submit @c with @len bytes (@data for writes; NULL: zeroes) and run the
 * target until idle, without reaping the answer (command ids as fx_cmd). 0 or -errno. */
int fx_start(struct fxq *q, struct fx_cmd *h, const struct nvme_sqe *c, const void *data,
	     uint32_t len);
/* fx_submit - the same without running the target: the capsule waits in its queue's
 * inbox for whoever runs the groups (another thread may). 0 or -errno. */
int fx_submit(struct fxq *q, struct fx_cmd *h, const struct nvme_sqe *c, const void *data,
	      uint32_t len);
/* fx_done - reap what @h's queue received (the target does not run); true once @h
 * completed. */
bool fx_done(struct fx_cmd *h);
/* fx_is_req - @req is the target's request of the command @h. */
bool fx_is_req(const struct nvmf_req *req, const struct fx_cmd *h);

/*
 * fx_raw_exec - send @c as it is on the raw loop queue @q (loop/loop.h) with @icd_len
 * bytes of in-capsule data @icd and keyed memory @mem (@mem_len bytes), run the target
 * and reap the one CQE into @cqe (may be NULL). Returns its status (without the phase
 * bit), or -errno (the send failed, or no CQE came).
 */
int fx_raw_exec(struct fx *f, struct nvmf_loop_raw *q, const struct nvme_sqe *c, const void *icd,
		uint32_t icd_len, void *mem, uint32_t mem_len, struct nvme_cqe *cqe);
/* fx_connect_data - the Connect data of @hostnqn for @subnqn and controller @cntlid (host
 * ID a0 a1 .. af, as fx_connect sends it) into @d. */
void fx_connect_data(struct nvmf_connect_data *d, const char *subnqn, const char *hostnqn,
		     uint16_t cntlid);

/* fx_ctrl - the target's controller of the admin queue's Connect (NULL when gone). */
struct nvmf_tgt_ctrl *fx_ctrl(struct fx *f);
/* fx_io_stats - that controller's SMART I/O counters (nvmf_tgt_ctrl_io_stats). */
struct nvmf_io_stats fx_io_stats(struct fx *f);
/* fx_io - the I/O context of the main group, where every queue of these targets runs
 * (nvmf_target.threads 1). */
struct nvmf_io_ctx *fx_io(struct fx *f);
/* fx_admin_deleted - the target tore an admin queue's connection down (controller
 * deleted: keep-alive expiry, fatal status). */
bool fx_admin_deleted(const struct fx *f);
/* A backend whose every I/O waits in @io (the last one submitted; @submits counts them)
 * until the test completes it: io->done_bytes = io->len, io->done(io, 0). Put in place of
 * a namespace's bdev (ns->bdev) by the test; nvmf_bdev_close frees it and sets *@closed. */
#define FX_HELD_MAX 8
struct fx_held_bdev {
	struct nvmf_bdev b;
	struct nvmf_bdev_io *io; /* the latest submitted */
	unsigned submits;
	struct nvmf_bdev_io *held[FX_HELD_MAX]; /* submitted, not ended by fx_held_end */
	unsigned nheld;
	bool *closed;
};
/* fx_held_bdev_new - one of @size bytes in @block_size blocks; aborts when out of memory. */
struct fx_held_bdev *fx_held_bdev_new(uint32_t block_size, uint64_t size, bool *closed);
/* fx_held_find - the held I/O of @op at byte @offset, or NULL. */
struct nvmf_bdev_io *fx_held_find(struct fx_held_bdev *h, enum nvmf_bdev_op op, uint64_t offset);
/* fx_held_end - end held @io with success (a read's buffer filled with @fill), dropping it
 * from h->held. Does not run the target. */
void fx_held_end(struct fx_held_bdev *h, struct nvmf_bdev_io *io, uint8_t fill);

/* fx_rw_sqe - an I/O command @opcode (Read, Write, Compare, ...) of namespace @nsid:
 * SLBA @slba in CDW10-11, @nlb blocks (1's based) in CDW12, FUSE @fuse, command ID @cid;
 * the rest zero. */
struct nvme_sqe fx_rw_sqe(uint8_t opcode, uint8_t fuse, uint32_t nsid, uint64_t slba, uint32_t nlb,
			  uint16_t cid);

/* What the code under test writes to stderr (the target's log) between fx_stderr_begin
 * and fx_stderr_end: the first 4095 bytes in @text, NUL-terminated. */
struct fx_stderr {
	FILE *file;
	int saved;
	char text[4096];
};
void fx_stderr_begin(struct fx_stderr *c);
void fx_stderr_end(struct fx_stderr *c);

#endif
