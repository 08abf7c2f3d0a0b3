/* What libnvmf's single-controller tests share: a loop_host target
 * (tests/unit/loop/host/loop_host.h) and the one controller a test connects to it, set up
 * and torn down the same way; each test file keeps its own struct lpf (its named fixture)
 * and builds its options and connects as it needs. And what any of the initiator's tests
 * (the multipath ones too) may use: a command's completion record, its callback, and a
 * bounded wait for it on an nvmf_queue. */
#ifndef NVMF_TESTS_UNIT_INITIATOR_LOOP_FIXTURE_H
#define NVMF_TESTS_UNIT_INITIATOR_LOOP_FIXTURE_H
#include <stdbool.h>
#include "initiator/nvmf.h"
#include "tests/unit/loop/host/loop_host.h"

/* A target and the controller a test connected to it (NULL until it did; a test that
 * disconnects it itself sets it back to NULL). */
struct lpf {
	struct loop_host *lh;
	struct nvmf_ctrl *ctrl;
};

/* lpf_target - f->lh becomes a target per @p (NULL: loop_host's defaults), f->ctrl NULL.
 * Fatal assertion when the target cannot be built. */
void lpf_target(struct lpf *f, const struct loop_host_params *p);
/* lpf_teardown - disconnect f->ctrl (if any), free the target; both NULL after. */
void lpf_teardown(struct lpf *f);

/* A command's completions: how many callbacks, the last status, whether it had a CQE. */
struct lpf_done {
	int calls, status;
	bool had_cqe;
};

/* lpf_done_cb - the command callback that records into the struct lpf_done at @arg. */
void lpf_done_cb(void *arg, int status, const struct nvme_cqe *cqe);
/* lpf_wait_done - nvmf_queue_wait on @q, 10 ms at a time, until @d's callback ran (a
 * bound of 10 s, not a measurement). True when it ran. */
bool lpf_wait_done(struct nvmf_queue *q, const struct lpf_done *d);

#endif
