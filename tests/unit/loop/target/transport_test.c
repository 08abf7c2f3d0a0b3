/* The loop transport (loop/target/transport.c, loop/host/transport.c) with libnvmf's public API as
 * the host: many commands per queue, in-capsule and keyed data, bad SGLs, queue teardown
 * with commands outstanding, controller deletion seen by the host, I/O queues on other
 * poll groups, the port a host reaches. */
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
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

#define LT_NQN       "nqn.2026-11.io.nvmf-rdma:looptest"
#define LT_HOST      "nqn.2026-11.io.nvmf-rdma:loophost"
#define NS_BYTES     (4u << 20)
#define BAD_SGL_MARK 0x5a5a0001u /* cdw14 of a command whose SGL the hook spoils */
#define BAD_OFF_MARK 0x5a5a0002u

/* What the capsule hook saw, per transport-level qid (all written on target groups
 * before the command's CQE, read after it). */
struct seen {
	uint8_t sgl_type[8]; /* of the last capsule */
	uint32_t icd_len[8];
	unsigned pg_index[8]; /* the group serving the queue */
	unsigned capsules[8];
	unsigned downs_by_host;
};

struct env {
	struct nvmf_config cfg;
	struct nvmf_tgt tgt;
	struct nvmf_ctrl *ctrl;
	struct seen seen;
	char dir[32], path[64];
};

static void on_capsule(void *arg, struct nvmf_sq *sq, uint16_t qid, struct nvme_sqe *sqe,
		       uint32_t incapsule_len)
{
	struct seen *s = arg;
	if (le32toh(sqe->cdw14) == BAD_SGL_MARK)
		sqe->dptr.keyed.type = NVME_SGL_TYPE_BIT_BUCKET << 4;
	if (le32toh(sqe->cdw14) == BAD_OFF_MARK)
		sqe->dptr.addr = htole64(4096); /* offset: past the data that came */
	if (qid >= 8)
		return;
	s->sgl_type[qid] = sqe->dptr.keyed.type;
	s->icd_len[qid] = incapsule_len;
	s->pg_index[qid] = sq->pg->index;
	__atomic_fetch_add(&s->capsules[qid], 1, __ATOMIC_RELAXED);
}

static void on_queue_down(void *arg, struct nvmf_sq *sq, uint16_t qid, bool by_host)
{
	struct seen *s = arg;
	(void)sq;
	(void)qid;
	if (by_host)
		__atomic_fetch_add(&s->downs_by_host, 1, __ATOMIC_RELAXED);
}

/*
 * A target with subsystem LT_NQN: namespace 1 a file of 4 MiB with 512 B blocks, opened
 * O_DIRECT where the filesystem allows (when @file; else RAM), namespace 2 RAM (4 MiB,
 * 512 B blocks); loop port 127.0.0.1:4420 (in-capsule 8 KiB, queues of 128).
 * nvmf_target.threads = @threads; @run_threads: the groups get threads of their own, else
 * driven mode.
 */
static void env_setup(struct env *e, unsigned threads, bool run_threads, bool file)
{
	memset(e, 0, sizeof(*e));
	struct nvmf_config *c = &e->cfg;
	struct nvmf_subsys_config *s = fx_cfg_subsys(c, LT_NQN, NULL, 4);
	c->target.threads = threads;
	struct nvmf_ns_config *ns1 = fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, NS_BYTES, 512);
	if (file) {
		snprintf(e->dir, sizeof(e->dir), "/tmp/nvmf-loop-XXXXXX");
		CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(e->dir));
		snprintf(e->path, sizeof(e->path), "%s/ns1", e->dir);
		ns1->kind = NVMF_BACKEND_FILE;
		ns1->path = strdup(e->path);
		ns1->create = true;
	}
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, NS_BYTES, 512);
	fx_cfg_expose(fx_cfg_loop_port(c, 1, AF_INET, "127.0.0.1", "4420"), LT_NQN);

	static const struct nvmf_transport_ops *const ops[] = { &nvmf_loop_ops };
	char err[512];
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_init(&e->tgt, c, ops, 1, err, sizeof(err)), 0);
	nvmf_loop_set_hooks(&e->tgt, &(struct nvmf_loop_hooks){ .capsule = on_capsule,
								.queue_down = on_queue_down,
								.arg = &e->seen });
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_listen(&e->tgt, err, sizeof(err)), 0);
	if (run_threads) {
		CU_ASSERT_EQUAL_FATAL(
			nvmf_pg_start(nvmf_tgt_main_pg(&e->tgt), -1, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL_FATAL(nvmf_tgt_start(&e->tgt, err, sizeof(err)), 0);
	}
}

static struct nvmf_ctrl_opts opts(struct env *e, unsigned nr_io)
{
	struct nvmf_ctrl_opts o;
	memset(&o, 0, sizeof(o));
	o.traddr = "127.0.0.1";
	o.subnqn = LT_NQN;
	o.hostnqn = LT_HOST;
	o.nr_io_queues = nr_io;
	o.queue_size = 64;
	o.no_keep_alive = true;
	o.timeout_ms = 5000;
	o.transport = nvmf_loop_host_transport(&e->tgt);
	return o;
}

static void env_connect(struct env *e, unsigned nr_io)
{
	struct nvmf_ctrl_opts o = opts(e, nr_io);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &e->ctrl), 0);
}

static void env_teardown(struct env *e)
{
	if (e->ctrl)
		nvmf_disconnect(e->ctrl);
	nvmf_tgt_shutdown(&e->tgt, 2000);
	nvmf_tgt_fini(&e->tgt);
	nvmf_config_free(&e->cfg);
	if (e->path[0]) {
		unlink(e->path);
		rmdir(e->dir);
	}
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 9));
}

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
			fill(want[ns][i], sizeof(want[ns][i]), (unsigned)(ns * N + i));
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

static void small_writes_travel_in_the_capsule_and_the_rest_by_keyed_sgl(void)
{
	struct env e;
	env_setup(&e, 1, false, true);
	env_connect(&e, 1);
	static uint8_t small[4096], big[16384], back[16384];
	fill(small, sizeof(small), 1);
	fill(big, sizeof(big), 2);
	/* 4 KiB: in the capsule (IOCCSZ: 8 KiB), used in place by the O_DIRECT file. */
	CU_ASSERT_EQUAL(nvmf_write(e.ctrl, 1, 0, 8, small), 0);
	CU_ASSERT_EQUAL(e.seen.sgl_type[1], NVME_SGL_INCAPSULE);
	CU_ASSERT_EQUAL(e.seen.icd_len[1], sizeof(small));
	/* 16 KiB: keyed, copied in from the host's buffer. */
	CU_ASSERT_EQUAL(nvmf_write(e.ctrl, 1, 8, 32, big), 0);
	CU_ASSERT_EQUAL(e.seen.sgl_type[1], NVME_SGL_KEYED_ADDR);
	CU_ASSERT_EQUAL(e.seen.icd_len[1], 0);
	/* Reads are always keyed. */
	CU_ASSERT_EQUAL(nvmf_read(e.ctrl, 1, 0, 8, back), 0);
	CU_ASSERT_EQUAL(e.seen.sgl_type[1], NVME_SGL_KEYED_ADDR);
	CU_ASSERT_EQUAL(memcmp(back, small, sizeof(small)), 0);
	CU_ASSERT_EQUAL(nvmf_read(e.ctrl, 1, 8, 32, back), 0);
	CU_ASSERT_EQUAL(memcmp(back, big, sizeof(big)), 0);
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

struct count_arg {
	int calls, aborted;
};

static void count_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct count_arg *c = arg;
	c->calls++;
	if (status == -ECONNABORTED)
		c->aborted++;
}

static void disconnect_with_commands_outstanding_never_copies_into_host_memory(void)
{
	struct env e;
	env_setup(&e, 2, true, true); /* the target on its own threads */
	env_connect(&e, 1);
	struct nvmf_queue *q = nvmf_io_queue(e.ctrl, 0);
	enum { N = 32, LEN = 128 * 1024 };
	uint8_t *buf[N];
	struct count_arg c = { 0, 0 };
	for (int i = 0; i < N; i++) {
		buf[i] = malloc(LEN);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf[i]);
		memset(buf[i], 0xee, LEN);
		CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(q, 1, (uint64_t)i * (LEN / 512), LEN / 512,
						       buf[i], count_cb, &c),
				      0);
	}
	/* Gone at once: whatever the target still has in flight is dropped, and the
	 * library reports every command aborted. */
	CU_ASSERT_EQUAL(nvmf_disconnect(e.ctrl), 0);
	e.ctrl = NULL;
	CU_ASSERT_EQUAL(c.calls, N);
	CU_ASSERT_EQUAL(c.aborted, N);
	/* The target side is released before nvmf_disconnect returns. */
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&e.tgt), 0);
	CU_ASSERT_EQUAL(e.seen.downs_by_host, 2); /* admin and I/O queue */
	for (int i = 0; i < N; i++) {
		bool untouched = true;
		for (int k = 0; k < LEN && untouched; k++)
			untouched = buf[i][k] == 0xee;
		CU_ASSERT(untouched);
		free(buf[i]); /* a late copy would now be a use after free (ASan) */
	}
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
	fill(data, sizeof(data), 7);
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
		fill(out[i], sizeof(out[i]), 40 + i);
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

static void a_host_reaches_only_a_listening_loop_port_of_its_address(void)
{
	struct env e;
	env_setup(&e, 1, false, false);
	struct nvmf_ctrl_opts o = opts(&e, 1);
	o.traddr = "127.0.0.2"; /* no port there */
	CU_ASSERT_EQUAL(nvmf_connect(&o, &e.ctrl), -ECONNREFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "no listening loop port"));
	o = opts(&e, 1);
	o.trsvcid = "4421";
	CU_ASSERT_EQUAL(nvmf_connect(&o, &e.ctrl), -ECONNREFUSED);
	struct nvmf_port *port = e.tgt.ports[0];
	port->transport->ops->stop_listen(port->transport, port);
	o = opts(&e, 1);
	CU_ASSERT_EQUAL(nvmf_connect(&o, &e.ctrl), -ECONNREFUSED);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&e.tgt), 0);
	env_teardown(&e);
}

const struct unit_test loop_tests[] = {
	{ "many_commands_outstanding_on_one_queue_complete_out_of_order_with_a_file_backend",
	  many_commands_outstanding_on_one_queue_complete_out_of_order_with_a_file_backend },
	{ "small_writes_travel_in_the_capsule_and_the_rest_by_keyed_sgl",
	  small_writes_travel_in_the_capsule_and_the_rest_by_keyed_sgl },
	{ "a_bad_sgl_gets_the_status_the_rdma_transport_gives",
	  a_bad_sgl_gets_the_status_the_rdma_transport_gives },
	{ "disconnect_with_commands_outstanding_never_copies_into_host_memory",
	  disconnect_with_commands_outstanding_never_copies_into_host_memory },
	{ "deleting_the_controller_on_the_target_resets_the_host_queues",
	  deleting_the_controller_on_the_target_resets_the_host_queues },
	{ "io_queue_on_another_group_connects_through_the_main_group",
	  io_queue_on_another_group_connects_through_the_main_group },
	{ "a_host_reaches_only_a_listening_loop_port_of_its_address",
	  a_host_reaches_only_a_listening_loop_port_of_its_address },
	{ NULL, NULL },
};
