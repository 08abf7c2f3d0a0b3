/* SPDX-License-Identifier: MIT */
/* The gateway group's rules (see decide.h). */
#include "gateway/decide.h"

enum nvmf_gw_action nvmf_gw_decide(bool preferred, bool held, bool preferred_alive)
{
	if (preferred)
		return held ? NVMF_GW_RENEW : NVMF_GW_ACQUIRE;
	if (preferred_alive)
		return held ? NVMF_GW_RELEASE : NVMF_GW_WAIT;
	return held ? NVMF_GW_RENEW : NVMF_GW_ACQUIRE;
}

const char *nvmf_gw_action_name(enum nvmf_gw_action a)
{
	switch (a) {
	case NVMF_GW_WAIT:
		return "wait";
	case NVMF_GW_ACQUIRE:
		return "acquire";
	case NVMF_GW_RENEW:
		return "renew";
	case NVMF_GW_RELEASE:
		return "release";
	}
	return "?";
}

uint64_t nvmf_gw_margin_ms(uint64_t lease_ms)
{
	uint64_t m = lease_ms / 4;
	return m < 1000 ? 1000 : m;
}

uint64_t nvmf_gw_claim_until(uint64_t sent_ms, uint64_t lease_ms)
{
	uint64_t m = nvmf_gw_margin_ms(lease_ms);
	return m >= lease_ms ? sent_ms : sent_ms + lease_ms - m;
}

bool nvmf_gw_optimized(bool held, uint64_t now_ms, uint64_t claim_until_ms)
{
	return held && now_ms < claim_until_ms;
}

uint64_t nvmf_gw_interval_ms(uint64_t lease_ms)
{
	return lease_ms / 3;
}
