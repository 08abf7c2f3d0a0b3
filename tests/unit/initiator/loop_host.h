/* The in-process LOOP host transport for libnvmf's unit tests: a struct
 * nvmf_host_transport whose queues are target-core queues (target/core.h) in the same
 * process, so the library runs against our real target without RDMA.
 *
 * Many commands may be outstanding per queue: a submit runs the command in the target
 * (RAM namespaces complete inline) and its CQE waits in the queue's completion ring until
 * the host polls. One mutex serializes every call into the target core (the keep-alive
 * thread and the test thread both reach it). Read data is copied to the host buffer when
 * the target responds, like an RDMA WRITE. Writes up to the in-capsule size (IOCCSZ) are
 * sent as in-capsule data (SGL 0x01), everything else as keyed SGLs (0x40).
 *
 * This header does not include target/core.h: the library and the target both name a
 * struct nvmf_ctrl. */
#ifndef NVMF_TESTS_UNIT_INITIATOR_LOOP_HOST_H
#define NVMF_TESTS_UNIT_INITIATOR_LOOP_HOST_H
#include <stdbool.h>
#include <stdint.h>
#include "initiator/nvmf.h"

#define LH_SUBNQN        "nqn.2026-11.io.nvmf-rdma:lh0"   /* subsystem 0, has the namespaces */
#define LH_HOSTNQN       "nqn.2026-11.io.nvmf-rdma:lhhost"
#define LH_OTHER_HOSTNQN "nqn.2026-11.io.nvmf-rdma:stranger"

struct loop_host;

/* What the target serves. Zero fields take the defaults given. */
struct loop_host_params {
	unsigned n_subsys;        /* subsystems "...:lh0", "...:lh1", ...; default 1 */
	uint32_t mdts;            /* target MDTS (2^mdts * 4 KiB); default 8 (1 MiB) */
	uint32_t max_queue_size;  /* port max_queue_size (CAP.MQES+1); default 128 */
	uint32_t inline_size;     /* in-capsule bytes on I/O queues; default 8192 */
	uint16_t qid_max;         /* I/O queues per controller; default 4 */
	uint64_t ns1_bytes;       /* namespace 1 (512 B blocks, RAM); default 16 MiB */
	bool allow_any_host;      /* else only LH_HOSTNQN may connect to lh0 (others: any) */
};

/* loop_host_new - a target per @p (NULL: defaults) with namespace 1 (512 B blocks) and
 * namespace 2 (1 MiB, 4 KiB blocks) in subsystem lh0, all subsystems on port 1. */
struct loop_host *loop_host_new(const struct loop_host_params *p);
void loop_host_free(struct loop_host *lh);
/* The transport to put in nvmf_ctrl_opts.transport. */
const struct nvmf_host_transport *loop_host_transport(struct loop_host *lh);
/* Options to connect to @subnqn as LH_HOSTNQN through @lh. */
struct nvmf_ctrl_opts loop_host_opts(struct loop_host *lh, const char *subnqn);

/* loop_host_break - every connected queue loses its connection: received CQEs not yet
 * polled are dropped, submit and poll return -ECONNRESET. */
void loop_host_break(struct loop_host *lh);
/* loop_host_hold - while @hold, responses stay in the rings and polls find nothing (a
 * controller that stopped answering). */
void loop_host_hold(struct loop_host *lh, bool hold);
/* loop_host_admin_count - admin commands with @opcode the target received. */
unsigned loop_host_admin_count(struct loop_host *lh, uint8_t opcode);
/* loop_host_io_count - I/O commands with @opcode the target received (all queues). */
unsigned loop_host_io_count(struct loop_host *lh, uint8_t opcode);
/* loop_host_disc_log_reads - Get Log Page 70h commands the target answered. */
unsigned loop_host_disc_log_reads(struct loop_host *lh);
/* loop_host_bump_genctr - after the @after-th discovery log read (1 = the first), bump
 * the target's discovery generation counter once; @every: after every read instead. */
void loop_host_bump_genctr(struct loop_host *lh, unsigned after, bool every);
/* loop_host_last_admin_regs - CC and CSTS of the last controller whose admin queue was
 * disconnected, read just before it went (false when none). */
bool loop_host_last_admin_regs(struct loop_host *lh, uint32_t *cc, uint32_t *csts);
/* loop_host_ctrl_regs - CC and CSTS of the live controller @cntlid of lh0 (false if none). */
bool loop_host_ctrl_regs(struct loop_host *lh, uint16_t cntlid, uint32_t *cc, uint32_t *csts);
/* loop_host_live_ctrls - controllers the target holds. */
unsigned loop_host_live_ctrls(struct loop_host *lh);
/* loop_host_max_io_len - largest data length of an I/O command the target received. */
uint32_t loop_host_max_io_len(struct loop_host *lh);
/* loop_host_incapsule_writes - I/O commands (not Connect) that carried in-capsule data. */
unsigned loop_host_incapsule_writes(struct loop_host *lh);

#endif
