/* The core's poll groups (target/poll-group.c): messages (order, reposting, between
 * threads), nvmf_tgt_for_each_pg, timers on the target's clock, the adaptive sleep woken
 * by a message, and the backend retry list a pass resubmits. Groups are made by hand on
 * a bare struct nvmf_tgt (no transports, no model). */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "target/core.h"
#include "tests/unit/suites.h"

#define NPG 3

struct pgt {
	struct nvmf_tgt tgt;
	struct nvmf_pg pg[NPG];
	struct nvmf_pg *pgs[NPG];
	uint64_t now; /* fake clock, ms */
};

static struct pgt T;

static uint64_t fake_now(const struct nvmf_clock *clock)
{
	(void)clock;
	return __atomic_load_n(&T.now, __ATOMIC_RELAXED);
}

/* @n groups, none started; idle_poll_us 0 so a started group sleeps at once when idle. */
static void setup(unsigned n)
{
	memset(&T, 0, sizeof(T));
	T.now = 1000;
	T.tgt.clock.now_ms = fake_now;
	for (unsigned i = 0; i < n; i++) {
		char err[256];
		CU_ASSERT_EQUAL_FATAL(nvmf_pg_init(&T.pg[i], &T.tgt, i, 64, 0, err, sizeof(err)),
				      0);
		T.pgs[i] = &T.pg[i];
	}
	T.tgt.pgs = T.pgs;
	T.tgt.npgs = n;
}

static void teardown(void)
{
	for (unsigned i = 0; i < T.tgt.npgs; i++)
		nvmf_pg_stop(&T.pg[i]);
	for (unsigned i = 0; i < T.tgt.npgs; i++)
		nvmf_pg_fini(&T.pg[i]);
}

static void start(unsigned i)
{
	char err[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_pg_start(&T.pg[i], -1, err, sizeof(err)), 0);
}

/* Wait (up to 5 s) for *@flag to become true. */
static bool wait_for(const bool *flag)
{
	for (int i = 0; i < 5000 && !__atomic_load_n(flag, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

/* ---- messages ---- */

struct order {
	int seen[16];
	int n;
};

struct tagged {
	struct nvmf_msg msg;
	struct order *o;
	int tag;
};

static void record(void *arg)
{
	struct tagged *t = arg;
	t->o->seen[t->o->n++] = t->tag;
}

static void messages_run_in_the_order_they_were_posted_to_their_group(void)
{
	setup(1);
	struct order o = { .n = 0 };
	struct tagged t[6];
	for (int i = 0; i < 6; i++) {
		t[i] = (struct tagged){ .msg = { .fn = record, .arg = &t[i] }, .o = &o, .tag = i };
		if (i % 2) { /* interleave posted and allocated messages */
			CU_ASSERT_EQUAL(nvmf_pg_send(&T.pg[0], record, &t[i]), 0);
		} else {
			nvmf_pg_post(&T.pg[0], &t[i].msg);
		}
	}
	CU_ASSERT_EQUAL(nvmf_pg_poll(&T.pg[0]), 6);
	CU_ASSERT_EQUAL_FATAL(o.n, 6);
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(o.seen[i], i);
	CU_ASSERT_EQUAL(T.pg[0].msgs, 6);
	CU_ASSERT_EQUAL(nvmf_pg_poll(&T.pg[0]), 0);
	teardown();
}

struct repost {
	struct nvmf_msg msg;
	struct nvmf_pg *pg;
	int runs, left;
};

static void repost_self(void *arg)
{
	struct repost *r = arg;
	r->runs++;
	if (--r->left > 0)
		nvmf_pg_post(r->pg, &r->msg);
}

static void a_message_that_reposts_itself_runs_again_on_the_next_pass(void)
{
	setup(1);
	struct repost r = { .pg = &T.pg[0], .left = 3 };
	r.msg = (struct nvmf_msg){ .fn = repost_self, .arg = &r };
	nvmf_pg_post(&T.pg[0], &r.msg);
	for (int pass = 1; pass <= 3; pass++) {
		CU_ASSERT_EQUAL(nvmf_pg_poll(&T.pg[0]), 1); /* once per pass, not in a loop */
		CU_ASSERT_EQUAL(r.runs, pass);
	}
	CU_ASSERT_EQUAL(nvmf_pg_poll(&T.pg[0]), 0);
	CU_ASSERT_EQUAL(r.runs, 3);
	teardown();
}

/* A ball sent back and forth between groups 0 and 1, each on a thread of its own; every
 * hop checks it runs on the thread of the group it was sent to. */
struct ball {
	int hops, max;
	bool wrong_thread, done;
};

static void hop(void *arg);

static void hop_to(struct ball *b, unsigned to)
{
	/* Even hops land on group 0, odd ones on group 1. */
	if (nvmf_pg_send(&T.pg[to], hop, b))
		b->wrong_thread = true;
}

static void hop(void *arg)
{
	struct ball *b = arg;
	unsigned here = (unsigned)(b->hops % 2);
	if (!pthread_equal(pthread_self(), T.pg[here].thread))
		b->wrong_thread = true;
	if (++b->hops == b->max) {
		__atomic_store_n(&b->done, true, __ATOMIC_RELEASE);
		return;
	}
	hop_to(b, here ^ 1u);
}

static void messages_between_two_groups_on_threads_reach_the_receivers_thread(void)
{
	setup(2);
	start(0);
	start(1);
	struct ball b = { .max = 1000 };
	hop_to(&b, 0);
	CU_ASSERT_TRUE(wait_for(&b.done));
	CU_ASSERT_EQUAL(b.hops, 1000);
	CU_ASSERT_FALSE(b.wrong_thread);
	teardown();
}

/* ---- for each group ---- */

struct visits {
	pthread_t thread[NPG];
	bool visited[NPG];
	int count; /* atomic */
	int count_at_done;
	pthread_t done_thread;
	bool done;
};

static void visit(struct nvmf_pg *pg, void *arg)
{
	struct visits *v = arg;
	v->thread[pg->index] = pthread_self();
	v->visited[pg->index] = true;
	__atomic_fetch_add(&v->count, 1, __ATOMIC_ACQ_REL);
}

static void visits_done(void *arg)
{
	struct visits *v = arg;
	v->count_at_done = __atomic_load_n(&v->count, __ATOMIC_ACQUIRE);
	v->done_thread = pthread_self();
	__atomic_store_n(&v->done, true, __ATOMIC_RELEASE);
}

static void for_each_pg_visits_every_group_on_its_thread_then_runs_done_on_the_origin(void)
{
	setup(NPG);
	start(1);
	start(2); /* group 0, the origin, is run by this thread */
	struct visits v;
	memset(&v, 0, sizeof(v));
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_for_each_pg(&T.tgt, &T.pg[0], visit, &v, visits_done), 0);
	for (int i = 0; i < 5000 && !__atomic_load_n(&v.done, __ATOMIC_ACQUIRE); i++) {
		nvmf_pg_poll(&T.pg[0]);
		usleep(1000);
	}
	CU_ASSERT_TRUE_FATAL(v.done);
	CU_ASSERT_EQUAL(v.count_at_done, NPG);
	for (unsigned i = 0; i < NPG; i++)
		CU_ASSERT_TRUE(v.visited[i]);
	CU_ASSERT_TRUE(pthread_equal(v.thread[0], pthread_self()));
	CU_ASSERT_TRUE(pthread_equal(v.thread[1], T.pg[1].thread));
	CU_ASSERT_TRUE(pthread_equal(v.thread[2], T.pg[2].thread));
	CU_ASSERT_TRUE(pthread_equal(v.done_thread, pthread_self()));
	teardown();
}

/* With no group to visit, done still runs, once, on the origin (and nothing leaks). */
static void for_each_pg_without_groups_runs_done_on_the_origin(void)
{
	setup(1);
	T.tgt.npgs = 0; /* pg[0] stays the origin, but is not one of the target's */
	struct visits v;
	memset(&v, 0, sizeof(v));
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_for_each_pg(&T.tgt, &T.pg[0], visit, &v, visits_done), 0);
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_TRUE(v.done);
	CU_ASSERT_EQUAL(v.count_at_done, 0);
	CU_ASSERT_TRUE(pthread_equal(v.done_thread, pthread_self()));
	T.tgt.npgs = 1;
	teardown();
}

/* ---- timers ---- */

static void tick(void *arg)
{
	(*(int *)arg)++;
}

static void timers_fire_once_per_period_of_the_target_clock(void)
{
	setup(1);
	int ticks = 0;
	struct nvmf_timer t;
	nvmf_pg_timer_start(&T.pg[0], &t, 100, tick, &ticks);
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(ticks, 0); /* first after one period */
	T.now += 99;
	CU_ASSERT_EQUAL(nvmf_pg_poll(&T.pg[0]), 0);
	CU_ASSERT_EQUAL(ticks, 0);
	T.now += 1;
	/* A tick is not work: it must not keep an idle group busy-polling. */
	CU_ASSERT_EQUAL(nvmf_pg_poll(&T.pg[0]), 0);
	CU_ASSERT_EQUAL(ticks, 1);
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(ticks, 1); /* not again in the same period */
	T.now += 350;              /* late: it runs once, not three times */
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(ticks, 2);
	T.now += 100;
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(ticks, 3);
	nvmf_pg_timer_stop(&T.pg[0], &t);
	T.now += 1000;
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(ticks, 3);
	teardown();
}

/* The pass looks for due timers only once the earliest one is due: a timer started
 * later with a shorter period, and the ones left after another stops, still fire on
 * time. */
static void timers_of_different_periods_each_fire_on_time(void)
{
	setup(1);
	int slow = 0, fast = 0, gone = 0;
	struct nvmf_timer ts, tf, tg;
	nvmf_pg_timer_start(&T.pg[0], &ts, 1000, tick, &slow);
	nvmf_pg_timer_start(&T.pg[0], &tg, 50, tick, &gone);
	nvmf_pg_timer_stop(&T.pg[0], &tg);
	nvmf_pg_poll(&T.pg[0]);
	T.now += 10;
	nvmf_pg_poll(&T.pg[0]);
	nvmf_pg_timer_start(&T.pg[0], &tf, 30, tick, &fast); /* due at 40 */
	T.now += 29;
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(fast, 0);
	T.now += 1;
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(fast, 1);
	T.now += 30;
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(fast, 2);
	nvmf_pg_timer_stop(&T.pg[0], &tf);
	T.now += 929; /* 1999: one before the slow one is due */
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(slow, 0);
	T.now += 1;
	nvmf_pg_poll(&T.pg[0]);
	CU_ASSERT_EQUAL(slow, 1);
	CU_ASSERT_EQUAL(fast, 2);
	CU_ASSERT_EQUAL(gone, 0);
	nvmf_pg_timer_stop(&T.pg[0], &ts);
	teardown();
}

/* ---- sleeping and waking ---- */

struct stamp {
	uint64_t at_us;
	bool ran;
};

static void stamp_now(void *arg)
{
	struct stamp *s = arg;
	s->at_us = nvmf_mono_us();
	__atomic_store_n(&s->ran, true, __ATOMIC_RELEASE);
}

static void a_sleeping_group_is_woken_by_a_message(void)
{
	setup(1);
	start(0);
	/* Idle with idle_poll_us 0: after one empty pass it sleeps (at most 100 ms per
	 * sleep, no timers). */
	usleep(30 * 1000);
	struct stamp s = { 0, false };
	uint64_t sent = nvmf_mono_us();
	CU_ASSERT_EQUAL(nvmf_pg_send(&T.pg[0], stamp_now, &s), 0);
	CU_ASSERT_TRUE_FATAL(wait_for(&s.ran));
	/* Woken by the message, not by the end of its sleep (100 ms). */
	CU_ASSERT(s.at_us - sent < 80 * 1000);
	nvmf_pg_stop(&T.pg[0]);
	CU_ASSERT(T.pg[0].sleeps > 0);
	teardown();
}

/* ---- the backend retry list ---- */

struct refusing_bdev {
	struct nvmf_bdev b;
	bool full;
	int submits, done;
};

static int refusing_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	(void)aio;
	struct refusing_bdev *r = (struct refusing_bdev *)b;
	if (r->full)
		return -EAGAIN;
	r->submits++;
	io->done(io, 0);
	return 0;
}

static void io_done(struct nvmf_bdev_io *io, int status)
{
	const struct nvmf_req *req = io->ctx;
	struct refusing_bdev *r = (struct refusing_bdev *)req->ns->bdev;
	if (!status)
		r->done++;
}

static void a_pass_resubmits_what_a_full_ring_refused_in_order(void)
{
	setup(1);
	static const struct nvmf_bdev_ops ops = { .name = "refusing", .submit = refusing_submit };
	struct refusing_bdev rb = {
		.b = { .ops = &ops, .fd = -1, .block_size = 512, .size = 1u << 20 }, .full = true
	};
	struct nvmf_ns ns = { .nsid = 1, .bdev = &rb.b, .lba_shift = 9, .nlb = 2048 };
	struct nvmf_sq sq;
	memset(&sq, 0, sizeof(sq));
	sq.pg = &T.pg[0];
	struct nvmf_req req[2];
	memset(req, 0, sizeof(req));
	for (int i = 0; i < 2; i++) {
		req[i].sq = &sq;
		req[i].ns = &ns;
		CU_ASSERT_FALSE(nvmf_req_bio_submit(&req[i], NVMF_BDEV_FLUSH, 0, 0, NULL,
						    io_done)); /* parked */
	}
	struct nvmf_io_ctx *io = &T.pg[0].io;
	CU_ASSERT_PTR_EQUAL(io->retry_head, &req[0]);
	CU_ASSERT_PTR_EQUAL(io->retry_tail, &req[1]);
	/* Still refused: nothing moved, and that is no work (the group may sleep). */
	CU_ASSERT_EQUAL(nvmf_pg_poll(&T.pg[0]), 0);
	CU_ASSERT_PTR_EQUAL(io->retry_head, &req[0]);
	CU_ASSERT_PTR_EQUAL(req[0].retry_next, &req[1]);
	rb.full = false;
	CU_ASSERT(nvmf_pg_poll(&T.pg[0]) > 0);
	CU_ASSERT_EQUAL(rb.submits, 2);
	CU_ASSERT_EQUAL(rb.done, 2);
	CU_ASSERT_PTR_NULL(io->retry_head);
	CU_ASSERT_PTR_NULL(io->retry_tail);
	teardown();
}

const struct unit_test target_poll_group_tests[] = {
	{ "messages_run_in_the_order_they_were_posted_to_their_group",
	  messages_run_in_the_order_they_were_posted_to_their_group },
	{ "a_message_that_reposts_itself_runs_again_on_the_next_pass",
	  a_message_that_reposts_itself_runs_again_on_the_next_pass },
	{ "messages_between_two_groups_on_threads_reach_the_receivers_thread",
	  messages_between_two_groups_on_threads_reach_the_receivers_thread },
	{ "for_each_pg_visits_every_group_on_its_thread_then_runs_done_on_the_origin",
	  for_each_pg_visits_every_group_on_its_thread_then_runs_done_on_the_origin },
	{ "for_each_pg_without_groups_runs_done_on_the_origin",
	  for_each_pg_without_groups_runs_done_on_the_origin },
	{ "timers_fire_once_per_period_of_the_target_clock",
	  timers_fire_once_per_period_of_the_target_clock },
	{ "timers_of_different_periods_each_fire_on_time",
	  timers_of_different_periods_each_fire_on_time },
	{ "a_sleeping_group_is_woken_by_a_message", a_sleeping_group_is_woken_by_a_message },
	{ "a_pass_resubmits_what_a_full_ring_refused_in_order",
	  a_pass_resubmits_what_a_full_ring_refused_in_order },
	{ NULL, NULL },
};
