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
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "util/clock.h"

#define MIB (1u << 20)

static struct fx F;
static struct fxq Q;                    /* I/O queue 1 */
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
	usleep(50000);   /* the groups ran their quiesce message */
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
	CU_ASSERT_EQUAL_FATAL(fx_start(&F.admin, &Aer, &a, NULL, 0), 0);   /* parked */
	fx_queue_init(&F, &Q);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&Q, 1, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, NULL), 0);
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
	usleep(50000);   /* the group saw it */
	CU_ASSERT_FALSE(r.done);
	CU_ASSERT_EQUAL_FATAL(nvmf_pg_send(F.tgt.pgs[F.tgt.npgs - 1], finish_read, held), 0);

	CU_ASSERT_TRUE(wait_done(&r, 3000));
	CU_ASSERT_EQUAL(pthread_join(s.thread, NULL), 0);
	CU_ASSERT_EQUAL(r.status, 0);
	uint8_t want[512];
	memset(want, 0xa5, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(r.data, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(held->submits, 1);        /* the write was not started */
	CU_ASSERT_FALSE(w.done && w.status == 0);
	CU_ASSERT_FALSE(Aer.done && Aer.status >= 0);   /* dropped, not answered */
	CU_ASSERT(s.took_ms < 2000);              /* did not wait out the bound for the AER */
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

const struct unit_test shutdown_tests[] = {
	{"read_in_flight_at_shutdown_is_answered_with_its_data",
	 read_in_flight_at_shutdown_is_answered_with_its_data},
	{"command_that_never_finishes_is_given_half_the_bound",
	 command_that_never_finishes_is_given_half_the_bound},
	{NULL, NULL},
};
