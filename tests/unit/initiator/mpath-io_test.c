/* libnvmf's multipath queues (initiator/mpath-io.c): submission on the chosen path, one
 * callback per command, failover on path errors (ANA statuses, other path-related
 * statuses without DNR, a lost connection) and nothing else, commands waiting for a path
 * and giving up after the bound - and failover under a verifying I/O stream while the
 * path in use goes inaccessible and back, its port goes away and comes back, and every
 * path is unusable for a while. Our target (threaded), two or three loop ports, the
 * ANA-playing wrapper (mpath_fixture.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"
#include "nvme/status.h"
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/initiator/mpath_fixture.h"
#include "tests/unit/suites.h"

static struct mpf F;

/* Poll @q until @d ran (up to @ms). */
static bool wait_done(struct nvmf_mpath_queue *q, struct lpf_done *d, int ms)
{
	uint64_t end = nvmf_mono_ms() + (uint64_t)ms;
	while (!d->calls && nvmf_mono_ms() < end)
		nvmf_mpath_wait(q, 5);
	return d->calls > 0;
}

static void setup(unsigned nports, const struct nvmf_mpath_opts *o)
{
	mpf_target(&F, nports, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, nports, o), 0);
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 29 + seed);
}

static void commands_go_to_the_preferred_path_and_complete_once(void)
{
	setup(2, NULL);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 1);
	enum { N = 32, NLB = 8, BYTES = NLB * 512 };
	uint8_t *w = malloc(N * BYTES), *r = calloc(N, BYTES);
	struct lpf_done d[N];
	memset(d, 0, sizeof(d));
	fill(w, N * BYTES, 3);
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(nvmf_mpath_submit_write(q, 1, (uint64_t)i * NLB, NLB,
							      w + i * BYTES, lpf_done_cb, &d[i]),
				      0);
	CU_ASSERT_EQUAL(nvmf_mpath_outstanding(q), N);
	while (nvmf_mpath_outstanding(q))
		CU_ASSERT_FATAL(nvmf_mpath_wait(q, 100) >= 0);
	for (int i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(d[i].calls, 1);
		CU_ASSERT_EQUAL(d[i].status, 0);
		CU_ASSERT_TRUE(d[i].had_cqe);
	}
	memset(d, 0, sizeof(d));
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(nvmf_mpath_submit_read(q, 1, (uint64_t)i * NLB, NLB,
							     r + i * BYTES, lpf_done_cb, &d[i]),
				      0);
	while (nvmf_mpath_outstanding(q))
		CU_ASSERT_FATAL(nvmf_mpath_wait(q, 100) >= 0);
	CU_ASSERT_EQUAL(memcmp(w, r, N * BYTES), 0);
	CU_ASSERT_EQUAL(mpf_ios(F.mp, 0), 2 * N);
	CU_ASSERT_EQUAL(mpf_ios(F.mp, 1), 0);
	CU_ASSERT_EQUAL(ana_wrap_io_passed(1), 0);
	/* The other commands, and the blocking helpers on queue 0. */
	struct lpf_done z = { 0 }, f = { 0 }, c = { 0 }, t = { 0 };
	CU_ASSERT_EQUAL(nvmf_mpath_submit_write_zeroes(q, 1, 0, NLB, lpf_done_cb, &z), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_flush(q, 1, lpf_done_cb, &f), 0);
	CU_ASSERT_TRUE(wait_done(q, &z, 5000) && wait_done(q, &f, 5000));
	CU_ASSERT_EQUAL(z.status, 0);
	CU_ASSERT_EQUAL(f.status, 0);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_compare(q, 1, NLB, NLB, w + BYTES, lpf_done_cb, &c), 0);
	CU_ASSERT_TRUE(wait_done(q, &c, 5000));
	CU_ASSERT_EQUAL(c.status, 0);
	struct nvme_dsm_range range = { .nlb = htole32(NLB), .slba = htole64(0) };
	CU_ASSERT_EQUAL(nvmf_mpath_submit_dsm(q, 1, &range, 1, NVME_DSMGMT_AD, lpf_done_cb, &t), 0);
	CU_ASSERT_TRUE(wait_done(q, &t, 5000));
	CU_ASSERT_EQUAL(t.status, 0);
	CU_ASSERT_EQUAL(nvmf_mpath_write(F.mp, 2, 3, 1, w), 0);
	memset(r, 0, 4096);
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 2, 3, 1, r), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, 4096), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_flush(F.mp, 2), 0);
	free(w);
	free(r);
	mpf_teardown(&F);
}

/* Verify, Copy and fused Compare and Write go out on the best path and fail over like
 * the others: path 0 turns inaccessible first, and each still succeeds on path 1. */
static void verify_copy_and_compare_and_write_fail_over_with_their_outcomes(void)
{
	setup(2, NULL);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	enum { NLB = 4, BYTES = NLB * 512 };
	uint8_t w[BYTES], cmp[BYTES], nw[BYTES], r[BYTES];
	fill(w, BYTES, 5);
	fill(nw, BYTES, 77);
	CU_ASSERT_EQUAL_FATAL(nvmf_mpath_write(F.mp, 1, 100, NLB, w), 0);
	ana_wrap_set_state(0, 1, NVME_ANA_STATE_INACCESSIBLE);
	struct lpf_done v = { 0 }, c = { 0 }, x = { 0 }, m = { 0 };
	CU_ASSERT_EQUAL(nvmf_mpath_submit_verify(q, 1, 100, NLB, lpf_done_cb, &v), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &v, 5000));
	CU_ASSERT_EQUAL(v.status, 0);
	struct nvme_copy_range range = { .slba = htole64(100), .nlb = htole16(NLB - 1) };
	CU_ASSERT_EQUAL(nvmf_mpath_submit_copy(q, 1, 200, &range, 1, lpf_done_cb, &c), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &c, 5000));
	CU_ASSERT_EQUAL(c.status, 0);
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 1, 200, NLB, r), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, BYTES), 0);
	/* Compare and Write: a stale compare buffer writes nothing, the current one writes. */
	memset(cmp, 0xee, BYTES);
	CU_ASSERT_EQUAL(
		nvmf_mpath_submit_compare_and_write(q, 1, 100, NLB, cmp, nw, lpf_done_cb, &m), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &m, 5000));
	CU_ASSERT_EQUAL(m.calls, 1);
	CU_ASSERT_EQUAL(m.status & NVME_STATUS_CODE_MASK,
			NVME_SCT_MEDIA << NVME_SCT_SHIFT | NVME_SC_COMPARE_FAILED);
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 1, 100, NLB, r), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, BYTES), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_compare_and_write(q, 1, 100, NLB, w, nw, lpf_done_cb, &x),
			0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &x, 5000));
	CU_ASSERT_EQUAL(x.status, 0);
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 1, 100, NLB, r), 0);
	CU_ASSERT_EQUAL(memcmp(r, nw, BYTES), 0);
	CU_ASSERT(ana_wrap_io_refused(0) >= 1); /* path 0 was tried, then left */
	/* Bad arguments are the caller's, before anything is sent. */
	CU_ASSERT_EQUAL(nvmf_mpath_submit_verify(q, 1, 0, 0, lpf_done_cb, &v), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_copy(q, 1, 0, &range, 0, lpf_done_cb, &c), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_compare_and_write(q, 1, 0, 1, NULL, nw, lpf_done_cb, &m),
			-EINVAL);
	mpf_teardown(&F);
}

static void submission_beyond_the_depth_is_eagain(void)
{
	mpf_target(&F, 2, NULL, NULL);
	F.paths[0].queue_size = 8;
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_queue_depth(F.mp), 7);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	uint8_t buf[512];
	struct lpf_done d[8];
	memset(d, 0, sizeof(d));
	for (int i = 0; i < 7; i++)
		CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 0, 1, buf, lpf_done_cb, &d[i]), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 0, 1, buf, lpf_done_cb, &d[7]), -EAGAIN);
	while (nvmf_mpath_outstanding(q))
		nvmf_mpath_wait(q, 100);
	CU_ASSERT_EQUAL(d[6].calls, 1);
	CU_ASSERT_EQUAL(d[7].calls, 0);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 0, 1, NULL, lpf_done_cb, &d[7]), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 0, 1, buf, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(NULL, 1, 0, 1, buf, lpf_done_cb, &d[7]), -EINVAL);
	mpf_teardown(&F);
}

#define PATH_STATUS(sc) (NVME_SCT_PATH << NVME_SCT_SHIFT | (sc))

static void ana_inaccessible_status_fails_over_and_the_caller_sees_success(void)
{
	setup(2, NULL);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	/* The target changed its mind; the handle has not read the log since. */
	ana_wrap_set_state(0, 1, NVME_ANA_STATE_INACCESSIBLE);
	uint8_t w[4096], r[4096];
	fill(w, sizeof(w), 11);
	struct lpf_done d = { 0 };
	unsigned reads = ana_wrap_log_reads();
	CU_ASSERT_EQUAL(nvmf_mpath_submit_write(q, 1, 64, 8, w, lpf_done_cb, &d), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &d, 5000));
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(ana_wrap_io_refused(0), 1);
	CU_ASSERT_EQUAL(ana_wrap_io_passed(1), 1);
	struct nvmf_mpath_path_info a;
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_EQUAL(a.path_errors, 1);
	CU_ASSERT_TRUE(a.live); /* an ANA status does not take the path down */
	uint8_t st = 0;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_ana_state(F.mp, 1, 0, &st, NULL), 0);
	CU_ASSERT_EQUAL(st, NVME_ANA_STATE_INACCESSIBLE);
	/* The log is read again soon (the watcher was woken) and agrees. */
	CU_ASSERT_EQUAL(nvmf_mpath_refresh(F.mp, 5000), 0);
	CU_ASSERT(ana_wrap_log_reads() > reads);
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 1, 64, 8, r), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	CU_ASSERT_EQUAL(ana_wrap_io_refused(0), 1); /* not tried there again */
	mpf_teardown(&F);
}

static void path_status_without_dnr_fails_over_and_anything_else_is_the_callers(void)
{
	setup(2, NULL);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	uint8_t buf[512];
	struct lpf_done d = { 0 };
	/* Controller Pathing Error (60h): another path; the namespace state stays. */
	ana_wrap_fail_next_io(0, PATH_STATUS(NVME_SC_CTRL_PATH_ERROR));
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 0, 1, buf, lpf_done_cb, &d), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &d, 5000));
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(ana_wrap_io_passed(1), 1);
	uint8_t st = 0;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_ana_state(F.mp, 1, 0, &st, NULL), 0);
	CU_ASSERT_EQUAL(st, NVME_ANA_STATE_OPTIMIZED);
	/* The same with DNR: the caller's. */
	memset(&d, 0, sizeof(d));
	ana_wrap_fail_next_io(0, PATH_STATUS(NVME_SC_CTRL_PATH_ERROR) | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 0, 1, buf, lpf_done_cb, &d), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &d, 5000));
	CU_ASSERT_EQUAL(d.status, PATH_STATUS(NVME_SC_CTRL_PATH_ERROR) | NVME_SC_DNR);
	CU_ASSERT_TRUE(d.had_cqe);
	CU_ASSERT_EQUAL(ana_wrap_io_passed(1), 1);
	/* A status that is not about the path: the caller's, from the path that said it. */
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 1u << 30, 1, buf, lpf_done_cb, &d), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &d, 5000));
	CU_ASSERT_EQUAL(d.status, NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(ana_wrap_io_passed(1), 1);
	struct nvmf_mpath_path_info a;
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_EQUAL(a.path_errors, 1);
	mpf_teardown(&F);
}

static void every_path_refusing_waits_then_fails_with_no_path_naming_each_state(void)
{
	setup(2, &(struct nvmf_mpath_opts){ .refresh_ms = 1000, .no_path_timeout_ms = 300 });
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	ana_wrap_set_state(0, 1, NVME_ANA_STATE_INACCESSIBLE);
	ana_wrap_set_state(1, 1, NVME_ANA_STATE_CHANGE);
	uint8_t buf[512];
	struct lpf_done d = { 0 };
	uint64_t t0 = nvmf_mono_ms();
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 0, 1, buf, lpf_done_cb, &d), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &d, 5000));
	CU_ASSERT(nvmf_mono_ms() - t0 >= 300);
	CU_ASSERT_EQUAL(d.calls, 1);
	/* Refused by path 0, then by path 1 unless the watcher (woken by the first refusal)
	 * read path 1's state first; then waited: no usable path, the last status it got
	 * named in the message. */
	CU_ASSERT_EQUAL(ana_wrap_io_refused(0), 1);
	CU_ASSERT(ana_wrap_io_refused(1) <= 1);
	CU_ASSERT_EQUAL(d.status, NVMF_ERR_NO_PATH);
	CU_ASSERT_STRING_EQUAL(nvmf_strerror(d.status), "no usable path");
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_mpath_errmsg(F.mp),
				      ana_wrap_io_refused(1) ? "; last error: ANA_TRANSITION" :
							       "; last error: ANA_INACCESSIBLE"));
	CU_ASSERT_FALSE(d.had_cqe);
	/* Known unusable before it was sent: it never reached a path. */
	CU_ASSERT_EQUAL(nvmf_mpath_refresh(F.mp, 5000), 0);
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 0, 1, buf, lpf_done_cb, &d), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &d, 5000));
	CU_ASSERT_EQUAL(d.status, NVMF_ERR_NO_PATH);
	/* Each path and the ANA state it saw, not a bare "No route to host". */
	CU_ASSERT_STRING_EQUAL(nvmf_mpath_errmsg(F.mp),
			       "namespace 1: no usable path for 300 ms: path 0 (127.0.0.1:4420) "
			       "inaccessible, path 1 (127.0.0.2:4420) change");
	mpf_teardown(&F);
}

static void disconnect_ends_commands_waiting_for_a_path_with_econnaborted(void)
{
	setup(2, NULL);
	ana_wrap_set_state(0, 1, NVME_ANA_STATE_INACCESSIBLE);
	ana_wrap_set_state(1, 1, NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_EQUAL(nvmf_mpath_refresh(F.mp, 5000), 0);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	uint8_t buf[512];
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 0, 1, buf, lpf_done_cb, &d), 0);
	nvmf_mpath_wait(q, 20);
	CU_ASSERT_EQUAL(d.calls, 0);
	CU_ASSERT_EQUAL(nvmf_mpath_outstanding(q), 1);
	CU_ASSERT_EQUAL(nvmf_mpath_disconnect(F.mp), 0);
	F.mp = NULL;
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, -ECONNABORTED);
	mpf_teardown(&F);
}

/* Conditions the stream tests wait for (up to 5 s: the machine may be busy). */
struct expect {
	unsigned path;     /* the path namespace 1's commands go to, */
	unsigned long ios; /* having completed more than this there */
	unsigned long ops; /* or: the stream did more than this */
	struct mpf_stream *st;
};

static bool on_path(void *arg)
{
	struct expect *e = arg;
	unsigned p = 99;
	return !nvmf_mpath_ns_path(F.mp, 1, &p) && p == e->path && mpf_ios(F.mp, e->path) > e->ios;
}

static bool progressed(void *arg)
{
	struct expect *e = arg;
	return mpf_stream_ops(e->st) > e->ops;
}

static unsigned passed(void)
{
	return ana_wrap_io_passed(0) + ana_wrap_io_passed(1);
}

/* (a) The path in use goes inaccessible under a verifying stream, and back. */
static void stream_moves_off_an_inaccessible_path_and_back_with_data_intact(void)
{
	setup(2, NULL);
	struct mpf_stream st;
	mpf_stream_start(&st, nvmf_mpath_queue(F.mp, 0), 0);
	mpf_stream_run(&st, 100);
	unsigned long on0 = mpf_ios(F.mp, 0), on1 = mpf_ios(F.mp, 1);
	CU_ASSERT(on0 > 0);
	CU_ASSERT_EQUAL(on1, 0);
	for (int round = 0; round < 3; round++) {
		ana_wrap_set_state(0, 1, NVME_ANA_STATE_INACCESSIBLE);
		CU_ASSERT_TRUE(mpf_stream_run_until(
			&st, on_path, &(struct expect){ .path = 1, .ios = on1 }, 5000));
		on0 = mpf_ios(F.mp, 0);
		ana_wrap_set_state(0, 1, NVME_ANA_STATE_OPTIMIZED);
		CU_ASSERT_TRUE(mpf_stream_run_until(
			&st, on_path, &(struct expect){ .path = 0, .ios = on0 }, 5000));
		on1 = mpf_ios(F.mp, 1);
	}
	CU_ASSERT_TRUE(mpf_stream_drain(&st, 5000));
	CU_ASSERT_EQUAL(st.errors, 0);
	CU_ASSERT(st.reads > 6 * MPF_SLOTS);
	mpf_teardown(&F);
}

/* (b) The port of the path in use goes away, and comes back: the path reconnects. */
static void stream_survives_its_port_going_away_and_returns_when_it_reconnects(void)
{
	setup(2, NULL);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	struct mpf_stream st;
	mpf_stream_start(&st, q, 0);
	mpf_stream_run(&st, 100);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, q, 0, false, 5000));
	unsigned long on1 = mpf_ios(F.mp, 1), ops = mpf_stream_ops(&st);
	CU_ASSERT_TRUE(mpf_stream_run_until(&st, on_path, &(struct expect){ .path = 1, .ios = on1 },
					    5000));
	CU_ASSERT(mpf_stream_ops(&st) > ops);
	CU_ASSERT_FALSE(mpf_live(F.mp, 0)); /* nothing to reconnect to */
	struct nvmf_mpath_path_info a;
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_EQUAL(a.reconnects, 0);
	CU_ASSERT_NOT_EQUAL(a.last_error, 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, q, 0, true, 5000));
	unsigned long on0 = mpf_ios(F.mp, 0);
	CU_ASSERT_TRUE(mpf_stream_run_until(&st, on_path, &(struct expect){ .path = 0, .ios = on0 },
					    5000));
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_EQUAL(a.reconnects, 1);
	CU_ASSERT_TRUE(mpf_stream_drain(&st, 5000));
	CU_ASSERT_EQUAL(st.errors, 0);
	mpf_teardown(&F);
}

/* (c) Every path unusable for a while: the commands wait and finish when one is back. */
static void stream_waits_while_every_path_is_unusable_and_finishes_after(void)
{
	setup(2, NULL);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	struct mpf_stream st;
	mpf_stream_start(&st, q, 0);
	mpf_stream_run(&st, 50);
	/* ANA: both paths inaccessible. No command reaches the target meanwhile. */
	ana_wrap_set_state(0, 1, NVME_ANA_STATE_INACCESSIBLE);
	ana_wrap_set_state(1, 1, NVME_ANA_STATE_INACCESSIBLE);
	unsigned sent = passed();
	mpf_stream_run(&st, 300);
	CU_ASSERT_EQUAL(passed(), sent);
	CU_ASSERT_EQUAL(nvmf_mpath_outstanding(q), MPF_SLOTS);
	unsigned long ops = mpf_stream_ops(&st);
	ana_wrap_set_state(1, 1, NVME_ANA_STATE_NONOPTIMIZED);
	CU_ASSERT_TRUE(mpf_stream_run_until(&st, progressed,
					    &(struct expect){ .st = &st, .ops = ops }, 5000));
	/* Connections: both ports away, then the second back. */
	ana_wrap_set_state(0, 1, NVME_ANA_STATE_OPTIMIZED);
	mpf_stream_run(&st, 50);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 2), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, q, 0, false, 5000));
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, q, 1, false, 5000));
	sent = passed();
	mpf_stream_run(&st, 300);
	CU_ASSERT_EQUAL(passed(), sent);
	CU_ASSERT_EQUAL(nvmf_mpath_outstanding(q), MPF_SLOTS);
	ops = mpf_stream_ops(&st);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 2), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, q, 1, true, 5000));
	CU_ASSERT_TRUE(mpf_stream_run_until(&st, progressed,
					    &(struct expect){ .st = &st, .ops = ops }, 5000));
	CU_ASSERT_TRUE(mpf_stream_drain(&st, 5000));
	CU_ASSERT_EQUAL(st.errors, 0);
	mpf_teardown(&F);
}

/* (a) and (c) on our target's own ANA (no wrapper): the states nvmf-targetctl sets. */
static void stream_follows_our_targets_ana_states_with_data_intact(void)
{
	mpf_target(&F, 2, NULL, NULL);
	for (unsigned p = 0; p < 2; p++)
		F.paths[p].transport = loop_host_transport(F.lh);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	struct nvmf_mpath_path_info a;
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_TRUE(a.ana);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	struct mpf_stream st;
	mpf_stream_start(&st, q, 0);
	mpf_stream_run(&st, 50);
	unsigned long on1 = mpf_ios(F.mp, 1);
	CU_ASSERT_EQUAL(loop_host_ana_set(F.lh, 1, 1, NVME_ANA_STATE_INACCESSIBLE), 0);
	CU_ASSERT_TRUE(mpf_stream_run_until(&st, on_path, &(struct expect){ .path = 1, .ios = on1 },
					    5000));
	unsigned long on0 = mpf_ios(F.mp, 0);
	CU_ASSERT_EQUAL(loop_host_ana_set(F.lh, 1, 1, NVME_ANA_STATE_OPTIMIZED), 0);
	CU_ASSERT_TRUE(mpf_stream_run_until(&st, on_path, &(struct expect){ .path = 0, .ios = on0 },
					    5000));
	/* Every path unusable: the commands wait; one path non-optimized: they go on. */
	CU_ASSERT_EQUAL(loop_host_ana_set(F.lh, 1, 1, NVME_ANA_STATE_PERSISTENT_LOSS), 0);
	CU_ASSERT_EQUAL(loop_host_ana_set(F.lh, 2, 1, NVME_ANA_STATE_CHANGE), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_refresh(F.mp, 5000), 0);
	unsigned p = 9;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), NVMF_ERR_NO_PATH);
	CU_ASSERT_STRING_EQUAL(nvmf_mpath_errmsg(F.mp),
			       "namespace 1: no usable path: path 0 (127.0.0.1:4420) "
			       "persistent-loss, path 1 (127.0.0.2:4420) change");
	/* What the target executed before the change completes; then nothing does. */
	unsigned long ops = mpf_stream_ops(&st);
	for (int i = 0; i < 40; i++) {
		ops = mpf_stream_ops(&st);
		mpf_stream_run(&st, 50);
		if (mpf_stream_ops(&st) == ops)
			break;
	}
	mpf_stream_run(&st, 200);
	CU_ASSERT_EQUAL(mpf_stream_ops(&st), ops);
	CU_ASSERT_EQUAL(nvmf_mpath_outstanding(q), MPF_SLOTS);
	CU_ASSERT_EQUAL(loop_host_ana_set(F.lh, 2, 1, NVME_ANA_STATE_NONOPTIMIZED), 0);
	CU_ASSERT_TRUE(mpf_stream_run_until(&st, progressed,
					    &(struct expect){ .st = &st, .ops = ops }, 5000));
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), 0);
	CU_ASSERT_EQUAL(p, 1);
	CU_ASSERT_TRUE(mpf_stream_drain(&st, 5000));
	CU_ASSERT_EQUAL(st.errors, 0);
	mpf_teardown(&F);
}

static bool no_ctrls(void *arg)
{
	(void)arg;
	return loop_host_live_ctrls(F.lh) == 0;
}

static void commands_without_a_connected_path_fail_after_the_bound_with_no_path(void)
{
	/* A slow watcher: the command most likely finds the paths still live and meets the
	 * lost connections itself. */
	setup(2, &(struct nvmf_mpath_opts){ .refresh_ms = 1000, .no_path_timeout_ms = 300 });
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	uint8_t w[512] = { 1, 2, 3 };
	CU_ASSERT_EQUAL(nvmf_mpath_write(F.mp, 1, 5, 1, w), 0); /* namespace known */
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 2), 0);
	/* Every association gone on the target's side: the connections are lost. */
	CU_ASSERT_TRUE_FATAL(mpf_wait(no_ctrls, NULL, 5000));
	struct lpf_done d = { 0 };
	uint64_t t0 = nvmf_mono_ms();
	CU_ASSERT_EQUAL(nvmf_mpath_submit_write(q, 1, 5, 1, w, lpf_done_cb, &d), 0);
	CU_ASSERT_TRUE_FATAL(wait_done(q, &d, 5000));
	CU_ASSERT(nvmf_mono_ms() - t0 >= 300);
	/* No usable path within the bound (whether it met the lost connection first or the
	 * watcher had taken both paths down): NVMF_ERR_NO_PATH. */
	CU_ASSERT_EQUAL(d.status, NVMF_ERR_NO_PATH);
	/* The paths as the command last saw them: down once the watcher took them down. */
	static const char head[] =
		"namespace 1: no usable path for 300 ms: path 0 (127.0.0.1:4420) ";
	CU_ASSERT_EQUAL(strncmp(nvmf_mpath_errmsg(F.mp), head, strlen(head)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_mpath_errmsg(F.mp), ", path 1 (127.0.0.2:4420) "));
	CU_ASSERT_FALSE(d.had_cqe);
	/* Back: new commands go through. */
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, q, 0, true, 5000));
	uint8_t r[512];
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 1, 5, 1, r), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(r)), 0);
	mpf_teardown(&F);
}

const struct unit_test initiator_mpath_io_tests[] = {
	{ "commands_go_to_the_preferred_path_and_complete_once",
	  commands_go_to_the_preferred_path_and_complete_once },
	{ "verify_copy_and_compare_and_write_fail_over_with_their_outcomes",
	  verify_copy_and_compare_and_write_fail_over_with_their_outcomes },
	{ "submission_beyond_the_depth_is_eagain", submission_beyond_the_depth_is_eagain },
	{ "ana_inaccessible_status_fails_over_and_the_caller_sees_success",
	  ana_inaccessible_status_fails_over_and_the_caller_sees_success },
	{ "path_status_without_dnr_fails_over_and_anything_else_is_the_callers",
	  path_status_without_dnr_fails_over_and_anything_else_is_the_callers },
	{ "every_path_refusing_waits_then_fails_with_no_path_naming_each_state",
	  every_path_refusing_waits_then_fails_with_no_path_naming_each_state },
	{ "disconnect_ends_commands_waiting_for_a_path_with_econnaborted",
	  disconnect_ends_commands_waiting_for_a_path_with_econnaborted },
	{ "stream_moves_off_an_inaccessible_path_and_back_with_data_intact",
	  stream_moves_off_an_inaccessible_path_and_back_with_data_intact },
	{ "stream_survives_its_port_going_away_and_returns_when_it_reconnects",
	  stream_survives_its_port_going_away_and_returns_when_it_reconnects },
	{ "stream_waits_while_every_path_is_unusable_and_finishes_after",
	  stream_waits_while_every_path_is_unusable_and_finishes_after },
	{ "stream_follows_our_targets_ana_states_with_data_intact",
	  stream_follows_our_targets_ana_states_with_data_intact },
	{ "commands_without_a_connected_path_fail_after_the_bound_with_no_path",
	  commands_without_a_connected_path_fail_after_the_bound_with_no_path },
	{ NULL, NULL },
};
