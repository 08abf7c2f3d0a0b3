/* SPDX-License-Identifier: MIT */
/*
 * The gateway group's rules (docs/gateway.md), as pure functions of what a gateway knows
 * of one ANA group, so that they are tested without Ceph (gateway/decide.c):
 *   - the preferred gateway of a group always tries to hold it;
 *   - another gateway tries only while the preferred one's alive lock is not held
 *     (it died, stopped, or cannot reach the cluster);
 *   - a gateway holding a group it is not preferred for gives it up once the preferred
 *     gateway's alive lock is held again (failback);
 *   - what a gateway holds is optimized on its ports only until its claim runs out: the
 *     last successful lock call's send time + the lease - a safety margin, so that a
 *     gateway cut off from the cluster is non-optimized before the cluster can have let
 *     its lock expire and given the group to another.
 */
#ifndef NVMF_GATEWAY_DECIDE_H
#define NVMF_GATEWAY_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

/* What to do with one group's lock in a round. */
enum nvmf_gw_action {
	NVMF_GW_WAIT,    /* not ours to take: the preferred gateway is alive */
	NVMF_GW_ACQUIRE, /* try to take the lock */
	NVMF_GW_RENEW,   /* we hold it: renew the lease */
	NVMF_GW_RELEASE, /* we hold it for an absent preferred gateway that is back: give up */
};

/* nvmf_gw_decide - the action for a group: @preferred this gateway is its preferred
 * gateway; @held we hold its lock (as our last successful call said); @preferred_alive
 * the preferred gateway's alive lock is held (meaningless when @preferred). */
enum nvmf_gw_action nvmf_gw_decide(bool preferred, bool held, bool preferred_alive);

/* nvmf_gw_action_name - "wait", "acquire", "renew", "release" ("?" otherwise). */
const char *nvmf_gw_action_name(enum nvmf_gw_action a);

/* nvmf_gw_margin_ms - the safety margin of a lease of @lease_ms milliseconds: a quarter
 * of it, at least 1000 ms (clock rate differences, a late apply); always < @lease_ms for
 * leases of at least 3 s. */
uint64_t nvmf_gw_margin_ms(uint64_t lease_ms);

/* nvmf_gw_claim_until - until when (monotonic ms) a lock taken or renewed by a call sent
 * at @sent_ms may be shown as optimized: @sent_ms + @lease_ms - nvmf_gw_margin_ms. The
 * cluster set the lease's end no earlier than @sent_ms + @lease_ms by its own clock. */
uint64_t nvmf_gw_claim_until(uint64_t sent_ms, uint64_t lease_ms);

/* nvmf_gw_optimized - whether a group is optimized on this gateway's ports at @now_ms:
 * @held and @now_ms before @claim_until_ms. Otherwise it is non-optimized. */
bool nvmf_gw_optimized(bool held, uint64_t now_ms, uint64_t claim_until_ms);

/* nvmf_gw_interval_ms - the time between two rounds (renewals) for @lease_ms: a third
 * of it, so that two renewals may fail before the claim runs out. */
uint64_t nvmf_gw_interval_ms(uint64_t lease_ms);

#endif
