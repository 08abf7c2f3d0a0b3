/* A small target for unit tests: one subsystem with RAM namespaces, one port, served
 * through the loop transport. Built through the real config model and nvmf_tgt_init. */
#ifndef NVMF_TESTS_UNIT_TARGET_FIXTURE_H
#define NVMF_TESTS_UNIT_TARGET_FIXTURE_H
#include "target/core.h"
#include "target/loop.h"

#define FX_SUBNQN  "nqn.2026-11.io.nvmf-rdma:test1"
#define FX_HOSTNQN "nqn.2026-11.io.nvmf-rdma:host1"
#define FX_OTHER_HOSTNQN "nqn.2026-11.io.nvmf-rdma:intruder"

struct fx {
	struct nvmf_config cfg;
	struct nvmf_aio aio;
	struct nvmf_tgt tgt;
	struct nvmf_loop_queue admin;
	uint16_t cntlid;
	uint64_t now;           /* fake clock, ms */
};

/* fx_setup - target with FX_SUBNQN (host FX_HOSTNQN allowed) holding namespace 1
 * (RAM, 1 MiB, 512 B blocks) and namespace 2 (RAM, 1 MiB, 4 KiB blocks), exposed on
 * port 1. Returns 0 or -1. */
int fx_setup(struct fx *f);
/* fx_connect_admin - admin Connect as FX_HOSTNQN and CC.EN; returns the status. */
nvme_status_t fx_connect_admin(struct fx *f);
void fx_teardown(struct fx *f);
#endif
