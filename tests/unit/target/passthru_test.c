/*
 * Passthru subsystems in the model (target/passthru.c): the drive opened with the
 * subsystem, its namespaces served under its NSIDs, refusals, and a drive that cannot be
 * opened failing the start naming the subsystem. The in-memory drive of
 * tests/unit/support/fake-drive.h stands for the drive.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "loop/loop.h"
#include "target/ana.h"
#include "target/model.h"
#include "target/namespace.h"
#include "target/passthru.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/passthru_fixture.h"

/* The drive's namespaces 1 and 2 are served under the same NSIDs, with its geometry;
 * the identity comes from the drive. */
static void drive_namespaces_are_served_under_their_nsids(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->drive);
	struct nvmf_ns *n1 = nvmf_subsys_ns(f->s, 1), *n2 = nvmf_subsys_ns(f->s, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n2);
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(f->s, 3));
	CU_ASSERT_EQUAL(n1->lba_shift, 9);
	CU_ASSERT_EQUAL(nvmf_ns_nlb(n1), 2048);
	CU_ASSERT_EQUAL(n2->lba_shift, 12);
	CU_ASSERT_EQUAL(nvmf_ns_nlb(n2), 256);
	CU_ASSERT_EQUAL(n1->bdev->kind, NVMF_BACKEND_PASSTHRU);
	CU_ASSERT_EQUAL(memcmp(f->s->serial, FAKE_DRIVE_SN, strlen(FAKE_DRIVE_SN)), 0);
	CU_ASSERT_EQUAL(memcmp(f->s->model, FAKE_DRIVE_MN, strlen(FAKE_DRIVE_MN)), 0);
	pt_teardown(f);
}

/* A namespace with separate metadata is not served; the others are. */
static void separate_metadata_namespace_is_not_served(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0,sepmeta");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(f->s, 1));
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(f->s, 3));
	pt_teardown(f);
}

/* Starts a target whose passthru subsystem names @path; returns nvmf_tgt_init's result
 * with its message in @err. */
static int start_with(const char *path, char *err, size_t errlen)
{
	struct fx *f = calloc(1, sizeof(*f));
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct nvmf_subsys_config *s = fx_cfg_subsys(&f->cfg, FX_SUBNQN, FX_HOSTNQN, 4);
	s->passthru.enable = true;
	snprintf(s->passthru.device_path, sizeof(s->passthru.device_path), "%s", path);
	fx_cfg_expose(fx_cfg_loop_port(&f->cfg, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	static const struct nvmf_transport_ops *const ops[] = { &nvmf_loop_ops };
	int rc = nvmf_tgt_init_drives(&f->tgt, &f->cfg, ops, 1, fake_drive_open, err, errlen);
	if (!rc) {
		nvmf_tgt_shutdown(&f->tgt, 0);
		nvmf_tgt_fini(&f->tgt);
	}
	nvmf_config_free(&f->cfg);
	free(f);
	return rc;
}

static void drive_that_cannot_open_fails_the_start_naming_the_subsystem(void)
{
	char err[512] = "";
	CU_ASSERT_EQUAL(start_with("/dev/nvme9", err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "subsystems[0] (" FX_SUBNQN "): passthru /dev/nvme9: No such "
				    "file or directory");
	CU_ASSERT_EQUAL(start_with("/dev/fake0,fail=06", err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "subsystems[0] (" FX_SUBNQN "): passthru /dev/fake0,fail=06: "
				    "Identify Controller failed: the drive answered status 0x6");
	CU_ASSERT_EQUAL(start_with("/dev/fake0", err, sizeof(err)), 0);
}

/* A namespace of its own added to a passthru subsystem (control plane, reload) would
 * take a drive's NSID: refused. */
static void namespace_add_to_a_passthru_subsystem_is_refused(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct nvmf_ns_config nc = {
		.nsid = 1, .enable = true, .kind = NVMF_BACKEND_RAM, .size_bytes = 1 << 20
	};
	uint32_t nsid;
	char err[256];
	CU_ASSERT_EQUAL(nvmf_tgt_ns_add(&f->fx.tgt, f->s, &nc, 1, &nsid, err, sizeof(err)), -EPERM);
	CU_ASSERT_STRING_EQUAL(err, "subsystem " FX_SUBNQN " serves the drive /dev/fake0 by "
				    "passthru: its namespaces are the drive's");
	CU_ASSERT_EQUAL(nvmf_subsys_ns(f->s, 1)->bdev->kind, NVMF_BACKEND_PASSTHRU);
	pt_teardown(f);
}

/* Remove, disable, resize of a drive's namespace: refused as the add is (the namespace
 * is the drive's), not "has no namespace" while subsystem_list lists it. */
static void namespace_change_in_a_passthru_subsystem_is_refused(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	const char *want = "subsystem " FX_SUBNQN " serves the drive /dev/fake0 by passthru: its "
			   "namespaces are the drive's";
	char err[256];
	CU_ASSERT_EQUAL(nvmf_tgt_ns_remove(&f->fx.tgt, f->s, 1, err, sizeof(err)), -EPERM);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_enable(&f->fx.tgt, f->s, 1, false, err, sizeof(err)), -EPERM);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_resize(&f->fx.tgt, f->s, 2, 4096, err, sizeof(err)), -EPERM);
	CU_ASSERT_STRING_EQUAL(err, want);
	uint32_t prev;
	CU_ASSERT_EQUAL(nvmf_tgt_ns_ana_group_set(&f->fx.tgt, f->s, 1, 1, &prev, err, sizeof(err)),
			-EPERM);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(f->s, 1));
	CU_ASSERT_EQUAL(nvmf_ns_nlb(nvmf_subsys_ns(f->s, 2)), 256);
	pt_teardown(f);
}

/* A passthru subsystem added live (control socket, reload) whose drive cannot be
 * opened: refused naming the subsystem, nothing added. */
static void live_add_of_a_drive_that_cannot_open_is_refused(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct nvmf_subsys_config sc;
	memset(&sc, 0, sizeof(sc));
	nvmf_config_subsys_defaults(&sc);
	snprintf(sc.nqn, sizeof(sc.nqn), "nqn.2026-11.io.nvmf-rdma:drive2");
	sc.allow_any_host = true;
	sc.passthru.enable = true;
	snprintf(sc.passthru.device_path, sizeof(sc.passthru.device_path), "/dev/nvme7");
	char err[512] = "";
	size_t before = f->fx.tgt.n_subsys;
	CU_ASSERT_EQUAL(nvmf_tgt_subsys_add(&f->fx.tgt, &sc, err, sizeof(err)), -EIO);
	CU_ASSERT_STRING_EQUAL(err, "subsystem nqn.2026-11.io.nvmf-rdma:drive2: passthru "
				    "/dev/nvme7: No such file or directory");
	CU_ASSERT_EQUAL(f->fx.tgt.n_subsys, before);
	snprintf(sc.passthru.device_path, sizeof(sc.passthru.device_path), "/dev/fake1");
	CU_ASSERT_EQUAL(nvmf_tgt_subsys_add(&f->fx.tgt, &sc, err, sizeof(err)), 0);
	struct nvmf_subsys *s = nvmf_tgt_find_subsys(&f->fx.tgt, sc.nqn);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(s, 2));
	pt_teardown(f);
}

const struct unit_test passthru_tests[] = {
	{ "live_add_of_a_drive_that_cannot_open_is_refused",
	  live_add_of_a_drive_that_cannot_open_is_refused },
	{ "namespace_add_to_a_passthru_subsystem_is_refused",
	  namespace_add_to_a_passthru_subsystem_is_refused },
	{ "namespace_change_in_a_passthru_subsystem_is_refused",
	  namespace_change_in_a_passthru_subsystem_is_refused },
	{ "drive_namespaces_are_served_under_their_nsids",
	  drive_namespaces_are_served_under_their_nsids },
	{ "separate_metadata_namespace_is_not_served", separate_metadata_namespace_is_not_served },
	{ "drive_that_cannot_open_fails_the_start_naming_the_subsystem",
	  drive_that_cannot_open_fails_the_start_naming_the_subsystem },
	{ NULL, NULL },
};
