/* SPDX-License-Identifier: MIT */
/*
 * Raw host queues of the loop transport (see loop.h), for tests and fuzzers: a host queue
 * (struct loop_hq) that no libnvmf queue owns. Capsules go into the target queue's slots
 * untouched; the CQEs stay in the host queue's ring until nvmf_loop_raw_reap takes them.
 */
#include <errno.h>
#include <stdlib.h>
#include "loop/internal.h"

struct nvmf_loop_raw {
	struct loop_hq *h;
};

int nvmf_loop_raw_connect(struct nvmf_tgt *tgt, const char *traddr, const char *trsvcid,
			  uint16_t qid, uint16_t size, struct nvmf_loop_raw **out)
{
	struct loop_transport *lt = nvmf_loop_of_tgt(tgt);
	if (!lt)
		return -EINVAL;
	struct nvmf_loop_raw *q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	char err[256];
	int rc = nvmf_loop_hq_connect(lt, NULL, traddr, trsvcid, 0, qid, size, err, sizeof(err),
				      &q->h);
	if (rc) {
		free(q);
		return rc;
	}
	*out = q;
	return 0;
}

uint32_t nvmf_loop_raw_key(const struct nvmf_loop_raw *q)
{
	return q->h->key;
}

uint32_t nvmf_loop_raw_inline(const struct nvmf_loop_raw *q)
{
	return q->h->target_inline;
}

int nvmf_loop_raw_send(struct nvmf_loop_raw *q, const struct nvme_sqe *sqe, const void *icd,
		       uint32_t icd_len, void *mem, uint32_t mem_len)
{
	struct loop_hq *h = q->h;
	int rc;
	pthread_mutex_lock(&h->lock);
	if (h->broken || !h->tq)
		rc = -ECONNRESET;
	else if (h->inflight >= h->size)
		rc = -EAGAIN;
	else
		rc = nvmf_loop_tq_receive(h->tq, sqe, icd, icd_len, (uintptr_t)mem,
					  mem ? mem_len : 0);
	if (!rc)
		h->inflight++;
	struct nvmf_pg *pg = h->pg;
	pthread_mutex_unlock(&h->lock);
	if (rc)
		return rc;
	if (nvmf_pg_started(pg))
		nvmf_pg_wake(pg);
	nvmf_loop_auto_drive(h->lt);
	return 0;
}

int nvmf_loop_raw_reap(struct nvmf_loop_raw *q, struct nvme_cqe *cqes, unsigned max)
{
	struct loop_hq *h = q->h;
	nvmf_loop_auto_drive(h->lt);
	bool hold = __atomic_load_n(&h->lt->hold, __ATOMIC_RELAXED);
	int n = 0;
	pthread_mutex_lock(&h->lock);
	/* The CQEs that arrived before the target closed the connection are still reaped
	 * (nvmf_loop_break drops them), as lh_poll does. */
	if (h->broken && (!h->count || hold)) {
		pthread_mutex_unlock(&h->lock);
		return -ECONNRESET;
	}
	while (!hold && h->count && (unsigned)n < max) {
		cqes[n++] = h->ring[h->head];
		h->head = (h->head + 1) % h->size;
		h->count--;
		h->inflight--;
	}
	pthread_mutex_unlock(&h->lock);
	return n;
}

void nvmf_loop_raw_disconnect(struct nvmf_loop_raw *q)
{
	if (!q)
		return;
	nvmf_loop_hq_disconnect(q->h);
	free(q);
}
