/* SPDX-License-Identifier: MIT */
/*
 * Fabrics command SQEs encoded and decoded through their typed structs (nvme/fabrics.h).
 * Every function copies through a local struct, so the SQE may sit at any alignment
 * (a capsule in a receive buffer, a PDU).
 */
#include <endian.h>
#include <string.h>
#include "nvme/fabrics.h"

uint8_t nvmf_sqe_fctype(const struct nvme_sqe *sqe)
{
	struct nvmf_fabrics_sqe_head h;
	memcpy(&h, sqe, sizeof(h));
	return h.fctype;
}

void nvmf_fabrics_sqe_init(struct nvme_sqe *sqe, uint8_t fctype)
{
	struct nvmf_fabrics_sqe_head h;
	memset(&h, 0, sizeof(h));
	h.opcode = nvme_admin_fabrics;
	h.fctype = fctype;
	memset(sqe, 0, sizeof(*sqe));
	memcpy(sqe, &h, sizeof(h));
}

void nvmf_connect_decode(const struct nvme_sqe *sqe, struct nvmf_connect_cmd *c)
{
	struct nvmf_connect_sqe w;
	memcpy(&w, sqe, sizeof(w));
	c->recfmt = le16toh(w.recfmt);
	c->qid = le16toh(w.qid);
	c->sqsize = le16toh(w.sqsize);
	c->cattr = w.cattr;
	c->kato = le32toh(w.kato);
}

void nvmf_connect_encode(struct nvme_sqe *sqe, const struct nvmf_connect_cmd *c)
{
	struct nvmf_connect_sqe w;
	nvmf_fabrics_sqe_init(sqe, nvme_fabrics_type_connect);
	memcpy(&w, sqe, sizeof(w));
	w.recfmt = htole16(c->recfmt);
	w.qid = htole16(c->qid);
	w.sqsize = htole16(c->sqsize);
	w.cattr = c->cattr;
	w.kato = htole32(c->kato);
	memcpy(sqe, &w, sizeof(w));
}

void nvmf_property_decode(const struct nvme_sqe *sqe, struct nvmf_property_cmd *p)
{
	struct nvmf_property_sqe w;
	memcpy(&w, sqe, sizeof(w));
	p->attrib = w.attrib;
	p->ofst = le32toh(w.ofst);
	p->value = le64toh(w.value);
}

void nvmf_property_encode(struct nvme_sqe *sqe, uint8_t fctype, const struct nvmf_property_cmd *p)
{
	struct nvmf_property_sqe w;
	nvmf_fabrics_sqe_init(sqe, fctype);
	memcpy(&w, sqe, sizeof(w));
	w.attrib = p->attrib;
	w.ofst = htole32(p->ofst);
	w.value = htole64(p->value);
	memcpy(sqe, &w, sizeof(w));
}

void nvmf_auth_decode(const struct nvme_sqe *sqe, struct nvmf_auth_cmd *a)
{
	struct nvmf_auth_sqe w;
	memcpy(&w, sqe, sizeof(w));
	a->secp = w.secp;
	a->spsp0 = w.spsp0;
	a->spsp1 = w.spsp1;
	a->len = le32toh(w.len);
}

void nvmf_auth_encode(struct nvme_sqe *sqe, uint8_t fctype, const struct nvmf_auth_cmd *a)
{
	struct nvmf_auth_sqe w;
	nvmf_fabrics_sqe_init(sqe, fctype);
	memcpy(&w, sqe, sizeof(w));
	w.secp = a->secp;
	w.spsp0 = a->spsp0;
	w.spsp1 = a->spsp1;
	w.len = htole32(a->len);
	memcpy(sqe, &w, sizeof(w));
}
