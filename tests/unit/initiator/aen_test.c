/* libnvmf's asynchronous events (NVMe Base 2.0 section 5.2) against our target through
 * the loop transport: each event our target sends (namespace added, removed, resized;
 * ANA change; discovery log change; a reservation preempted) reaches the callback with
 * its log page decoded,
 * events the program did not ask for do not, the AERs posted are bounded by AERL and do
 * not leak or complete twice over nvmf_reconnect and nvmf_disconnect. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tests/unit/initiator/ana_wrap.h"
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

#define WAIT_MS  5000 /* an event's delivery, at most (it takes ~100 ms) */
#define MAX_SEEN 16

/* What the callback saw, copied (the event's memory is the library's). */
struct seen {
	enum nvmf_event_kind kind;
	int status;
	uint8_t type, info, lid;
	uint32_t nr_nsids, nsids[8];
	bool overflow;
	uint8_t ana_state1; /* state of ANA group 1 in the log, 0 when none */
	size_t nr_disc;
	uint16_t disc_portids[8];
	uint64_t resv_count;
	uint8_t resv_type;
	uint32_t resv_nsid;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct seen ev[MAX_SEEN];
	unsigned n;
	pthread_t thread;
} R = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static struct lpf F;

static void on_event(void *arg, const struct nvmf_event *ev)
{
	(void)arg;
	struct seen s;
	memset(&s, 0, sizeof(s));
	s.kind = ev->kind;
	s.status = ev->status;
	s.type = ev->type;
	s.info = ev->info;
	s.lid = ev->lid;
	s.nr_nsids = ev->nr_nsids;
	for (unsigned i = 0; i < ev->nr_nsids && i < 8; i++)
		s.nsids[i] = ev->nsids[i];
	s.overflow = ev->nsids_overflow;
	if (ev->ana)
		for (unsigned i = 0; i < ev->ana->nr_groups; i++)
			if (ev->ana->groups[i].grpid == 1)
				s.ana_state1 = ev->ana->groups[i].state;
	s.nr_disc = ev->nr_disc_entries;
	for (size_t i = 0; i < ev->nr_disc_entries && i < 8; i++)
		s.disc_portids[i] = ev->disc_entries[i].portid;
	s.resv_count = ev->resv_count;
	s.resv_type = ev->resv_type;
	s.resv_nsid = ev->resv_nsid;
	pthread_mutex_lock(&R.lock);
	R.thread = pthread_self();
	if (R.n < MAX_SEEN)
		R.ev[R.n] = s;
	R.n++;
	pthread_cond_broadcast(&R.cond);
	pthread_mutex_unlock(&R.lock);
}

static void reset_seen(void)
{
	pthread_mutex_lock(&R.lock);
	R.n = 0;
	memset(R.ev, 0, sizeof(R.ev));
	pthread_mutex_unlock(&R.lock);
}

static unsigned seen_count(void)
{
	pthread_mutex_lock(&R.lock);
	unsigned n = R.n;
	pthread_mutex_unlock(&R.lock);
	return n;
}

/* Wait until @n events were seen (up to @ms); returns the count then. */
static unsigned wait_seen(unsigned n, unsigned ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&R.lock);
	while (R.n < n && pthread_cond_timedwait(&R.cond, &R.lock, &ts) == 0)
		;
	unsigned got = R.n;
	pthread_mutex_unlock(&R.lock);
	return got;
}

static struct seen seen_at(unsigned i)
{
	pthread_mutex_lock(&R.lock);
	struct seen s = R.ev[i];
	pthread_mutex_unlock(&R.lock);
	return s;
}

/* Wait until @want AERs are outstanding again (posted after an event's work). */
static unsigned wait_aers(unsigned want)
{
	for (unsigned i = 0; i < WAIT_MS / 10; i++) {
		if (nvmf_ctrl_aers_outstanding(F.ctrl) == want)
			break;
		usleep(10000);
	}
	return nvmf_ctrl_aers_outstanding(F.ctrl);
}

/* Wait until the target counted @want admin commands @opcode (its groups count them
 * after the host sent them). */
static unsigned wait_count(uint8_t opcode, unsigned want)
{
	for (unsigned i = 0; i < WAIT_MS / 10; i++) {
		if (loop_host_admin_count(F.lh, opcode) >= want)
			break;
		usleep(10000);
	}
	return loop_host_admin_count(F.lh, opcode);
}

static void setup(const struct loop_host_params *p, const char *subnqn, unsigned mask)
{
	reset_seen();
	lpf_target(&F, p);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, subnqn);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	if (mask)
		CU_ASSERT_EQUAL_FATAL(nvmf_ctrl_set_event_cb(F.ctrl, mask, on_event, NULL), 0);
}

/* The AERs a controller takes: min(AERL + 1, 4). */
static unsigned aers_expected(void)
{
	unsigned n = (unsigned)nvmf_ctrl_id(F.ctrl)->aerl + 1;
	return n < 4 ? n : 4;
}

static void namespace_add_remove_and_resize_deliver_the_changed_nsids(void)
{
	setup(NULL, LH_SUBNQN, NVMF_EVENT_BIT(NVMF_EVENT_NS_CHANGED));
	uint32_t aec = 0;
	CU_ASSERT_EQUAL(nvmf_get_features(F.ctrl, NVME_FEAT_FID_ASYNC_EVENT, 0, 0, &aec), 0);
	CU_ASSERT_EQUAL(aec, 1u << 8); /* Namespace Attribute Notices only */
	CU_ASSERT_EQUAL(wait_aers(aers_expected()), aers_expected());

	CU_ASSERT_EQUAL_FATAL(loop_host_ns_add(F.lh, 5, 1u << 20), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(1, WAIT_MS), 1);
	struct seen s = seen_at(0);
	CU_ASSERT_EQUAL(s.kind, NVMF_EVENT_NS_CHANGED);
	CU_ASSERT_EQUAL(s.status, 0);
	CU_ASSERT_EQUAL(s.type, NVME_AER_NOTICE);
	CU_ASSERT_EQUAL(s.info, NVME_AER_NOTICE_NS_CHANGED);
	CU_ASSERT_EQUAL(s.lid, NVME_LOG_LID_CHANGED_NS);
	CU_ASSERT_EQUAL(s.nr_nsids, 1);
	CU_ASSERT_EQUAL(s.nsids[0], 5);
	CU_ASSERT_FALSE(s.overflow);
	CU_ASSERT_FALSE(pthread_equal(R.thread, pthread_self())); /* the library's thread */
	/* The AER went out again once the log was read. */
	CU_ASSERT_EQUAL(wait_aers(aers_expected()), aers_expected());

	CU_ASSERT_EQUAL_FATAL(loop_host_ns_resize(F.lh, 1, 32u << 20), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(2, WAIT_MS), 2);
	s = seen_at(1);
	CU_ASSERT_EQUAL(s.kind, NVMF_EVENT_NS_CHANGED);
	CU_ASSERT_EQUAL(s.nr_nsids, 1);
	CU_ASSERT_EQUAL(s.nsids[0], 1);
	struct nvmf_ns_info info;
	CU_ASSERT_EQUAL(nvmf_ns_info(F.ctrl, 1, &info), 0);
	CU_ASSERT_EQUAL(info.nsze, (32u << 20) / 512);
	CU_ASSERT_EQUAL(wait_aers(aers_expected()), aers_expected());

	CU_ASSERT_EQUAL_FATAL(loop_host_ns_remove(F.lh, 5), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(3, WAIT_MS), 3);
	s = seen_at(2);
	CU_ASSERT_EQUAL(s.kind, NVMF_EVENT_NS_CHANGED);
	CU_ASSERT_EQUAL(s.nr_nsids, 1);
	CU_ASSERT_EQUAL(s.nsids[0], 5);
	CU_ASSERT_NOT_EQUAL(nvmf_ns_info(F.ctrl, 5, &info), 0); /* inactive now */
	/* Each event read the Changed Namespace List once, and only once. */
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_get_log_page), 3);
	usleep(300000);
	CU_ASSERT_EQUAL(seen_count(), 3);
	lpf_teardown(&F);
}

static void two_namespaces_changed_together_are_listed_in_one_event_or_two(void)
{
	setup(NULL, LH_SUBNQN, NVMF_EVENT_BIT(NVMF_EVENT_NS_CHANGED));
	CU_ASSERT_EQUAL_FATAL(loop_host_ns_add(F.lh, 6, 1u << 20), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_ns_add(F.lh, 7, 1u << 20), 0);
	/* The target masks the event until the log is read: what changed meanwhile is in the
	 * log the next event reads. Every NSID arrives exactly once. */
	bool got6 = false, got7 = false;
	unsigned extra = 0;
	for (unsigned tries = 0; tries < 2 && !(got6 && got7); tries++) {
		unsigned n = wait_seen(tries + 1, WAIT_MS);
		CU_ASSERT_FATAL(n >= tries + 1);
		struct seen s = seen_at(tries);
		for (unsigned i = 0; i < s.nr_nsids; i++) {
			if (s.nsids[i] == 6 && !got6)
				got6 = true;
			else if (s.nsids[i] == 7 && !got7)
				got7 = true;
			else
				extra++;
		}
	}
	CU_ASSERT_TRUE(got6);
	CU_ASSERT_TRUE(got7);
	CU_ASSERT_EQUAL(extra, 0);
	lpf_teardown(&F);
}

static void ana_change_delivers_the_ana_log(void)
{
	setup(NULL, LH_SUBNQN, NVMF_EVENT_BIT(NVMF_EVENT_ANA_CHANGE));
	uint32_t aec = 0;
	CU_ASSERT_EQUAL(nvmf_get_features(F.ctrl, NVME_FEAT_FID_ASYNC_EVENT, 0, 0, &aec), 0);
	CU_ASSERT_EQUAL(aec, 1u << 11);
	CU_ASSERT_EQUAL_FATAL(loop_host_ana_set(F.lh, 1, 1, NVME_ANA_STATE_NONOPTIMIZED), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(1, WAIT_MS), 1);
	struct seen s = seen_at(0);
	CU_ASSERT_EQUAL(s.kind, NVMF_EVENT_ANA_CHANGE);
	CU_ASSERT_EQUAL(s.status, 0);
	CU_ASSERT_EQUAL(s.lid, NVME_LOG_LID_ANA);
	CU_ASSERT_EQUAL(s.ana_state1, NVME_ANA_STATE_NONOPTIMIZED);
	CU_ASSERT_EQUAL(wait_aers(aers_expected()), aers_expected());
	/* And the next one, which reading the log re-armed. */
	CU_ASSERT_EQUAL_FATAL(loop_host_ana_set(F.lh, 1, 1, NVME_ANA_STATE_INACCESSIBLE), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(2, WAIT_MS), 2);
	s = seen_at(1);
	CU_ASSERT_EQUAL(s.kind, NVMF_EVENT_ANA_CHANGE);
	CU_ASSERT_EQUAL(s.ana_state1, NVME_ANA_STATE_INACCESSIBLE);
	lpf_teardown(&F);
}

static void discovery_log_change_delivers_the_new_log(void)
{
	setup(&(struct loop_host_params){ .n_ports = 2 }, NULL,
	      NVMF_EVENT_BIT(NVMF_EVENT_DISC_CHANGED));
	uint32_t aec = 0;
	CU_ASSERT_EQUAL(nvmf_get_features(F.ctrl, NVME_FEAT_FID_ASYNC_EVENT, 0, 0, &aec), 0);
	CU_ASSERT_EQUAL(aec, 1u << 31);
	struct nvmf_disc_entry *e = NULL;
	size_t n = 0;
	CU_ASSERT_EQUAL_FATAL(nvmf_read_discovery_log(F.ctrl, &e, &n, NULL), 0);
	free(e);
	/* lh0 and the discovery subsystem, through ports 1 and 2 */
	CU_ASSERT_FATAL(n >= 2 && n <= 8);

	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 2), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(1, WAIT_MS), 1);
	struct seen s = seen_at(0);
	CU_ASSERT_EQUAL(s.kind, NVMF_EVENT_DISC_CHANGED);
	CU_ASSERT_EQUAL(s.status, 0);
	CU_ASSERT_EQUAL(s.info, NVME_AER_NOTICE_DISC_CHANGED);
	CU_ASSERT_EQUAL(s.lid, NVME_LOG_LID_DISCOVER);
	CU_ASSERT_EQUAL(s.nr_disc, n / 2);
	for (size_t i = 0; i < s.nr_disc && i < 8; i++)
		CU_ASSERT_EQUAL(s.disc_portids[i], 1); /* port 2 is gone */
	CU_ASSERT_EQUAL(wait_aers(aers_expected()), aers_expected());

	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 2), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(2, WAIT_MS), 2);
	s = seen_at(1);
	CU_ASSERT_EQUAL(s.kind, NVMF_EVENT_DISC_CHANGED);
	CU_ASSERT_EQUAL(s.nr_disc, n);
	lpf_teardown(&F);
}

/* Host B preempts host A's registration: A's controller gets Reservation Log Page
 * Available, and the event carries the Reservation Notification log page. */
static void reservation_preempted_delivers_the_notification_page(void)
{
	static const uint8_t id_a[16] = { 0xa1, 0xa1 }, id_b[16] = { 0xb2, 0xb2 };
	reset_seen();
	lpf_target(&F, &(struct loop_host_params){ .resv = true });
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.hostid = id_a;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	o.hostid = id_b;
	struct nvmf_ctrl *b = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &b), 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_ctrl_set_event_cb(F.ctrl, NVMF_EVENT_BIT(NVMF_EVENT_RESV_LOG),
						     on_event, NULL),
			      0);
	CU_ASSERT_EQUAL(nvmf_resv_register(F.ctrl, 1, NVMF_RESV_REGISTER, false, 0, 0, 0x11), 0);
	CU_ASSERT_EQUAL(nvmf_resv_register(b, 1, NVMF_RESV_REGISTER, false, 0, 0, 0x22), 0);
	/* B preempts A's registration (Write Exclusive). */
	CU_ASSERT_EQUAL(nvmf_resv_acquire(b, 1, NVMF_RESV_PREEMPT, 1, false, 0x22, 0x11), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(1, WAIT_MS), 1);
	struct seen s = seen_at(0);
	CU_ASSERT_EQUAL(s.kind, NVMF_EVENT_RESV_LOG);
	CU_ASSERT_EQUAL(s.status, 0);
	CU_ASSERT_EQUAL(s.type, NVME_AER_CSS);
	CU_ASSERT_EQUAL(s.lid, NVME_LOG_LID_RESERVATION);
	CU_ASSERT_EQUAL(s.resv_type, 1); /* Registration Preempted */
	CU_ASSERT_EQUAL(s.resv_nsid, 1);
	CU_ASSERT(s.resv_count >= 1);
	usleep(300000);
	CU_ASSERT_EQUAL(seen_count(), 1); /* B, whose events are off, told nothing here */
	CU_ASSERT_EQUAL(nvmf_disconnect(b), 0);
	lpf_teardown(&F);
}

/* The callback makes a blocking admin call on the same controller (allowed: it runs
 * outside the admin lock). */
static int cb_info_rc = -1;
static uint64_t cb_info_nsze;

static void on_event_identify(void *arg, const struct nvmf_event *ev)
{
	struct nvmf_ctrl *c = arg;
	if (ev->kind == NVMF_EVENT_NS_CHANGED && ev->nr_nsids) {
		struct nvmf_ns_info info;
		cb_info_rc = nvmf_ns_info(c, ev->nsids[0], &info);
		cb_info_nsze = cb_info_rc ? 0 : info.nsze;
	}
	on_event(NULL, ev);
}

static void callback_may_make_admin_calls_on_its_controller(void)
{
	setup(NULL, LH_SUBNQN, 0);
	cb_info_rc = -1;
	CU_ASSERT_EQUAL_FATAL(nvmf_ctrl_set_event_cb(F.ctrl, NVMF_EVENT_BIT(NVMF_EVENT_NS_CHANGED),
						     on_event_identify, F.ctrl),
			      0);
	CU_ASSERT_EQUAL_FATAL(loop_host_ns_add(F.lh, 9, 2u << 20), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(1, WAIT_MS), 1);
	CU_ASSERT_EQUAL(cb_info_rc, 0);
	CU_ASSERT_EQUAL(cb_info_nsze, (2u << 20) / 512);
	CU_ASSERT_EQUAL(wait_aers(aers_expected()), aers_expected());
	lpf_teardown(&F);
}

static void events_not_asked_for_are_not_delivered(void)
{
	setup(NULL, LH_SUBNQN, NVMF_EVENT_BIT(NVMF_EVENT_NS_CHANGED));
	unsigned logs = loop_host_admin_count(F.lh, nvme_admin_get_log_page);
	CU_ASSERT_EQUAL_FATAL(loop_host_ana_set(F.lh, 1, 1, NVME_ANA_STATE_NONOPTIMIZED), 0);
	usleep(500000);
	CU_ASSERT_EQUAL(seen_count(), 0);
	/* Not enabled on the controller, so nothing came and no log was read. */
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_get_log_page), logs);
	CU_ASSERT_EQUAL(nvmf_ctrl_aers_outstanding(F.ctrl), aers_expected());
	/* What was asked for still comes. */
	CU_ASSERT_EQUAL_FATAL(loop_host_ns_add(F.lh, 5, 1u << 20), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(1, WAIT_MS), 1);
	CU_ASSERT_EQUAL(seen_at(0).kind, NVMF_EVENT_NS_CHANGED);
	CU_ASSERT_EQUAL(wait_aers(aers_expected()), aers_expected());
	/* Events off: AEC 0, nothing delivered, the AERs are not posted again. */
	CU_ASSERT_EQUAL(nvmf_ctrl_set_event_cb(F.ctrl, 0, NULL, NULL), 0);
	uint32_t aec = 1;
	CU_ASSERT_EQUAL(nvmf_get_features(F.ctrl, NVME_FEAT_FID_ASYNC_EVENT, 0, 0, &aec), 0);
	CU_ASSERT_EQUAL(aec, 0);
	CU_ASSERT_EQUAL(loop_host_ns_remove(F.lh, 5), 0);
	usleep(300000);
	CU_ASSERT_EQUAL(seen_count(), 1);
	CU_ASSERT_EQUAL(nvmf_ctrl_set_event_cb(F.ctrl, 0x100, on_event, NULL), -EINVAL);
	lpf_teardown(&F);
}

static void aers_posted_are_bounded_by_aerl(void)
{
	setup(NULL, LH_SUBNQN, NVMF_EVENT_ALL);
	unsigned want = aers_expected();
	CU_ASSERT_EQUAL(want, 4); /* our target: AERL 3 */
	CU_ASSERT_EQUAL(nvmf_ctrl_aers_outstanding(F.ctrl), want);
	CU_ASSERT_EQUAL(wait_count(nvme_admin_async_event, want), want);
	/* Setting the callback again posts none beyond the limit (no Asynchronous Event
	 * Request Limit Exceeded). */
	CU_ASSERT_EQUAL(nvmf_ctrl_set_event_cb(F.ctrl, NVMF_EVENT_ALL, on_event, NULL), 0);
	usleep(300000);
	CU_ASSERT_EQUAL(nvmf_ctrl_aers_outstanding(F.ctrl), want);
	CU_ASSERT_EQUAL(wait_count(nvme_admin_async_event, want), want);
	/* Admin commands still run beside the parked AERs. */
	struct nvmf_ns_info info;
	CU_ASSERT_EQUAL(nvmf_ns_info(F.ctrl, 1, &info), 0);
	CU_ASSERT_EQUAL(seen_count(), 0);
	lpf_teardown(&F);
}

/* A controller that takes fewer AERs (AERL 0's based): no more are posted, and an event
 * still comes through the one there is (posted again after each). */
static void a_smaller_aerl_bounds_the_aers_posted(void)
{
	reset_seen();
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.transport = ana_wrap_new(F.lh, &(struct ana_wrap_id){ .aerl_set = true, .aerl = 0 });
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_id(F.ctrl)->aerl, 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_ctrl_set_event_cb(F.ctrl, NVMF_EVENT_ALL, on_event, NULL), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_aers_outstanding(F.ctrl), 1);
	CU_ASSERT_EQUAL(wait_count(nvme_admin_async_event, 1), 1);
	for (uint32_t nsid = 5; nsid <= 6; nsid++) {
		CU_ASSERT_EQUAL_FATAL(loop_host_ns_add(F.lh, nsid, 1u << 20), 0);
		/* Adding a namespace changes its ANA group too: wait for its NSID. */
		bool got = false;
		for (unsigned i = 0; i < WAIT_MS / 10 && !got; i++) {
			pthread_mutex_lock(&R.lock);
			for (unsigned k = 0; k < R.n && k < MAX_SEEN; k++)
				got |= R.ev[k].kind == NVMF_EVENT_NS_CHANGED &&
				       R.ev[k].nr_nsids >= 1 && R.ev[k].nsids[0] == nsid;
			pthread_mutex_unlock(&R.lock);
			if (!got)
				usleep(10000);
		}
		CU_ASSERT_TRUE(got);
		CU_ASSERT_EQUAL(wait_aers(1), 1);
	}
	usleep(200000);
	CU_ASSERT_EQUAL(nvmf_ctrl_aers_outstanding(F.ctrl), 1);
	lpf_teardown(&F);
}

static void reconnect_and_disconnect_neither_leak_nor_deliver_aers(void)
{
	setup(NULL, LH_SUBNQN, NVMF_EVENT_BIT(NVMF_EVENT_NS_CHANGED));
	unsigned want = aers_expected();
	CU_ASSERT_EQUAL(nvmf_ctrl_aers_outstanding(F.ctrl), want);
	/* The old association's AERs fail (not delivered, not posted again); the new one
	 * gets its own, with AEC set again. */
	CU_ASSERT_EQUAL_FATAL(nvmf_reconnect(F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_aers_outstanding(F.ctrl), want);
	CU_ASSERT_EQUAL(wait_count(nvme_admin_async_event, 2 * want), 2 * want);
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_set_features), 4); /* 2 x NQ, AEC */
	CU_ASSERT_EQUAL(seen_count(), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_ns_add(F.lh, 5, 1u << 20), 0);
	CU_ASSERT_EQUAL_FATAL(wait_seen(1, WAIT_MS), 1);
	CU_ASSERT_EQUAL(seen_at(0).nsids[0], 5);
	CU_ASSERT_EQUAL(wait_aers(want), want);

	/* A lost connection: the AERs fail with it, nothing is delivered. */
	loop_host_break(F.lh);
	for (unsigned i = 0; i < 100 && nvmf_ctrl_aers_outstanding(F.ctrl); i++)
		usleep(10000);
	CU_ASSERT_EQUAL(nvmf_ctrl_aers_outstanding(F.ctrl), 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_reconnect(F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_aers_outstanding(F.ctrl), want);
	CU_ASSERT_EQUAL(seen_count(), 1);

	/* Disconnect with AERs parked: they end with the association, no callback. */
	CU_ASSERT_EQUAL(nvmf_disconnect(F.ctrl), 0);
	F.ctrl = NULL;
	CU_ASSERT_EQUAL(seen_count(), 1);
	for (unsigned i = 0; i < 100 && loop_host_live_ctrls(F.lh); i++)
		usleep(10000);
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 0);
	lpf_teardown(&F);
}

const struct unit_test initiator_aen_tests[] = {
	{ "namespace_add_remove_and_resize_deliver_the_changed_nsids",
	  namespace_add_remove_and_resize_deliver_the_changed_nsids },
	{ "two_namespaces_changed_together_are_listed_in_one_event_or_two",
	  two_namespaces_changed_together_are_listed_in_one_event_or_two },
	{ "ana_change_delivers_the_ana_log", ana_change_delivers_the_ana_log },
	{ "discovery_log_change_delivers_the_new_log", discovery_log_change_delivers_the_new_log },
	{ "reservation_preempted_delivers_the_notification_page",
	  reservation_preempted_delivers_the_notification_page },
	{ "callback_may_make_admin_calls_on_its_controller",
	  callback_may_make_admin_calls_on_its_controller },
	{ "events_not_asked_for_are_not_delivered", events_not_asked_for_are_not_delivered },
	{ "aers_posted_are_bounded_by_aerl", aers_posted_are_bounded_by_aerl },
	{ "a_smaller_aerl_bounds_the_aers_posted", a_smaller_aerl_bounds_the_aers_posted },
	{ "reconnect_and_disconnect_neither_leak_nor_deliver_aers",
	  reconnect_and_disconnect_neither_leak_nor_deliver_aers },
	{ NULL, NULL },
};
