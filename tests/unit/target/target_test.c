/*
 * Start-up of the target as a whole (nvmf_tgt_init, target/target.c) on a machine where a
 * transport cannot start, as RDMA on one without an RDMA device: a port the config asks
 * for on it fails the start with a message naming the port and why, and nothing else is
 * printed (no shutdown or statistics lines from undoing the start); a transport no port
 * needs is one info line, and a port of it added live is refused by name.
 *
 * The transport that cannot start is "fake": the loop transport's table with a create
 * that fails the way rdma's does without a device.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "target/model.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "util/clock.h"

#define TT_NQN "nqn.2024-01.io.nvmf-rdma:start"

static struct nvmf_transport *
fake_create(struct nvmf_tgt *tgt, const struct nvmf_transport_opts *opts, char *err, size_t errlen)
{
	(void)tgt, (void)opts;
	snprintf(err, errlen, "no fake device");
	return NULL;
}

static struct nvmf_transport_ops fake_ops;

static const struct nvmf_transport_ops *fake(void)
{
	fake_ops = nvmf_loop_ops;
	fake_ops.name = "fake";
	fake_ops.create = fake_create;
	return &fake_ops;
}

/* A config with subsystem TT_NQN (a RAM namespace) on loop port 1. */
static void base_config(struct nvmf_config *c)
{
	memset(c, 0, sizeof(*c));
	struct nvmf_subsys_config *s = fx_cfg_subsys(c, TT_NQN, NULL, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1 << 20, 512);
	fx_cfg_expose(fx_cfg_loop_port(c, 1, AF_INET, "127.0.0.1", "4420"), TT_NQN);
}

static struct nvmf_port_config *fake_port(struct nvmf_config *c, uint16_t portid, int family,
					  const char *traddr)
{
	struct nvmf_port_config *p = fx_cfg_loop_port(c, portid, family, traddr, "4420");
	snprintf(p->trtype, sizeof(p->trtype), "fake");
	fx_cfg_expose(p, TT_NQN);
	return p;
}

static void port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports(void)
{
	struct nvmf_config c;
	base_config(&c);
	fake_port(&c, 3, AF_INET, "10.0.0.1");
	fake_port(&c, 4, AF_INET6, "fd00::1");
	const struct nvmf_transport_ops *ops[] = { &nvmf_loop_ops, fake() };
	struct nvmf_tgt tgt;
	char err[512] = "";
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int rc = nvmf_tgt_init(&tgt, &c, ops, 2, err, sizeof(err));
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_STRING_EQUAL(err, "port 3 (fake 10.0.0.1:4420), port 4 (fake [fd00::1]:4420): "
				    "the fake transport cannot start: no fake device");
	/* Undoing the start says nothing: no queue was busy, no group has statistics. */
	CU_ASSERT_STRING_EQUAL(out.text, "");
	nvmf_config_free(&c);
}

static void transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live(void)
{
	struct nvmf_config c;
	base_config(&c);
	const struct nvmf_transport_ops *ops[] = { &nvmf_loop_ops, fake() };
	struct nvmf_tgt tgt;
	char err[512] = "";
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int rc = nvmf_tgt_init(&tgt, &c, ops, 2, err, sizeof(err));
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(out.text,
			       "nvmf-target: core: fake ports cannot be used on this machine "
			       "(no fake device)\n");
	CU_ASSERT_EQUAL(tgt.ntransports, 1);

	struct nvmf_config more;
	memset(&more, 0, sizeof(more));
	struct nvmf_port_config *p = fake_port(&more, 5, AF_INET, "10.0.0.5");
	CU_ASSERT_EQUAL(nvmf_tgt_port_add(&tgt, p, err, sizeof(err)), -ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "the fake transport is not running here"));
	CU_ASSERT_EQUAL(tgt.n_ports, 1);

	/* A target that never started stops without statistics either. */
	fx_stderr_begin(&out);
	nvmf_tgt_shutdown(&tgt, 1000);
	fx_stderr_end(&out);
	CU_ASSERT_STRING_EQUAL(out.text, "");
	nvmf_tgt_fini(&tgt);
	nvmf_config_free(&more);
	nvmf_config_free(&c);
}

/*
 * Shutdown that keeps its promise (nvmf_tgt_shutdown, target/target.c): a command in
 * flight when the target stops is answered, with its data, before its queue is
 * disconnected; a command arriving after that is not started. The whole stack: a host
 * on the loop transport, the core, a backend that holds its I/O until the test lets it
 * go. The shutdown runs on a thread of its own (it drives the groups, as the daemon's
 * main thread does), the test plays the host and the disk.
 *
 * Namespaces: 1 = RAM 1 MiB, 512 B blocks (replaced by a held backend); 2 = RAM 1 MiB.
 */

#define MIB (1u << 20)

static struct fx F;
static struct fxq Q; /* I/O queue 1 */
static struct fx_cmd Aer;

static struct nvme_sqe rw(uint8_t opcode, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32((uint32_t)slba);
	c.cdw11 = htole32((uint32_t)(slba >> 32));
	c.cdw12 = htole32(nlb - 1);
	return c;
}

struct stopper {
	pthread_t thread;
	int timeout_ms;
	uint64_t took_ms;
};

static void *stop_thread(void *arg)
{
	struct stopper *s = arg;
	uint64_t t0 = nvmf_mono_ms();
	nvmf_tgt_shutdown(&F.tgt, s->timeout_ms);
	s->took_ms = nvmf_mono_ms() - t0;
	return NULL;
}

/* Start the shutdown and return once it stopped taking commands. */
static void start_shutdown(struct stopper *s, int timeout_ms)
{
	s->timeout_ms = timeout_ms;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&s->thread, NULL, stop_thread, s), 0);
	while (!__atomic_load_n(&F.tgt.stopping, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(50000); /* the groups ran their quiesce message */
}

/* On the I/O group (a message): the disk finishes the held read with @arg's pattern. */
static void finish_read(void *arg)
{
	struct fx_held_bdev *h = arg;
	memset(h->io->buf, 0xa5, h->io->len);
	h->io->done_bytes = h->io->len;
	h->io->done(h->io, 0);
}

static bool wait_done(struct fx_cmd *c, int ms)
{
	for (int i = 0; i < ms && !fx_done(c); i++)
		usleep(1000);
	return c->done;
}

static struct fx_held_bdev *held;
static struct nvmf_bdev *ram1;

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&F), 0);
	struct nvme_sqe a;
	memset(&a, 0, sizeof(a));
	a.opcode = nvme_admin_async_event;
	CU_ASSERT_EQUAL_FATAL(fx_start(&F.admin, &Aer, &a, NULL, 0), 0); /* parked */
	fx_queue_init(&F, &Q);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&Q, 1, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, NULL),
			      0);
	struct nvmf_ns *ns1 = nvmf_subsys_ns(nvmf_tgt_find_subsys(&F.tgt, FX_SUBNQN), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ns1);
	held = fx_held_bdev_new(512, MIB, NULL);
	ram1 = ns1->bdev;
	ns1->bdev = &held->b;
}

static void teardown(void)
{
	fx_teardown(&F);
	nvmf_bdev_close(ram1);
}

/* The read the disk still holds when the target stops reaches the host with its data
 * and status 0; a parked AER does not hold the shutdown back; a write the host sends
 * after the stop began never reaches the disk. */
static void read_in_flight_at_shutdown_is_answered_with_its_data(void)
{
	setup();
	struct fx_cmd r, w;
	struct nvme_sqe rc = rw(nvme_cmd_read, 1, 8, 1);
	CU_ASSERT_EQUAL_FATAL(fx_start(&Q, &r, &rc, NULL, 512), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(held->io);
	CU_ASSERT_FALSE(fx_done(&r));

	struct stopper s;
	start_shutdown(&s, 4000);
	uint8_t data[512];
	memset(data, 0x3c, sizeof(data));
	struct nvme_sqe wc = rw(nvme_cmd_write, 1, 9, 1);
	CU_ASSERT_EQUAL(fx_submit(&Q, &w, &wc, data, sizeof(data)), 0);
	usleep(50000); /* the group saw it */
	CU_ASSERT_FALSE(r.done);
	CU_ASSERT_EQUAL_FATAL(nvmf_pg_send(F.tgt.pgs[F.tgt.npgs - 1], finish_read, held), 0);

	CU_ASSERT_TRUE(wait_done(&r, 3000));
	CU_ASSERT_EQUAL(pthread_join(s.thread, NULL), 0);
	CU_ASSERT_EQUAL(r.status, 0);
	uint8_t want[512];
	memset(want, 0xa5, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(r.data, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(held->submits, 1); /* the write was not started */
	CU_ASSERT_FALSE(w.done && w.status == 0);
	CU_ASSERT_FALSE(Aer.done && Aer.status >= 0); /* dropped, not answered */
	CU_ASSERT(s.took_ms < 2000);                  /* did not wait out the bound for the AER */
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&F.tgt), 0);
	teardown();
}

/* A command that does not finish in time does not hold the target: after half the
 * bound the queues are disconnected (the answer is then lost; the host resubmits). */
static void command_that_never_finishes_is_given_half_the_bound(void)
{
	setup();
	struct fx_cmd r;
	struct nvme_sqe rc = rw(nvme_cmd_read, 1, 0, 1);
	CU_ASSERT_EQUAL_FATAL(fx_start(&Q, &r, &rc, NULL, 512), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(held->io);
	struct stopper s;
	start_shutdown(&s, 600);
	/* Past half the bound, the queue is being torn down: the disk finishes late, and the
	 * core may then release it. */
	usleep(400000);
	CU_ASSERT_EQUAL_FATAL(nvmf_pg_send(F.tgt.pgs[F.tgt.npgs - 1], finish_read, held), 0);
	CU_ASSERT_EQUAL(pthread_join(s.thread, NULL), 0);
	CU_ASSERT(s.took_ms >= 300);
	CU_ASSERT_FALSE(r.done && r.status == 0);
	teardown();
}

/* What the fake transport's create was handed. */
static struct nvmf_transport_opts seen_opts;
static unsigned seen_creates;

static struct nvmf_transport *
spy_create(struct nvmf_tgt *tgt, const struct nvmf_transport_opts *opts, char *err, size_t errlen)
{
	(void)tgt;
	seen_opts = *opts;
	seen_creates++;
	snprintf(err, errlen, "no fake device");
	return NULL;
}

/* A transport reads no configuration: create gets the limits resolved (max transfer from
 * the MDTS bounded by every transport, the largest in-capsule size of its own ports,
 * bounded by its max_inline) and the settings it needs. */
static void transport_is_created_with_its_resolved_limits(void)
{
	struct nvmf_config c;
	base_config(&c);
	c.target.mdts = 6; /* 256 KiB */
	c.target.srq = true;
	c.target.srq_depth = 777;
	c.target.buffers_small = 11;
	c.target.buffers_large = 22;
	c.target.hugepages = false;
	fake_port(&c, 3, AF_INET, "10.0.0.1")->inline_data_size = 4096;
	fake_port(&c, 4, AF_INET, "10.0.0.2")->inline_data_size = 1u << 20; /* above max_inline */
	c.ports[0].inline_data_size = 12288; /* the loop port's: not the fake's */
	const struct nvmf_transport_ops *ops[] = { &nvmf_loop_ops, fake() };
	fake_ops.create = spy_create;
	fake_ops.max_inline = 8192;
	fake_ops.max_xfer = 128u << 10; /* bounds MDTS to 5 */
	seen_creates = 0;
	struct nvmf_tgt tgt;
	char err[512] = "";
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int rc = nvmf_tgt_init(&tgt, &c, ops, 2, err, sizeof(err));
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL_FATAL(seen_creates, 1);
	CU_ASSERT_EQUAL(seen_opts.max_xfer, 128u << 10);
	CU_ASSERT_EQUAL(seen_opts.nports, 2);
	CU_ASSERT_EQUAL(seen_opts.max_port_inline, 8192);
	CU_ASSERT_TRUE(seen_opts.srq);
	CU_ASSERT_EQUAL(seen_opts.srq_depth, 777);
	CU_ASSERT_EQUAL(seen_opts.buffers_small, 11);
	CU_ASSERT_EQUAL(seen_opts.buffers_large, 22);
	CU_ASSERT_FALSE(seen_opts.hugepages);
	nvmf_config_free(&c);
}

const struct unit_test tgt_start_tests[] = {
	{ "transport_is_created_with_its_resolved_limits",
	  transport_is_created_with_its_resolved_limits },
	{ "port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports",
	  port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports },
	{ "transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live",
	  transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live },
	{ "read_in_flight_at_shutdown_is_answered_with_its_data",
	  read_in_flight_at_shutdown_is_answered_with_its_data },
	{ "command_that_never_finishes_is_given_half_the_bound",
	  command_that_never_finishes_is_given_half_the_bound },
	{ NULL, NULL },
};
