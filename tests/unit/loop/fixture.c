/* The loop transport's test fixture (see fixture.h). */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tests/unit/loop/fixture.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

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

void env_setup(struct env *e, unsigned threads, bool run_threads, bool file)
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

struct nvmf_ctrl_opts env_opts(struct env *e, unsigned nr_io)
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

void env_connect(struct env *e, unsigned nr_io)
{
	struct nvmf_ctrl_opts o = env_opts(e, nr_io);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &e->ctrl), 0);
}

void env_teardown(struct env *e)
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

void env_fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 9));
}

void count_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct count_arg *c = arg;
	c->calls++;
	if (status == -ECONNABORTED)
		c->aborted++;
}
