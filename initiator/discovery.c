/* SPDX-License-Identifier: MIT */
/*
 * Reading the Discovery Log Page (LID 70h, NVMe-oF 1.1 section 5.3) consistently: the
 * header, then the entries (Get Log Page splits them by MDTS), then the header again.
 * If the generation counter (or the record count) changed in between, the log changed
 * while we read it: start over, at most NVMFH_DISC_MAX_TRIES times (nvme-cli does the
 * same). Header and entries are decoded by nvme/disc_log.c, then copied into the public
 * struct nvmf_disc_entry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"
#include "nvme/disc_log.h"

/* A log larger than this (16 Ki entries, 16 MiB) is taken for a broken controller. */
#define DISC_MAX_RECORDS 16384u

/* The public entry of the log entry at @raw. */
static void decode(const void *raw, struct nvmf_disc_entry *d)
{
	struct nvmf_disc_rec r;
	struct nvmf_disc_strs s;
	static_assert(sizeof(d->trsvcid) == sizeof(s.trsvcid) &&
			      sizeof(d->traddr) == sizeof(s.traddr) &&
			      sizeof(d->subnqn) == sizeof(s.subnqn),
		      "decoded strings fit the public entry");

	nvmf_disc_log_decode_entry(raw, &r, &s);
	memset(d, 0, sizeof(*d));
	d->trtype = r.trtype;
	d->adrfam = r.adrfam;
	d->subtype = r.subtype;
	d->treq = r.treq;
	d->portid = r.portid;
	d->cntlid = r.cntlid;
	d->asqsz = r.asqsz;
	d->eflags = r.eflags;
	memcpy(d->trsvcid, s.trsvcid, sizeof(d->trsvcid));
	memcpy(d->traddr, s.traddr, sizeof(d->traddr));
	memcpy(d->subnqn, s.subnqn, sizeof(d->subnqn));
	d->rdma_qptype = r.rdma_qptype;
	d->rdma_prtype = r.rdma_prtype;
	d->rdma_cms = r.rdma_cms;
	d->rdma_pkey = r.rdma_pkey;
	if (r.trtype == NVMF_TRTYPE_TCP) {
		/* TSAS byte 0 of a TCP entry: SECTYPE (NVMe-oF 1.1 Figure 38, TCP TSAS). */
		d->tcp_sectype = ((const uint8_t *)raw)[offsetof(struct nvmf_disc_log_entry, tsas)];
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
	struct nvmf_disc_log_hdr h = { 0 }, again;
	uint8_t *recs = NULL;
	int rc;

	for (unsigned tries = 0; tries < NVMFH_DISC_MAX_TRIES; tries++) {
		rc = nvmf_get_log_page(c, NVME_LOG_LID_DISCOVER, 0, 0, hdr, sizeof(hdr));
		if (rc)
			goto fail_read;
		nvmf_disc_log_decode_header(hdr, sizeof(hdr), &h);
		if (h.numrec == 0)
			goto done;
		if (h.numrec > DISC_MAX_RECORDS) {
			nvmfh_errf(c, "discovery log claims %llu records (more than %u)",
				   (unsigned long long)h.numrec, DISC_MAX_RECORDS);
			return -EPROTO;
		}
		uint32_t len = (uint32_t)h.numrec * NVMF_DISC_LOG_ENTRY_SIZE;
		recs = malloc(len);
		if (!recs)
			return -ENOMEM;
		rc = nvmf_get_log_page(c, NVME_LOG_LID_DISCOVER, 0, NVMF_DISC_LOG_HDR_SIZE, recs,
				       len);
		if (!rc)
			rc = nvmf_get_log_page(c, NVME_LOG_LID_DISCOVER, 0, 0, hdr, sizeof(hdr));
		if (rc) {
			free(recs);
			goto fail_read;
		}
		nvmf_disc_log_decode_header(hdr, sizeof(hdr), &again);
		if (again.genctr == h.genctr && again.numrec == h.numrec)
			goto done;
		free(recs);
		recs = NULL;
	}
	nvmfh_errf(c,
		   "the discovery log changed while it was read, %u times in a row "
		   "(genctr last 0x%llx); giving up",
		   NVMFH_DISC_MAX_TRIES, (unsigned long long)h.genctr);
	return -EAGAIN;

done:;
	struct nvmf_disc_entry *out = calloc(h.numrec ? h.numrec : 1, sizeof(*out));
	if (!out) {
		free(recs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h.numrec; i++)
		decode(recs + i * NVMF_DISC_LOG_ENTRY_SIZE, &out[i]);
	free(recs);
	*entries = out;
	*n = h.numrec;
	if (genctr)
		*genctr = h.genctr;
	return 0;

fail_read:
	nvmfh_errf(c, "Get Log Page (discovery log): %s", nvmf_strerror(rc));
	return rc;
}

int nvmf_discover(const struct nvmf_ctrl_opts *opts, struct nvmf_disc_entry **entries, size_t *n,
		  uint64_t *genctr)
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
		return rc; /* the last error message is set */
	rc = nvmf_read_discovery_log(c, entries, n, genctr);
	if (rc)
		nvmfh_set_last_errmsg(c->errmsg);
	nvmf_disconnect(c);
	return rc;
}
