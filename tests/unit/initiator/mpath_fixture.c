/* The multipath tests' target, handle and verifying I/O stream (mpath_fixture.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "initiator/internal.h"
#include "tests/unit/initiator/mpath_fixture.h"
#include "tests/unit/suites.h"

void mpf_target(struct mpf *f, unsigned nports, const struct loop_host_params *lp,
		const struct ana_wrap_id *id)
{
	memset(f, 0, sizeof(*f));
	struct loop_host_params p = { 0 };
	if (lp)
		p = *lp;
	p.n_ports = nports;
	f->lh = loop_host_new(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->lh);
	const struct nvmf_host_transport *t = ana_wrap_new(f->lh, id);
	for (unsigned i = 0; i < nports && i < AW_MAX_PATHS; i++) {
		f->paths[i] = loop_host_path_opts(f->lh, LH_SUBNQN, i);
		f->paths[i].transport = t;
		f->paths[i].nr_io_queues = 2;
	}
}

int mpf_connect(struct mpf *f, unsigned npaths, const struct nvmf_mpath_opts *o)
{
	struct nvmf_mpath_opts d = { .refresh_ms = MPF_REFRESH_MS,
				     .no_path_timeout_ms = MPF_TIMEOUT_MS };
	int rc = nvmf_mpath_connect(f->paths, npaths, o ? o : &d, &f->mp);
	if (rc)
		fprintf(stderr, "mpath connect: %s: %s\n", nvmf_strerror(rc), nvmf_last_errmsg());
	return rc;
}

void mpf_teardown(struct mpf *f)
{
	if (f->mp)
		nvmf_mpath_disconnect(f->mp);
	f->mp = NULL;
	loop_host_free(f->lh);
	f->lh = NULL;
}

bool mpf_live(struct nvmf_mpath *mp, unsigned p)
{
	struct nvmf_mpath_path_info info;
	return !nvmf_mpath_path_info(mp, p, &info) && info.live;
}

unsigned long mpf_ios(struct nvmf_mpath *mp, unsigned p)
{
	struct nvmf_mpath_path_info info;
	return nvmf_mpath_path_info(mp, p, &info) ? 0 : info.ios;
}

bool mpf_wait_live(struct nvmf_mpath *mp, struct nvmf_mpath_queue *q, unsigned p, bool live, int ms)
{
	uint64_t end = nvmf_mono_ms() + (uint64_t)ms;
	while (mpf_live(mp, p) != live) {
		if (nvmf_mono_ms() >= end)
			return false;
		if (q)
			nvmf_mpath_wait(q, 2);
		else
			usleep(2000);
	}
	return true;
}

/* ---- the stream ---- */

static void fill(uint8_t *b, size_t n, unsigned slot, uint32_t gen)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 13 + slot * 31 + gen * 7 + (i >> 8));
}

static void slot_done(void *arg, int status, const struct nvme_cqe *cqe);

static void slot_next(struct mpf_slot *s)
{
	struct mpf_stream *st = s->st;
	uint64_t slba = st->base + (uint64_t)s->idx * MPF_SLOT_BLOCKS;
	int rc;
	if (s->reading) {
		memset(s->rbuf, 0, sizeof(s->rbuf));
		rc = nvmf_mpath_submit_read(st->q, 1, slba, MPF_SLOT_BLOCKS, s->rbuf, slot_done, s);
	} else {
		if (st->stop) {
			s->busy = false;
			return;
		}
		s->gen++;
		fill(s->wbuf, sizeof(s->wbuf), s->idx, s->gen);
		rc = nvmf_mpath_submit_write(st->q, 1, slba, MPF_SLOT_BLOCKS, s->wbuf, slot_done,
					     s);
	}
	s->busy = rc == 0;
	if (rc) {
		st->errors++;
		if (!st->first_error)
			st->first_error = rc;
	}
}

static void slot_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct mpf_slot *s = arg;
	struct mpf_stream *st = s->st;
	if (!status && s->reading && memcmp(s->rbuf, s->wbuf, sizeof(s->rbuf)))
		status = EBADMSG;
	if (status) {
		st->errors++;
		if (!st->first_error) {
			st->first_error = status;
			fprintf(stderr, "stream: slot %u %s: %s\n", s->idx,
				s->reading ? "read" : "write",
				status == EBADMSG ? "data differ" : nvmf_strerror(status));
		}
	} else if (s->reading) {
		st->reads++;
	} else {
		st->writes++;
	}
	s->reading = !s->reading;
	slot_next(s);
}

void mpf_stream_start(struct mpf_stream *st, struct nvmf_mpath_queue *q, uint64_t base)
{
	memset(st, 0, sizeof(*st));
	st->q = q;
	st->base = base;
	for (unsigned i = 0; i < MPF_SLOTS; i++) {
		st->slot[i].st = st;
		st->slot[i].idx = i;
		slot_next(&st->slot[i]);
	}
}

void mpf_stream_run(struct mpf_stream *st, int ms)
{
	uint64_t end = nvmf_mono_ms() + (uint64_t)ms;
	while (nvmf_mono_ms() < end)
		nvmf_mpath_wait(st->q, 5);
}

bool mpf_stream_run_until(struct mpf_stream *st, bool (*cond)(void *arg), void *arg, int ms)
{
	uint64_t end = nvmf_mono_ms() + (uint64_t)ms;
	while (!cond(arg)) {
		if (nvmf_mono_ms() >= end)
			return false;
		mpf_stream_run(st, 5);
	}
	return true;
}

bool mpf_wait(bool (*cond)(void *arg), void *arg, int ms)
{
	uint64_t end = nvmf_mono_ms() + (uint64_t)ms;
	while (!cond(arg)) {
		if (nvmf_mono_ms() >= end)
			return false;
		usleep(2000);
	}
	return true;
}

bool mpf_stream_drain(struct mpf_stream *st, int ms)
{
	st->stop = true;
	uint64_t end = nvmf_mono_ms() + (uint64_t)ms;
	while (nvmf_mpath_outstanding(st->q) && nvmf_mono_ms() < end)
		nvmf_mpath_wait(st->q, 5);
	return nvmf_mpath_outstanding(st->q) == 0;
}

unsigned long mpf_stream_ops(const struct mpf_stream *st)
{
	return st->reads + st->writes;
}
