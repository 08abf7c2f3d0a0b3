/* The loop transport's host half (loop/host/transport.c), libnvmf's host transport over the
 * target in the same process: small writes in the capsule and the rest by keyed SGL
 * through the queue's own bounce buffers, disconnect with commands outstanding never
 * copying into host memory, the port a host reaches, what queue_connect refuses. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "initiator/transport.h"
#include "loop/internal.h"
#include "nvme/sgl.h"
#include "tests/unit/loop/fixture.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

static void small_writes_travel_in_the_capsule_and_the_rest_by_keyed_sgl(void)
{
	struct env e;
	env_setup(&e, 1, false, true);
	env_connect(&e, 1);
	static uint8_t small[4096], big[16384], back[16384];
	env_fill(small, sizeof(small), 1);
	env_fill(big, sizeof(big), 2);
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

static void a_host_reaches_only_a_listening_loop_port_of_its_address(void)
{
	struct env e;
	env_setup(&e, 1, false, false);
	struct nvmf_ctrl_opts o = env_opts(&e, 1);
	o.traddr = "127.0.0.2"; /* no port there */
	CU_ASSERT_EQUAL(nvmf_connect(&o, &e.ctrl), -ECONNREFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "no listening loop port"));
	o = env_opts(&e, 1);
	o.trsvcid = "4421";
	CU_ASSERT_EQUAL(nvmf_connect(&o, &e.ctrl), -ECONNREFUSED);
	struct nvmf_port *port = e.tgt.ports[0];
	port->transport->ops->stop_listen(port->transport, port);
	o = env_opts(&e, 1);
	CU_ASSERT_EQUAL(nvmf_connect(&o, &e.ctrl), -ECONNREFUSED);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&e.tgt), 0);
	env_teardown(&e);
}

static void queue_connect_refuses_a_size_outside_its_range(void)
{
	struct env e;
	env_setup(&e, 1, false, false);
	const struct nvmf_host_transport *t = nvmf_loop_host_transport(&e.tgt);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	struct nvmf_ctrl_opts o = env_opts(&e, 1);
	struct nvmf_hq hq = { .t = t };
	char err[256] = "", want[256];
	snprintf(want, sizeof(want), "loop: queue size 1 is not in 2..%u", LOOP_MAX_QUEUE_SIZE);
	CU_ASSERT_EQUAL(t->queue_connect(&hq, &o, 1, 1, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(t->queue_connect(&hq, &o, 1, LOOP_MAX_QUEUE_SIZE + 1, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NULL(hq.tpriv);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&e.tgt), 0);
	env_teardown(&e);
}

static void submit_refuses_what_a_keyed_sgl_or_the_queue_cannot_carry(void)
{
	struct env e;
	env_setup(&e, 1, false, false);
	const struct nvmf_host_transport *t = nvmf_loop_host_transport(&e.tgt);
	struct nvmf_ctrl_opts o = env_opts(&e, 1);
	struct nvmf_hq hq = { .t = t };
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(t->queue_connect(&hq, &o, 0, 4, err, sizeof(err)), 0);
	uint8_t buf[16];
	struct nvmf_hcmd cmd = { .buf = buf, .len = LOOP_KEYED_MAX + 1 }; /* 24-bit length */
	CU_ASSERT_EQUAL(t->submit(&hq, &cmd), -EINVAL);
	cmd = (struct nvmf_hcmd){ .len = 16 }; /* data without a buffer */
	CU_ASSERT_EQUAL(t->submit(&hq, &cmd), -EINVAL);
	cmd = (struct nvmf_hcmd){ .sqe.command_id = 4 }; /* beyond the queue's 4 entries */
	CU_ASSERT_EQUAL(t->submit(&hq, &cmd), -EINVAL);
	/* Registration is accepted and changes nothing: data goes through bounce buffers. */
	CU_ASSERT_EQUAL(t->mem_register(&hq, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(t->mem_unregister(&hq, buf), 0);
	t->queue_disconnect(&hq);
	CU_ASSERT_PTR_NULL(hq.tpriv);
	env_teardown(&e);
	CU_ASSERT_EQUAL(e.seen.capsules[0], 0); /* nothing reached the target */
}

static void a_wildcard_port_is_reached_at_any_address_of_its_family(void)
{
	struct nvmf_config c;
	struct nvmf_tgt tgt;
	char err[512];
	memset(&c, 0, sizeof(c));
	struct nvmf_subsys_config *s = fx_cfg_subsys(&c, LT_NQN, NULL, 2);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_expose(fx_cfg_loop_port(&c, 1, AF_INET, "0.0.0.0", "4420"), LT_NQN);
	static const struct nvmf_transport_ops *const ops[] = { &nvmf_loop_ops };
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_init(&tgt, &c, ops, 1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_listen(&tgt, err, sizeof(err)), 0);
	struct nvmf_ctrl_opts o;
	memset(&o, 0, sizeof(o));
	o.subnqn = LT_NQN;
	o.hostnqn = LT_HOST;
	o.nr_io_queues = 1;
	o.no_keep_alive = true;
	o.timeout_ms = 5000;
	o.transport = nvmf_loop_host_transport(&tgt);
	struct nvmf_ctrl *ctrl = NULL;
	o.traddr = "10.1.2.3"; /* any IPv4 address, and no trsvcid: 4420 */
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), 0);
	if (ctrl)
		nvmf_disconnect(ctrl);
	ctrl = NULL;
	o.traddr = "::1"; /* not of the port's family */
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), -ECONNREFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "no listening loop port at ::1:4420"));
	nvmf_tgt_shutdown(&tgt, 2000);
	nvmf_tgt_fini(&tgt);
	nvmf_config_free(&c);
}

const struct unit_test loop_host_transport_tests[] = {
	{ "small_writes_travel_in_the_capsule_and_the_rest_by_keyed_sgl",
	  small_writes_travel_in_the_capsule_and_the_rest_by_keyed_sgl },
	{ "disconnect_with_commands_outstanding_never_copies_into_host_memory",
	  disconnect_with_commands_outstanding_never_copies_into_host_memory },
	{ "a_host_reaches_only_a_listening_loop_port_of_its_address",
	  a_host_reaches_only_a_listening_loop_port_of_its_address },
	{ "queue_connect_refuses_a_size_outside_its_range",
	  queue_connect_refuses_a_size_outside_its_range },
	{ "submit_refuses_what_a_keyed_sgl_or_the_queue_cannot_carry",
	  submit_refuses_what_a_keyed_sgl_or_the_queue_cannot_carry },
	{ "a_wildcard_port_is_reached_at_any_address_of_its_family",
	  a_wildcard_port_is_reached_at_any_address_of_its_family },
	{ NULL, NULL },
};
