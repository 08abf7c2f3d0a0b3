/* The loop transport's tests (tests/unit/loop/host/, tests/unit/loop/target/): our target
 * with its loop transport in the same process and libnvmf's public API as the host, the
 * loop hooks recording what the target side saw. */
#ifndef NVMF_TESTS_UNIT_LOOP_FIXTURE_H
#define NVMF_TESTS_UNIT_LOOP_FIXTURE_H
#include <stdbool.h>
#include <stdint.h>
#include "initiator/nvmf.h"
#include "loop/loop.h"
#include "target/core.h"

#define LT_NQN       "nqn.2026-11.io.nvmf-rdma:looptest"
#define LT_HOST      "nqn.2026-11.io.nvmf-rdma:loophost"
#define NS_BYTES     (4u << 20)
#define BAD_SGL_MARK 0x5a5a0001u /* cdw14 of a command whose SGL the hook spoils */
#define BAD_OFF_MARK 0x5a5a0002u

/* What the capsule hook saw, per transport-level qid (all written on target groups
 * before the command's CQE, read after it). */
struct seen {
	uint8_t sgl_type[8]; /* of the last capsule */
	uint32_t icd_len[8];
	unsigned pg_index[8]; /* the group serving the queue */
	unsigned capsules[8];
	unsigned downs_by_host;
};

struct env {
	struct nvmf_config cfg;
	struct nvmf_tgt tgt;
	struct nvmf_ctrl *ctrl;
	struct seen seen;
	char dir[32], path[64];
};

/*
 * env_setup - a target with subsystem LT_NQN: namespace 1 a file of 4 MiB with 512 B
 * blocks, opened O_DIRECT where the filesystem allows (when @file; else RAM), namespace 2
 * RAM (4 MiB, 512 B blocks); loop port 127.0.0.1:4420 (in-capsule 8 KiB, queues of 128).
 * nvmf_target.threads = @threads; @run_threads: the groups get threads of their own,
 * else driven mode. The capsule hook spoils the SGL of a command with cdw14 BAD_SGL_MARK
 * and the in-capsule offset of one with BAD_OFF_MARK.
 */
void env_setup(struct env *e, unsigned threads, bool run_threads, bool file);
/* env_opts - options to connect to @e's target as LT_HOST with @nr_io I/O queues of 64. */
struct nvmf_ctrl_opts env_opts(struct env *e, unsigned nr_io);
/* env_connect - e->ctrl connected with env_opts(@e, @nr_io). */
void env_connect(struct env *e, unsigned nr_io);
/* env_teardown - disconnect, shut the target down, free and remove what env_setup made. */
void env_teardown(struct env *e);
/* env_fill - @n bytes of a pattern that differs with @seed and along the buffer. */
void env_fill(uint8_t *p, size_t n, unsigned seed);

/* Callback counter: count_cb counts calls, and those with -ECONNABORTED. */
struct count_arg {
	int calls, aborted;
};

void count_cb(void *arg, int status, const struct nvme_cqe *cqe);

#endif
