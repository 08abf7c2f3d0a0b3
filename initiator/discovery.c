/* SPDX-License-Identifier: MIT */
/*
 * Reading the Discovery Log Page (LID 70h, NVMe-oF 1.1 section 5.3) consistently: the
 * header, then the entries (Get Log Page splits them by MDTS), then the header again.
 * If the generation counter (or the record count) changed in between, the log changed
 * while we read it: start over, at most NVMFH_DISC_MAX_TRIES times (nvme-cli does the
 * same). Entries are decoded into struct nvmf_disc_entry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"
#include "nvme/disc_log.h"
#include "nvme/identify.h"

/* A log larger than this (16 Ki entries, 16 MiB) is taken for a broken controller. */
#define DISC_MAX_RECORDS 16384u

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return le64toh(v);
}

static void decode(const struct nvmf_disc_log_entry *e, struct nvmf_disc_entry *d)
{
	memset(d, 0, sizeof(*d));
	d->trtype = e->trtype;
	d->adrfam = e->adrfam;
	d->subtype = e->subtype;
	d->treq = e->treq;
	d->portid = le16toh(e->portid);
	d->cntlid = le16toh(e->cntlid);
	d->asqsz = le16toh(e->asqsz);
	d->eflags = le16toh(e->eflags);
	/* Fixed fields, NUL or space padded (SPDK pads trsvcid with spaces). */
	nvme_ascii_field_str(d->trsvcid, sizeof(d->trsvcid), e->trsvcid, sizeof(e->trsvcid));
	nvme_ascii_field_str(d->traddr, sizeof(d->traddr), e->traddr, sizeof(e->traddr));
	nvme_ascii_field_str(d->subnqn, sizeof(d->subnqn), e->subnqn, sizeof(e->subnqn));
	if (e->trtype == NVMF_TRTYPE_RDMA) {
		d->rdma_qptype = e->tsas.rdma.qptype;
		d->rdma_prtype = e->tsas.rdma.prtype;
		d->rdma_cms = e->tsas.rdma.cms;
		d->rdma_pkey = le16toh(e->tsas.rdma.pkey);
	}
}

int nvmf_read_discovery_log(struct nvmf_ctrl *c, struct nvmf_disc_entry **entries, size_t *n,
			    uint64_t *genctr)
{
	if (!c || !entries || !n)
		return -EINVAL;
	*entries = NULL;
	*n = 0;
	uint8_t hdr[NVMF_DISC_LOG_HDR_SIZE];
	uint8_t *recs = NULL;
	uint64_t gen = 0, numrec = 0;
	int rc;

	for (unsigned tries = 0; tries < NVMFH_DISC_MAX_TRIES; tries++) {
		rc = nvmf_get_log_page(c, NVME_LOG_LID_DISCOVER, 0, 0, hdr, sizeof(hdr));
		if (rc)
			goto fail_read;
		gen = get_le64(hdr);
		numrec = get_le64(hdr + 8);
		if (numrec == 0)
			goto done;
		if (numrec > DISC_MAX_RECORDS) {
			nvmfh_errf(c, "discovery log claims %llu records (more than %u)",
				   (unsigned long long)numrec, DISC_MAX_RECORDS);
			return -EPROTO;
		}
		uint32_t len = (uint32_t)numrec * NVMF_DISC_LOG_ENTRY_SIZE;
		recs = malloc(len);
		if (!recs)
			return -ENOMEM;
		rc = nvmf_get_log_page(c, NVME_LOG_LID_DISCOVER, 0, NVMF_DISC_LOG_HDR_SIZE, recs, len);
		if (!rc)
			rc = nvmf_get_log_page(c, NVME_LOG_LID_DISCOVER, 0, 0, hdr, sizeof(hdr));
		if (rc) {
			free(recs);
			goto fail_read;
		}
		if (get_le64(hdr) == gen && get_le64(hdr + 8) == numrec)
			goto done;
		free(recs);
		recs = NULL;
	}
	nvmfh_errf(c, "the discovery log changed while it was read, %u times in a row "
		   "(genctr last 0x%llx); giving up", NVMFH_DISC_MAX_TRIES, (unsigned long long)gen);
	return -EAGAIN;

done:;
	struct nvmf_disc_entry *out = calloc(numrec ? numrec : 1, sizeof(*out));
	if (!out) {
		free(recs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < numrec; i++) {
		struct nvmf_disc_log_entry e;
		memcpy(&e, recs + i * NVMF_DISC_LOG_ENTRY_SIZE, sizeof(e));
		decode(&e, &out[i]);
	}
	free(recs);
	*entries = out;
	*n = numrec;
	if (genctr)
		*genctr = gen;
	return 0;

fail_read:
	nvmfh_errf(c, "Get Log Page (discovery log): %s", nvmf_strerror(rc));
	return rc;
}

int nvmf_discover(const struct nvmf_ctrl_opts *opts, struct nvmf_disc_entry **entries,
		  size_t *n, uint64_t *genctr)
{
	if (!opts || !entries || !n) {
		nvmfh_set_last_errmsg("nvmf_discover: missing argument");
		return -EINVAL;
	}
	struct nvmf_ctrl_opts o = *opts;
	struct nvmf_ctrl *c;
	if (!o.subnqn || !o.subnqn[0])
		o.subnqn = NVMF_DISC_NQN;
	/* A one-shot read: no keep-alive (KATO 0, as older Linux hosts for discovery). */
	o.no_keep_alive = true;
	o.nr_io_queues = 0;
	int rc = nvmf_connect(&o, &c);
	if (rc)
		return rc;   /* the last error message is set */
	rc = nvmf_read_discovery_log(c, entries, n, genctr);
	if (rc)
		nvmfh_set_last_errmsg(c->errmsg);
	nvmf_disconnect(c);
	return rc;
}
