/* SPDX-License-Identifier: MIT */
/*
 * Controllers: association setup and teardown (NVMe-oF 1.1 section 3.3, the sequence of
 * the Linux host's fabrics.c/core.c), properties, enable and shutdown (NVMe Base 3.5,
 * 3.6), the controller thread (Keep Alive, NVMe Base 3.9; Aborts; automatic reconnect,
 * recovery.c) and reconnect.
 *
 * Setup: transport connect of the admin queue, Fabrics Connect (cntlid FFFFh: dynamic
 * model) and DH-HMAC-CHAP when the controller asks (auth.c), Property Get CAP, Property Set CC.EN, poll CSTS.RDY, Property Get VS, Identify
 * Controller (and the Linux host's sanity checks), Set Features Number of Queues, then
 * transport connect and Fabrics Connect (and authentication) of each I/O queue, then
 * the controller thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "initiator/internal.h"
#include "util/addr.h"

/* CC / CSTS values built from libnvme's field definitions (NVMe Base 3.1.3.5-6). */
#define CC_EN          ((uint32_t)NVME_CC_EN_MASK << NVME_CC_EN_SHIFT)
#define CC_IOSQES_64   ((uint32_t)6 << NVME_CC_IOSQES_SHIFT) /* 2^6 = 64-byte SQEs */
#define CC_IOCQES_16   ((uint32_t)4 << NVME_CC_IOCQES_SHIFT) /* 2^4 = 16-byte CQEs */
#define CC_SHN_MASK    ((uint32_t)NVME_CC_SHN_MASK << NVME_CC_SHN_SHIFT)
#define CC_SHN_NORMAL  ((uint32_t)NVME_CC_SHN_NORMAL << NVME_CC_SHN_SHIFT)
#define CSTS_RDY       ((uint32_t)NVME_CSTS_RDY_MASK << NVME_CSTS_RDY_SHIFT)
#define CSTS_CFS       ((uint32_t)NVME_CSTS_CFS_MASK << NVME_CSTS_CFS_SHIFT)
#define CSTS_SHST_MASK ((uint32_t)NVME_CSTS_SHST_MASK << NVME_CSTS_SHST_SHIFT)
#define CSTS_SHST_DONE ((uint32_t)NVME_CSTS_SHST_CMPLT << NVME_CSTS_SHST_SHIFT)
#define CAP_MQES(cap)  ((unsigned)NVME_CAP_MQES(cap))
#define CAP_TO_MS(cap) ((unsigned)NVME_CAP_TO(cap) * 500u) /* CAP.TO is in 500 ms units */

static int timeout_of(const struct nvmf_ctrl *c)
{
	return c->opts.timeout_ms > 0 ? c->opts.timeout_ms : NVMFH_DEFAULT_TIMEOUT_MS;
}

/* One admin command under admin_lock; when the admin queue is lost, what ended it goes
 * into @why (@whylen bytes, "" otherwise). */
static int admin_exec(struct nvmf_ctrl *c, const struct nvme_sqe *sqe, void *buf, uint32_t len,
		      bool write, struct nvme_cqe *cqe, int timeout_ms, char *why, size_t whylen)
{
	pthread_mutex_lock(&c->admin_lock);
	int rc = nvmfh_queue_exec(&c->admin, sqe, buf, len, write, cqe, timeout_ms);
	snprintf(why, whylen, "%s", c->admin.lost ? c->admin.lost_why : "");
	pthread_mutex_unlock(&c->admin_lock);
	return rc;
}

int nvmfh_admin_exec(struct nvmf_ctrl *c, const struct nvme_sqe *sqe, void *buf, uint32_t len,
		     bool write, struct nvme_cqe *cqe, int timeout_ms)
{
	char why[NVMFH_LOST_WHY_MAX];
	return admin_exec(c, sqe, buf, len, write, cqe, timeout_ms, why, sizeof(why));
}

int nvmfh_admin(struct nvmf_ctrl *c, const struct nvme_sqe *sqe, void *buf, uint32_t len,
		bool write, struct nvme_cqe *cqe)
{
	char why[NVMFH_LOST_WHY_MAX];
	int rc = admin_exec(c, sqe, buf, len, write, cqe, timeout_of(c), why, sizeof(why));
	/* The admin queue's own cause, which may be an earlier failure (a Keep Alive that
	 * timed out, a connection the controller closed), not this command's. */
	if (rc < 0 && why[0])
		nvmfh_errf(c, "admin queue: %s; %s", why,
			   c->auto_reconnect ? "the controller is reconnecting (nvmf_ctrl_state)" :
					       "the association needs nvmf_reconnect()");
	return rc;
}

/* ---- Fabrics commands (NVMe-oF 1.1 section 3) ---- */

/* Property Get: @size8 for 8-byte properties (CAP). */
static int prop_get(struct nvmf_ctrl *c, uint32_t off, bool size8, uint64_t *val)
{
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	const struct nvmf_property_cmd p = { .attrib = size8 ? NVMF_PROP_ATTRIB_SIZE8 : 0,
					     .ofst = off };
	nvmf_property_encode(&sqe, nvme_fabrics_type_property_get, &p);
	int rc = nvmfh_admin(c, &sqe, NULL, 0, false, &cqe);
	if (!rc)
		*val = size8 ? le64toh(cqe.result.u64) : le32toh(cqe.result.u32);
	return rc;
}

static int prop_set(struct nvmf_ctrl *c, uint32_t off, uint32_t val)
{
	struct nvme_sqe sqe;
	const struct nvmf_property_cmd p = { .ofst = off, .value = val };
	nvmf_property_encode(&sqe, nvme_fabrics_type_property_set, &p);
	return nvmfh_admin(c, &sqe, NULL, 0, false, NULL);
}

/* Fabrics Connect of @q (section 3.3): admin with cntlid FFFFh, I/O with ours. */
static int fabrics_connect(struct nvmf_ctrl *c, struct nvmf_queue *q)
{
	struct nvmf_connect_data d;
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	uint16_t qid = q->hq.qid;
	uint32_t kato = c->opts.no_keep_alive ? 0 : c->opts.kato_ms;
	const struct nvmf_connect_cmd cmd = {
		.qid = qid,
		.sqsize = (uint16_t)(q->hq.size - 1),
		.kato = qid == 0 ? kato : 0,
		.cattr = c->opts.disable_sqflow ? NVMF_CONNECT_CATTR_SQFLOW_DISABLE : 0,
	};

	nvmf_connect_encode(&sqe, &cmd);
	memset(&d, 0, sizeof(d));
	memcpy(d.hostid, c->hostid, 16);
	d.cntlid = htole16(qid ? c->cntlid : 0xffff);
	memcpy(d.subsysnqn, c->subnqn, sizeof(d.subsysnqn));
	memcpy(d.hostnqn, c->hostnqn, sizeof(d.hostnqn));

	int rc = nvmfh_queue_exec(q, &sqe, &d, sizeof(d), true, &cqe, timeout_of(c));
	if (rc) {
		nvmfh_errf(c, "Connect of queue %u to %s as %s: %s%s", qid, c->subnqn, c->hostnqn,
			   nvmf_strerror(rc),
			   rc > 0 ? nvmfh_connect_detail(rc, le32toh(cqe.result.u32)) : "");
		return rc;
	}
	uint32_t dw0 = le32toh(cqe.result.u32);
	if (qid == 0)
		c->cntlid = (uint16_t)(dw0 & 0xffff);
	return nvmfh_auth_connected(c, q, dw0);
}

/* Transport connect plus Fabrics Connect of one queue. */
static int connect_queue(struct nvmf_ctrl *c, struct nvmf_queue *q, uint16_t qid, uint16_t size)
{
	char err[NVMFH_ERRMSG_MAX - 64] = "";
	int rc = nvmfh_queue_setup(q, c, qid, size);
	if (rc) {
		nvmfh_errf(c, "queue %u: out of memory", qid);
		return rc;
	}
	rc = c->t->queue_connect(&q->hq, &c->opts, qid, size, err, sizeof(err));
	if (rc) {
		nvmfh_errf(c, "%s connect of queue %u to %s:%s: %s", c->t->name, qid, c->traddr,
			   c->trsvcid, err[0] ? err : nvmf_strerror(rc));
		return rc;
	}
	q->connected = true;
	if (qid && c->t->set_incapsule)
		c->t->set_incapsule(&q->hq, le32toh(c->id.ioccsz));
	q->live_word = atomic_load(&c->word);
	q->connecting = true; /* a lost connection fails the Connect, nothing waits */
	rc = fabrics_connect(c, q);
	q->connecting = false;
	return rc;
}

int nvmfh_io_queue_reconnect(struct nvmf_ctrl *c, struct nvmf_queue *q, unsigned word)
{
	char err[NVMFH_ERRMSG_MAX - 64] = "";
	uint16_t qid = q->hq.qid;
	q->lost_why[0] = 0;
	int rc = c->t->queue_connect(&q->hq, &c->opts, qid, q->hq.size, err, sizeof(err));
	if (rc) {
		nvmfh_queue_lost(q, "reconnect: %s connect of queue %u to %s:%s: %s", c->t->name,
				 qid, c->traddr, c->trsvcid, err[0] ? err : nvmf_strerror(rc));
		return rc;
	}
	q->connected = true;
	q->lost = false;
	if (c->t->set_incapsule)
		c->t->set_incapsule(&q->hq, le32toh(c->id.ioccsz));
	/* Its Connect goes out ahead of what it holds, past SQ flow control (queue.c). */
	q->connecting = true;
	rc = fabrics_connect(c, q);
	q->connecting = false;
	if (rc) {
		nvmfh_queue_lost(q, "reconnect: Connect of queue %u: %s", qid, nvmf_strerror(rc));
		c->t->queue_disconnect(&q->hq);
		q->connected = false;
		nvmfh_queue_fail_sent(q, -ECONNRESET); /* an abandoned Connect's slot too */
		return rc;
	}
	q->live_word = word;
	q->ns_cached = q->ns_next = 0; /* the namespaces may have changed meanwhile */
	return 0;
}

static void disconnect_queue(struct nvmf_ctrl *c, struct nvmf_queue *q)
{
	if (q->connected)
		c->t->queue_disconnect(&q->hq);
	q->connected = false;
	q->lost = true;
}

/* Poll CSTS until (csts & mask) == want or CSTS.CFS; up to @ms. */
static int wait_csts(struct nvmf_ctrl *c, uint32_t mask, uint32_t want, unsigned ms,
		     const char *what)
{
	uint64_t deadline = nvmf_mono_ms() + ms;
	for (;;) {
		uint64_t csts;
		int rc = prop_get(c, NVMF_PROP_CSTS, false, &csts);
		if (rc) {
			nvmfh_errf(c, "Property Get CSTS (%s): %s", what, nvmf_strerror(rc));
			return rc;
		}
		if (csts & CSTS_CFS) {
			nvmfh_errf(c, "controller fatal status (CSTS.CFS) while waiting for %s",
				   what);
			return -EIO;
		}
		if ((csts & mask) == want)
			return 0;
		if (nvmf_mono_ms() >= deadline) {
			nvmfh_errf(c, "timed out after %u ms waiting for %s (CSTS 0x%x)", ms, what,
				   (unsigned)csts);
			return -ETIMEDOUT;
		}
		usleep(1000);
	}
}

/* CC.EN = 1 with 64 B SQEs / 16 B CQEs, NVM command set, 4 KiB pages; wait for RDY. */
static int enable(struct nvmf_ctrl *c, uint64_t cap)
{
	c->cc = CC_EN | CC_IOSQES_64 | CC_IOCQES_16;
	int rc = prop_set(c, NVMF_PROP_CC, c->cc);
	if (rc) {
		nvmfh_errf(c, "Property Set CC.EN: %s", nvmf_strerror(rc));
		return rc;
	}
	unsigned to = CAP_TO_MS(cap);
	if (!to || to > (unsigned)timeout_of(c))
		to = (unsigned)timeout_of(c);
	return wait_csts(c, CSTS_RDY, CSTS_RDY, to, "CSTS.RDY after CC.EN");
}

/*
 * Identify Controller into @id and the checks the Linux host makes before using it. At
 * connect it becomes c->id, c->discovery, c->max_xfer. At a reconnect those stay as they
 * are (other threads read them, and the queues and waiting commands were built for
 * them): the new controller must be of the same kind with no smaller limits.
 */
static int identify_ctrl(struct nvmf_ctrl *c, bool reconnect, struct nvme_id_ctrl *id)
{
	int rc = nvmf_identify(c, NVME_IDENTIFY_CNS_CTRL, 0, id);
	if (rc) {
		nvmfh_errf(c, "Identify Controller: %s", nvmf_strerror(rc));
		return rc;
	}
	bool discovery = id->cntrltype == NVME_CTRL_CNTRLTYPE_DISCOVERY ||
			 !strcmp(c->subnqn, NVMF_DISC_NQN);
	if (le16toh(id->cntlid) != c->cntlid) {
		nvmfh_errf(c, "Identify Controller reports cntlid %u but Connect assigned %u",
			   le16toh(id->cntlid), (unsigned)c->cntlid);
		return -EPROTO;
	}
	if (!c->t->no_keyed_sgls && !(le32toh(id->sgls) & NVME_CTRL_SGLS_KEYED)) {
		nvmfh_errf(c, "controller does not support keyed SGL data blocks (SGLS bit 2)");
		return -EPROTO;
	}
	if (id->icdoff) {
		nvmfh_errf(c,
			   "controller wants in-capsule data at offset %u (ICDOFF); only 0 is "
			   "supported",
			   le16toh(id->icdoff));
		return -EPROTO;
	}
	if (!discovery) {
		if (le32toh(id->ioccsz) < 4 || le32toh(id->iorcsz) < 1) {
			nvmfh_errf(
				c,
				"invalid I/O capsule sizes: IOCCSZ %u (min 4), IORCSZ %u (min 1)",
				le32toh(id->ioccsz), le32toh(id->iorcsz));
			return -EPROTO;
		}
		if (!id->kas && !c->opts.no_keep_alive) {
			nvmfh_errf(c, "controller reports no Keep Alive support (KAS 0), which "
				      "fabrics require");
			return -EPROTO;
		}
	}
	/* MDTS in units of CAP.MPSMIN pages; MPSMIN 0 = 4 KiB (the only size we set). */
	uint64_t mx = id->mdts ? (uint64_t)4096 << id->mdts : NVMFH_MAX_XFER;
	uint32_t max_xfer = mx > NVMFH_MAX_XFER ? NVMFH_MAX_XFER : (uint32_t)mx;
	if (!reconnect) {
		c->id = *id;
		c->discovery = discovery;
		c->max_xfer = max_xfer;
		return 0;
	}
	if (discovery != c->discovery) {
		nvmfh_errf(c, "reconnect: %s is %s a discovery controller", c->subnqn,
			   discovery ? "now" : "no longer");
		return -EPROTO;
	}
	if (max_xfer < c->max_xfer || le32toh(id->ioccsz) < le32toh(c->id.ioccsz)) {
		nvmfh_errf(c,
			   "reconnect: the controller now moves %u bytes per command with "
			   "IOCCSZ %u; the queues were built for %u bytes and IOCCSZ %u",
			   max_xfer, le32toh(id->ioccsz), c->max_xfer, le32toh(c->id.ioccsz));
		return -EPROTO;
	}
	return 0;
}

/* Set Features Number of Queues (fid 07h): NSQR/NCQR 0's based; granted the same. */
static int negotiate_queues(struct nvmf_ctrl *c, unsigned want, unsigned *granted)
{
	uint32_t res = 0;
	uint32_t v = (want - 1) | (want - 1) << 16;
	int rc = nvmf_set_features(c, NVME_FEAT_FID_NUM_QUEUES, 0, v, &res);
	if (rc) {
		nvmfh_errf(c, "Set Features Number of Queues (%u): %s", want, nvmf_strerror(rc));
		return rc;
	}
	unsigned nsqa = (res & 0xffff) + 1, ncqa = (res >> 16) + 1;
	unsigned n = nsqa < ncqa ? nsqa : ncqa;
	*granted = n < want ? n : want;
	return 0;
}

/* Keep Alive (NVMe Base 3.9), timed out after KATO as the Linux host does. Not nvmfh_admin:
 * the controller's message belongs to the application's calls; a failure leaves its cause
 * in the admin queue's lost_why, which the reset names. */
static void send_keep_alive(struct nvmf_ctrl *c)
{
	struct nvme_sqe sqe;
	char why[NVMFH_LOST_WHY_MAX];
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = nvme_admin_keep_alive;
	int rc = admin_exec(c, &sqe, NULL, 0, false, NULL, (int)c->opts.kato_ms, why, sizeof(why));
	pthread_mutex_lock(&c->ka_lock);
	if (!rc)
		c->ka_sent++;
	pthread_mutex_unlock(&c->ka_lock);
}

/* Tell the program the state the controller is in, once per change (controller thread). */
static void notify(struct nvmf_ctrl *c)
{
	unsigned st = atomic_load(&c->word) & 3;
	if (st == c->notified)
		return;
	c->notified = st;
	if (c->opts.state_cb)
		c->opts.state_cb(c->opts.state_arg, c, (int)st);
}

static int establish_admin(struct nvmf_ctrl *c, bool reconnect, unsigned *granted);

/* ctrl_loss_tmo passed: LOST, the message saying so (and why the last attempt failed). */
static void give_up(struct nvmf_ctrl *c)
{
	char why[sizeof(c->reset_why)];
	nvmfh_ctrl_lost_why(c, why, sizeof(why));
	pthread_mutex_lock(&c->ka_lock);
	snprintf(c->reset_why, sizeof(c->reset_why), "%s", why);
	atomic_store_explicit(&c->word, (atomic_load(&c->word) & ~3u) | NVMF_CTRL_LOST,
			      memory_order_release);
	pthread_mutex_unlock(&c->ka_lock);
}

/* CONNECTING: give up after ctrl_loss_tmo, fail waiting commands after fast_io_fail_tmo,
 * try a new association when due. */
static void reconnect_step(struct nvmf_ctrl *c)
{
	uint64_t now = nvmf_mono_ms();
	pthread_mutex_lock(&c->ka_lock);
	uint64_t lost = atomic_load(&c->lost_ms), next = c->next_attempt_ms;
	if (c->ka_stop) { /* nvmf_disconnect or nvmf_reconnect waits for this thread */
		pthread_mutex_unlock(&c->ka_lock);
		return;
	}
	pthread_mutex_unlock(&c->ka_lock);
	if (c->opts.ctrl_loss_tmo_ms > 0 && now >= lost + (uint64_t)c->opts.ctrl_loss_tmo_ms) {
		give_up(c);
		return;
	}
	if (c->opts.fast_io_fail_tmo_ms > 0 && now >= lost + (uint64_t)c->opts.fast_io_fail_tmo_ms)
		atomic_store(&c->fast_failed, true);
	if (now < next)
		return;
	unsigned granted;
	/* The attempt's messages are its own (nvmf_ctrl_errmsg is the application's): kept
	 * for the message of a controller that is lost in the end. */
	char err[NVMFH_ERRMSG_MAX];
	nvmfh_errf_divert(err, sizeof(err));
	pthread_mutex_lock(&c->admin_lock); /* recursive: the setup's own admin commands */
	int rc = establish_admin(c, true, &granted);
	pthread_mutex_unlock(&c->admin_lock);
	if (!rc) {
		/* Events asked for are asked for again, AERs posted (aen.c); a refusal fails
		 * the attempt, as it fails nvmf_reconnect. */
		rc = nvmfh_aen_start(c);
		if (rc) {
			pthread_mutex_lock(&c->admin_lock);
			nvmfh_queue_abort(&c->admin, -ECONNRESET);
			pthread_mutex_unlock(&c->admin_lock);
		}
	}
	nvmfh_errf_divert(NULL, 0);
	if (!rc && c->opts.ctrl_loss_tmo_ms > 0 &&
	    nvmf_mono_ms() >= lost + (uint64_t)c->opts.ctrl_loss_tmo_ms) {
		/* Too late: the owners failed their commands at the deadline already (by the
		 * clock), so the new association is not used. */
		pthread_mutex_lock(&c->admin_lock);
		nvmfh_queue_abort(&c->admin, -ECONNRESET);
		pthread_mutex_unlock(&c->admin_lock);
		give_up(c);
		return;
	}
	pthread_mutex_lock(&c->ka_lock);
	if (rc) {
		c->next_attempt_ms = nvmf_mono_ms() + c->opts.reconnect_delay_ms;
		snprintf(c->attempt_why, sizeof(c->attempt_why), "%s",
			 err[0] ? err : nvmf_strerror(rc));
	} else {
		/* A new generation, LIVE: each I/O queue's owner connects to it. */
		unsigned gen = (atomic_load(&c->word) >> 2) + 1;
		atomic_store(&c->fast_failed, false);
		atomic_store_explicit(&c->word, gen << 2 | NVMF_CTRL_LIVE, memory_order_release);
		c->reset_why[0] = 0;
		c->attempt_why[0] = 0;
		c->reconnects++;
	}
	pthread_mutex_unlock(&c->ka_lock);
}

/* One pass of the controller thread's work (ka_lock not held). */
static void ctrl_work(struct nvmf_ctrl *c, uint64_t *next_ka, unsigned ka_period)
{
	notify(c);
	if ((atomic_load(&c->word) & 3) == NVMF_CTRL_LIVE) {
		nvmfh_ctrl_send_aborts(c);
		uint64_t now = nvmf_mono_ms();
		if (ka_period && now >= *next_ka) {
			*next_ka = now + ka_period;
			send_keep_alive(c);
		}
		unsigned word = atomic_load(&c->word);
		pthread_mutex_lock(&c->admin_lock);
		bool lost = c->admin.lost || !c->admin.connected;
		char why[NVMFH_LOST_WHY_MAX + 16];
		snprintf(why, sizeof(why), "admin queue: %s", c->admin.lost_why);
		pthread_mutex_unlock(&c->admin_lock);
		if (lost)
			nvmfh_ctrl_request_reset(c, word, why, false);
		notify(c);
	}
	unsigned st = atomic_load(&c->word) & 3;
	if (st == NVMF_CTRL_LIVE)
		return;
	pthread_mutex_lock(&c->ka_lock);
	c->nr_aborts = 0; /* the reset ends those commands anyway */
	pthread_mutex_unlock(&c->ka_lock);
	pthread_mutex_lock(&c->admin_lock);
	if (c->admin.connected)
		nvmfh_queue_abort(&c->admin, -ECONNRESET);
	pthread_mutex_unlock(&c->admin_lock);
	if (st == NVMF_CTRL_CONNECTING) {
		reconnect_step(c);
		notify(c);
	}
}

/* How long the controller thread may sleep (ka_lock held). */
static uint64_t sleep_ms(struct nvmf_ctrl *c, uint64_t next_ka, unsigned ka_period)
{
	unsigned st = atomic_load(&c->word) & 3;
	uint64_t now = nvmf_mono_ms(), until = now + 1000;
	if (c->nr_aborts || st != c->notified)
		return 0;
	if (st == NVMF_CTRL_LIVE && ka_period && next_ka < until)
		until = next_ka;
	if (st == NVMF_CTRL_CONNECTING) {
		if (c->next_attempt_ms < until)
			until = c->next_attempt_ms;
		if (c->opts.fast_io_fail_tmo_ms > 0 &&
		    atomic_load(&c->lost_ms) + (uint64_t)c->opts.fast_io_fail_tmo_ms < until)
			until = atomic_load(&c->lost_ms) + (uint64_t)c->opts.fast_io_fail_tmo_ms;
		if (c->opts.ctrl_loss_tmo_ms > 0 &&
		    atomic_load(&c->lost_ms) + (uint64_t)c->opts.ctrl_loss_tmo_ms < until)
			until = atomic_load(&c->lost_ms) + (uint64_t)c->opts.ctrl_loss_tmo_ms;
	}
	return until > now ? until - now : 0;
}

/* The controller thread: Keep Alive every kato/2, Aborts, and automatic reconnect. */
static void *ctrl_thread_main(void *arg)
{
	struct nvmf_ctrl *c = arg;
	unsigned ka_period = c->opts.kato_ms / 2 ? c->opts.kato_ms / 2 : 1;
	if (c->opts.no_keep_alive || !c->opts.kato_ms)
		ka_period = 0;
	uint64_t next_ka = nvmf_mono_ms() + ka_period;

	pthread_mutex_lock(&c->ka_lock);
	while (!c->ka_stop) {
		uint64_t ms = sleep_ms(c, next_ka, ka_period);
		if (ms) {
			struct timespec ts = nvmf_deadline_in_ms(ms);
			pthread_cond_timedwait(&c->ka_cond, &c->ka_lock, &ts);
		}
		if (c->ka_stop)
			break;
		pthread_mutex_unlock(&c->ka_lock);
		ctrl_work(c, &next_ka, ka_period);
		pthread_mutex_lock(&c->ka_lock);
	}
	pthread_mutex_unlock(&c->ka_lock);
	return NULL;
}

static int start_keep_alive(struct nvmf_ctrl *c)
{
	c->ka_stop = false;
	int rc = pthread_create(&c->ka_thread, NULL, ctrl_thread_main, c);
	if (rc) {
		nvmfh_errf(c, "cannot start the controller thread: %s", nvmf_strerror(-rc));
		return -rc;
	}
	c->ka_running = true;
	return 0;
}

static void stop_keep_alive(struct nvmf_ctrl *c)
{
	if (!c->ka_running)
		return;
	pthread_mutex_lock(&c->ka_lock);
	c->ka_stop = true;
	pthread_cond_signal(&c->ka_cond);
	pthread_mutex_unlock(&c->ka_lock);
	pthread_join(c->ka_thread, NULL);
	c->ka_running = false;
}

/* Disconnect every queue, I/O first (the association ends with the admin queue). */
static void teardown(struct nvmf_ctrl *c, int err)
{
	for (unsigned i = 0; i < c->nr_io; i++) {
		nvmfh_queue_fail_all(&c->io[i], err);
		disconnect_queue(c, &c->io[i]);
	}
	nvmfh_queue_fail_all(&c->admin, err);
	disconnect_queue(c, &c->admin);
}

/*
 * The admin half of the setup, up to the I/O queue size (c->queue_size) and, in
 * *@granted, the I/O queues the controller grants. @reconnect: c->nr_io queues exist
 * already and must all come back. On failure the admin queue is disconnected again (the
 * I/O queues are their owners'). The caller holds admin_lock when other threads may use
 * the controller (automatic reconnect).
 */
static int establish_admin(struct nvmf_ctrl *c, bool reconnect, unsigned *granted)
{
	pthread_mutex_lock(&c->err_lock); /* nvmf_ctrl_auth_info reads it */
	c->auth = (struct nvmf_auth_info){ 0 };
	pthread_mutex_unlock(&c->err_lock);
	*granted = 0;
	uint64_t cap, vs;
	struct nvme_id_ctrl *id = malloc(sizeof(*id));
	if (!id)
		return -ENOMEM;
	int rc = connect_queue(c, &c->admin, 0, NVMFH_ADMIN_QUEUE_SIZE);
	if (rc)
		goto fail;
	rc = prop_get(c, NVMF_PROP_CAP, true, &cap);
	if (rc) {
		nvmfh_errf(c, "Property Get CAP: %s", nvmf_strerror(rc));
		goto fail;
	}
	rc = enable(c, cap);
	if (rc)
		goto fail;
	rc = prop_get(c, NVMF_PROP_VS, false, &vs);
	if (rc) {
		nvmfh_errf(c, "Property Get VS: %s", nvmf_strerror(rc));
		goto fail;
	}
	rc = identify_ctrl(c, reconnect, id);
	if (rc)
		goto fail;
	if (!reconnect) {
		c->cap = cap;
		c->vs = (uint32_t)vs;
	}
	if (!c->discovery) {
		unsigned want = reconnect ? c->nr_io :
					    (c->opts.nr_io_queues ? c->opts.nr_io_queues : 1);
		rc = negotiate_queues(c, want, granted);
		if (rc)
			goto fail;
		if (reconnect && *granted < c->nr_io) {
			nvmfh_errf(c,
				   "reconnect: controller grants %u I/O queues, %u were connected",
				   *granted, c->nr_io);
			rc = -ENOSPC;
			goto fail;
		}
		unsigned qs = c->opts.queue_size ? c->opts.queue_size : NVMFH_DEFAULT_QUEUE_SIZE;
		if (qs > CAP_MQES(cap) + 1)
			qs = CAP_MQES(cap) + 1;
		if (le16toh(id->maxcmd) && qs > le16toh(id->maxcmd))
			qs = le16toh(id->maxcmd);
		if (qs < 2) {
			nvmfh_errf(c, "I/O queue size %u is too small (CAP.MQES %u)", qs,
				   CAP_MQES(cap));
			rc = -EINVAL;
			goto fail;
		}
		if (reconnect && qs < c->queue_size) {
			nvmfh_errf(c,
				   "reconnect: the controller now takes I/O queues of %u entries; "
				   "%u were connected",
				   qs, c->queue_size);
			rc = -ENOSPC;
			goto fail;
		}
		if (!reconnect)
			c->queue_size = qs;
	}
	free(id);
	return 0;
fail:
	free(id);
	nvmfh_queue_fail_all(&c->admin, -ECONNRESET);
	disconnect_queue(c, &c->admin);
	return rc;
}

/*
 * The whole setup sequence, with no other thread using @c. @reconnect: c->nr_io queues
 * exist already and must all come back. A new association: the word's generation moves
 * on. On failure every queue connected here is disconnected again.
 */
static int establish(struct nvmf_ctrl *c, bool reconnect)
{
	unsigned granted;
	unsigned gen = (atomic_load(&c->word) >> 2) + 1;
	atomic_store(&c->word, gen << 2 | NVMF_CTRL_LIVE);
	atomic_store(&c->fast_failed, false);
	c->reset_why[0] = 0;
	c->nr_aborts = 0;
	if (!reconnect)
		c->notified = NVMF_CTRL_LIVE; /* a connect is no change to tell */
	/* else: the controller thread tells the program LIVE unless it was told that last. */
	int rc = establish_admin(c, reconnect, &granted);
	if (rc)
		goto fail;
	if (!c->discovery && !reconnect) {
		c->io = calloc(granted, sizeof(*c->io));
		if (!c->io) {
			rc = -ENOMEM;
			goto fail;
		}
		c->nr_io = granted;
	}
	for (unsigned i = 0; i < c->nr_io; i++) {
		rc = connect_queue(c, &c->io[i], (uint16_t)(i + 1), (uint16_t)c->queue_size);
		if (rc)
			goto fail;
	}
	rc = start_keep_alive(c);
	if (rc)
		goto fail;
	/* aen: asynchronous events configured and AERs posted again (aen.c). */
	rc = nvmfh_aen_start(c);
	if (rc) {
		nvmfh_aen_stop(c);
		stop_keep_alive(c);
		goto fail;
	}
	return 0;
fail:
	/* No association and no controller thread: nothing waits, nvmf_reconnect again or
	 * nvmf_disconnect. */
	snprintf(c->reset_why, sizeof(c->reset_why), "nvmf_reconnect failed: %.*s",
		 (int)sizeof(c->reset_why) - 32, c->errmsg);
	atomic_store(&c->word, gen << 2 | NVMF_CTRL_LOST);
	teardown(c, -ECONNRESET);
	return rc;
}

/* Before the queues' commands fail at nvmf_disconnect/nvmf_reconnect: their callbacks
 * may submit again, which must fail rather than wait for an association (recovery.c). */
static void publish_lost(struct nvmf_ctrl *c)
{
	atomic_store(&c->word, (atomic_load(&c->word) & ~3u) | NVMF_CTRL_LOST);
}

static void ctrl_free(struct nvmf_ctrl *c)
{
	for (unsigned i = 0; i < c->nr_io; i++)
		nvmfh_queue_release(&c->io[i]);
	free(c->io);
	nvmfh_queue_release(&c->admin);
	nvmfh_auth_fini(c);
	nvmfh_aen_free(c); /* aen */
	pthread_mutex_destroy(&c->admin_lock);
	pthread_mutex_destroy(&c->ka_lock);
	pthread_cond_destroy(&c->ka_cond);
	pthread_mutex_destroy(&c->err_lock);
	free(c);
}

static int copy_opts(struct nvmf_ctrl *c, const struct nvmf_ctrl_opts *o)
{
	char err[NVMFH_ERRMSG_MAX - 32];
	c->opts = *o;
	if (!o->transport && (!o->traddr || !o->traddr[0])) {
		nvmfh_errf(c, "no target address (opts.traddr)");
		return -EINVAL;
	}
	const char *sub = o->subnqn && o->subnqn[0] ? o->subnqn : NVMF_DISC_NQN;
	const char *svc = o->trsvcid && o->trsvcid[0] ? o->trsvcid : "4420";
	if (strlen(sub) > NVMF_NQN_MAX) {
		nvmfh_errf(c, "subsystem NQN is %zu characters, at most %u allowed", strlen(sub),
			   NVMF_NQN_MAX);
		return -EINVAL;
	}
	if ((o->traddr && strlen(o->traddr) >= sizeof(c->traddr)) ||
	    strlen(svc) >= sizeof(c->trsvcid)) {
		nvmfh_errf(c, "traddr or trsvcid too long");
		return -EINVAL;
	}
	snprintf(c->traddr, sizeof(c->traddr), "%s", o->traddr ? o->traddr : "");
	uint16_t port;
	if (!o->transport && nvmf_port_parse(svc, &port)) { /* rdma and tcp: a port number */
		nvmfh_errf(c, "trsvcid '%.32s': not a port number (1-65535)", svc);
		return -EINVAL;
	}
	snprintf(c->trsvcid, sizeof(c->trsvcid), "%s", svc);
	snprintf(c->subnqn, sizeof(c->subnqn), "%s", sub);
	int rc = nvmfh_host_identity("/etc/nvme", o->hostnqn, o->hostid, c->hostnqn, c->hostid, err,
				     sizeof(err));
	if (rc) {
		nvmfh_errf(c, "host identity: %s", err);
		return rc;
	}
	c->opts.traddr = c->traddr;
	c->opts.trsvcid = c->trsvcid;
	c->opts.subnqn = c->subnqn;
	c->opts.hostnqn = c->hostnqn;
	c->opts.hostid = c->hostid;
	if (!c->opts.kato_ms)
		c->opts.kato_ms = NVMFH_DEFAULT_KATO_MS;
	if (c->opts.no_keep_alive)
		c->opts.kato_ms = 0;
	if (c->opts.timeout_ms <= 0)
		c->opts.timeout_ms = NVMFH_DEFAULT_TIMEOUT_MS;
	if (!c->opts.io_timeout_ms)
		c->opts.io_timeout_ms = NVMFH_DEFAULT_IO_TIMEOUT_MS;
	else if (c->opts.io_timeout_ms < 0)
		c->opts.io_timeout_ms = 0; /* none */
	if (!c->opts.reconnect_delay_ms)
		c->opts.reconnect_delay_ms = NVMFH_DEFAULT_RECONNECT_DELAY_MS;
	c->auto_reconnect = c->opts.ctrl_loss_tmo_ms != 0;
	if (c->opts.fast_io_fail_tmo_ms < 0) {
		nvmfh_errf(c,
			   "fast_io_fail_tmo_ms %d: 0 (wait until ctrl_loss_tmo_ms) or a time in "
			   "ms",
			   c->opts.fast_io_fail_tmo_ms);
		return -EINVAL;
	}
	if (c->opts.ctrl_loss_tmo_ms > 0 &&
	    c->opts.reconnect_delay_ms > (unsigned)c->opts.ctrl_loss_tmo_ms) {
		nvmfh_errf(c,
			   "reconnect_delay_ms %u is longer than ctrl_loss_tmo_ms %d: no reconnect "
			   "would ever be tried",
			   c->opts.reconnect_delay_ms, c->opts.ctrl_loss_tmo_ms);
		return -EINVAL;
	}
	if (!c->auto_reconnect && (o->reconnect_delay_ms || o->fast_io_fail_tmo_ms)) {
		nvmfh_errf(c, "%s is for automatic reconnect: set ctrl_loss_tmo_ms too",
			   o->reconnect_delay_ms ? "reconnect_delay_ms" : "fast_io_fail_tmo_ms");
		return -EINVAL;
	}
	/* The secrets live parsed in c (for reconnect); the caller's strings are not kept. */
	rc = nvmfh_auth_init(c, o);
	c->opts.dhchap_secret = c->opts.dhchap_ctrl_secret = NULL;
	if (rc)
		return rc;
	/* By trtype: RDMA (rdma/host/) the default, TCP (tcp/host/). */
	if (o->transport)
		c->t = o->transport;
	else if (!o->trtype || !o->trtype[0] || !strcmp(o->trtype, "rdma"))
		c->t = &nvmf_rdma_host_transport;
	else if (!strcmp(o->trtype, "tcp"))
		c->t = &nvmf_tcp_host_transport;
	else {
		nvmfh_errf(c, "trtype '%.32s': not a transport of libnvmf (rdma or tcp)",
			   o->trtype);
		return -EINVAL;
	}
	c->opts.trtype = c->t->name; /* not the caller's string: reconnect outlives it */
	if (c->opts.tls_key && strcmp(c->t->name, "tcp")) {
		nvmfh_errf(c, "tls_key: TLS is a secure channel of NVMe/TCP (trtype tcp), not %s",
			   c->t->name);
		return -EINVAL;
	}
	return 0;
}

int nvmf_connect(const struct nvmf_ctrl_opts *opts, struct nvmf_ctrl **out)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	nvmfh_set_last_errmsg("");
	if (!opts) {
		nvmfh_set_last_errmsg("nvmf_connect: no options");
		return -EINVAL;
	}
	struct nvmf_ctrl *c = calloc(1, sizeof(*c));
	if (!c) {
		nvmfh_set_last_errmsg("nvmf_connect: out of memory");
		return -ENOMEM;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->ka_cond, &ca);
	pthread_condattr_destroy(&ca);
	/* Recursive: an automatic reconnect holds it across the setup's admin commands. */
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&c->admin_lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutex_init(&c->ka_lock, NULL);
	pthread_mutex_init(&c->err_lock, NULL);

	int rc = copy_opts(c, opts);
	if (!rc)
		rc = establish(c, false);
	if (rc) {
		nvmfh_set_last_errmsg(c->errmsg);
		ctrl_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* Normal shutdown: CC.SHN = 01b, wait for CSTS.SHST = 10b (NVMe Base 3.6.1). */
static int shutdown_ctrl(struct nvmf_ctrl *c)
{
	c->cc = (c->cc & ~CC_SHN_MASK) | CC_SHN_NORMAL;
	int rc = prop_set(c, NVMF_PROP_CC, c->cc);
	if (rc) {
		nvmfh_errf(c, "Property Set CC.SHN: %s", nvmf_strerror(rc));
		return rc;
	}
	return wait_csts(c, CSTS_SHST_MASK, CSTS_SHST_DONE, (unsigned)timeout_of(c),
			 "CSTS.SHST shutdown complete");
}

int nvmf_disconnect(struct nvmf_ctrl *c)
{
	if (!c)
		return -EINVAL;
	nvmfh_aen_stop(c); /* aen */
	stop_keep_alive(c);
	publish_lost(c);
	/* Commands still outstanding complete first: no callback may run after we return. */
	for (unsigned i = 0; i < c->nr_io; i++)
		nvmfh_queue_fail_all(&c->io[i], -ECONNABORTED);
	int rc = c->admin.lost || !c->admin.connected ? 0 : shutdown_ctrl(c);
	teardown(c, -ECONNABORTED);
	ctrl_free(c);
	return rc;
}

int nvmf_reconnect(struct nvmf_ctrl *c)
{
	if (!c)
		return -EINVAL;
	nvmfh_aen_stop(c); /* aen */
	stop_keep_alive(c);
	publish_lost(c);
	teardown(c, -ECONNRESET);
	for (unsigned i = 0; i < c->nr_io; i++) {
		c->io[i].ns_cached = 0;
		c->io[i].ns_next = 0;
	}
	nvmfh_errf(c, "%s", "");
	return establish(c, true);
}

bool nvmfh_ctrl_lost(struct nvmf_ctrl *c)
{
	pthread_mutex_lock(&c->admin_lock);
	bool lost = c->admin.lost || !c->admin.connected;
	pthread_mutex_unlock(&c->admin_lock);
	return lost;
}

int nvmf_ctrl_state(const struct nvmf_ctrl *c)
{
	if (!c)
		return NVMF_CTRL_LOST;
	struct nvmf_ctrl *m = (struct nvmf_ctrl *)c;
	int st = (int)(atomic_load(&m->word) & 3);
	/* Past ctrl_loss_tmo the commands fail already, while the controller thread may
	 * still be inside its last attempt. */
	if (st == NVMF_CTRL_CONNECTING && nvmfh_ctrl_waiting_fate(m) == -ENODEV)
		return NVMF_CTRL_LOST;
	return st;
}

const char *nvmf_ctrl_state_str(int state)
{
	switch (state) {
	case NVMF_CTRL_LIVE:
		return "live";
	case NVMF_CTRL_CONNECTING:
		return "connecting";
	case NVMF_CTRL_LOST:
		return "lost";
	default:
		return "unknown";
	}
}

unsigned long nvmf_ctrl_reconnects(struct nvmf_ctrl *c)
{
	if (!c)
		return 0;
	pthread_mutex_lock(&c->ka_lock);
	unsigned long n = c->reconnects;
	pthread_mutex_unlock(&c->ka_lock);
	return n;
}

const struct nvme_id_ctrl *nvmf_ctrl_id(const struct nvmf_ctrl *c)
{
	return c ? &c->id : NULL;
}

uint16_t nvmf_ctrl_cntlid(const struct nvmf_ctrl *c)
{
	return c ? c->cntlid : 0;
}

unsigned nvmf_ctrl_nr_io_queues(const struct nvmf_ctrl *c)
{
	return c ? c->nr_io : 0;
}

unsigned nvmf_ctrl_queue_size(const struct nvmf_ctrl *c)
{
	return c ? c->queue_size : 0;
}

uint32_t nvmf_ctrl_max_xfer(const struct nvmf_ctrl *c)
{
	return c ? c->max_xfer : 0;
}

struct nvmf_queue *nvmf_io_queue(struct nvmf_ctrl *c, unsigned idx)
{
	return c && idx < c->nr_io ? &c->io[idx] : NULL;
}

/* Under admin_lock: the controller thread replaces the admin queue's connection while it
 * reconnects (the RDMA device keeps the regions while any is registered). */
int nvmf_mem_register(struct nvmf_ctrl *c, void *addr, size_t len)
{
	if (!c || !addr || !len)
		return -EINVAL;
	if (!c->t->mem_register)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&c->admin_lock);
	int rc = c->t->mem_register(&c->admin.hq, addr, len);
	pthread_mutex_unlock(&c->admin_lock);
	return rc;
}

int nvmf_mem_unregister(struct nvmf_ctrl *c, void *addr)
{
	if (!c || !addr)
		return -EINVAL;
	if (!c->t->mem_unregister)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&c->admin_lock);
	int rc = c->t->mem_unregister(&c->admin.hq, addr);
	pthread_mutex_unlock(&c->admin_lock);
	return rc;
}
