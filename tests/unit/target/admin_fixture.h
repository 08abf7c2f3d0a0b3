/* Helpers of the admin command tests (admin-cmd, features, identify): one whole-stack
 * target fixture (tests/unit/target/fixture.h) with its admin queue connected and enabled,
 * and short ways to send admin commands on it. */
#ifndef NVMF_TESTS_UNIT_TARGET_ADMIN_FIXTURE_H
#define NVMF_TESTS_UNIT_TARGET_ADMIN_FIXTURE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tests/unit/target/fixture.h"

#define GEN(sc)   (nvme_status(NVME_SCT_GENERIC, (sc)) | NVME_SC_DNR)
#define CSPEC(sc) (nvme_status(NVME_SCT_CMD_SPECIFIC, (sc)) | NVME_SC_DNR)

/* The fixture the admin tests share; admin_setup() sets it up, each test tears it down. */
extern struct fx admin_fx;

/* Sets admin_fx up and connects and enables its admin queue (CUnit fatal on failure). */
void admin_setup(void);
struct nvmf_tgt_ctrl *admin_ctrl(void);
/* An admin command: opcode, nsid, cdw10, cdw11, command id 0x1234. */
struct nvme_sqe admin_mk(uint8_t opc, uint32_t nsid, uint32_t c10, uint32_t c11);
/* Sends @c on the admin queue, returns its status (@cqe, when not NULL, gets its CQE). */
int admin_cmd(struct nvme_sqe c, void *buf, uint32_t len, struct nvme_cqe *cqe);
/* Identify @cns into @buf (4 KiB, filled with 0xff first so that zeroes mean written). */
int admin_identify(uint8_t cns, uint32_t nsid, void *buf);
/* Get Log Page @lid of @len bytes at @off into @buf (filled with 0xff first). */
int admin_get_log(uint8_t lid, uint32_t nsid, uint64_t off, void *buf, uint32_t len);
/* Set / Get Features: cdw10, cdw11; @dw0, when not NULL, gets the CQE's dword 0. */
int admin_set_feat(uint32_t c10, uint32_t c11, uint32_t *dw0);
int admin_get_feat(uint32_t c10, uint32_t c11, uint32_t *dw0);
bool admin_all_zero(const void *p, size_t n);

#endif
