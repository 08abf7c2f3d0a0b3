/* SPDX-License-Identifier: MIT */
/*
 * I/O command timeouts (the Linux host's nvme_io_timeout): each I/O queue's owner looks
 * for expired commands while it polls (a coarse clock stamp per send; a look at most
 * every quarter timeout, and never more than once a second). A command unanswered for
 * io_timeout_ms gets an Abort (NVMe Base 2.0 section 5.1; the controller thread sends it
 * on the admin queue) and a second period; still unanswered then, the controller is reset
 * (recovery.c), as the Linux PCIe host does (its fabrics hosts reset at the first expiry).
 * Whatever the Abort's answer ("not aborted", dword 0 bit 0, is what our target and the
 * kernel's say): a command that completes meanwhile is not reset for. A command the
 * controller did abort completes with Command Abort Requested and is sent again when it
 * may be (queue.c).
 *
 * The Abort names the command by SQID and CID: should the command complete and its CID
 * be reused before the Abort arrives, the controller may abort the new command instead,
 * which then is sent again the same way (as with the Linux PCIe host, which has this race
 * too). An Abort asked for on an association that has ended is not sent.
 */
#include <stdio.h>
#include <string.h>
#include "initiator/internal.h"

/* Ask the controller thread for an Abort of @cid; a full list resets instead. */
static void ask_abort(struct nvmf_queue *q, uint16_t cid)
{
	struct nvmf_ctrl *c = q->hq.ctrl;
	pthread_mutex_lock(&c->ka_lock);
	if (c->nr_aborts < NVMFH_MAX_ABORTS) {
		c->aborts[c->nr_aborts].sqid = q->hq.qid;
		c->aborts[c->nr_aborts].cid = cid;
		c->aborts[c->nr_aborts].opcode = q->slots[cid].cmd.sqe.opcode;
		c->aborts[c->nr_aborts].word = q->live_word;
		c->nr_aborts++;
		pthread_cond_signal(&c->ka_cond);
	}
	/* More at once: those wait for their second period without an Abort. */
	pthread_mutex_unlock(&c->ka_lock);
}

void nvmfh_queue_check_timeouts(struct nvmf_queue *q, uint64_t now)
{
	uint64_t tmo = (uint64_t)q->io_timeout_ms;
	uint64_t period = tmo / 4 > 1000 ? 1000 : tmo / 4 ? tmo / 4 : 1;
	q->next_tmo_scan = now + period;
	for (unsigned cid = 0; cid < q->hq.size; cid++) {
		struct nvmfh_slot *s = &q->slots[cid];
		if (!s->busy || s->held || now - s->sent_ms < tmo)
			continue;
		if (!s->abort_sent) {
			s->abort_sent = s->timed_out = true;
			s->sent_ms = now;
			ask_abort(q, (uint16_t)cid);
			continue;
		}
		nvmfh_queue_lost(q,
				 "command 0x%02x (cid %u) not answered within io_timeout_ms %d ms, "
				 "nor %d ms after its Abort",
				 s->cmd.sqe.opcode, cid, q->io_timeout_ms, q->io_timeout_ms);
		/* Without automatic reconnect the controller is lost now; with it, the
		 * queue's next poll resets the association (recovery.c). */
		if (!q->hq.ctrl->auto_reconnect) {
			char why[NVMFH_LOST_WHY_MAX + 32];
			snprintf(why, sizeof(why), "I/O queue %u: %s", q->hq.qid, q->lost_why);
			nvmfh_ctrl_request_reset(q->hq.ctrl, q->live_word, why, false);
		}
		return;
	}
}

void nvmfh_ctrl_send_aborts(struct nvmf_ctrl *c)
{
	pthread_mutex_lock(&c->ka_lock);
	unsigned n = c->nr_aborts;
	__typeof__(c->aborts[0]) list[NVMFH_MAX_ABORTS];
	memcpy(list, c->aborts, n * sizeof(list[0]));
	c->nr_aborts = 0;
	pthread_mutex_unlock(&c->ka_lock);
	/* Not longer than a Keep Alive waits: the controller thread sends both. */
	int tmo = c->opts.kato_ms && (int)c->opts.kato_ms < c->opts.timeout_ms ?
			  (int)c->opts.kato_ms :
			  c->opts.timeout_ms;
	for (unsigned i = 0; i < n; i++) {
		if (atomic_load(&c->word) != list[i].word)
			continue; /* that association ended: its commands are not on this one */
		struct nvme_sqe sqe;
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = nvme_admin_abort_cmd;
		sqe.cdw10 = htole32((uint32_t)list[i].sqid | (uint32_t)list[i].cid << 16);
		/* The answer changes nothing here: aborted, the command completes (and is sent
		 * again); not, its second period decides; a failed Abort is the admin queue's
		 * loss, which resets anyway. */
		nvmfh_admin_exec(c, &sqe, NULL, 0, false, NULL, tmo);
	}
}
