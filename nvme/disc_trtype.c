/* SPDX-License-Identifier: MIT */
/* The per-transport-type facts of a discovery log entry: nvme/disc_trtype.h. */
#include <errno.h>
#include <string.h>
#include "nvme/disc_trtype.h"

/* One row per transport type this tree knows; tsas writes its TSAS bytes (NULL: none). */
struct trtype_codec {
	const char *name;
	uint8_t trtype;
	void (*tsas)(struct nvmf_disc_rec *rec);
};

static void rdma_tsas(struct nvmf_disc_rec *rec)
{
	rec->rdma_qptype = NVMF_RDMA_QPTYPE_CONNECTED;
	rec->rdma_prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
	rec->rdma_cms = NVMF_RDMA_CMS_RDMA_CM;
}

static void tcp_tsas(struct nvmf_disc_rec *rec)
{
	rec->tcp_sectype = NVMF_TCP_SECTYPE_NONE;
}

static const struct trtype_codec codecs[] = {
	{ "rdma", NVMF_TRTYPE_RDMA, rdma_tsas },
	{ "tcp", NVMF_TRTYPE_TCP, tcp_tsas },
	{ "loop", NVMF_TRTYPE_LOOP, NULL },
};

int nvmf_disc_trtype_parse(const char *name, uint8_t *trtype)
{
	for (size_t i = 0; name && i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (!strcmp(codecs[i].name, name)) {
			*trtype = codecs[i].trtype;
			return 0;
		}
	return -EINVAL;
}

void nvmf_disc_tsas(struct nvmf_disc_rec *rec)
{
	rec->rdma_qptype = rec->rdma_prtype = rec->rdma_cms = 0;
	rec->rdma_pkey = 0;
	rec->tcp_sectype = 0;
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (codecs[i].trtype == rec->trtype && codecs[i].tsas)
			codecs[i].tsas(rec);
}

int nvmf_disc_referral(struct nvmf_disc_rec *rec, const char *trtype_name, int family,
		       const char *traddr, const char *trsvcid, uint8_t treq, uint16_t portid,
		       uint16_t asqsz)
{
	memset(rec, 0, sizeof(*rec));
	if (nvmf_disc_trtype_parse(trtype_name, &rec->trtype))
		return -EINVAL;
	rec->adrfam = nvmf_disc_adrfam(family);
	rec->subtype = NVME_NQN_DISC;
	rec->treq = treq;
	rec->portid = portid;
	rec->cntlid = 0xffff;
	rec->asqsz = asqsz;
	rec->trsvcid = trsvcid;
	rec->traddr = traddr;
	rec->subnqn = NVMF_DISC_NQN;
	nvmf_disc_tsas(rec);
	return 0;
}
