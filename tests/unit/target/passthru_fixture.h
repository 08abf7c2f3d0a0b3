/* A target serving the in-memory drive (tests/unit/support/fake-drive.h) as passthru
 * subsystem FX_SUBNQN on loop port 1, for the passthru tests (tests/unit/target/
 * passthru*_test.c): the admin queue connected and enabled, I/O queue 1 connected. */
#ifndef NVMF_TESTS_UNIT_TARGET_PASSTHRU_FIXTURE_H
#define NVMF_TESTS_UNIT_TARGET_PASSTHRU_FIXTURE_H
#include "tests/unit/support/fake-drive.h"
#include "tests/unit/target/fixture.h"

#define PT_ST(sct, sc) ((int)nvme_status((sct), (sc)))
#define PT_GEN(sc)     PT_ST(NVME_SCT_GENERIC, (sc))
#define PT_DNR(st)     ((int)((st) | NVME_SC_DNR))

struct pt_fx {
	struct fx fx;
	struct fxq q; /* I/O queue 1 */
	struct nvmf_subsys *s;
	struct fake_drive *drive;
};

/* pt_setup - boot with the fake drive at @path ("/dev/fake0", with fake_drive_open's
 * words), connect; NULL when the target did not start. */
struct pt_fx *pt_setup(const char *path);
void pt_teardown(struct pt_fx *f);
/* pt_rw - an I/O command @opcode of namespace @nsid, @slba, @nlb blocks (1's based). */
struct nvme_sqe pt_rw(uint8_t opcode, uint32_t nsid, uint64_t slba, uint32_t nlb);
#endif
