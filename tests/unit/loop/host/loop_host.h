/* A target for libnvmf's unit tests: our real target (target/core.h) with its product
 * loop transport (loop/loop.h) in the same process, so the library runs against it
 * without RDMA. This helper only builds the target, counts what the target receives
 * (the loop transport's hooks) and reads target state for the tests.
 *
 * By default the target runs as the daemon does: the main poll group and two I/O groups
 * (nvmf_target.threads = 2) on threads of their own, so Connects of I/O queues go to the
 * main group by message and back, and queues detach by message. With .driven the groups
 * have no thread and the library's calls run them (deterministic; see loop/loop.h).
 *
 * Discovery log entries of the loop port are reported as an RDMA port's (trtype rdma and
 * the RDMA TSAS, as the product's RDMA transport fills them) so the library's decoding
 * and the tool's printing are tested on what they meet in production.
 *
 * This header does not include target/core.h: the tests that use it see the library's
 * headers only. */
#ifndef NVMF_TESTS_UNIT_INITIATOR_LOOP_HOST_H
#define NVMF_TESTS_UNIT_INITIATOR_LOOP_HOST_H
#include <stdbool.h>
#include <stdint.h>
#include "initiator/nvmf.h"

#define LH_SUBNQN        "nqn.2026-11.io.nvmf-rdma:lh0" /* subsystem 0, has the namespaces */
#define LH_HOSTNQN       "nqn.2026-11.io.nvmf-rdma:lhhost"
#define LH_OTHER_HOSTNQN "nqn.2026-11.io.nvmf-rdma:stranger"

struct loop_host;

/* What the target serves. Zero fields take the defaults given. */
struct loop_host_params {
	unsigned n_subsys;       /* subsystems "...:lh0", "...:lh1", ...; default 1 */
	uint32_t mdts;           /* target MDTS (2^mdts * 4 KiB); default 8 (1 MiB) */
	uint32_t max_queue_size; /* port max_queue_size (CAP.MQES+1); default 128 */
	uint32_t inline_size;    /* in-capsule bytes on I/O queues; default 8192 */
	uint16_t qid_max;        /* I/O queues per controller; default 4 */
	uint64_t ns1_bytes;      /* namespace 1 (512 B blocks, RAM); default 16 MiB */
	bool allow_any_host;     /* else only LH_HOSTNQN may connect to lh0 (others: any) */
	bool resv;               /* namespace 1 of lh0 has reservations on (resv.enable) */
	unsigned threads;        /* nvmf_target.threads; default 2 (2 I/O groups) */
	bool driven;             /* no target threads: the library's calls run the target */
	unsigned n_ports;        /* loop ports 1..n on 127.0.0.1..n:4420, each exposing
				     every subsystem (paths for multipath); default 1 */
	/* The discovery subsystem's NQN (a unique one, TP 8013); NULL: the well-known one */
	const char *discovery_nqn;
	/* DH-HMAC-CHAP for LH_HOSTNQN (nvmf_tgt_host_auth_set's arguments): NULL key: none */
	const char *dhchap_key, *dhchap_ctrl_key, *dhchap_hash, *dhchap_dhgroup;
};

/* loop_host_new - a target per @p (NULL: defaults) with namespace 1 (512 B blocks) and
 * namespace 2 (1 MiB, 4 KiB blocks) in subsystem lh0, all subsystems on loop port 1
 * (127.0.0.1:4420). NULL (with a message on stderr) when it cannot be built. */
struct loop_host *loop_host_new(const struct loop_host_params *p);
/* loop_host_free - shut the target down and free it (the library disconnected first). */
void loop_host_free(struct loop_host *lh);
/* The transport to put in nvmf_ctrl_opts.transport. */
const struct nvmf_host_transport *loop_host_transport(struct loop_host *lh);
/* Options to connect to @subnqn as LH_HOSTNQN through @lh. */
struct nvmf_ctrl_opts loop_host_opts(struct loop_host *lh, const char *subnqn);

/* loop_host_path_opts - loop_host_opts through port @path + 1 (127.0.0.(@path+1)). */
struct nvmf_ctrl_opts loop_host_path_opts(struct loop_host *lh, const char *subnqn, unsigned path);
/* loop_host_port_remove - the target stops listening on port @portid and tears down the
 * controllers reached through it (nvmf_tgt_port_remove, on the main group). 0 or -errno. */
int loop_host_port_remove(struct loop_host *lh, uint16_t portid);
/* loop_host_port_add - port @portid (1..n_ports) listens again, exposing every subsystem
 * (nvmf_tgt_port_add, on the main group). 0 or -errno. */
int loop_host_port_add(struct loop_host *lh, uint16_t portid);

/* loop_host_ana_set - group @grpid's ANA state on port @portid becomes @state
 * (NVME_ANA_STATE_*; nvmf_tgt_ana_state_set, on the main group). 0 or -errno. */
int loop_host_ana_set(struct loop_host *lh, uint16_t portid, uint32_t grpid, uint8_t state);

/* loop_host_ns_add - add RAM namespace @nsid (@bytes, 512-byte blocks) to lh0 live
 * (nvmf_tgt_ns_add, on the main group: its controllers get Namespace Attribute Changed).
 * loop_host_ns_remove - remove namespace @nsid of lh0 (nvmf_tgt_ns_remove).
 * loop_host_ns_resize - namespace @nsid of lh0 becomes @bytes long (nvmf_tgt_ns_resize).
 * Each 0 or -errno (with a message on stderr). */
int loop_host_ns_add(struct loop_host *lh, uint32_t nsid, uint64_t bytes);
int loop_host_ns_remove(struct loop_host *lh, uint32_t nsid);
int loop_host_ns_resize(struct loop_host *lh, uint32_t nsid, uint64_t bytes);

/* loop_host_break - every connected queue loses its connection: received CQEs not yet
 * polled are dropped, submit and poll return -ECONNRESET (nvmf_loop_break). */
void loop_host_break(struct loop_host *lh);
/* loop_host_drop - the next @n answers on I/O queue @qid (1..) of any controller are never
 * delivered (nvmf_loop_drop): commands the controller does not answer. */
void loop_host_drop(struct loop_host *lh, uint16_t qid, unsigned n);
/* loop_host_hold - while @hold, responses stay in the rings and polls find nothing (a
 * controller that stopped answering). */
void loop_host_hold(struct loop_host *lh, bool hold);
/* loop_host_admin_count - admin commands with @opcode the target received. */
unsigned loop_host_admin_count(struct loop_host *lh, uint8_t opcode);
/* loop_host_fabrics_count - Fabrics commands of type @fctype the target received (all
 * queues). */
unsigned loop_host_fabrics_count(struct loop_host *lh, uint8_t fctype);
/* loop_host_io_count - I/O commands with @opcode the target received (all queues). */
unsigned loop_host_io_count(struct loop_host *lh, uint8_t opcode);
/* loop_host_disc_log_reads - Get Log Page 70h commands the target received. */
unsigned loop_host_disc_log_reads(struct loop_host *lh);
/* loop_host_bump_genctr - after the @after-th discovery log read (1 = the first), bump
 * the target's discovery generation counter once; @every: after every read instead. */
void loop_host_bump_genctr(struct loop_host *lh, unsigned after, bool every);
/* loop_host_last_admin_regs - CC and CSTS of the last controller whose admin queue went
 * away, read just before it went (false when none). */
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
