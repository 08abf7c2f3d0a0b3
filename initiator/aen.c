/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events, host side (NVMe Base 2.0 section 5.2, Asynchronous Event Request;
 * Set Features Asynchronous Event Configuration, section 5.27.1.7).
 *
 * nvmf_ctrl_set_event_cb enables the notices the program asked for and keeps AERs
 * outstanding on the admin queue (nvmfh_queue_submit with aer_done as callback). Their
 * completions arrive in whatever poll of the admin queue runs next, under admin_lock: an
 * admin call's, or this file's event thread's, which polls every AEN_POLL_MS while AERs
 * are outstanding. aer_done only records CQE dword 0 and wakes the thread; the thread
 * then reads the event's log page with RAE 0 (which clears the event on the controller so
 * it reports the next one of its kind), calls the program's callback, both without
 * admin_lock, and posts the AER again. Those log reads leave nvmf_ctrl_errmsg alone (it
 * belongs to the application's calls): a failure is the event's status. An AER that completes with an error (Abort at
 * teardown, -ECONNRESET, -ECONNABORTED, Asynchronous Event Request Limit Exceeded) is
 * neither delivered nor posted again.
 *
 * The thread is this file's own (not the keep-alive thread): a slow callback never delays
 * a Keep Alive, and ctrl.c only calls nvmfh_aen_start/stop/free. A controller thread may
 * drive nvmfh_aen_poll and nvmfh_aen_work itself instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "initiator/internal.h"

#define AEN_POLL_MS     100u  /* admin queue polls while AERs are outstanding */
#define AEN_CHANGED_NS  1024u /* entries of the Changed Namespace List log (4 KiB) */
#define AEN_RESV_MAX    256u  /* Reservation Notification pages read per event at most */
/*
 * AERs kept outstanding: min(AERL + 1, AEN_MAX_AERS). The Linux host posts one and posts
 * it again from its event work; we post up to 4, one per kind of event we decode
 * (namespace, ANA, discovery, reservation), so events of different kinds that happen
 * together each find an AER instead of waiting on the controller for our log read and
 * repost. More would gain nothing: a controller masks each kind until its log is read,
 * and every parked AER holds one of the admin queue's 31 command slots for good.
 */
#define AEN_MAX_AERS    4u
#define AEN_PENDING_MAX AEN_MAX_AERS /* recorded completions: one per posted AER */

/* Asynchronous Event Configuration bits (figure 309, section 5.27.1.7) and OAES. */
#define AEC_NS_ATTR     (1u << 8)
#define AEC_ANA_CHANGE  (1u << 11)
#define AEC_DISC_CHANGE (1u << 31)

struct nvmfh_aen {
	/* lock guards what the program sets and the thread's control; never held while
	 * taking admin_lock (the order is admin_lock, then lock: aer_done wakes the thread). */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned mask; /* NVMF_EVENT_BIT()s wanted; 0: events off */
	nvmf_event_cb cb;
	void *arg;
	pthread_t thread;
	bool running, stop, kick;
	/* Under c->admin_lock. */
	unsigned posted; /* AERs outstanding */
	unsigned want;   /* AERs to keep outstanding (one less for each that failed) */
	uint32_t pending[AEN_PENDING_MAX]; /* dword 0 of completed AERs, in order */
	unsigned nr_pending;
	/* The event thread's (and nvmf_ctrl_set_event_cb's: never at the same time as a
	 * reconfiguration from the thread, which makes none). */
	uint32_t aec; /* AEC as last set on this association; 0: not set */
};

static void wake(struct nvmfh_aen *a)
{
	pthread_mutex_lock(&a->lock);
	a->kick = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

/* An AER completed (under admin_lock, inside some poll of the admin queue). */
static void aer_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct nvmf_ctrl *c = arg;
	struct nvmfh_aen *a = c->aen;
	if (a->posted)
		a->posted--;
	if (status || !cqe) {
		if (a->want)
			a->want--; /* not posted again */
		return;
	}
	if (a->nr_pending < AEN_PENDING_MAX)
		a->pending[a->nr_pending++] = le32toh(cqe->result.u32);
	wake(a);
}

/* Post AERs until want are outstanding; under admin_lock. */
static int post_aers(struct nvmf_ctrl *c)
{
	struct nvmfh_aen *a = c->aen;
	while (a->posted + a->nr_pending < a->want) {
		struct nvme_sqe sqe;
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = nvme_admin_async_event;
		int rc = nvmfh_queue_submit(&c->admin, &sqe, NULL, 0, false, aer_done, c, NULL);
		if (rc)
			return rc;
		a->posted++;
	}
	return 0;
}

static unsigned aers_allowed(const struct nvmf_ctrl *c)
{
	unsigned n = (unsigned)c->id.aerl + 1; /* AERL is 0's based */
	return n < AEN_MAX_AERS ? n : AEN_MAX_AERS;
}

/* The AEC bits for @mask that the controller reports in OAES. */
static uint32_t aec_for(const struct nvmf_ctrl *c, unsigned mask)
{
	uint32_t aec = 0;
	if (mask & NVMF_EVENT_BIT(NVMF_EVENT_NS_CHANGED))
		aec |= AEC_NS_ATTR;
	if (mask & NVMF_EVENT_BIT(NVMF_EVENT_ANA_CHANGE))
		aec |= AEC_ANA_CHANGE;
	if (mask & NVMF_EVENT_BIT(NVMF_EVENT_DISC_CHANGED))
		aec |= AEC_DISC_CHANGE;
	return aec & le32toh(c->id.oaes);
}

static void *aen_main(void *arg);

/* Set AEC, post the AERs, start the thread, for @a's current mask. */
static int configure(struct nvmf_ctrl *c)
{
	struct nvmfh_aen *a = c->aen;
	pthread_mutex_lock(&a->lock);
	unsigned mask = a->mask;
	pthread_mutex_unlock(&a->lock);

	uint32_t aec = aec_for(c, mask);
	if (aec || a->aec) {
		int rc = nvmf_set_features(c, NVME_FEAT_FID_ASYNC_EVENT, 0, aec, NULL);
		if (rc) {
			nvmfh_errf(c, "Set Features Asynchronous Event Configuration (0x%x): %s",
				   aec, nvmf_strerror(rc));
			return rc;
		}
		a->aec = aec;
	}
	pthread_mutex_lock(&c->admin_lock);
	a->want = mask ? aers_allowed(c) : 0;
	int rc = post_aers(c);
	pthread_mutex_unlock(&c->admin_lock);
	if (rc) {
		nvmfh_errf(c, "posting Asynchronous Event Requests: %s", nvmf_strerror(rc));
		return rc;
	}
	if (!a->running && mask) {
		a->stop = false;
		int e = pthread_create(&a->thread, NULL, aen_main, c);
		if (e) {
			nvmfh_errf(c, "cannot start the event thread: %s", nvmf_strerror(-e));
			return -e;
		}
		a->running = true;
	}
	return 0;
}

int nvmf_ctrl_set_event_cb(struct nvmf_ctrl *c, unsigned mask, nvmf_event_cb cb, void *arg)
{
	if (!c || (mask & ~NVMF_EVENT_ALL))
		return -EINVAL;
	if (!cb)
		mask = 0;
	if (!c->aen) {
		if (!mask)
			return 0;
		struct nvmfh_aen *a = calloc(1, sizeof(*a));
		if (!a)
			return -ENOMEM;
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&a->cond, &ca);
		pthread_condattr_destroy(&ca);
		pthread_mutex_init(&a->lock, NULL);
		c->aen = a;
	}
	struct nvmfh_aen *a = c->aen;
	pthread_mutex_lock(&a->lock);
	a->mask = mask;
	a->cb = cb;
	a->arg = arg;
	pthread_mutex_unlock(&a->lock);
	int rc = configure(c);
	if (rc && mask) {
		/* Nothing kept: a reconnect must not fail on what was refused here. */
		pthread_mutex_lock(&a->lock);
		a->mask = 0;
		a->cb = NULL;
		pthread_mutex_unlock(&a->lock);
		pthread_mutex_lock(&c->admin_lock);
		a->want = 0;
		pthread_mutex_unlock(&c->admin_lock);
	}
	return rc;
}

unsigned nvmf_ctrl_aers_outstanding(struct nvmf_ctrl *c)
{
	if (!c || !c->aen)
		return 0;
	pthread_mutex_lock(&c->admin_lock);
	unsigned n = c->aen->posted;
	pthread_mutex_unlock(&c->admin_lock);
	return n;
}

int nvmfh_aen_start(struct nvmf_ctrl *c)
{
	struct nvmfh_aen *a = c->aen;
	if (!a)
		return 0;
	/* A new association: nothing posted, AEC at its default, old events dropped (their
	 * logs belonged to the controller that is gone). */
	pthread_mutex_lock(&c->admin_lock);
	a->posted = 0;
	a->nr_pending = 0;
	pthread_mutex_unlock(&c->admin_lock);
	a->aec = 0;
	pthread_mutex_lock(&a->lock);
	bool on = a->mask != 0;
	pthread_mutex_unlock(&a->lock);
	return on ? configure(c) : 0;
}

void nvmfh_aen_stop(struct nvmf_ctrl *c)
{
	struct nvmfh_aen *a = c->aen;
	if (!a || !a->running)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	a->running = false;
	/* What is still posted fails with the teardown's error: not posted again. */
	pthread_mutex_lock(&c->admin_lock);
	a->want = 0;
	pthread_mutex_unlock(&c->admin_lock);
}

void nvmfh_aen_free(struct nvmf_ctrl *c)
{
	struct nvmfh_aen *a = c->aen;
	if (!a)
		return;
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
	free(a);
	c->aen = NULL;
}

unsigned nvmfh_aen_poll(struct nvmf_ctrl *c)
{
	struct nvmfh_aen *a = c->aen;
	if (!a)
		return 0;
	pthread_mutex_lock(&c->admin_lock);
	if (a->posted && c->admin.slots)
		nvmfh_queue_poll(&c->admin, 0); /* a lost queue fails the AERs */
	unsigned n = a->nr_pending;
	pthread_mutex_unlock(&c->admin_lock);
	return n;
}

/* ---- one event ---- */

static enum nvmf_event_kind kind_of(uint8_t type, uint8_t info)
{
	if (type == NVME_AER_NOTICE && info == NVME_AER_NOTICE_NS_CHANGED)
		return NVMF_EVENT_NS_CHANGED;
	if (type == NVME_AER_NOTICE && info == NVME_AER_NOTICE_ANA)
		return NVMF_EVENT_ANA_CHANGE;
	if (type == NVME_AER_NOTICE && info == NVME_AER_NOTICE_DISC_CHANGED)
		return NVMF_EVENT_DISC_CHANGED;
	if (type == NVME_AER_CSS && info == NVME_AER_CSS_NVM_RESERVATION)
		return NVMF_EVENT_RESV_LOG;
	return NVMF_EVENT_OTHER;
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Changed Namespace List (04h): up to 1024 NSIDs, zero terminated; FFFFFFFFh first: more. */
static void ns_changed(struct nvmf_ctrl *c, struct nvmf_event *ev, nvmf_event_cb cb, void *arg)
{
	uint8_t *buf = malloc(AEN_CHANGED_NS * 4);
	uint32_t *ids = malloc(AEN_CHANGED_NS * sizeof(*ids));
	if (!buf || !ids) {
		ev->status = -ENOMEM;
	} else {
		bool m = nvmfh_errf_mute(true);
		ev->status = nvmfh_get_log_page(c, NVME_LOG_LID_CHANGED_NS, 0, NVME_NSID_ALL, 0,
						buf, AEN_CHANGED_NS * 4);
		nvmfh_errf_mute(m);
	}
	if (!ev->status) {
		uint32_t first = get_le32(buf);
		if (first == NVME_NSID_ALL) {
			ev->nsids_overflow = true;
		} else {
			for (unsigned i = 0; i < AEN_CHANGED_NS; i++) {
				uint32_t id = get_le32(buf + 4 * i);
				if (!id)
					break;
				ids[ev->nr_nsids++] = id;
			}
			ev->nsids = ids;
		}
	}
	cb(arg, ev);
	free(buf);
	free(ids);
}

/* Reservation Notification (80h): one page per read, the oldest; read until none waits
 * (an empty page: Log Page Count 0) or the last one said no more are available. */
static void resv_log(struct nvmf_ctrl *c, struct nvmf_event *ev, nvmf_event_cb cb, void *arg)
{
	for (unsigned i = 0; i < AEN_RESV_MAX; i++) {
		struct nvme_resv_notification_log log;
		memset(&log, 0, sizeof(log));
		bool m = nvmfh_errf_mute(true);
		ev->status = nvmfh_get_log_page(c, NVME_LOG_LID_RESERVATION, 0, NVME_NSID_ALL, 0,
						&log, sizeof(log));
		nvmfh_errf_mute(m);
		if (ev->status) {
			cb(arg, ev);
			return;
		}
		if (!le64toh(log.lpc))
			return; /* nothing (more) waiting */
		ev->resv_count = le64toh(log.lpc);
		ev->resv_type = log.rnlpt;
		ev->resv_nr_avail = log.nalp;
		ev->resv_nsid = le32toh(log.nsid);
		cb(arg, ev);
		if (!log.nalp)
			return;
	}
}

static void handle(struct nvmf_ctrl *c, uint32_t dw0, unsigned mask, nvmf_event_cb cb, void *arg)
{
	struct nvmf_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.dw0 = dw0;
	ev.type = (uint8_t)(dw0 & 0x7);
	ev.info = (uint8_t)(dw0 >> 8);
	ev.lid = (uint8_t)(dw0 >> 16);
	ev.kind = kind_of(ev.type, ev.info);
	if (!cb || !(mask & NVMF_EVENT_BIT(ev.kind)))
		return;
	switch (ev.kind) {
	case NVMF_EVENT_NS_CHANGED:
		ns_changed(c, &ev, cb, arg);
		return;
	case NVMF_EVENT_ANA_CHANGE: {
		struct nvmf_ana_log *log = NULL;
		bool m = nvmfh_errf_mute(true);
		ev.status = nvmf_read_ana_log(c, false, &log);
		nvmfh_errf_mute(m);
		ev.ana = log;
		cb(arg, &ev);
		nvmf_ana_log_free(log);
		return;
	}
	case NVMF_EVENT_DISC_CHANGED: {
		struct nvmf_disc_entry *e = NULL;
		bool m = nvmfh_errf_mute(true);
		ev.status = nvmf_read_discovery_log(c, &e, &ev.nr_disc_entries, &ev.disc_genctr);
		nvmfh_errf_mute(m);
		if (ev.status)
			ev.nr_disc_entries = 0;
		ev.disc_entries = e;
		cb(arg, &ev);
		free(e);
		return;
	}
	case NVMF_EVENT_RESV_LOG:
		resv_log(c, &ev, cb, arg);
		return;
	case NVMF_EVENT_OTHER:
		cb(arg, &ev);
		return;
	}
}

void nvmfh_aen_work(struct nvmf_ctrl *c)
{
	struct nvmfh_aen *a = c->aen;
	if (!a)
		return;
	uint32_t dw0[AEN_PENDING_MAX];
	pthread_mutex_lock(&c->admin_lock);
	unsigned n = a->nr_pending;
	memcpy(dw0, a->pending, n * sizeof(dw0[0]));
	pthread_mutex_unlock(&c->admin_lock);
	if (!n)
		return;
	pthread_mutex_lock(&a->lock);
	unsigned mask = a->mask;
	nvmf_event_cb cb = a->cb;
	void *arg = a->arg;
	pthread_mutex_unlock(&a->lock);
	for (unsigned i = 0; i < n; i++)
		handle(c, dw0[i], mask, cb, arg);
	/* Handled: their AERs go out again (a lost queue refuses: reconnect posts anew). */
	pthread_mutex_lock(&c->admin_lock);
	memmove(a->pending, a->pending + n, (a->nr_pending - n) * sizeof(a->pending[0]));
	a->nr_pending -= n;
	post_aers(c);
	pthread_mutex_unlock(&c->admin_lock);
}

static void *aen_main(void *arg)
{
	struct nvmf_ctrl *c = arg;
	struct nvmfh_aen *a = c->aen;
	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		struct timespec ts = nvmf_deadline_in_ms(AEN_POLL_MS);
		int w = 0;
		while (!a->stop && !a->kick && w != ETIMEDOUT)
			w = pthread_cond_timedwait(&a->cond, &a->lock, &ts);
		a->kick = false;
		if (a->stop)
			break;
		pthread_mutex_unlock(&a->lock);
		nvmfh_aen_poll(c);
		nvmfh_aen_work(c);
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}
