/* SPDX-License-Identifier: MIT */
/*
 * The per-transport-type facts of a discovery log entry (NVMe-oF 1.1 section 5.3,
 * figure 38; TSAS figures 39 and 40; NVMe/TCP 1.0 section 3.6.1 for TCP's SECTYPE): which
 * TRTYPE a config's transport name is, and what a transport type's TSAS holds. One table
 * serves every entry the target lists, its own ports' and the referrals' (nvmet's
 * nvmet_referral and port entries set the same bytes), so the discovery code does not
 * know RDMA or TCP. Pure: no I/O, no allocation.
 */
#ifndef NVMF_NVME_DISC_TRTYPE_H
#define NVMF_NVME_DISC_TRTYPE_H

#include <stdint.h>
#include "nvme/disc_log.h"

/*
 * nvmf_disc_trtype_parse - the TRTYPE of transport name @name as the config spells it
 * ("rdma": NVMF_TRTYPE_RDMA 1, "tcp": NVMF_TRTYPE_TCP 3, "loop": NVMF_TRTYPE_LOOP 254).
 * Returns 0 with *@trtype set, or -EINVAL for any other name or NULL (*@trtype untouched).
 */
int nvmf_disc_trtype_parse(const char *name, uint8_t *trtype);

/*
 * nvmf_disc_tsas - fill the TSAS fields of @rec for its rec->trtype, as nvmet and this
 * target advertise them: RDMA (figure 39): QPTYPE reliable connected, PRTYPE not
 * specified, CMS RDMA_CM, PKEY 0; TCP (figure 40): SECTYPE none (no TLS); any other type
 * (loop): all zero. Every TSAS field of @rec is written, so a record reused for another
 * type keeps nothing of the last one. The other fields are untouched.
 */
void nvmf_disc_tsas(struct nvmf_disc_rec *rec);

/*
 * nvmf_disc_referral - @rec for a referral (subtype 1, NVME_NQN_DISC: another discovery
 * service, its well-known NQN NVMF_DISC_NQN) to the service at @traddr/@trsvcid (numeric,
 * not copied: they must outlive @rec) of address family @family (AF_INET, AF_INET6) on
 * transport @trtype_name, with its TREQ @treq and port ID @portid (host endian) as
 * configured; dynamic controller model (CNTLID FFFFh), admin queue size @asqsz (1's
 * based), TSAS by nvmf_disc_tsas. Returns 0, or -EINVAL when @trtype_name is unknown
 * (@rec zeroed).
 */
int nvmf_disc_referral(struct nvmf_disc_rec *rec, const char *trtype_name, int family,
		       const char *traddr, const char *trsvcid, uint8_t treq, uint16_t portid,
		       uint16_t asqsz);

#endif
