/* A target for the reservation tests (target/resv*.c), on the whole-stack fixture
 * (fixture.h): several hosts, each an admin queue and I/O queue 1, and the commands as a
 * host sends them. The I/O queues run on I/O poll groups (nvmf_target.threads 2, driven),
 * so every reservation command crosses to the main group and back. */
#ifndef NVMF_TESTS_UNIT_TARGET_RESV_FIXTURE_H
#define NVMF_TESTS_UNIT_TARGET_RESV_FIXTURE_H
#include <stdbool.h>
#include <stdint.h>
#include "nvme/resv.h"
#include "tests/unit/target/fixture.h"

#define RF_NS     1 /* reservations on: RAM, 1 MiB, 512 B blocks */
#define RF_PLAIN  2 /* reservations off: the same */
#define RF_HOST_C "nqn.2026-11.io.nvmf-rdma:host3"

#define RF_GEN(sc)  (nvme_generic(sc) | NVME_SC_DNR)
#define RF_CONFLICT RF_GEN(NVME_SC_RESERVATION_CONFLICT)

/* One controller of a host. */
struct rf_host {
	struct fxq admin, io;
	uint16_t cntlid;
	uint8_t id[16]; /* its Host Identifier */
	const char *nqn;
};

struct rf {
	struct fx fx;
	/* Host A (FX_HOSTNQN) with two controllers, hosts B (FX_OTHER_HOSTNQN) and C
	 * (RF_HOST_C); connected by rf_host_up as a test needs them. */
	struct rf_host a, a2, b, c;
};

/* rf_boot - zero @r and start the target: FX_SUBNQN open to any host, namespaces RF_NS
 * and RF_PLAIN, loop port 1; with @state (not NULL), keeping reservations in that file
 * (nvmf_tgt_resv_open). 0, or -1 (printed). */
int rf_boot(struct rf *r, const char *state);
/* rf_boot_threads - the same with nvmf_target.threads @threads (1: every queue on the main
 * group, where the reservation commands run without a message). */
int rf_boot_threads(struct rf *r, const char *state, uint32_t threads);
void rf_teardown(struct rf *r);
/* rf_host_up - @h connects as @nqn with host ID 16 x @id: admin queue (enabled) and I/O
 * queue 1; the test fails at once if it cannot. */
void rf_host_up(struct rf *r, struct rf_host *h, const char *nqn, uint8_t id);
/* rf_tick - 5 ms of the fake clock, and the target runs. */
void rf_tick(struct rf *r);

/* The commands on @h's I/O queue; each returns the status (without the phase bit). */
int rf_register(struct rf_host *h, uint32_t nsid, uint32_t cdw10, uint64_t crkey, uint64_t nrkey);
int rf_acquire(struct rf_host *h, uint32_t nsid, unsigned action, uint8_t rtype, uint64_t crkey,
	       uint64_t prkey);
/* Release with the 8 bytes of data the spec gives it. */
int rf_release(struct rf_host *h, uint32_t nsid, unsigned action, uint8_t rtype, uint64_t crkey);
/* Report with EDS into @buf of @len bytes (NUMD from it). */
int rf_report(struct rf_host *h, uint32_t nsid, void *buf, uint32_t len);
/* One block (512 B) at LBA 0 by @opcode (Read, Write, Compare, Write Zeroes, Flush, DSM).
 * Compare compares with zeroes: what a RAM namespace holds until it is written. */
int rf_io(struct rf_host *h, uint32_t nsid, uint8_t opcode);
/* rf_sqe - an SQE of @opcode for @nsid with @cdw10, @cdw11. */
struct nvme_sqe rf_sqe(uint8_t opcode, uint32_t nsid, uint32_t cdw10, uint32_t cdw11);
/* On @h's admin queue: log 80h (64 bytes, RAE as given), Set/Get Features. */
int rf_log80(struct rf_host *h, struct nvme_resv_notification_log *log, bool rae);
int rf_set_feat(struct rf_host *h, uint8_t fid, uint32_t nsid, uint32_t cdw11, uint32_t *dw0);
int rf_get_feat(struct rf_host *h, uint8_t fid, uint32_t nsid, uint32_t *dw0);
/* rf_cdw10 - Reservation Register/Acquire/Release dword 10. */
uint32_t rf_cdw10(unsigned action, bool iekey, uint8_t rtype, unsigned cptpl);

#endif
