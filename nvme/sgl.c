/* SPDX-License-Identifier: MIT */
/* SGL data pointer decoding and encoding for NVMe-oF capsules (NVMe Base 2.0 section
 * 4.3.2). */
#include "nvme/sgl.h"

#include <errno.h>
#include <string.h>

static nvme_status_t sgl_error(unsigned sc)
{
	return nvme_generic(sc) | NVME_SC_DNR;
}

static nvme_status_t parse_incapsule(const struct nvme_sgl_desc *d, uint32_t incapsule_len,
				     bool is_write, struct nvme_sgl_info *out)
{
	uint64_t off = le64toh(d->addr);
	uint32_t len = le32toh(d->unkeyed.length);

	if ((d->unkeyed.type & 0xf) != NVME_SGL_SUBTYPE_OFFSET)
		return sgl_error(NVME_SC_SGL_INVALID_TYPE);
	if (!len)
		return 0; /* nothing to read out of the capsule */
	/* Capsule data only ever travels host to controller (NVMe-oF 1.1 section 2.2). */
	if (!is_write)
		return sgl_error(NVME_SC_INVALID_FIELD);
	/* Written so that no sum can overflow: off <= incapsule_len first. */
	if (off > incapsule_len || len > incapsule_len - off)
		return sgl_error(NVME_SC_SGL_INVALID_OFFSET);
	out->kind = NVME_SGL_KIND_INCAPSULE;
	out->offset = (uint32_t)off;
	out->len = len;
	return 0;
}

/* Fabrics commands always use SGLs (NVMe-oF 1.1 section 2.2): PSDT 01b or 10b. */
static bool psdt_is_sgl(const struct nvme_sqe *cmd)
{
	uint8_t psdt = cmd->flags & NVME_CMD_PSDT_MASK;

	return psdt == NVME_CMD_PSDT_SGL_MPTR || psdt == NVME_CMD_PSDT_SGL_MSEG;
}

nvme_status_t nvme_sgl_parse(const struct nvme_sqe *cmd, uint32_t incapsule_len, bool is_write,
			     struct nvme_sgl_info *out)
{
	const struct nvme_sgl_desc *d = &cmd->dptr;

	memset(out, 0, sizeof(*out));
	if (!psdt_is_sgl(cmd))
		return sgl_error(NVME_SC_INVALID_FIELD);

	switch (d->keyed.type >> 4) {
	case NVME_SGL_TYPE_KEYED_DATA: {
		uint8_t subtype = d->keyed.type & 0xf;
		if (subtype != NVME_SGL_SUBTYPE_ADDRESS && subtype != NVME_SGL_SUBTYPE_INVALIDATE)
			return sgl_error(NVME_SC_SGL_INVALID_TYPE);
		out->len = nvme_sgl_keyed_length(d);
		if (!out->len)
			return 0; /* no data: 0x40/0x4F with length 0 */
		out->kind = NVME_SGL_KIND_KEYED;
		out->addr = le64toh(d->addr);
		out->key = nvme_sgl_keyed_key(d);
		out->invalidate = subtype == NVME_SGL_SUBTYPE_INVALIDATE;
		return 0;
	}
	case NVME_SGL_TYPE_DATA_BLOCK:
		return parse_incapsule(d, incapsule_len, is_write, out);
	default:
		/* Bit bucket, segments, transport data block, reserved: MSDBD is 1 and
		 * only the three descriptors above are supported. */
		return sgl_error(NVME_SC_SGL_INVALID_TYPE);
	}
}

/* SGL descriptor type 5h (Transport SGL Data Block), subtype Ah: NVMe/TCP's "data not
 * in the capsule" (nvme/tcp.h NVME_SGL_TCP_TRANSPORT). */
#define SGL_TYPE_TRANSPORT_DATA 0x5u
#define SGL_SUBTYPE_TCP         0xAu

nvme_status_t nvme_sgl_parse_tcp(const struct nvme_sqe *cmd, uint32_t incapsule_len, bool is_write,
				 struct nvme_sgl_info *out)
{
	const struct nvme_sgl_desc *d = &cmd->dptr;

	memset(out, 0, sizeof(*out));
	if (!psdt_is_sgl(cmd))
		return sgl_error(NVME_SC_INVALID_FIELD);
	switch (d->unkeyed.type >> 4) {
	case NVME_SGL_TYPE_DATA_BLOCK:
		return parse_incapsule(d, incapsule_len, is_write, out);
	case SGL_TYPE_TRANSPORT_DATA:
		if ((d->unkeyed.type & 0xf) != SGL_SUBTYPE_TCP)
			return sgl_error(NVME_SC_SGL_INVALID_TYPE);
		out->len = le32toh(d->unkeyed.length);
		if (out->len)
			out->kind = NVME_SGL_KIND_TRANSPORT;
		return 0;
	default:
		return sgl_error(NVME_SC_SGL_INVALID_TYPE);
	}
}

/* PSDT 01b: SGL, MPTR a single buffer; FUSE (bits 1:0) kept, reserved bits 5:2 cleared. */
static void set_psdt_sgl(struct nvme_sqe *sqe)
{
	sqe->flags = (uint8_t)((sqe->flags & 0x03u) | NVME_CMD_PSDT_SGL_MPTR);
}

int nvme_sgl_set_keyed(struct nvme_sqe *sqe, uint64_t addr, uint32_t len, uint32_t key,
		       bool invalidate)
{
	struct nvme_sgl_desc *d = &sqe->dptr;

	if (len > NVME_SGL_KEYED_MAX_LEN)
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	if (len) {
		d->addr = htole64(addr);
		d->keyed.length[0] = (uint8_t)len;
		d->keyed.length[1] = (uint8_t)(len >> 8);
		d->keyed.length[2] = (uint8_t)(len >> 16);
		d->keyed.key[0] = (uint8_t)key;
		d->keyed.key[1] = (uint8_t)(key >> 8);
		d->keyed.key[2] = (uint8_t)(key >> 16);
		d->keyed.key[3] = (uint8_t)(key >> 24);
	}
	d->keyed.type = invalidate ? NVME_SGL_KEYED_INV : NVME_SGL_KEYED_ADDR;
	set_psdt_sgl(sqe);
	return 0;
}

void nvme_sgl_set_incapsule(struct nvme_sqe *sqe, uint32_t offset, uint32_t len)
{
	struct nvme_sgl_desc *d = &sqe->dptr;

	memset(d, 0, sizeof(*d));
	d->addr = htole64(offset);
	d->unkeyed.length = htole32(len);
	d->unkeyed.type = NVME_SGL_INCAPSULE;
	set_psdt_sgl(sqe);
}
