/* SPDX-License-Identifier: MIT */
/*
 * I/O command timeouts (the Linux host's nvme_io_timeout): each I/O queue's owner looks
 * for expired commands while it polls (a coarse clock stamp per send; a look at most
 * every quarter timeout, and never more than once a second). A command unanswered for
 * io_timeout_ms gets an Abort (NVMe Base 2.0 section 5.1; the controller thread sends it
 * on the admin queue) and a new period; the controller resets when it answers "not
 * aborted" (dword 0 bit 0), the Abort fails, or the command stays unanswered for that
 * second period (recovery.c). A command the controller did abort completes with Command
 * Abort Requested, and is sent again when it may be (queue.c).
 *
 * The Abort names the command by SQID and CID: should the command complete and its CID
 * be reused before the Abort arrives, the controller may abort the new command instead,
 * which then is sent again the same way (as the Linux PCIe host, which has this race
 * too).
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
		c->nr_aborts++;
		pthread_cond_signal(&c->ka_cond);
	} else {
		char why[96];
		snprintf(why, sizeof(why),
			 "I/O queue %u: %u commands timed out at once (no Abort for more)",
			 q->hq.qid, NVMFH_MAX_ABORTS + 1);
		nvmfh_ctrl_request_reset_locked(c, why);
	}
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
			nvmfh_ctrl_request_reset(q->hq.ctrl, why);
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
	for (unsigned i = 0; i < n; i++) {
		struct nvme_sqe sqe;
		struct nvme_cqe cqe;
		memset(&sqe, 0, sizeof(sqe));
		memset(&cqe, 0, sizeof(cqe));
		sqe.opcode = nvme_admin_abort_cmd;
		sqe.cdw10 = htole32((uint32_t)list[i].sqid | (uint32_t)list[i].cid << 16);
		int rc = nvmfh_admin_exec(c, &sqe, NULL, 0, false, &cqe, c->opts.timeout_ms);
		if (!rc && !(le32toh(cqe.result.u32) & 1))
			continue; /* aborted: the command completes with Command Abort Requested */
		char why[NVMFH_LOST_WHY_MAX];
		snprintf(why, sizeof(why),
			 "I/O queue %u: command 0x%02x (cid %u) not answered within io_timeout_ms "
			 "%d ms, and %s%s",
			 list[i].sqid, list[i].opcode, list[i].cid, c->opts.io_timeout_ms,
			 rc ? "its Abort failed: " : "the controller did not abort it",
			 rc ? nvmf_strerror(rc) : "");
		nvmfh_ctrl_request_reset(c, why);
		return;
	}
}
