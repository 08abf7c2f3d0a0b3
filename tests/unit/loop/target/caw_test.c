/*
 * Fused Compare and Write under contention (target/caw.c, target/lba-lock.c): three I/O
 * queues, placed on different poll groups each running on its own thread, race one
 * Compare and Write per round on the same 4 KiB, all with the same compare buffer (what
 * the blocks hold at the round's start) and each its own data, while a fourth queue reads
 * the blocks over and over. The namespace is a file (io_uring): the read, compare and
 * write of a pair span several passes of its group, so without the lock they interleave. Exactly one must win each round, the others see Compare
 * Failure, and no read may see a mix of two writers' data.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "tests/unit/loop/fixture.h"
#include "tests/unit/suites.h"

/* The subsystem takes 4 I/O queues: 3 racers and the reader's. */
enum { RACERS = 3, GROUPS = 4, ROUNDS = 100, NLB = 8, LEN = NLB * 512, NSID = 1 };

struct race {
	struct env e;
	pthread_barrier_t start, end;
	uint8_t before[LEN];       /* what the blocks hold when the round starts */
	uint8_t data[RACERS][LEN]; /* each racer's data for this round */
	int status[RACERS];        /* each racer's outcome this round */
	unsigned racing;           /* racers not done with the round (atomic) */
};

struct racer {
	struct race *r;
	unsigned id;
	bool done;
	int status;
};

static void caw_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct racer *me = arg;
	me->status = status;
	me->done = true;
}

static void *racer_main(void *arg)
{
	struct racer *me = arg;
	struct race *r = me->r;
	struct nvmf_queue *q = nvmf_io_queue(r->e.ctrl, me->id + 1);
	for (int round = 0; round < ROUNDS; round++) {
		pthread_barrier_wait(&r->start);
		me->done = false;
		int rc = nvmf_submit_compare_and_write(q, NSID, 0, NLB, r->before, r->data[me->id],
						       caw_done, me);
		if (rc)
			me->status = rc;
		while (!rc && !me->done)
			if (nvmf_queue_wait(q, 100) < 0)
				break;
		r->status[me->id] = me->done ? me->status : -EIO;
		__atomic_sub_fetch(&r->racing, 1, __ATOMIC_RELEASE);
		pthread_barrier_wait(&r->end);
	}
	return NULL;
}

/* Which of the round's contents @buf is: -1 the one before, 0..RACERS-1 a racer's data,
 * -2 none of them (torn). */
static int which(const struct race *r, const uint8_t *buf)
{
	if (!memcmp(buf, r->before, LEN))
		return -1;
	for (int i = 0; i < RACERS; i++)
		if (!memcmp(buf, r->data[i], LEN))
			return i;
	return -2;
}

static void one_of_racing_compare_and_writes_wins_each_round_and_reads_are_never_torn(void)
{
	struct race *r = calloc(1, sizeof(*r));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	env_setup(&r->e, GROUPS, true, true);
	env_connect(&r->e, RACERS + 1);
	pthread_barrier_init(&r->start, NULL, RACERS + 1);
	pthread_barrier_init(&r->end, NULL, RACERS + 1);
	struct racer racers[RACERS];
	pthread_t th[RACERS];
	for (unsigned i = 0; i < RACERS; i++) {
		racers[i] = (struct racer){ .r = r, .id = i };
		CU_ASSERT_FATAL(pthread_create(&th[i], NULL, racer_main, &racers[i]) == 0);
	}
	struct nvmf_queue *rq = nvmf_io_queue(r->e.ctrl, 0);
	static uint8_t got[LEN];
	unsigned bad_rounds = 0, torn = 0, reads = 0;
	for (int round = 0; round < ROUNDS; round++) {
		env_fill(r->before, LEN, (unsigned)round * 100u);
		for (unsigned i = 0; i < RACERS; i++)
			env_fill(r->data[i], LEN, (unsigned)round * 100u + 1 + i);
		CU_ASSERT_EQUAL_FATAL(nvmf_write(r->e.ctrl, NSID, 0, NLB, r->before), 0);
		__atomic_store_n(&r->racing, RACERS, __ATOMIC_RELEASE);
		pthread_barrier_wait(&r->start);
		/* Read while they race (on queue 0, this thread's, as nvmf_write's). */
		while (__atomic_load_n(&r->racing, __ATOMIC_ACQUIRE)) {
			struct count_arg c = { 0, 0 };
			if (nvmf_submit_read(rq, NSID, 0, NLB, got, count_cb, &c))
				break;
			while (!c.calls && nvmf_queue_wait(rq, 100) >= 0)
				;
			reads++;
			if (which(r, got) == -2)
				torn++;
		}
		pthread_barrier_wait(&r->end);
		unsigned won = 0, lost = 0;
		for (unsigned i = 0; i < RACERS; i++) {
			if (r->status[i] == 0)
				won++;
			else if (r->status[i] ==
				 (int)(nvme_status(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED) |
				       NVME_SC_DNR))
				lost++;
		}
		CU_ASSERT_EQUAL_FATAL(nvmf_read(r->e.ctrl, NSID, 0, NLB, got), 0);
		int w = which(r, got);
		if (won != 1 || lost != RACERS - 1 || w < 0 || r->status[w] != 0) {
			bad_rounds++;
			fprintf(stderr, "round %d: %u won, %u lost, the blocks hold %d\n", round,
				won, lost, w);
		}
	}
	for (unsigned i = 0; i < RACERS; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT_EQUAL(bad_rounds, 0);
	CU_ASSERT_EQUAL(torn, 0);
	CU_ASSERT(reads > 0);
	pthread_barrier_destroy(&r->start);
	pthread_barrier_destroy(&r->end);
	env_teardown(&r->e);
	free(r);
}

const struct unit_test loop_caw_tests[] = {
	{ "one_of_racing_compare_and_writes_wins_each_round_and_reads_are_never_torn",
	  one_of_racing_compare_and_writes_wins_each_round_and_reads_are_never_torn },
	{ NULL, NULL },
};
