/* What libnvmf's multipath tests share: a threaded loop_host target with several ports
 * (one subsystem, lh0, exposed on each), the ANA-playing wrapper (ana_wrap.h) as the
 * host transport, a multipath handle over one path per port, and a verifying I/O stream:
 * slots that each write a pattern to their own blocks, read them back and compare, again
 * and again, so that whatever path a command took, a wrong byte is seen. */
#ifndef NVMF_TESTS_UNIT_INITIATOR_MPATH_FIXTURE_H
#define NVMF_TESTS_UNIT_INITIATOR_MPATH_FIXTURE_H
#include <stdbool.h>
#include <stdint.h>
#include "tests/unit/initiator/ana_wrap.h"
#include "tests/unit/loop/host/loop_host.h"

struct mpf {
	struct loop_host *lh;
	struct nvmf_mpath *mp;
	struct nvmf_ctrl_opts paths[AW_MAX_PATHS];
};

/* Defaults the tests use: the watcher every 20 ms, 10 s for a command without a path. */
#define MPF_REFRESH_MS 20
#define MPF_TIMEOUT_MS 10000

/* mpf_target - the target (@nports ports, threaded unless @lp says otherwise) and the
 * wrapper with @id; f->paths[i] dial port i + 1 through the wrapper. NULL @lp, @id: the
 * defaults. Fatal assertion when it cannot be built. */
void mpf_target(struct mpf *f, unsigned nports, const struct loop_host_params *lp,
		const struct ana_wrap_id *id);
/* mpf_connect - nvmf_mpath_connect over f->paths[0..@npaths-1] with @o (NULL: refresh
 * MPF_REFRESH_MS, timeout MPF_TIMEOUT_MS). Returns its rc. */
int mpf_connect(struct mpf *f, unsigned npaths, const struct nvmf_mpath_opts *o);
/* mpf_teardown - disconnect the handle (if any), free the target. */
void mpf_teardown(struct mpf *f);

/* mpf_live - whether path @p of @mp is live; mpf_wait_live - wait up to @ms for it to be
 * @live (polling @q meanwhile when not NULL). */
bool mpf_live(struct nvmf_mpath *mp, unsigned p);
bool mpf_wait_live(struct nvmf_mpath *mp, struct nvmf_mpath_queue *q, unsigned p, bool live,
		   int ms);
/* mpf_ios - commands completed through path @p. */
unsigned long mpf_ios(struct nvmf_mpath *mp, unsigned p);

#define MPF_SLOTS       8
#define MPF_SLOT_BLOCKS 8 /* 4 KiB of namespace 1 (512 B blocks) per slot */

struct mpf_stream;

struct mpf_slot {
	struct mpf_stream *st;
	unsigned idx;
	bool reading, busy;
	uint32_t gen;
	uint8_t wbuf[MPF_SLOT_BLOCKS * 512], rbuf[MPF_SLOT_BLOCKS * 512];
};

struct mpf_stream {
	struct nvmf_mpath_queue *q;
	uint64_t base; /* first block of the stream's slots */
	struct mpf_slot slot[MPF_SLOTS];
	bool stop;                   /* no new write once set */
	unsigned long writes, reads; /* completed and good */
	unsigned long errors;        /* a failed command or a read that did not match */
	int first_error;             /* its status (EBADMSG: a mismatch) */
};

/* mpf_stream_start - every slot writes its first pattern on @q, the slots' blocks from
 * @base on (MPF_SLOTS * MPF_SLOT_BLOCKS of them). */
void mpf_stream_start(struct mpf_stream *st, struct nvmf_mpath_queue *q, uint64_t base);
/* mpf_stream_run - poll @st's queue for @ms milliseconds (the slots go on). */
void mpf_stream_run(struct mpf_stream *st, int ms);
/* mpf_stream_run_until - run @st until @cond(@arg) holds (checked every 5 ms) or @ms
 * passed. True when it held. */
bool mpf_stream_run_until(struct mpf_stream *st, bool (*cond)(void *arg), void *arg, int ms);
/* mpf_wait - wait (sleeping) until @cond(@arg) holds or @ms passed. True when it held. */
bool mpf_wait(bool (*cond)(void *arg), void *arg, int ms);
/* mpf_stream_drain - stop and poll until nothing is outstanding (up to @ms). True when
 * drained. */
bool mpf_stream_drain(struct mpf_stream *st, int ms);
/* mpf_stream_ops - reads and writes done so far. */
unsigned long mpf_stream_ops(const struct mpf_stream *st);

#endif
