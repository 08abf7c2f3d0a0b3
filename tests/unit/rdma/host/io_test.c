/* The RDMA host transport's data path (rdma/host/io.c) on a scripted device: the inline
 * verbs (post_send, post_recv, poll_cq) reach a fake ibv_context's ops, so capsules out and
 * completions in run without RDMA. The library's own command table (initiator/queue.c)
 * drives the queue, as in production. Bounce buffers need a real PD: the VM tests. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "initiator/internal.h"
#include "nvme/sgl.h"
#include "rdma/host/host.h"
#include "tests/unit/suites.h"
#include "util/clock.h"

enum { QSIZE = 4, NSLOTS = 2 * QSIZE, STRIDE = 4096 };

/* The scripted device: what was posted, what poll_cq hands back next. */
struct dev {
	struct ibv_context ctx;
	struct ibv_qp qp;
	struct ibv_cq cq;
	int send_rc;   /* post_send's answer */
	int send_room; /* > 0: WRs taken before ENOMEM (a full send queue); 0: no limit */
	unsigned sends, recvs, posts; /* WRs posted, RECVs posted, post_send calls */
	uint32_t sent_slots[16];      /* the slots of the SENDs posted, in order */
	struct ibv_send_wr last_send; /* a copy of the last WR posted */
	struct ibv_sge last_sge[2];
	uint64_t last_recv_wr_id;
	struct ibv_wc wc[8];
	int nwc;  /* handed out at the next poll_cq, then none */
	int hold; /* poll_cq calls that find nothing before those come */
};

/* One RDMA host queue on the scripted device, under a core queue of the library. */
struct rig {
	struct dev dev;
	struct nvmf_ctrl *ctrl;
	struct nvmf_queue core;
	struct nvmf_rh_queue q;
	struct nvmf_rdma_dev rdev;
	struct rdma_cm_id id;
	struct rdma_event_channel ec;
	struct ibv_comp_channel cc;
	int cc_pipe[2];
	struct nvmf_rh_slot slots[NSLOTS];
	struct nvme_sqe sqes[NSLOTS];
	uint32_t free_slots[NSLOTS];
	struct nvme_cqe rsp[QSIZE];
	struct ibv_recv_wr rwr[QSIZE];
	struct ibv_mr icd_mr;
	uint8_t icd[NSLOTS * STRIDE];
};

/*
 * The CM channel's events, scripted: the unit binary links with --wrap for
 * rdma_get_cm_event and rdma_ack_cm_event (Makefile UNIT_WRAP). A rig's channel (its fd is
 * cm_script.fd) hands out the scripted event once, then says EAGAIN as an empty
 * non-blocking channel does; every other channel goes to librdmacm.
 */
static struct {
	int fd;       /* the rig's channel, -1: none */
	bool pending; /* an event to hand out */
	struct rdma_cm_event ev;
	unsigned gets; /* rdma_get_cm_event calls on the rig's channel */
} cm_script = { .fd = -1 };

int __real_rdma_get_cm_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev);
int __wrap_rdma_get_cm_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev);
int __real_rdma_ack_cm_event(struct rdma_cm_event *ev);
int __wrap_rdma_ack_cm_event(struct rdma_cm_event *ev);

int __wrap_rdma_get_cm_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev)
{
	if (cm_script.fd < 0 || ch->fd != cm_script.fd)
		return __real_rdma_get_cm_event(ch, ev);
	cm_script.gets++;
	if (!cm_script.pending) {
		errno = EAGAIN;
		return -1;
	}
	cm_script.pending = false;
	*ev = &cm_script.ev;
	return 0;
}

int __wrap_rdma_ack_cm_event(struct rdma_cm_event *ev)
{
	return ev == &cm_script.ev ? 0 : __real_rdma_ack_cm_event(ev);
}

/* The rig's channel has @type to say at its next look. */
static void cm_say(enum rdma_cm_event_type type)
{
	memset(&cm_script.ev, 0, sizeof(cm_script.ev));
	cm_script.ev.event = type;
	cm_script.pending = true;
}

static struct rig *rig_of(struct ibv_context *ctx)
{
	return (struct rig *)((char *)ctx - offsetof(struct rig, dev.ctx));
}

static int fk_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct dev *d = &rig_of(qp->context)->dev;
	*bad = NULL;
	d->posts++;
	for (; wr; wr = wr->next) {
		if (d->send_rc || (d->send_room && d->sends >= (unsigned)d->send_room)) {
			*bad = wr;
			return d->send_rc ? d->send_rc : ENOMEM;
		}
		if (d->sends < 16)
			d->sent_slots[d->sends] = (uint32_t)wr->wr_id;
		d->sends++;
		d->last_send = *wr;
		for (int i = 0; i < wr->num_sge && i < 2; i++)
			d->last_sge[i] = wr->sg_list[i];
	}
	return 0;
}

static int fk_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct dev *d = &rig_of(qp->context)->dev;
	*bad = NULL;
	d->recvs++;
	d->last_recv_wr_id = wr->wr_id;
	return 0;
}

static int fk_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct dev *d = &rig_of(cq->context)->dev;
	if (d->hold > 0) {
		d->hold--;
		return 0;
	}
	int k = d->nwc < n ? d->nwc : n;
	memcpy(wc, d->wc, sizeof(*wc) * (size_t)k);
	d->nwc = 0;
	return k;
}

static int fk_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	return 0;
}

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->dev.ctx.ops.post_send = fk_post_send;
	r->dev.ctx.ops.post_recv = fk_post_recv;
	r->dev.ctx.ops.poll_cq = fk_poll_cq;
	r->dev.ctx.ops.req_notify_cq = fk_req_notify_cq;
	r->dev.qp.context = &r->dev.ctx;
	r->dev.cq.context = &r->dev.ctx;
	r->ctrl = calloc(1, sizeof(*r->ctrl));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->ctrl);
	r->ctrl->t = &nvmf_rdma_host_transport;
	CU_ASSERT_EQUAL_FATAL(nvmfh_queue_setup(&r->core, r->ctrl, 1, QSIZE), 0);
	struct nvmf_rh_queue *q = &r->q;
	r->core.hq.tpriv = q;
	q->hq = &r->core.hq;
	q->dev = &r->rdev;
	q->id = &r->id;
	r->id.qp = &r->dev.qp;
	q->cq = &r->dev.cq;
	/* The CM channel: scripted (cm_say), nothing to say until a test says so. Its fd is
	 * /dev/null, which poll(2) always finds readable. */
	r->ec.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	q->ec = &r->ec;
	cm_script.fd = r->ec.fd;
	cm_script.pending = false;
	cm_script.gets = 0;
	/* The completion channel: a pipe nobody writes, never readable. */
	CU_ASSERT_EQUAL_FATAL(pipe(r->cc_pipe), 0);
	r->cc.fd = r->cc_pipe[0];
	q->cc = &r->cc;
	q->connected = true;
	q->qid = 1;
	q->size = QSIZE;
	q->nslots = NSLOTS;
	q->slots = r->slots;
	q->free_slots = r->free_slots;
	for (uint32_t i = 0; i < NSLOTS; i++) {
		r->slots[i].sqe = &r->sqes[i];
		r->slots[i].wr.wr_id = (uint64_t)NVMF_RH_WR_SEND << 32 | i;
		r->slots[i].wr.sg_list = r->slots[i].sge;
		q->free_slots[q->nfree++] = i;
	}
	for (uint32_t i = 0; i < QSIZE; i++)
		r->rwr[i].wr_id = (uint64_t)NVMF_RH_WR_RECV << 32 | i;
	q->rsp = r->rsp;
	q->rwr = r->rwr;
	r->icd_mr.lkey = 0x77;
	q->icd_mem = r->icd;
	q->icd_mr = &r->icd_mr;
	q->icd_stride = STRIDE;
	q->incapsule = STRIDE;
	return r;
}

static void rig_free(struct rig *r)
{
	nvmfh_queue_release(&r->core);
	cm_script.fd = -1;
	close(r->ec.fd);
	close(r->cc_pipe[0]);
	close(r->cc_pipe[1]);
	free(r->ctrl);
	free(r);
}

/* The device's next poll_cq: a SEND completion of slot @slot. */
static void wc_send(struct rig *r, uint32_t slot)
{
	r->dev.wc[r->dev.nwc++] = (struct ibv_wc){ .wr_id = (uint64_t)NVMF_RH_WR_SEND << 32 | slot,
						   .status = IBV_WC_SUCCESS,
						   .opcode = IBV_WC_SEND };
}

/* ... a RECV completion in receive @idx carrying a CQE for @cid (@len bytes received). */
static void wc_recv(struct rig *r, uint32_t idx, uint16_t cid, uint32_t len)
{
	r->rsp[idx] = (struct nvme_cqe){ .command_id = cid };
	r->dev.wc[r->dev.nwc++] = (struct ibv_wc){ .wr_id = (uint64_t)NVMF_RH_WR_RECV << 32 | idx,
						   .status = IBV_WC_SUCCESS,
						   .opcode = IBV_WC_RECV,
						   .byte_len = len };
}

struct done {
	unsigned calls;
	int status;
};

static void done_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct done *d = arg;
	d->calls++;
	d->status = status;
}

static const struct nvme_sqe flush_sqe = { .opcode = 0x00, .nsid = 1 };

static void a_slot_is_free_only_after_both_its_send_and_its_cqe(void)
{
	struct rig *r = rig_new();
	struct done d = { 0 };
	uint16_t cid;
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &d, &cid), 0);
	CU_ASSERT_EQUAL(r->dev.sends, 0); /* an I/O queue posts at its next poll */
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_EQUAL(r->dev.sends, 1);
	CU_ASSERT_EQUAL(r->dev.last_send.num_sge, 1); /* the SQE only */
	CU_ASSERT_EQUAL(r->q.nfree, NSLOTS - 1);
	uint32_t slot = (uint32_t)r->dev.last_send.wr_id;
	/* No data: a keyed SGL of length 0, type 0x40 (never 0x4F: nothing to invalidate). */
	CU_ASSERT_EQUAL(r->sqes[slot].dptr.keyed.type, NVME_SGL_KEYED_ADDR);
	CU_ASSERT_EQUAL(r->sqes[slot].command_id, cid);
	/* The CQE first (an RC target may answer before our SEND completion is polled). */
	wc_recv(r, 2, cid, NVME_CQE_SIZE);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 1), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(r->dev.recvs, 1); /* the receive went back at once */
	CU_ASSERT_EQUAL(r->dev.last_recv_wr_id, (uint64_t)NVMF_RH_WR_RECV << 32 | 2);
	CU_ASSERT_EQUAL(r->q.nfree, NSLOTS - 1);
	wc_send(r, slot);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_EQUAL(r->q.nfree, NSLOTS);
	CU_ASSERT_FALSE(r->q.dead);
	/* The other order frees it too. */
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &d, &cid), 0);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	slot = (uint32_t)r->dev.last_send.wr_id;
	wc_send(r, slot);
	wc_recv(r, 0, cid, NVME_CQE_SIZE);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 1), 1);
	CU_ASSERT_EQUAL(d.calls, 2);
	CU_ASSERT_EQUAL(r->q.nfree, NSLOTS);
	rig_free(r);
}

static void a_small_write_travels_in_the_capsule_from_the_queues_own_area(void)
{
	struct rig *r = rig_new();
	uint8_t data[512];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 3 + 1);
	struct nvme_sqe wr = { .opcode = 0x01, .nsid = 1 };
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &wr, data, sizeof(data), true, NULL, NULL, NULL), 0);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	uint32_t slot = (uint32_t)r->dev.last_send.wr_id;
	CU_ASSERT_EQUAL(r->dev.last_send.num_sge, 2);
	CU_ASSERT_EQUAL(r->sqes[slot].dptr.keyed.type, NVME_SGL_INCAPSULE);
	const struct ibv_sge *d = &r->dev.last_sge[1];
	CU_ASSERT_EQUAL(d->lkey, 0x77);
	CU_ASSERT_EQUAL(d->length, sizeof(data));
	CU_ASSERT_EQUAL(d->addr, (uintptr_t)(r->icd + (size_t)slot * STRIDE));
	CU_ASSERT_EQUAL(memcmp(r->icd + (size_t)slot * STRIDE, data, sizeof(data)), 0);
	rig_free(r);
}

static void what_cannot_be_sent_is_refused_without_taking_a_slot(void)
{
	struct rig *r = rig_new();
	static uint8_t buf[8];
	struct nvme_sqe rd = { .opcode = 0x02, .nsid = 1 };
	/* More than a keyed SGL's 24-bit length (not in capsule: a read). */
	CU_ASSERT_EQUAL(r->core.hq.t->submit(
				&r->core.hq,
				&(struct nvmf_hcmd){
					.sqe = rd, .buf = buf, .len = NVME_SGL_KEYED_MAX_LEN + 1 }),
			-EINVAL);
	CU_ASSERT_EQUAL(r->core.hq.t->submit(&r->core.hq,
					     &(struct nvmf_hcmd){ .sqe = rd, .len = 8 }),
			-EINVAL); /* data without a buffer */
	/* Every slot taken: -EAGAIN. */
	uint32_t keep = r->q.nfree;
	r->q.nfree = 0;
	CU_ASSERT_EQUAL(r->core.hq.t->submit(&r->core.hq, &(struct nvmf_hcmd){ .sqe = flush_sqe }),
			-EAGAIN);
	r->q.nfree = keep;
	CU_ASSERT_EQUAL(r->dev.sends, 0);
	CU_ASSERT_EQUAL(r->q.nfree, NSLOTS);
	/* The admin queue posts at submit: a full send queue is -EAGAIN, the queue lives on. */
	r->q.qid = 0;
	r->dev.send_rc = ENOMEM;
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, NULL, NULL, NULL),
			-EAGAIN);
	CU_ASSERT_FALSE(r->q.dead);
	CU_ASSERT_EQUAL(r->q.nfree, NSLOTS);
	/* Any other post_send failure: the connection is gone. */
	r->dev.send_rc = EIO;
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, NULL, NULL, NULL),
			-ECONNRESET);
	CU_ASSERT_TRUE(r->q.dead);
	CU_ASSERT_EQUAL(r->q.nfree, NSLOTS);
	rig_free(r);
}

static void an_io_queue_posts_a_passs_commands_with_one_post_in_order(void)
{
	struct rig *r = rig_new();
	struct done d = { 0 };
	uint16_t cid[2];
	for (int i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false,
							 done_cb, &d, &cid[i]),
				      0);
	CU_ASSERT_EQUAL(r->dev.posts, 0);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_EQUAL(r->dev.posts, 1);
	CU_ASSERT_EQUAL(r->dev.sends, 2);
	for (int i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(r->sqes[r->dev.sent_slots[i]].command_id, cid[i]);
	/* Nothing new: the next pass posts nothing. */
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_EQUAL(r->dev.posts, 1);
	/* A wait posts what was submitted before it arms the CQ (here the CQ has a
	 * completion already, so it does not sleep). */
	uint16_t more;
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &d, &more), 0);
	wc_send(r, r->dev.sent_slots[0]);
	CU_ASSERT_EQUAL(r->core.hq.t->wait(&r->core.hq, 0), 0);
	CU_ASSERT_EQUAL(r->dev.posts, 2);
	CU_ASSERT_EQUAL(r->dev.sends, 3);
	CU_ASSERT_EQUAL(r->sqes[r->dev.sent_slots[2]].command_id, more);
	CU_ASSERT_EQUAL(d.calls, 0);
	rig_free(r);
}

static void a_full_send_queue_keeps_the_rest_for_the_next_pass(void)
{
	struct rig *r = rig_new();
	struct done d = { 0 };
	uint16_t cid[3];
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL_FATAL(nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false,
							 done_cb, &d, &cid[i]),
				      0);
	r->dev.send_room = 1; /* the device takes one WR, then says ENOMEM */
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_FALSE(r->q.dead);
	CU_ASSERT_EQUAL(r->dev.sends, 1);
	r->dev.send_room = 0;
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_EQUAL(r->dev.sends, 3); /* the two refused, not the one taken again */
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(r->sqes[r->dev.sent_slots[i]].command_id, cid[i]);
	CU_ASSERT_EQUAL(d.calls, 0);
	rig_free(r);
}

static void a_failed_post_ends_the_queue_and_fails_each_command_once(void)
{
	struct rig *r = rig_new();
	struct done d = { 0 };
	for (int i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false,
							 done_cb, &d, NULL),
				      0);
	r->dev.send_rc = EIO;
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), -ECONNRESET);
	CU_ASSERT_TRUE(r->q.dead);
	CU_ASSERT_EQUAL(d.calls, 2);
	CU_ASSERT_EQUAL(d.status, -ECONNRESET);
	CU_ASSERT_EQUAL(r->dev.sends, 0);
	rig_free(r);
}

/* A CQE in the CQ that the controller sent before it disconnected is an answer: the
 * command completes with its status, then the queue ends. The wait that woke up with the
 * CM channel readable leaves the look to the poll, after the CQ. */
static void an_answer_that_came_before_a_disconnect_is_delivered(void)
{
	struct rig *r = rig_new();
	struct done d = { 0 };
	uint16_t cid;
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &d, &cid), 0);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0); /* posted */
	/* While the host sleeps: the CQE, then DISCONNECTED. */
	wc_recv(r, 0, cid, NVME_CQE_SIZE);
	r->dev.hold = 1; /* the wait's own look at the CQ finds it empty */
	cm_say(RDMA_CM_EVENT_DISCONNECTED);
	CU_ASSERT_EQUAL(r->core.hq.t->wait(&r->core.hq, 1000), 0);
	CU_ASSERT_FALSE(r->q.dead);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_TRUE(r->q.dead); /* the disconnect, seen once the CQ was empty */
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(d.calls, 1);
	rig_free(r);
}

/* An idle queue that is polled (never waited on) still hears a disconnect; it asks the CM
 * channel at most once per millisecond of the coarse clock, not at every empty poll. */
static void an_idle_poll_looks_at_the_cm_channel_once_per_clock_tick(void)
{
	struct rig *r = rig_new();
	uint64_t t0 = nvmf_mono_coarse_ms();
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	uint64_t t1 = nvmf_mono_coarse_ms();
	CU_ASSERT_TRUE(cm_script.gets >= 1);
	CU_ASSERT_TRUE(cm_script.gets <= t1 - t0 + 1);
	CU_ASSERT_FALSE(r->q.dead);
	cm_say(RDMA_CM_EVENT_DISCONNECTED);
	int rc = 0;
	/* Heard at the next tick (a bound of 2 s, not a measurement). */
	for (uint64_t until = nvmf_mono_coarse_ms() + 2000;
	     rc == 0 && nvmf_mono_coarse_ms() < until;)
		rc = nvmfh_queue_poll(&r->core, 0);
	CU_ASSERT_EQUAL(rc, -ECONNRESET);
	CU_ASSERT_TRUE(r->q.dead);
	rig_free(r);
}

/* A post that fails: what the CQ already holds still completes with its status; the
 * commands that were not posted fail once, and the queue ends. */
static void a_failed_post_still_delivers_the_answers_in_the_cq(void)
{
	struct rig *r = rig_new();
	struct done a = { 0 }, b = { 0 };
	uint16_t cid;
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &a, &cid), 0);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &b, NULL), 0);
	r->dev.send_rc = EIO;
	wc_recv(r, 0, cid, NVME_CQE_SIZE);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 1);
	CU_ASSERT_EQUAL(a.calls, 1);
	CU_ASSERT_EQUAL(a.status, 0);
	CU_ASSERT_TRUE(r->q.dead);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(b.calls, 1);
	CU_ASSERT_EQUAL(b.status, -ECONNRESET);
	CU_ASSERT_EQUAL(a.calls, 1);
	/* Reaped a few at a time (max 1): every answer in the CQ still completes. */
	rig_free(r);
	r = rig_new();
	struct done c = { 0 }, e = { 0 };
	uint16_t cid2;
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &a, &cid), 0);
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &c, &cid2), 0);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &e, NULL), 0);
	r->dev.send_rc = EIO;
	wc_recv(r, 0, cid, NVME_CQE_SIZE);
	wc_recv(r, 1, cid2, NVME_CQE_SIZE);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 1), 1);
	CU_ASSERT_FALSE(r->q.dead);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 1), 1);
	CU_ASSERT_EQUAL(a.calls, 1);
	CU_ASSERT_EQUAL(a.status, 0);
	CU_ASSERT_EQUAL(c.calls, 1);
	CU_ASSERT_EQUAL(c.status, 0);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 1), -ECONNRESET);
	CU_ASSERT_TRUE(r->q.dead);
	CU_ASSERT_EQUAL(e.calls, 1);
	CU_ASSERT_EQUAL(e.status, -ECONNRESET);
	/* A provider that says "full" with a negative errno is a full queue too. */
	rig_free(r);
	r = rig_new();
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, NULL, NULL, NULL), 0);
	r->dev.send_rc = -ENOMEM;
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_FALSE(r->q.dead);
	r->dev.send_rc = 0;
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 0), 0);
	CU_ASSERT_EQUAL(r->dev.sends, 1);
	rig_free(r);
}

static void a_receive_that_is_no_cqe_or_a_failed_completion_ends_the_queue(void)
{
	struct rig *r = rig_new();
	struct done d = { 0 };
	uint16_t cid;
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, done_cb, &d, &cid), 0);
	wc_recv(r, 1, cid, NVME_CQE_SIZE - 1); /* short: not a CQE */
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&r->core, 1), -ECONNRESET);
	CU_ASSERT_TRUE(r->q.dead);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, -ECONNRESET);
	rig_free(r);

	r = rig_new();
	CU_ASSERT_EQUAL_FATAL(
		nvmfh_queue_submit(&r->core, &flush_sqe, NULL, 0, false, NULL, NULL, &cid), 0);
	CU_ASSERT_EQUAL(r->core.hq.t->poll(&r->core.hq, 0), 0);
	wc_send(r, (uint32_t)r->dev.last_send.wr_id);
	r->dev.wc[0].status = IBV_WC_RETRY_EXC_ERR;
	CU_ASSERT_EQUAL(r->core.hq.t->poll(&r->core.hq, 0), -ECONNRESET);
	CU_ASSERT_TRUE(r->q.dead);
	CU_ASSERT_EQUAL(r->core.hq.t->wait(&r->core.hq, 0), -ECONNRESET);
	rig_free(r);
}

static void incapsule_size_is_set_on_io_queues_and_only_shrinks_once_allocated(void)
{
	struct rig *r = rig_new();
	const struct nvmf_host_transport *t = &nvmf_rdma_host_transport;
	t->set_incapsule(&r->core.hq, 260); /* 4 KiB: the area holds it */
	CU_ASSERT_EQUAL(r->q.incapsule, 4096);
	t->set_incapsule(&r->core.hq, 1028); /* 16 KiB asked: slots in flight use the area */
	CU_ASSERT_EQUAL(r->q.incapsule, STRIDE);
	t->set_incapsule(&r->core.hq, 68); /* 1 KiB */
	CU_ASSERT_EQUAL(r->q.incapsule, 1024);
	r->q.qid = 0; /* admin capsules are always 64 bytes: unchanged */
	t->set_incapsule(&r->core.hq, 260);
	CU_ASSERT_EQUAL(r->q.incapsule, 1024);
	rig_free(r);
}

static void queue_without_connection_reports_connection_lost(void)
{
	struct nvmf_hq hq = { .t = &nvmf_rdma_host_transport };
	struct nvmf_hcmd cmd;
	memset(&cmd, 0, sizeof(cmd));
	CU_ASSERT_EQUAL(nvmf_rdma_host_transport.submit(&hq, &cmd), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_rdma_host_transport.poll(&hq, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_rdma_host_transport.wait(&hq, 0), -ECONNRESET);
	nvmf_rdma_host_transport.set_incapsule(&hq, 260); /* no effect, no crash */
	char buf[64];
	CU_ASSERT_EQUAL(nvmf_rdma_host_transport.mem_register(&hq, buf, sizeof(buf)), -ENOTCONN);
	CU_ASSERT_EQUAL(nvmf_rdma_host_transport.mem_unregister(&hq, buf), -EINVAL);
	CU_ASSERT_STRING_EQUAL(nvmf_rdma_host_transport.name, "rdma");
}

const struct unit_test rdma_host_io_tests[] = {
	{ "a_slot_is_free_only_after_both_its_send_and_its_cqe",
	  a_slot_is_free_only_after_both_its_send_and_its_cqe },
	{ "a_small_write_travels_in_the_capsule_from_the_queues_own_area",
	  a_small_write_travels_in_the_capsule_from_the_queues_own_area },
	{ "what_cannot_be_sent_is_refused_without_taking_a_slot",
	  what_cannot_be_sent_is_refused_without_taking_a_slot },
	{ "an_io_queue_posts_a_passs_commands_with_one_post_in_order",
	  an_io_queue_posts_a_passs_commands_with_one_post_in_order },
	{ "a_full_send_queue_keeps_the_rest_for_the_next_pass",
	  a_full_send_queue_keeps_the_rest_for_the_next_pass },
	{ "a_failed_post_ends_the_queue_and_fails_each_command_once",
	  a_failed_post_ends_the_queue_and_fails_each_command_once },
	{ "an_answer_that_came_before_a_disconnect_is_delivered",
	  an_answer_that_came_before_a_disconnect_is_delivered },
	{ "an_idle_poll_looks_at_the_cm_channel_once_per_clock_tick",
	  an_idle_poll_looks_at_the_cm_channel_once_per_clock_tick },
	{ "a_failed_post_still_delivers_the_answers_in_the_cq",
	  a_failed_post_still_delivers_the_answers_in_the_cq },
	{ "a_receive_that_is_no_cqe_or_a_failed_completion_ends_the_queue",
	  a_receive_that_is_no_cqe_or_a_failed_completion_ends_the_queue },
	{ "incapsule_size_is_set_on_io_queues_and_only_shrinks_once_allocated",
	  incapsule_size_is_set_on_io_queues_and_only_shrinks_once_allocated },
	{ "queue_without_connection_reports_connection_lost",
	  queue_without_connection_reports_connection_lost },
	{ NULL, NULL },
};
