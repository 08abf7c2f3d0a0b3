/* SPDX-License-Identifier: MIT */
/*
 * The LBA range lock of fused Compare and Write (NVM Command Set 1.0 section 3.2.1.1;
 * NVMe Base 2.0 "Fused Operations"): while a Compare and Write runs, no other command
 * touches its blocks, on any queue, poll group, controller or host.
 *
 * A holder's range is its SLBA and NLB. It waits until the commands of the namespace that
 * were executing when it asked are done (in any group, whatever their blocks: they are
 * counted, not listed), and commands that arrive meanwhile and overlap its range park in
 * their group until it is done; commands on other blocks go on. A command's blocks are
 * its SLBA and NLB for Read, Write, Compare, Write Zeroes, Write Uncorrectable and
 * Verify; Flush has none; any other (Dataset Management, Copy, a passthru or vendor
 * command) is taken to touch the whole namespace.
 *
 * Every group keeps its own state of the namespace (struct nvmf_lba_pg, a cache line of
 * its own): on the Read/Write path a command pays one branch on that group's gate and an
 * increment of the counter of the group's current epoch, then a decrement at completion;
 * no atomic, no shared line. A gate flips the group's epoch, so the commands it waits
 * for (the old epoch's) are told from those that came after it without a list, and new
 * commands on other blocks never hold it up. The epoch flipped to is always drained: the
 * previous gate waited for it, and nothing entered it since.
 *
 * The main group arbitrates, FIFO, between the holders and installs or removes the gate
 * in every group by message (as target/resv-cmd.c's Preempt and Abort):
 *
 *   holder's group --lock--> main --gate(range)--> each group (acks once its old epoch's
 *   count is 0)
 *   main (all acked) --granted--> holder's group: Compare, then Write
 *   holder's group --unlock--> main --ungate--> each group (resumes its parked commands,
 *   acks) --> main (all acked): --finished--> holder's group; the next holder starts.
 *
 * The holder's request stays in flight (and so holds its namespace) until "finished", so
 * no message outlives the namespace.
 */
#ifndef NVMF_TARGET_LBA_LOCK_H
#define NVMF_TARGET_LBA_LOCK_H

#include <stdbool.h>
#include "subsystem/subsystem.h"
#include "target/poll-group.h"
#include "target/queue.h"

struct nvmf_tgt;

/* What one poll group knows of the lock of one namespace. Only that group touches the
 * fields, except the messages, which the main group posts and the group acks. */
struct nvmf_lba_pg {
	uint32_t active[2];                    /* commands of the namespace executing here
						    * (entered, not completed), by the epoch they
						    * entered in */
	uint8_t epoch;                         /* the epoch commands enter in now: flipped
						    * by each gate */
	bool gated;                            /* a holder waits or runs: commands on its
						    * blocks park */
	bool ack_due;                          /* gated while the old epoch's count > 0: ack
						    * at 0 */
	uint64_t gate_slba, gate_end;          /* the holder's blocks: [slba, end) */
	struct nvmf_req *parked, *parked_tail; /* waiting for the gate to go, FIFO
						    * (req->lba_next) */
	struct nvmf_ns_lba *lba;               /* back pointer, for the messages */
	struct nvmf_pg *pg;                    /* this group */
	struct nvmf_msg gate_msg, ungate_msg;  /* main -> this group */
	struct nvmf_msg ack_msg;               /* this group -> main */
} __attribute__((aligned(64)));

/* The lock of one namespace: the main group's FIFO of holders and one nvmf_lba_pg per
 * poll group (index = pg->index). */
struct nvmf_ns_lba {
	struct nvmf_tgt *tgt;
	struct nvmf_req *head, *tail; /* holders (Write halves), main group's; head gates */
	unsigned acks_left;           /* main group: groups yet to ack the current round */
	uint64_t gate_slba, gate_end; /* main group: the head holder's blocks [slba, end), read
				       * by each group's gate */
	bool releasing;               /* main group: the round is an ungate */
	unsigned npgs;
	struct nvmf_lba_pg pg[]; /* npgs of them */
};

/* nvmf_lba_ns_attach - on the main group, give namespace @ns (opened, stats allocated)
 * its lock for @tgt's poll groups, freed with the namespace. 0, or -ENOMEM. */
int nvmf_lba_ns_attach(struct nvmf_tgt *tgt, struct nvmf_ns *ns);

/* nvmf_lba_park - @req's group is gated: keep @req until the gate goes, then run
 * req->execute. For nvmf_lba_enter only. */
void nvmf_lba_park(struct nvmf_lba_pg *g, struct nvmf_req *req);

/* nvmf_lba_exit_slow - the gated half of nvmf_lba_exit. */
void nvmf_lba_exit_slow(struct nvmf_lba_pg *g);

/* Reservation commands touch no blocks and must not wait: a Preempt and Abort waits for
 * the commands of the namespace in flight, parked ones included (target/resv.h). */
static inline bool nvmf_lba_resv_opcode(uint8_t opcode)
{
	return opcode == nvme_cmd_resv_register || opcode == nvme_cmd_resv_report ||
	       opcode == nvme_cmd_resv_acquire || opcode == nvme_cmd_resv_release;
}

/*
 * nvmf_lba_cmd_range - the blocks @cmd touches, [*@slba, *@end) (host endian, logical
 * blocks): true with the range for the commands that name one (SLBA in CDW10-11, NLB 0's
 * based in CDW12 bits 15:0); false with 0..UINT64_MAX for the others (the whole
 * namespace), and with an empty range for Flush. Reads the SQE only.
 */
bool nvmf_lba_cmd_range(const struct nvme_sqe *cmd, uint64_t *slba, uint64_t *end);

/* nvmf_lba_overlaps - whether @req's blocks meet the gate of @g (the group is gated). */
static inline bool nvmf_lba_overlaps(const struct nvmf_lba_pg *g, const struct nvmf_req *req)
{
	uint64_t slba, end;
	nvmf_lba_cmd_range(req->cmd, &slba, &end);
	return slba < end && slba < g->gate_end && end > g->gate_slba;
}

/*
 * nvmf_lba_enter - on @req's group, before an I/O command with a namespace executes
 * (nvmf_req_execute). True: go on (counted until nvmf_lba_exit); false: parked, run later
 * by the ungate. A fused half does not enter: it runs under the lock; nor does a
 * reservation command.
 */
static inline bool nvmf_lba_enter(struct nvmf_req *req)
{
	struct nvmf_ns_lba *l = req->ns->lba;
	unsigned i = req->sq->pg->index;
	if (!l || req->fused || i >= l->npgs || nvmf_lba_resv_opcode(req->cmd->opcode))
		return true;
	struct nvmf_lba_pg *g = &l->pg[i];
	if (g->gated && nvmf_lba_overlaps(g, req)) {
		nvmf_lba_park(g, req);
		return false;
	}
	req->lba_epoch = g->epoch;
	g->active[g->epoch]++;
	req->lba_active = true;
	return true;
}

/* nvmf_lba_exit - @req, entered, completes (nvmf_req_complete / nvmf_req_abandon). */
static inline void nvmf_lba_exit(struct nvmf_req *req)
{
	struct nvmf_lba_pg *g = &req->ns->lba->pg[req->sq->pg->index];
	uint8_t e = req->lba_epoch;
	req->lba_active = false;
	if (--g->active[e] == 0 && g->ack_due && e != g->epoch)
		nvmf_lba_exit_slow(g);
}

/*
 * nvmf_lba_lock - on @owner's group: take @owner's blocks (its SLBA and NLB) exclusively, then run
 * @granted(@owner) on this group. Without a lock (a namespace the target did not attach)
 * @granted runs at once. @owner stays in flight until the nvmf_lba_unlock's @finished.
 */
void nvmf_lba_lock(struct nvmf_req *owner, void (*granted)(struct nvmf_req *owner));

/*
 * nvmf_lba_unlock - on @owner's group, after @granted: let the parked commands go, then
 * run @finished(@owner) on this group (which completes @owner: nothing of the lock
 * touches it after).
 */
void nvmf_lba_unlock(struct nvmf_req *owner, void (*finished)(struct nvmf_req *owner));

#endif
