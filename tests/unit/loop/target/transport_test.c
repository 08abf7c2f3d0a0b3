/* The loop transport's target half (loop/target/transport.c) with libnvmf's public API as
 * the host: many commands per queue, bad SGLs, controller deletion seen by the host, I/O
 * queues on other poll groups. The host half: tests/unit/loop/host/transport_test.c. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "initiator/nvmf.h"
#include "nvme/sgl.h"
#include "target/core.h"
#include "loop/loop.h"
#include "tests/unit/loop/fixture.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

/* Completion order: each callback takes the next sequence number. */
struct order {
	int next;
	int at[64]; /* sequence number of command i's completion, -1 before */
	int status[64];
};

struct order_arg {
	struct order *o;
	int i;
};

static void order_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct order_arg *a = arg;
	a->o->at[a->i] = a->o->next++;
	a->o->status[a->i] = status;
}

static void many_commands_outstanding_on_one_queue_complete_out_of_order_with_a_file_backend(void)
{
	struct env e;
	env_setup(&e, 1, false, true);
	env_connect(&e, 1);
	struct nvmf_queue *q = nvmf_io_queue(e.ctrl, 0);
	enum { N = 16, BLK = 8 }; /* 16 + 16 reads of 4 KiB */
	static uint8_t want[2][N][BLK * 512], got[2][N][BLK * 512];
	for (int ns = 0; ns < 2; ns++)
		for (int i = 0; i < N; i++) {
			env_fill(want[ns][i], sizeof(want[ns][i]), (unsigned)(ns * N + i));
			CU_ASSERT_EQUAL_FATAL(nvmf_write(e.ctrl, (uint32_t)ns + 1,
							 (uint64_t)i * BLK, BLK, want[ns][i]),
					      0);
		}
	/* All 32 go out before the target runs: file reads first, then RAM reads. */
	nvmf_loop_set_auto_drive(&e.tgt, false);
	struct order o;
	memset(&o, 0, sizeof(o));
	struct order_arg a[2 * N];
	for (int k = 0; k < 2 * N; k++) {
		o.at[k] = -1;
		a[k] = (struct order_arg){ &o, k };
		int ns = k / N, i = k % N;
		CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(q, (uint32_t)ns + 1, (uint64_t)i * BLK, BLK,
						       got[ns][i], order_cb, &a[k]),
				      0);
	}
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), 2 * N);
	nvmf_loop_set_auto_drive(&e.tgt, true);
	for (int i = 0; i < 10000 && nvmf_queue_outstanding(q); i++)
		CU_ASSERT_FATAL(nvmf_queue_wait(q, 10) >= 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_queue_outstanding(q), 0);
	/* The RAM reads completed in the target's first pass, the file's through io_uring
	 * after it: every RAM read answered before any file read. */
	int first_file = 2 * N, last_ram = -1;
	for (int k = 0; k < N; k++)
		if (o.at[k] < first_file)
			first_file = o.at[k];
	for (int k = N; k < 2 * N; k++)
		if (o.at[k] > last_ram)
			last_ram = o.at[k];
	CU_ASSERT(last_ram < first_file);
	for (int k = 0; k < 2 * N; k++)
		CU_ASSERT_EQUAL(o.status[k], 0);
	CU_ASSERT_EQUAL(memcmp(got, want, sizeof(got)), 0);
	env_teardown(&e);
}

struct status_arg {
	bool done;
	int status;
};

static void status_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct status_arg *s = arg;
	s->done = true;
	s->status = status;
}

/* Status of a one-block write (in-capsule) or read (keyed) on namespace 2, marked with
 * cdw14 @mark for the capsule hook. */
static int raw_status(struct env *e, uint8_t opcode, uint32_t mark)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.nsid = htole32(2);
	c.cdw14 = htole32(mark);
	uint8_t buf[512] = { 0 };
	struct status_arg s = { false, 0 };
	struct nvmf_queue *q = nvmf_io_queue(e->ctrl, 0);
	int rc = nvmf_submit_raw(q, &c, buf, sizeof(buf), opcode == nvme_cmd_write, status_cb, &s);
	if (rc)
		return rc;
	for (int i = 0; i < 10000 && !s.done; i++)
		nvmf_queue_wait(q, 10);
	return s.done ? s.status : -ETIMEDOUT;
}

static void a_bad_sgl_gets_the_status_the_rdma_transport_gives(void)
{
	struct env e;
	env_setup(&e, 1, false, false);
	env_connect(&e, 1);
	/* What nvme_sgl_parse answers for them, as the RDMA transport calls it. */
	struct nvme_sqe bit_bucket;
	memset(&bit_bucket, 0, sizeof(bit_bucket));
	bit_bucket.flags = NVME_CMD_PSDT_SGL_MPTR;
	bit_bucket.dptr.keyed.type = NVME_SGL_TYPE_BIT_BUCKET << 4;
	bit_bucket.dptr.keyed.length[1] = 2;
	struct nvme_sgl_info info;
	nvme_status_t type_st = nvme_sgl_parse(&bit_bucket, 0, false, &info);
	CU_ASSERT_EQUAL(type_st,
			nvme_status(NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_TYPE) | NVME_SC_DNR);
	CU_ASSERT_EQUAL(raw_status(&e, nvme_cmd_read, BAD_SGL_MARK), type_st);
	/* In-capsule data at an offset past what came with the capsule. */
	CU_ASSERT_EQUAL(raw_status(&e, nvme_cmd_write, BAD_OFF_MARK),
			nvme_status(NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_OFFSET) | NVME_SC_DNR);
	/* The queue still works. */
	CU_ASSERT_EQUAL(raw_status(&e, nvme_cmd_read, 0), 0);
	env_teardown(&e);
}

static void delete_first_ctrl(void *arg)
{
	struct nvmf_tgt *tgt = arg;
	if (tgt->ctrls)
		nvmf_tgt_ctrl_delete(tgt->ctrls);
}

static void deleting_the_controller_on_the_target_resets_the_host_queues(void)
{
	struct env e;
	env_setup(&e, 2, true, false);
	env_connect(&e, 2);
	uint8_t data[4096];
	env_fill(data, sizeof(data), 7);
	CU_ASSERT_EQUAL_FATAL(nvmf_write(e.ctrl, 2, 0, 8, data), 0);
	CU_ASSERT_EQUAL(nvmf_loop_run_on(&e.tgt, 0, delete_first_ctrl, &e.tgt), 0);
	for (unsigned i = 0; i < 2; i++) {
		struct nvmf_queue *q = nvmf_io_queue(e.ctrl, i);
		int rc = 0;
		for (int k = 0; k < 5000 && rc >= 0; k++) {
			rc = nvmf_queue_poll(q, 0);
			if (rc >= 0)
				usleep(1000);
		}
		CU_ASSERT_EQUAL(rc, -ECONNRESET);
		struct count_arg c = { 0, 0 };
		CU_ASSERT_EQUAL(nvmf_submit_read(q, 2, 0, 8, data, count_cb, &c), -ECONNRESET);
		CU_ASSERT_EQUAL(c.calls, 0);
	}
	uint8_t id[4096];
	CU_ASSERT_EQUAL(nvmf_identify(e.ctrl, NVME_IDENTIFY_CNS_CTRL, 0, id), -ECONNRESET);
	env_teardown(&e);
	CU_ASSERT_EQUAL(e.seen.downs_by_host, 0); /* the target took them down */
}

static void io_queue_on_another_group_connects_through_the_main_group(void)
{
	struct env e;
	env_setup(&e, 2, true, false); /* main group + I/O groups 1 and 2 */
	env_connect(&e, 2);
	CU_ASSERT_EQUAL(e.seen.pg_index[0], 0); /* admin: the main group */
	/* The I/O queues are on the I/O groups, one each (the least loaded), and their
	 * Connects were attached by the main group. */
	CU_ASSERT(e.seen.pg_index[1] >= 1 && e.seen.pg_index[2] >= 1);
	CU_ASSERT_NOT_EQUAL(e.seen.pg_index[1], e.seen.pg_index[2]);
	static uint8_t out[2][64 * 1024], in[2][64 * 1024];
	for (unsigned i = 0; i < 2; i++) {
		env_fill(out[i], sizeof(out[i]), 40 + i);
		struct nvmf_queue *q = nvmf_io_queue(e.ctrl, i);
		struct count_arg c = { 0, 0 };
		CU_ASSERT_EQUAL_FATAL(nvmf_submit_write(q, 2, i * 1024u, sizeof(out[i]) / 512,
							out[i], count_cb, &c),
				      0);
		while (nvmf_queue_outstanding(q))
			CU_ASSERT_FATAL(nvmf_queue_wait(q, 100) >= 0);
		CU_ASSERT_EQUAL(c.calls, 1);
		CU_ASSERT_EQUAL(nvmf_submit_read(q, 2, i * 1024u, sizeof(in[i]) / 512, in[i],
						 count_cb, &c),
				0);
		while (nvmf_queue_outstanding(q))
			CU_ASSERT_FATAL(nvmf_queue_wait(q, 100) >= 0);
		CU_ASSERT_EQUAL(memcmp(in[i], out[i], sizeof(in[i])), 0);
	}
	CU_ASSERT(e.seen.capsules[1] >= 3 && e.seen.capsules[2] >= 3); /* Connect, W, R */
	env_teardown(&e);
}

const struct unit_test loop_tests[] = {
	{ "many_commands_outstanding_on_one_queue_complete_out_of_order_with_a_file_backend",
	  many_commands_outstanding_on_one_queue_complete_out_of_order_with_a_file_backend },
	{ "a_bad_sgl_gets_the_status_the_rdma_transport_gives",
	  a_bad_sgl_gets_the_status_the_rdma_transport_gives },
	{ "deleting_the_controller_on_the_target_resets_the_host_queues",
	  deleting_the_controller_on_the_target_resets_the_host_queues },
	{ "io_queue_on_another_group_connects_through_the_main_group",
	  io_queue_on_another_group_connects_through_the_main_group },
	{ NULL, NULL },
};
