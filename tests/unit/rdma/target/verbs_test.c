/* The RDMA target's verbs table as libibverbs provides it (rdma/target/verbs.c): every
 * entry set, and the verbs that are static inline in <infiniband/verbs.h> reach the
 * device's own ops with the caller's arguments and answer with its result. The rest are
 * libibverbs' and librdmacm's functions themselves (the VM tests run them on rxe). */
#include <CUnit/CUnit.h>
#include <string.h>
#include "rdma/target/internal.h"
#include "tests/unit/suites.h"

/* What the device's ops saw. */
static struct {
	const void *obj, *wr;
	int n, solicited;
	struct ibv_wc *wc;
	unsigned calls;
} seen;

static int op_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	seen.obj = qp;
	seen.wr = wr;
	seen.calls++;
	*bad = wr;
	return 12;
}

static int op_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	seen.obj = qp;
	seen.wr = wr;
	seen.calls++;
	*bad = NULL;
	return 0;
}

static int op_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	seen.obj = srq;
	seen.wr = wr;
	seen.calls++;
	*bad = NULL;
	return 22;
}

static int op_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	seen.obj = cq;
	seen.n = n;
	seen.wc = wc;
	seen.calls++;
	wc[0].wr_id = 77;
	return 1;
}

static int op_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	seen.obj = cq;
	seen.solicited = solicited_only;
	seen.calls++;
	return 0;
}

static void every_entry_of_the_table_is_set(void)
{
	/* The table is function pointers only: a member added without its real verb is NULL. */
	typedef void (*fn)(void);
	fn f[sizeof(struct nvmf_rdma_verbs) / sizeof(fn)];
	CU_ASSERT_EQUAL_FATAL(sizeof(f), sizeof(struct nvmf_rdma_verbs));
	memcpy(f, &nvmf_rdma_verbs_real, sizeof(f));
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		CU_ASSERT_PTR_NOT_NULL(f[i]);
}

static void inline_verbs_reach_the_devices_ops_with_the_callers_arguments(void)
{
	struct ibv_context ctx;
	memset(&ctx, 0, sizeof(ctx));
	memset(&seen, 0, sizeof(seen));
	ctx.ops.post_send = op_post_send;
	ctx.ops.post_recv = op_post_recv;
	ctx.ops.post_srq_recv = op_post_srq_recv;
	ctx.ops.poll_cq = op_poll_cq;
	ctx.ops.req_notify_cq = op_req_notify_cq;
	struct ibv_qp qp = { .context = &ctx };
	struct ibv_srq srq = { .context = &ctx };
	struct ibv_cq cq = { .context = &ctx };
	const struct nvmf_rdma_verbs *v = &nvmf_rdma_verbs_real;

	struct ibv_send_wr swr = { .wr_id = 1 }, *sbad = NULL;
	CU_ASSERT_EQUAL(v->post_send(&qp, &swr, &sbad), 12); /* the device's answer */
	CU_ASSERT_PTR_EQUAL(seen.obj, &qp);
	CU_ASSERT_PTR_EQUAL(seen.wr, &swr);
	CU_ASSERT_PTR_EQUAL(sbad, &swr);
	struct ibv_recv_wr rwr = { .wr_id = 2 }, *rbad = &rwr;
	CU_ASSERT_EQUAL(v->post_recv(&qp, &rwr, &rbad), 0);
	CU_ASSERT_PTR_EQUAL(seen.wr, &rwr);
	CU_ASSERT_PTR_NULL(rbad);
	CU_ASSERT_EQUAL(v->post_srq_recv(&srq, &rwr, &rbad), 22);
	CU_ASSERT_PTR_EQUAL(seen.obj, &srq);
	struct ibv_wc wc[4];
	memset(wc, 0, sizeof(wc));
	CU_ASSERT_EQUAL(v->poll_cq(&cq, 4, wc), 1);
	CU_ASSERT_PTR_EQUAL(seen.obj, &cq);
	CU_ASSERT_EQUAL(seen.n, 4);
	CU_ASSERT_EQUAL(wc[0].wr_id, 77);
	seen.solicited = -1;
	CU_ASSERT_EQUAL(v->req_notify_cq(&cq), 0);
	CU_ASSERT_EQUAL(seen.solicited, 0); /* every completion, not only solicited ones */
	CU_ASSERT_EQUAL(seen.calls, 5);
}

const struct unit_test rdma_verbs_tests[] = {
	{ "every_entry_of_the_table_is_set", every_entry_of_the_table_is_set },
	{ "inline_verbs_reach_the_devices_ops_with_the_callers_arguments",
	  inline_verbs_reach_the_devices_ops_with_the_callers_arguments },
	{ NULL, NULL },
};
