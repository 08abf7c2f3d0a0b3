/* The fake device the RDMA target tests run on (fake_verbs.c): it must behave as a device
 * does where the transport relies on it, or the other tests prove nothing. */
#include <CUnit/CUnit.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/rdma/fake_verbs.h"
#include "tests/unit/suites.h"

struct fv_env {
	struct fv_dev *d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t local[8192];
	uint8_t host[8192];
	uint32_t rkey;
};

static void env_init(struct fv_env *e)
{
	memset(e, 0, sizeof(*e));
	e->d = fv_dev_new();
	e->cq = fake_verbs.create_cq(&e->d->ctx, 64, NULL, NULL);
	struct ibv_qp_init_attr a = { .send_cq = e->cq,
				      .recv_cq = e->cq,
				      .qp_type = IBV_QPT_RC,
				      .cap = { .max_send_wr = 16,
					       .max_recv_wr = 4,
					       .max_send_sge = 1,
					       .max_recv_sge = 1,
					       .max_inline_data = 16 } };
	e->qp = fake_verbs.create_qp(NULL, &e->d->pd, &a);
	e->mr = fake_verbs.reg_mr(&e->d->pd, e->local, sizeof(e->local), IBV_ACCESS_LOCAL_WRITE);
	e->rkey = fv_host_reg(e->d, e->host, sizeof(e->host));
}

static void env_fini(struct fv_env *e)
{
	fake_verbs.destroy_qp(NULL, e->qp);
	fake_verbs.dereg_mr(e->mr);
	fake_verbs.destroy_cq(e->cq);
	CU_ASSERT_EQUAL(fv_dev_live(e->d), 0);
	fv_dev_free(e->d);
}

/* WR @w: one SGE of @len bytes at @off in e->local; READ/WRITE at host offset @off. */
static void wr(struct fv_env *e, struct ibv_send_wr *w, struct ibv_sge *sge, enum ibv_wr_opcode op,
	       unsigned flags, uint32_t off, uint32_t len, uint64_t id)
{
	*sge = (struct ibv_sge){ (uintptr_t)e->local + off, len, e->mr->lkey };
	*w = (struct ibv_send_wr){
		.wr_id = id, .sg_list = sge, .num_sge = 1, .opcode = op, .send_flags = flags
	};
	w->wr.rdma.remote_addr = (uintptr_t)e->host + off;
	w->wr.rdma.rkey = e->rkey;
}

static void host_executes_in_order_and_completes_only_signaled_wrs(void)
{
	struct fv_env e;
	env_init(&e);
	memset(e.host, 0xab, 4096);
	memset(e.local + 4096, 0xcd, 4096);
	struct ibv_send_wr w[4], *bad = NULL;
	struct ibv_sge s[4];
	wr(&e, &w[0], &s[0], IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, 0, 4096, 1);
	wr(&e, &w[1], &s[1], IBV_WR_RDMA_WRITE, 0, 4096, 4096, 2);
	wr(&e, &w[2], &s[2], IBV_WR_SEND, 0, 0, 16, 3);
	wr(&e, &w[3], &s[3], IBV_WR_SEND, IBV_SEND_SIGNALED, 16, 16, 4);
	for (int i = 0; i < 3; i++)
		w[i].next = &w[i + 1];
	CU_ASSERT_EQUAL(fake_verbs.post_send(e.qp, w, &bad), 0);
	fv_host_credits(fv_qp_of(e.qp), 2);
	CU_ASSERT_EQUAL(fv_host_run(fv_qp_of(e.qp), 100), 4);
	CU_ASSERT_EQUAL(e.local[0], 0xab);   /* READ: host -> local */
	CU_ASSERT_EQUAL(e.host[4096], 0xcd); /* WRITE: local -> host */
	struct ibv_wc wc[8];
	CU_ASSERT_EQUAL_FATAL(fake_verbs.poll_cq(e.cq, 8, wc), 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1);
	CU_ASSERT_EQUAL(wc[0].opcode, IBV_WC_RDMA_READ);
	CU_ASSERT_EQUAL(wc[1].wr_id, 4);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_SUCCESS);
	struct fv_resp r;
	CU_ASSERT(fv_host_take(fv_qp_of(e.qp), &r));
	CU_ASSERT(fv_host_take(fv_qp_of(e.qp), &r));
	CU_ASSERT_FALSE(fv_host_take(fv_qp_of(e.qp), &r));
	CU_ASSERT_EQUAL(e.d->violations, 0);
	env_fini(&e);
}

static void error_state_flushes_every_unexecuted_wr_and_receive(void)
{
	struct fv_env e;
	env_init(&e);
	struct ibv_send_wr w[3], *bad = NULL;
	struct ibv_sge s[3];
	wr(&e, &w[0], &s[0], IBV_WR_SEND, 0, 0, 16, 1);
	wr(&e, &w[1], &s[1], IBV_WR_RDMA_WRITE, 0, 64, 64, 2);
	wr(&e, &w[2], &s[2], IBV_WR_SEND, IBV_SEND_SIGNALED, 16, 16, 3);
	w[0].next = &w[1];
	w[1].next = &w[2];
	CU_ASSERT_EQUAL(fake_verbs.post_send(e.qp, w, &bad), 0);
	struct ibv_sge rs = { (uintptr_t)e.local + 1024, 64, e.mr->lkey };
	struct ibv_recv_wr rw = { .wr_id = 9, .sg_list = &rs, .num_sge = 1 }, *rbad = NULL;
	CU_ASSERT_EQUAL(fake_verbs.post_recv(e.qp, &rw, &rbad), 0);
	fv_host_credits(fv_qp_of(e.qp), 1);
	CU_ASSERT_EQUAL(fv_host_run(fv_qp_of(e.qp), 1), 1); /* the first SEND, unsignaled */
	CU_ASSERT_EQUAL(fake_verbs.qp_error(e.qp), 0);
	struct ibv_wc wc[8];
	CU_ASSERT_EQUAL_FATAL(fake_verbs.poll_cq(e.cq, 8, wc), 3);
	CU_ASSERT_EQUAL(wc[0].wr_id, 2); /* unsignaled, still flushed */
	CU_ASSERT_EQUAL(wc[1].wr_id, 3);
	CU_ASSERT_EQUAL(wc[2].wr_id, 9);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(fv_host_send(fv_qp_of(e.qp), e.host, 64), -EPIPE);
	CU_ASSERT_EQUAL(e.d->violations, 0);
	env_fini(&e);
}

static void second_signaled_send_in_a_post_is_a_violation(void)
{
	struct fv_env e;
	env_init(&e);
	struct ibv_send_wr w[2], *bad = NULL;
	struct ibv_sge s[2];
	wr(&e, &w[0], &s[0], IBV_WR_SEND, IBV_SEND_SIGNALED, 0, 16, 1);
	wr(&e, &w[1], &s[1], IBV_WR_SEND, IBV_SEND_SIGNALED, 16, 16, 2);
	w[0].next = &w[1];
	CU_ASSERT_NOT_EQUAL(fake_verbs.post_send(e.qp, w, &bad), 0);
	CU_ASSERT_PTR_EQUAL(bad, &w[0]);
	CU_ASSERT_EQUAL(e.d->violations, 1);
	env_fini(&e);
}

static void read_with_an_unknown_rkey_fails_and_flushes_the_rest(void)
{
	struct fv_env e;
	env_init(&e);
	struct ibv_send_wr w[2], *bad = NULL;
	struct ibv_sge s[2];
	wr(&e, &w[0], &s[0], IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, 0, 512, 1);
	w[0].wr.rdma.rkey = e.rkey + 1000;
	wr(&e, &w[1], &s[1], IBV_WR_SEND, IBV_SEND_SIGNALED, 1024, 16, 2);
	w[0].next = &w[1];
	CU_ASSERT_EQUAL(fake_verbs.post_send(e.qp, w, &bad), 0);
	fv_host_credits(fv_qp_of(e.qp), 1);
	CU_ASSERT_EQUAL(fv_host_run(fv_qp_of(e.qp), 100), 1);
	struct ibv_wc wc[4];
	CU_ASSERT_EQUAL_FATAL(fake_verbs.poll_cq(e.cq, 4, wc), 2);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	env_fini(&e);
}

/* Asynchronous events come in order from the context's async fd (readable while any
 * waits); a QP with an event taken and not acked cannot be destroyed (ibv_destroy_qp
 * would wait forever), and events of a destroyed QP nobody took are dropped. */
static void async_events_are_taken_in_order_and_must_be_acked_before_destroy(void)
{
	struct fv_env e;
	env_init(&e);
	struct ibv_async_event ev;
	CU_ASSERT_NOT_EQUAL(fake_verbs.get_async_event(&e.d->ctx, &ev), 0); /* none */
	fv_async_event(e.d, IBV_EVENT_PORT_ACTIVE, NULL);
	fv_async_event(e.d, IBV_EVENT_QP_FATAL, e.qp);
	uint64_t v;
	CU_ASSERT_EQUAL(read(e.d->ctx.async_fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT_EQUAL_FATAL(fake_verbs.get_async_event(&e.d->ctx, &ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	fake_verbs.ack_async_event(&ev);
	CU_ASSERT_EQUAL_FATAL(fake_verbs.get_async_event(&e.d->ctx, &ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, IBV_EVENT_QP_FATAL);
	CU_ASSERT_PTR_EQUAL(ev.element.qp, e.qp);
	CU_ASSERT_EQUAL(fv_qp_of(e.qp)->events_unacked, 1);
	fake_verbs.ack_async_event(&ev);
	CU_ASSERT_EQUAL(e.d->async_acked, e.d->async_taken);
	fv_async_event(e.d, IBV_EVENT_QP_LAST_WQE_REACHED, e.qp);
	CU_ASSERT_EQUAL_FATAL(fake_verbs.get_async_event(&e.d->ctx, &ev), 0);
	fv_async_event(e.d, IBV_EVENT_QP_REQ_ERR, e.qp); /* never taken */
	struct ibv_qp *qp = e.qp;
	fake_verbs.destroy_qp(NULL, qp); /* LAST_WQE not acked */
	CU_ASSERT_EQUAL(e.d->violations, 1);
	CU_ASSERT_EQUAL(fv_async_pending(e.d), 0); /* REQ_ERR dropped */
	fake_verbs.ack_async_event(&ev);
	fake_verbs.dereg_mr(e.mr);
	fake_verbs.destroy_cq(e.cq);
	CU_ASSERT_EQUAL(fv_dev_live(e.d), 0);
	fv_dev_free(e.d);
}

/* The fake CM: a request carries its private data and depths; the transport's answer and
 * the destroy are recorded on the id, which counts as a live object until destroyed. */
static void cm_request_records_the_answer_on_its_id(void)
{
	struct fv_dev *d = fv_dev_new();
	struct rdma_cm_id listen = { .channel = &d->cm.ec };
	struct nvme_rdma_cm_req req;
	nvme_rdma_cm_build_req(&req, 1, 64);
	struct fv_cm_id *c = fv_cm_connect(d, &listen, &req, sizeof(req), 7, 3);
	CU_ASSERT_EQUAL(fv_dev_live(d), 1);
	struct rdma_cm_event *ev;
	CU_ASSERT_EQUAL_FATAL(fake_verbs.get_cm_event(&d->cm.ec, &ev), 0);
	CU_ASSERT_EQUAL(ev->event, RDMA_CM_EVENT_CONNECT_REQUEST);
	CU_ASSERT_PTR_EQUAL(ev->id, &c->id);
	CU_ASSERT_PTR_EQUAL(ev->listen_id, &listen);
	CU_ASSERT_EQUAL(ev->param.conn.initiator_depth, 7);
	CU_ASSERT_EQUAL(ev->param.conn.responder_resources, 3);
	CU_ASSERT_EQUAL(ev->param.conn.private_data_len, sizeof(req));
	CU_ASSERT_EQUAL(memcmp(ev->param.conn.private_data, &req, sizeof(req)), 0);
	fake_verbs.ack_cm_event(ev);
	CU_ASSERT_NOT_EQUAL(fake_verbs.get_cm_event(&d->cm.ec, &ev), 0);
	struct nvme_rdma_cm_rej rej;
	nvme_rdma_cm_build_rej(&rej, NVME_RDMA_CM_INVALID_IRD);
	CU_ASSERT_EQUAL(fake_verbs.reject(&c->id, &rej, sizeof(rej)), 0);
	CU_ASSERT_TRUE(c->rejected);
	CU_ASSERT_EQUAL(c->reject_sts, NVME_RDMA_CM_INVALID_IRD);
	fake_verbs.destroy_id(&c->id);
	CU_ASSERT_EQUAL(fv_dev_live(d), 0);
	CU_ASSERT_EQUAL(d->cm_unacked, 0);
	CU_ASSERT_EQUAL(d->violations, 0);
	fv_dev_free(d);
}

/* A QP on an SRQ holds the receives it took for messages in flight: in the error state
 * it gives them back (flushed) and then raises LAST_WQE_REACHED, at once or when the test
 * says (hold_last_wqe); destroyed before that, they are lost to the SRQ. */
static void srq_receives_held_by_a_qp_come_back_before_last_wqe_or_are_lost(void)
{
	struct fv_dev *d = fv_dev_new();
	uint8_t buf[4][64];
	struct ibv_mr *mr = fake_verbs.reg_mr(&d->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_cq *cq = fake_verbs.create_cq(&d->ctx, 64, NULL, NULL);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq = fake_verbs.create_srq(&d->pd, &sa);
	struct ibv_qp_init_attr qa = { .send_cq = cq,
				       .recv_cq = cq,
				       .srq = srq,
				       .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_send_sge = 1 } };
	struct ibv_qp *a = fake_verbs.create_qp(NULL, &d->pd, &qa),
		      *b = fake_verbs.create_qp(NULL, &d->pd, &qa);
	struct ibv_sge sge[4];
	struct ibv_recv_wr rwr[4], *bad = NULL;
	for (int i = 0; i < 4; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)buf[i], 64, mr->lkey };
		rwr[i] = (struct ibv_recv_wr){ .wr_id = (uint64_t)i + 1,
					       .sg_list = &sge[i],
					       .num_sge = 1,
					       .next = i < 3 ? &rwr[i + 1] : NULL };
	}
	CU_ASSERT_EQUAL_FATAL(fake_verbs.post_srq_recv(srq, rwr, &bad), 0);
	CU_ASSERT_EQUAL(fv_srq_assign(fv_qp_of(a), 2), 2);
	CU_ASSERT_EQUAL(fv_srq_assign(fv_qp_of(b), 1), 1);
	CU_ASSERT_EQUAL(fv_posted(&fv_srq_of(srq)->rq), 1);
	d->hold_last_wqe = true;
	fake_verbs.qp_error(a);
	struct ibv_wc wc[4];
	CU_ASSERT_EQUAL(fake_verbs.poll_cq(cq, 4, wc), 0);
	CU_ASSERT_EQUAL(fv_async_pending(d), 0);
	fv_last_wqe(fv_qp_of(a));
	CU_ASSERT_EQUAL_FATAL(fake_verbs.poll_cq(cq, 4, wc), 2);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1);
	CU_ASSERT_EQUAL(wc[1].wr_id, 2);
	CU_ASSERT_EQUAL(wc[0].qp_num, a->qp_num);
	struct ibv_async_event ev;
	CU_ASSERT_EQUAL_FATAL(fake_verbs.get_async_event(&d->ctx, &ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, IBV_EVENT_QP_LAST_WQE_REACHED);
	CU_ASSERT_PTR_EQUAL(ev.element.qp, a);
	fake_verbs.ack_async_event(&ev);
	fake_verbs.destroy_qp(NULL, a);
	CU_ASSERT_EQUAL(d->srq_lost, 0);
	fake_verbs.destroy_qp(NULL, b); /* before its error state: the one it held */
	CU_ASSERT_EQUAL(d->srq_lost, 1);
	fake_verbs.destroy_srq(srq);
	fake_verbs.destroy_cq(cq);
	fake_verbs.dereg_mr(mr);
	CU_ASSERT_EQUAL(d->violations, 0);
	CU_ASSERT_EQUAL(fv_dev_live(d), 0);
	fv_dev_free(d);
}

const struct unit_test fake_verbs_tests[] = {
	{ "host_executes_in_order_and_completes_only_signaled_wrs",
	  host_executes_in_order_and_completes_only_signaled_wrs },
	{ "error_state_flushes_every_unexecuted_wr_and_receive",
	  error_state_flushes_every_unexecuted_wr_and_receive },
	{ "second_signaled_send_in_a_post_is_a_violation",
	  second_signaled_send_in_a_post_is_a_violation },
	{ "read_with_an_unknown_rkey_fails_and_flushes_the_rest",
	  read_with_an_unknown_rkey_fails_and_flushes_the_rest },
	{ "async_events_are_taken_in_order_and_must_be_acked_before_destroy",
	  async_events_are_taken_in_order_and_must_be_acked_before_destroy },
	{ "cm_request_records_the_answer_on_its_id", cm_request_records_the_answer_on_its_id },
	{ "srq_receives_held_by_a_qp_come_back_before_last_wqe_or_are_lost",
	  srq_receives_held_by_a_qp_come_back_before_last_wqe_or_are_lost },
	{ NULL, NULL },
};
