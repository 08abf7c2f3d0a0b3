/*
 * The fault injection of the test binaries (tests/fault): its spec text, how rules match
 * and count, and the wrapper on a real backend (RAM and file), driven directly.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/fault/fault.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"

static int parse(const char *spec, struct nvmf_fault_rule *r, size_t *n, unsigned *depth, char *err,
		 size_t errlen)
{
	return nvmf_fault_parse(spec, r, NVMF_FAULT_MAX_RULES, n, depth, err, errlen);
}

static void spec_clauses_become_rules_in_order(void)
{
	struct nvmf_fault_rule r[NVMF_FAULT_MAX_RULES];
	size_t n;
	unsigned depth = 0;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(
		parse("nsid=1,op=read,lba=2048-2303,fail=EIO;op=write,fail=ENOSPC,count=2;"
		      "nsid=2,busy,every=3;short=4096;op=read,sqe_full,cont;submit=ENXIO;"
		      "ring_depth=4;fail=5",
		      r, &n, &depth, err, sizeof(err)),
		0);
	CU_ASSERT_EQUAL_FATAL(n, 7);
	CU_ASSERT_EQUAL(depth, 4);
	CU_ASSERT_EQUAL(r[0].nsid, 1);
	CU_ASSERT_EQUAL(r[0].op, NVMF_BDEV_READ);
	CU_ASSERT(r[0].has_lba && r[0].lba_first == 2048 && r[0].lba_last == 2303);
	CU_ASSERT_EQUAL(r[0].action, NVMF_FAULT_FAIL);
	CU_ASSERT_EQUAL(r[0].err, -EIO);
	CU_ASSERT_EQUAL(r[1].op, NVMF_BDEV_WRITE);
	CU_ASSERT_EQUAL(r[1].nsid, 0);
	CU_ASSERT_EQUAL(r[1].err, -ENOSPC);
	CU_ASSERT_EQUAL(r[1].count, 2);
	CU_ASSERT_EQUAL(r[2].action, NVMF_FAULT_BUSY);
	CU_ASSERT_EQUAL(r[2].every, 3);
	CU_ASSERT_EQUAL(r[2].op, NVMF_FAULT_ANY_OP);
	CU_ASSERT_EQUAL(r[3].action, NVMF_FAULT_SHORT);
	CU_ASSERT_EQUAL(r[3].short_bytes, 4096);
	CU_ASSERT_EQUAL(r[4].action, NVMF_FAULT_SQE_FULL);
	CU_ASSERT_TRUE(r[4].cont_only);
	CU_ASSERT_EQUAL(r[5].action, NVMF_FAULT_SUBMIT);
	CU_ASSERT_EQUAL(r[5].err, -ENXIO);
	CU_ASSERT_EQUAL(r[6].err, -5);
	char buf[128];
	CU_ASSERT_STRING_EQUAL(nvmf_fault_describe(&r[0], buf, sizeof(buf)),
			       "nsid=1,op=read,lba=2048-2303,fail=EIO");
	CU_ASSERT_STRING_EQUAL(nvmf_fault_describe(&r[1], buf, sizeof(buf)),
			       "op=write,fail=ENOSPC,count=2");
	CU_ASSERT_STRING_EQUAL(nvmf_fault_describe(&r[2], buf, sizeof(buf)),
			       "nsid=2,op=any,busy,every=3");
	CU_ASSERT_STRING_EQUAL(nvmf_fault_describe(&r[4], buf, sizeof(buf)),
			       "op=read,sqe_full,cont");
	CU_ASSERT_STRING_EQUAL(nvmf_fault_describe(&r[5], buf, sizeof(buf)), "submit=ENXIO");
}

static void bad_spec_names_the_clause_and_the_problem(void)
{
	static const struct {
		const char *spec, *msg;
	} cases[] = {
		{ "fail=EIO;op=reed,fail=EIO", "clause 2: op: bad value 'reed'" },
		{ "nsid=1", "clause 1: no action (fail=, busy, short=, sqe_full or submit=)" },
		{ "busy,fail=EIO",
		  "clause 1: more than one action (fail=, busy, short=, sqe_full or submit=)" },
		{ "fail=EAGAIN", "clause 1: fail=EAGAIN: use busy (submit refused, retried)" },
		{ "fail=EWHAT", "clause 1: fail: bad value 'EWHAT'" },
		{ "lba=9-3,fail=EIO", "clause 1: lba: bad value '9'" },
		{ "busy,cont", "clause 1: cont goes with sqe_full only" },
		{ "ring_depth=3", "clause 1: ring_depth: '3' is not a power of two up to 32768" },
		{ "nsid=0,busy", "clause 1: nsid: bad value '0'" },
		{ "fail=EIO,colour=red", "clause 1: unknown item 'colour=red'" },
		{ "", "no clause" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nvmf_fault_rule r[NVMF_FAULT_MAX_RULES];
		size_t n;
		unsigned depth = 0;
		char err[200] = "";
		CU_ASSERT_EQUAL(parse(cases[i].spec, r, &n, &depth, err, sizeof(err)), -1);
		if (strcmp(err, cases[i].msg))
			fprintf(stderr, "\n  spec '%s': got '%s'\n", cases[i].spec, err);
		CU_ASSERT_STRING_EQUAL(err, cases[i].msg);
	}
}

static struct nvmf_fault_io io_at(uint32_t nsid, int op, uint64_t first, uint64_t last)
{
	return (struct nvmf_fault_io){
		.nsid = nsid, .op = op, .has_lba = true, .lba_first = first, .lba_last = last
	};
}

static bool fires(const struct nvmf_fault_io *io, struct nvmf_fault_rule *out)
{
	return fault_fire(FAULT_BIT(NVMF_FAULT_FAIL) | FAULT_BIT(NVMF_FAULT_BUSY), io, out);
}

static void rule_matches_namespace_op_and_any_overlap_of_its_range(void)
{
	nvmf_fault_reset();
	struct nvmf_fault_rule r = nvmf_fault_rule(1, NVMF_BDEV_READ, NVMF_FAULT_FAIL), got;
	r.err = -EIO;
	r.has_lba = true;
	r.lba_first = 100;
	r.lba_last = 199;
	int id = nvmf_fault_add(&r);
	struct nvmf_fault_io in = io_at(1, NVMF_BDEV_READ, 96, 103),
			     before = io_at(1, NVMF_BDEV_READ, 92, 99),
			     after = io_at(1, NVMF_BDEV_READ, 200, 207),
			     other_ns = io_at(2, NVMF_BDEV_READ, 100, 100),
			     write = io_at(1, NVMF_BDEV_WRITE, 150, 150),
			     flush = { .nsid = 1, .op = NVMF_BDEV_FLUSH };
	CU_ASSERT_TRUE(fires(&in, &got));
	CU_ASSERT_EQUAL(got.err, -EIO);
	CU_ASSERT_FALSE(fires(&before, &got));
	CU_ASSERT_FALSE(fires(&after, &got));
	CU_ASSERT_FALSE(fires(&other_ns, &got));
	CU_ASSERT_FALSE(fires(&write, &got));
	CU_ASSERT_FALSE(fires(&flush, &got));
	CU_ASSERT_EQUAL(nvmf_fault_fired(id), 1);
	CU_ASSERT_TRUE(fault_wants(1));
	CU_ASSERT_FALSE(fault_wants(2));
	nvmf_fault_reset();
	CU_ASSERT_FALSE(fault_wants(1));
}

static void every_and_count_limit_when_a_rule_acts_and_the_first_acting_rule_decides(void)
{
	nvmf_fault_reset();
	struct nvmf_fault_rule busy = nvmf_fault_rule(0, NVMF_FAULT_ANY_OP, NVMF_FAULT_BUSY);
	busy.every = 3;
	busy.count = 2;
	struct nvmf_fault_rule fail = nvmf_fault_rule(0, NVMF_FAULT_ANY_OP, NVMF_FAULT_FAIL);
	fail.err = -ENOSPC;
	fail.every = 2;
	int b = nvmf_fault_add(&busy), f = nvmf_fault_add(&fail);
	struct nvmf_fault_io io = io_at(7, NVMF_BDEV_WRITE, 0, 0);
	/* I/O 1..10: busy counts them all and acts on the 3rd and 6th (then its count is
	 * spent); the fail rule counts the others and acts on every second of those. */
	enum { NONE = -1 };
	const int want[10] = { NONE,           NVMF_FAULT_FAIL, NVMF_FAULT_BUSY,
			       NONE,           NVMF_FAULT_FAIL, NVMF_FAULT_BUSY,
			       NONE,           NVMF_FAULT_FAIL, NONE,
			       NVMF_FAULT_FAIL };
	for (unsigned i = 0; i < 10; i++) {
		struct nvmf_fault_rule got;
		bool a = fires(&io, &got);
		CU_ASSERT_EQUAL(a, want[i] != NONE);
		if (a)
			CU_ASSERT_EQUAL((int)got.action, want[i]);
	}
	CU_ASSERT_EQUAL(nvmf_fault_fired(b), 2);
	CU_ASSERT_EQUAL(nvmf_fault_fired(f), 4);
	nvmf_fault_reset();
}

/* ---- the wrapper on real backends ---- */

static struct nvmf_bdev *open_ram(uint32_t nsid)
{
	struct nvmf_ns_config cfg = {
		.nsid = nsid, .kind = NVMF_BACKEND_RAM, .size_bytes = 1 << 20, .block_size = 512
	};
	char err[256];
	struct nvmf_bdev *b = nvmf_bdev_open(&cfg, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	return b;
}

static void backend_opened_without_rules_is_not_wrapped(void)
{
	nvmf_fault_reset();
	struct nvmf_bdev *b = open_ram(1);
	CU_ASSERT_FALSE(nvmf_fault_attached(b));
	CU_ASSERT_STRING_EQUAL(b->ops->name, "ram");
	nvmf_bdev_close(b);
}

static void backend_opened_under_a_rule_fails_busies_and_serves_as_told(void)
{
	nvmf_fault_reset();
	char err[200];
	CU_ASSERT_EQUAL_FATAL(
		nvmf_fault_load("nsid=3,op=read,lba=8-15,fail=EIO;nsid=3,op=write,busy,count=1",
				err, sizeof(err)),
		0);
	struct nvmf_bdev *other = open_ram(4);
	CU_ASSERT_FALSE(nvmf_fault_attached(other));
	struct nvmf_bdev *b = open_ram(3);
	CU_ASSERT_TRUE_FATAL(nvmf_fault_attached(b));
	CU_ASSERT_STRING_EQUAL(b->ops->name, "ram");
	struct nvmf_aio aio;
	CU_ASSERT_EQUAL_FATAL(nvmf_aio_init(&aio, 8), 0);
	uint8_t out[4096], in[4608];
	fill(out, sizeof(out), 3);
	struct waiter w = { 0 };
	struct nvmf_bdev_io io = { .op = NVMF_BDEV_WRITE,
				   .offset = 0,
				   .len = 4096,
				   .buf = out,
				   .done = io_done,
				   .ctx = &w };
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, &aio, &io), -EAGAIN); /* busy once */
	CU_ASSERT_EQUAL(w.calls, 0);
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, &aio, &io), 0);
	CU_ASSERT_EQUAL(w.calls, 1);
	CU_ASSERT_EQUAL(w.status, 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 0, 4608, in),
			-EIO);                                            /* blocks 0-8 touch 8 */
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 0, 4096, in), 0); /* 0-7 do not */
	CU_ASSERT_EQUAL(memcmp(in, out, 4096), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 16 * 512, 512, in), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 15 * 512, 512, in), -EIO);
	nvmf_aio_fini(&aio);
	nvmf_bdev_close(b);
	nvmf_bdev_close(other);
	nvmf_fault_reset();
}

const struct unit_test fault_rules_tests[] = {
	{ "spec_clauses_become_rules_in_order", spec_clauses_become_rules_in_order },
	{ "bad_spec_names_the_clause_and_the_problem", bad_spec_names_the_clause_and_the_problem },
	{ "rule_matches_namespace_op_and_any_overlap_of_its_range",
	  rule_matches_namespace_op_and_any_overlap_of_its_range },
	{ "every_and_count_limit_when_a_rule_acts_and_the_first_acting_rule_decides",
	  every_and_count_limit_when_a_rule_acts_and_the_first_acting_rule_decides },
	{ "backend_opened_without_rules_is_not_wrapped",
	  backend_opened_without_rules_is_not_wrapped },
	{ "backend_opened_under_a_rule_fails_busies_and_serves_as_told",
	  backend_opened_under_a_rule_fails_busies_and_serves_as_told },
	{ NULL, NULL },
};
