/* The single-controller tests' target and controller, and a command's completion record
 * (loop_fixture.h). */
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

void lpf_target(struct lpf *f, const struct loop_host_params *p)
{
	f->ctrl = NULL;
	f->lh = loop_host_new(p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->lh);
}

void lpf_teardown(struct lpf *f)
{
	if (f->ctrl)
		nvmf_disconnect(f->ctrl);
	f->ctrl = NULL;
	loop_host_free(f->lh);
	f->lh = NULL;
}

void lpf_done_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct lpf_done *d = arg;
	d->calls++;
	d->status = status;
	d->had_cqe = cqe != NULL;
}

bool lpf_wait_done(struct nvmf_queue *q, const struct lpf_done *d)
{
	for (unsigned i = 0; i < 1000 && !d->calls; i++)
		nvmf_queue_wait(q, 10);
	return d->calls > 0;
}
