/* SPDX-License-Identifier: MIT */
/*
 * The gateway group's coordinator (gateway/gateway.c) on the whole target of the unit
 * tests' fixture (two loop ports, ANA groups 2 and 3 optimized on both in the config),
 * as gateway gw-a (preferred for group 2; gw-b is for group 3), against a fake lock
 * service: an in-memory table of locks whose leases end on the fixture's clock, where a
 * test plays gw-b by writing its locks. Rounds run on the test's thread (no gateway
 * thread), each followed by nvmf_gw_apply at the same time.
 */
#include <errno.h>
#include <jansson.h>
#include <nvme/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gateway/gateway.h"
#include "target/ana.h"
#include "target/core.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

#define OPT     NVME_ANA_STATE_OPTIMIZED
#define NONOPT  NVME_ANA_STATE_NONOPTIMIZED
#define INACC   NVME_ANA_STATE_INACCESSIBLE
#define LEASE_S 9 /* rounds every 3000 ms, claims end 6750 ms after the call */

/* ---- the fake lock service ---- */

struct fake_lock {
	char oid[160], cookie[256];
	uint64_t expires; /* ms on the fixture's clock */
};

struct fake_locks {
	struct fx *f;
	struct fake_lock l[16];
	size_t n;
	int fail;         /* every call but connect fails with it while set */
	int connect_fail; /* connect fails with it while set */
	bool destroyed;
};

static struct fake_lock *live(struct fake_locks *k, const char *oid)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->l[i].oid, oid) && k->l[i].expires > k->f->now)
			return &k->l[i];
	return NULL;
}

/* gw-b (or anyone) holds @oid under @cookie for @ms from now. */
static void fake_hold(struct fake_locks *k, const char *oid, const char *cookie, uint64_t ms)
{
	struct fake_lock *e = live(k, oid);
	if (!e) {
		CU_ASSERT_FATAL(k->n < 16);
		e = &k->l[k->n++];
	}
	snprintf(e->oid, sizeof(e->oid), "%s", oid);
	snprintf(e->cookie, sizeof(e->cookie), "%s", cookie);
	e->expires = k->f->now + ms;
}

static int fk_connect(void *ctx, char *err, size_t errlen)
{
	struct fake_locks *k = ctx;
	if (k->connect_fail)
		snprintf(err, errlen, "no monitor answers");
	return k->connect_fail;
}

static int fk_lock(void *ctx, const char *oid, const char *cookie, uint32_t lease_s, bool renew)
{
	struct fake_locks *k = ctx;
	if (k->fail)
		return k->fail;
	struct fake_lock *e = live(k, oid);
	if (e && strcmp(e->cookie, cookie))
		return -EBUSY;
	if (e && !renew)
		return -EEXIST;
	fake_hold(k, oid, cookie, (uint64_t)lease_s * 1000);
	return 0;
}

static int fk_unlock(void *ctx, const char *oid, const char *cookie)
{
	struct fake_locks *k = ctx;
	if (k->fail)
		return k->fail;
	struct fake_lock *e = live(k, oid);
	if (!e || strcmp(e->cookie, cookie))
		return -ENOENT;
	e->expires = 0;
	return 0;
}

static int fk_holder(void *ctx, const char *oid, char *cookie, size_t len)
{
	struct fake_locks *k = ctx;
	if (k->fail)
		return k->fail;
	struct fake_lock *e = live(k, oid);
	if (!e)
		return 0;
	snprintf(cookie, len, "%s", e->cookie);
	return 1;
}

static void fk_destroy(void *ctx)
{
	((struct fake_locks *)ctx)->destroyed = true;
}

static const struct nvmf_gw_locks fake_ops = { fk_connect, fk_lock, fk_unlock, fk_holder,
					       fk_destroy };

/* ---- the target ---- */

static struct fx F;
static struct fake_locks K;
static struct nvmf_gw *G;

/* The target (groups 2 and 3 optimized on both ports, as the file says) and gw-a on it. */
static void setup(void)
{
	memset(&F, 0, sizeof(F));
	struct nvmf_config *c = &F.cfg;
	struct nvmf_subsys_config *s = fx_cfg_subsys(c, FX_SUBNQN, FX_HOSTNQN, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1 << 20, 512)->anagrpid = 2;
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, 1 << 20, 512)->anagrpid = 3;
	for (uint16_t id = 1; id <= 2; id++) {
		struct nvmf_port_config *p =
			fx_cfg_loop_port(c, id, AF_INET, "127.0.0.1", id == 1 ? "4420" : "4421");
		fx_cfg_expose(p, FX_SUBNQN);
		fx_cfg_ana_group(p, 2, OPT);
		fx_cfg_ana_group(p, 3, OPT);
	}
	fx_cfg_gateway(&c->gateway, LEASE_S, true);
	CU_ASSERT_FATAL(fx_boot(&F, "127.0.0.1", "4420") == 0);
	memset(&K, 0, sizeof(K));
	K.f = &F;
	char err[256];
	G = NULL;
	CU_ASSERT_EQUAL_FATAL(
		nvmf_gw_create(&F.tgt, &c->gateway, &fake_ops, &K, &G, err, sizeof(err)), 0);
}

static void teardown(void)
{
	nvmf_gw_stop(G);
	G = NULL;
	fx_teardown(&F);
}

static uint8_t state(size_t port, uint32_t grpid)
{
	return F.tgt.ports[port]->ana_state[grpid];
}

/* Both ports show @grpid in @want. */
static void expect(uint32_t grpid, uint8_t want)
{
	CU_ASSERT_EQUAL(state(0, grpid), want);
	CU_ASSERT_EQUAL(state(1, grpid), want);
}

static int round_at(uint64_t now)
{
	F.now = now;
	int rc = nvmf_gw_round(G, now);
	nvmf_gw_apply(G, now);
	return rc;
}

static json_t *group_status(json_t *st, size_t i)
{
	return json_array_get(json_object_get(st, "groups"), i);
}

/* ---- the tests ---- */

static void groups_are_non_optimized_before_any_lock(void)
{
	setup();
	/* The file said optimized: not before the gateway holds the lock. */
	expect(2, NONOPT);
	expect(3, NONOPT);
	CU_ASSERT_EQUAL(state(0, 1), OPT); /* not a shared group: untouched */
	teardown();
}

static void preferred_group_is_taken_and_the_other_waits_while_its_gateway_lives(void)
{
	setup();
	fake_hold(&K, "nvmf-gw.g1.alive.gw-b", "gw-b/1", 9000);
	fake_hold(&K, "nvmf-gw.g1.ana.3", "gw-b/1", 9000);
	CU_ASSERT_EQUAL(round_at(F.now), 0);
	expect(2, OPT);
	expect(3, NONOPT);
	char cookie[256];
	CU_ASSERT_EQUAL(fk_holder(&K, "nvmf-gw.g1.alive.gw-a", cookie, sizeof(cookie)), 1);
	CU_ASSERT_EQUAL(strncmp(cookie, "gw-a/", 5), 0);
	json_t *st = nvmf_gw_status(G);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(st, "name")), "gw-a");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(st, "group")), "g1");
	CU_ASSERT_TRUE(json_is_true(json_object_get(st, "reachable")));
	CU_ASSERT_TRUE(json_is_true(json_object_get(st, "alive_held")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(st, "lease_seconds")), LEASE_S);
	json_t *g2 = group_status(st, 0), *g3 = group_status(st, 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(g2, "grpid")), 2);
	CU_ASSERT_TRUE(json_is_true(json_object_get(g2, "held")));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(g2, "holder")), "gw-a");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(g2, "state")), "optimized");
	CU_ASSERT_TRUE(json_is_true(json_object_get(g2, "preferred_is_us")));
	CU_ASSERT_TRUE(json_is_false(json_object_get(g3, "held")));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(g3, "holder")), "gw-b");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(g3, "preferred")), "gw-b");
	/* Never held here, waited for: the reason names the holder, not "starting". */
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(g3, "reason")),
			       "lock held by gw-b");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(g3, "state")), "non-optimized");
	json_decref(st);
	teardown();
}

static void group_of_a_dead_gateway_is_taken_once_its_alive_lock_ends(void)
{
	setup();
	uint64_t t0 = F.now;
	fake_hold(&K, "nvmf-gw.g1.alive.gw-b", "gw-b/1", 9000);
	fake_hold(&K, "nvmf-gw.g1.ana.3", "gw-b/1", 9000);
	round_at(t0);
	/* gw-b dies: nothing renews its locks. Still alive at 6 s: we wait. */
	round_at(t0 + 3000);
	round_at(t0 + 6000);
	expect(3, NONOPT);
	/* Its leases end at 9 s: the next round takes the group. */
	round_at(t0 + 9000);
	expect(3, OPT);
	expect(2, OPT);
	char cookie[256];
	CU_ASSERT_EQUAL(fk_holder(&K, "nvmf-gw.g1.ana.3", cookie, sizeof(cookie)), 1);
	CU_ASSERT_EQUAL(strncmp(cookie, "gw-a/", 5), 0);
	teardown();
}

static void group_goes_back_when_its_preferred_gateway_returns(void)
{
	setup();
	uint64_t t0 = F.now;
	round_at(t0); /* gw-b absent: both groups are ours */
	expect(2, OPT);
	expect(3, OPT);
	/* gw-b is back: it holds its alive lock, and cannot take group 3 yet. */
	fake_hold(&K, "nvmf-gw.g1.alive.gw-b", "gw-b/2", 9000);
	round_at(t0 + 3000);
	expect(3, NONOPT);
	expect(2, OPT);
	char cookie[256];
	CU_ASSERT_EQUAL(fk_holder(&K, "nvmf-gw.g1.ana.3", cookie, sizeof(cookie)), 0);
	/* Its next round takes it; ours leaves it alone. */
	CU_ASSERT_EQUAL(fk_lock(&K, "nvmf-gw.g1.ana.3", "gw-b/2", LEASE_S, false), 0);
	round_at(t0 + 6000);
	expect(3, NONOPT);
	json_t *st = nvmf_gw_status(G);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(group_status(st, 1), "holder")),
			       "gw-b");
	json_decref(st);
	teardown();
}

static void cut_off_gateway_drops_its_groups_before_the_cluster_lease_ends(void)
{
	setup();
	uint64_t t0 = F.now;
	fake_hold(&K, "nvmf-gw.g1.alive.gw-b", "gw-b/1", 60000);
	round_at(t0);
	expect(2, OPT);
	K.fail = -ETIMEDOUT; /* the cluster is out of reach */
	CU_ASSERT_EQUAL(round_at(t0 + 3000), -ETIMEDOUT);
	expect(2, OPT); /* one failed renewal: the claim lasts */
	round_at(t0 + 6000);
	F.now = t0 + 6749;
	nvmf_gw_apply(G, F.now);
	expect(2, OPT);
	F.now = t0 + 6750; /* lease 9 s - margin 2.25 s */
	nvmf_gw_apply(G, F.now);
	expect(2, NONOPT);
	/* ... while the cluster still counts the lock ours: no one else can hold it yet. */
	K.fail = 0;
	char cookie[256];
	CU_ASSERT_EQUAL(fk_holder(&K, "nvmf-gw.g1.ana.2", cookie, sizeof(cookie)), 1);
	K.fail = -ETIMEDOUT;
	json_t *st = nvmf_gw_status(G);
	CU_ASSERT_TRUE(json_is_false(json_object_get(st, "reachable")));
	CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_object_get(st, "last_error")),
				      "Connection timed out"));
	CU_ASSERT_TRUE(json_is_false(json_object_get(group_status(st, 0), "held")));
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(group_status(st, 0), "reason")),
		"no lock renewal for 6750 ms (cluster unreachable?): given up before "
		"the lease can end at the cluster");
	json_decref(st);
	/* Back in reach before anyone took it: renewed, optimized again. */
	K.fail = 0;
	CU_ASSERT_EQUAL(round_at(t0 + 8000), 0);
	expect(2, OPT);
	teardown();
}

static void lock_lost_while_cut_off_is_not_claimed_again(void)
{
	setup();
	uint64_t t0 = F.now;
	round_at(t0);
	expect(2, OPT);
	K.fail = -ETIMEDOUT;
	round_at(t0 + 3000);
	round_at(t0 + 6000);
	round_at(t0 + 9000);
	expect(2, NONOPT);
	/* Another gateway took group 2 once our lease ended. */
	K.fail = 0;
	fake_hold(&K, "nvmf-gw.g1.ana.2", "gw-b/1", 9000);
	round_at(t0 + 10000);
	expect(2, NONOPT);
	round_at(t0 + 19000); /* its lease ended too: we are preferred, we take it */
	expect(2, OPT);
	teardown();
}

static void unreachable_cluster_at_start_keeps_groups_non_optimized_and_retries(void)
{
	setup();
	uint64_t t0 = F.now;
	K.connect_fail = -ETIMEDOUT;
	CU_ASSERT_EQUAL(round_at(t0), -ETIMEDOUT);
	expect(2, NONOPT);
	expect(3, NONOPT);
	json_t *st = nvmf_gw_status(G);
	CU_ASSERT_TRUE(json_is_false(json_object_get(st, "reachable")));
	CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_object_get(st, "last_error")),
				      "cannot reach the Ceph cluster"));
	json_decref(st);
	K.connect_fail = 0;
	CU_ASSERT_EQUAL(round_at(t0 + 3000), 0);
	expect(2, OPT);
	teardown();
}

static void a_refusal_is_not_called_unreachable_and_a_repeated_error_is_logged_once(void)
{
	setup();
	uint64_t t0 = F.now;
	K.connect_fail = -EACCES;
	struct fx_stderr cap;
	fx_stderr_begin(&cap);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(round_at(t0 + (uint64_t)i * 2000), -EACCES);
	fx_stderr_end(&cap);
	const char *text = cap.text;
	json_t *st = nvmf_gw_status(G);
	const char *e = json_string_value(json_object_get(st, "last_error"));
	CU_ASSERT_PTR_NOT_NULL(e && strstr(e, "refused by the Ceph cluster"));
	json_decref(st);
	/* Five rounds, one line: the same error is said once a minute at most. */
	unsigned lines = 0;
	for (const char *p = text; (p = strstr(p, "refused by the Ceph cluster")); p++)
		lines++;
	CU_ASSERT_EQUAL(lines, 1);
	expect(2, NONOPT);
	/* Connected, every lock call failing: several errors a round, in turn, each still
	 * said once (the last error alone would let them take turns every round). */
	K.connect_fail = 0;
	K.fail = -ETIMEDOUT;
	fx_stderr_begin(&cap);
	for (int i = 5; i < 10; i++)
		round_at(t0 + (uint64_t)i * 2000);
	fx_stderr_end(&cap);
	unsigned errors = 0, distinct = 0;
	char seen[16][256];
	for (const char *p = cap.text; (p = strstr(p, "gateway: error: ")); p++) {
		char line[256];
		size_t n = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(n < 255 ? n : 255), p);
		errors++;
		bool dup = false;
		for (unsigned k = 0; k < distinct; k++)
			dup = dup || !strcmp(seen[k], line);
		if (!dup && distinct < 16)
			snprintf(seen[distinct++], sizeof(seen[0]), "%s", line);
	}
	CU_ASSERT(distinct >= 2);
	CU_ASSERT_EQUAL(errors, distinct);
	teardown();
}

static void stop_releases_every_lock_at_once(void)
{
	setup();
	round_at(F.now); /* gw-b absent: both groups, and our alive lock */
	expect(3, OPT);
	nvmf_gw_stop(G);
	G = NULL;
	expect(2, NONOPT);
	expect(3, NONOPT);
	char cookie[256];
	CU_ASSERT_EQUAL(fk_holder(&K, "nvmf-gw.g1.ana.2", cookie, sizeof(cookie)), 0);
	CU_ASSERT_EQUAL(fk_holder(&K, "nvmf-gw.g1.ana.3", cookie, sizeof(cookie)), 0);
	CU_ASSERT_EQUAL(fk_holder(&K, "nvmf-gw.g1.alive.gw-a", cookie, sizeof(cookie)), 0);
	CU_ASSERT_TRUE(K.destroyed);
	teardown();
}

static void state_set_by_another_hand_is_set_back(void)
{
	setup();
	fake_hold(&K, "nvmf-gw.g1.alive.gw-b", "gw-b/1", 60000);
	round_at(F.now);
	char err[128];
	CU_ASSERT_EQUAL(nvmf_tgt_ana_state_set(&F.tgt, F.tgt.ports[1], 2, INACC, err, sizeof(err)),
			1);
	CU_ASSERT_EQUAL(nvmf_tgt_ana_state_set(&F.tgt, F.tgt.ports[0], 3, OPT, err, sizeof(err)),
			1);
	nvmf_gw_apply(G, F.now);
	expect(2, OPT);
	expect(3, NONOPT);
	teardown();
}

static void former_instance_alive_lock_is_waited_for(void)
{
	setup();
	uint64_t t0 = F.now;
	/* A killed gw-a's locks, until their leases end at 9 s. */
	fake_hold(&K, "nvmf-gw.g1.alive.gw-a", "gw-a/old", 9000);
	fake_hold(&K, "nvmf-gw.g1.ana.2", "gw-a/old", 9000);
	fake_hold(&K, "nvmf-gw.g1.alive.gw-b", "gw-b/1", 60000);
	CU_ASSERT_EQUAL(round_at(t0), 0);
	expect(2, NONOPT);
	json_t *st = nvmf_gw_status(G);
	CU_ASSERT_TRUE(json_is_false(json_object_get(st, "alive_held")));
	json_decref(st);
	round_at(t0 + 9000);
	expect(2, OPT);
	st = nvmf_gw_status(G);
	CU_ASSERT_TRUE(json_is_true(json_object_get(st, "alive_held")));
	json_decref(st);
	teardown();
}

static void cookie_name_is_the_part_before_the_slash(void)
{
	char n[8];
	nvmf_gw_cookie_name("gw-a/123.456", n, sizeof(n));
	CU_ASSERT_STRING_EQUAL(n, "gw-a");
	nvmf_gw_cookie_name("plain", n, sizeof(n));
	CU_ASSERT_STRING_EQUAL(n, "plain");
	nvmf_gw_cookie_name("a-very-long-name/1", n, sizeof(n));
	CU_ASSERT_STRING_EQUAL(n, "a-very-");
}

const struct unit_test gateway_gateway_tests[] = {
	{ "groups_are_non_optimized_before_any_lock", groups_are_non_optimized_before_any_lock },
	{ "preferred_group_is_taken_and_the_other_waits_while_its_gateway_lives",
	  preferred_group_is_taken_and_the_other_waits_while_its_gateway_lives },
	{ "group_of_a_dead_gateway_is_taken_once_its_alive_lock_ends",
	  group_of_a_dead_gateway_is_taken_once_its_alive_lock_ends },
	{ "group_goes_back_when_its_preferred_gateway_returns",
	  group_goes_back_when_its_preferred_gateway_returns },
	{ "cut_off_gateway_drops_its_groups_before_the_cluster_lease_ends",
	  cut_off_gateway_drops_its_groups_before_the_cluster_lease_ends },
	{ "lock_lost_while_cut_off_is_not_claimed_again",
	  lock_lost_while_cut_off_is_not_claimed_again },
	{ "a_refusal_is_not_called_unreachable_and_a_repeated_error_is_logged_once",
	  a_refusal_is_not_called_unreachable_and_a_repeated_error_is_logged_once },
	{ "unreachable_cluster_at_start_keeps_groups_non_optimized_and_retries",
	  unreachable_cluster_at_start_keeps_groups_non_optimized_and_retries },
	{ "stop_releases_every_lock_at_once", stop_releases_every_lock_at_once },
	{ "state_set_by_another_hand_is_set_back", state_set_by_another_hand_is_set_back },
	{ "former_instance_alive_lock_is_waited_for", former_instance_alive_lock_is_waited_for },
	{ "cookie_name_is_the_part_before_the_slash", cookie_name_is_the_part_before_the_slash },
	{ NULL, NULL },
};
