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
#include "initiator/internal.h"
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

/* A RAM namespace larger than the machine's memory starts (its pages are taken as
 * written) with a warning naming it: filling it would bring the OOM killer. */
static void ram_namespace_beyond_memory_is_warned_of_at_start(void)
{
	struct nvmf_config c;
	memset(&c, 0, sizeof(c));
	uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t size = (phys + (1u << 20)) & ~(uint64_t)0xfffff;
	struct nvmf_subsys_config *s = fx_cfg_subsys(&c, TT_NQN, NULL, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1 << 20, 512);
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, size, 512);
	fx_cfg_expose(fx_cfg_loop_port(&c, 1, AF_INET, "127.0.0.1", "4420"), TT_NQN);
	const struct nvmf_transport_ops *ops[] = { &nvmf_loop_ops };
	struct nvmf_tgt tgt;
	char err[512] = "", want[512];
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int rc = nvmf_tgt_init(&tgt, &c, ops, 1, err, sizeof(err));
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	snprintf(want, sizeof(want),
		 "nvmf-target: backend: warning: subsystem " TT_NQN ", namespace 2 (ram): ram "
		 "namespace of %llu bytes is larger than this machine's memory (%llu bytes): once "
		 "hosts fill it the machine runs out of memory, and the OOM killer stops the "
		 "target with every subsystem\n",
		 (unsigned long long)size, (unsigned long long)phys);
	CU_ASSERT_STRING_EQUAL(out.text, want); /* namespace 1 fits: nothing */
	nvmf_tgt_shutdown(&tgt, 1000);
	nvmf_tgt_fini(&tgt);
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

/* Identify Controller's MDTS as the controller of @admin reports it. */
static int id_mdts(struct fxq *admin)
{
	static uint8_t id[4096];
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_identify;
	c.cdw10 = htole32(NVME_IDENTIFY_CNS_CTRL);
	if (fx_cmd(admin, &c, id, sizeof(id), NULL))
		return -1;
	return ((const struct nvme_id_ctrl *)id)->mdts;
}

/* A Read of @nlb 512-byte blocks on @q: its status. */
static int read_blocks(struct fxq *q, uint32_t nlb)
{
	static uint8_t buf[64 << 10];
	struct nvme_sqe c = rw(nvme_cmd_read, 1, 0, nlb);
	return fx_cmd(q, &c, buf, nlb * 512, NULL);
}

/* param.mdts (the kernel's param_mdts): the controllers of each port report the port's
 * MDTS, nvmf_target.mdts where it sets none; a transfer above it is refused with Invalid
 * Field in Command (NVMe Base 2.0 figure 275, MDTS), one at it is served; the target's
 * MDTS, what the transports size their buffers for, is the largest. */
static void each_port_serves_its_own_mdts(void)
{
	struct fx f;
	memset(&f, 0, sizeof(f));
	struct nvmf_subsys_config *s = fx_cfg_subsys(&f.cfg, FX_SUBNQN, NULL, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, MIB, 512);
	fx_cfg_expose(fx_cfg_loop_port(&f.cfg, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	struct nvmf_port_config *p2 = fx_cfg_loop_port(&f.cfg, 2, AF_INET, "0.0.0.0", "4421");
	fx_cfg_expose(p2, FX_SUBNQN);
	p2->mdts = 3;          /* 32 KiB */
	f.cfg.target.mdts = 1; /* 8 KiB: port 1's */
	CU_ASSERT_FATAL(fx_boot(&f, "127.0.0.1", "4420") == 0);
	CU_ASSERT_EQUAL(f.tgt.mdts, 3);
	struct nvmf_transport_opts o;
	nvmf_tgt_transport_opts(&f.tgt, &nvmf_loop_ops, &o);
	CU_ASSERT_EQUAL(o.max_xfer, 32u << 10);

	uint16_t c1 = 0, c2 = 0;
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&f.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, &c1, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(&f.admin), 0);
	CU_ASSERT_EQUAL(id_mdts(&f.admin), 1);
	struct fxq io1, a2, io2; /* in the fixture's list until fx_teardown */
	fx_queue_init(&f, &io1);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&io1, 1, 31, FX_SUBNQN, FX_HOSTNQN, c1, 0, NULL, NULL), 0);
	CU_ASSERT_EQUAL(read_blocks(&io1, 16), 0);
	CU_ASSERT_EQUAL(read_blocks(&io1, 17), nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR);

	f.host->opts.trsvcid = "4421";
	fx_queue_init(&f, &a2);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&a2, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, &c2, NULL),
			      0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(&a2), 0);
	CU_ASSERT_EQUAL(id_mdts(&a2), 3);
	fx_queue_init(&f, &io2);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&io2, 1, 31, FX_SUBNQN, FX_HOSTNQN, c2, 0, NULL, NULL), 0);
	CU_ASSERT_EQUAL(read_blocks(&io2, 64), 0);
	CU_ASSERT_EQUAL(read_blocks(&io2, 65), nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR);
	f.host->opts.trsvcid = f.trsvcid;
	fx_teardown(&f);
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

/* The levels apply from the start's first line: started at --log-level error
 * (log_level_base), or with nvmf_target.log_level naming core error, the info line the
 * start writes (a transport no port needs cannot start) is dropped; the base alone keeps
 * it at info. */
static int start_output(int base, int core_level, char *text, size_t len)
{
	struct nvmf_config c;
	base_config(&c);
	memset(c.target.log_level, -1, sizeof(c.target.log_level));
	c.target.log_level_base_set = true;
	c.target.log_level_base = (enum nvmf_log_level)base;
	c.target.log_level[NVMF_LOGC_CORE] = (int8_t)core_level;
	const struct nvmf_transport_ops *ops[] = { &nvmf_loop_ops, fake() };
	struct nvmf_tgt tgt;
	char err[512] = "";
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int rc = nvmf_tgt_init(&tgt, &c, ops, 2, err, sizeof(err));
	fx_stderr_end(&out);
	snprintf(text, len, "%s", out.text);
	if (!rc) {
		nvmf_tgt_shutdown(&tgt, 1000);
		nvmf_tgt_fini(&tgt);
	}
	nvmf_config_free(&c);
	return rc;
}

static void start_lines_follow_the_levels_given_before_it(void)
{
	char text[4096];
	CU_ASSERT_EQUAL(start_output(NVMF_LOG_ERROR, -1, text, sizeof(text)), 0);
	CU_ASSERT_STRING_EQUAL(text, "");
	CU_ASSERT_EQUAL(start_output(NVMF_LOG_INFO, NVMF_LOG_ERROR, text, sizeof(text)), 0);
	CU_ASSERT_STRING_EQUAL(text, "");
	CU_ASSERT_EQUAL(start_output(NVMF_LOG_ERROR, NVMF_LOG_INFO, text, sizeof(text)), 0);
	CU_ASSERT_STRING_EQUAL(text, "nvmf-target: core: fake ports cannot be used on this "
				     "machine (no fake device)\n");
}

const struct unit_test tgt_start_tests[] = {
	{ "ram_namespace_beyond_memory_is_warned_of_at_start",
	  ram_namespace_beyond_memory_is_warned_of_at_start },
	{ "each_port_serves_its_own_mdts", each_port_serves_its_own_mdts },
	{ "transport_is_created_with_its_resolved_limits",
	  transport_is_created_with_its_resolved_limits },
	{ "port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports",
	  port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports },
	{ "transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live",
	  transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live },
	{ "start_lines_follow_the_levels_given_before_it",
	  start_lines_follow_the_levels_given_before_it },
	{ "read_in_flight_at_shutdown_is_answered_with_its_data",
	  read_in_flight_at_shutdown_is_answered_with_its_data },
	{ "command_that_never_finishes_is_given_half_the_bound",
	  command_that_never_finishes_is_given_half_the_bound },
	{ NULL, NULL },
};
