/* The passthru tests' target (passthru_fixture.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/passthru_fixture.h"

struct pt_fx *pt_setup(const char *path)
{
	return pt_setup_timeouts(path, 0, 0);
}

struct pt_fx *pt_setup_timeouts(const char *path, uint32_t admin_s, uint32_t io_s)
{
	struct pt_fx *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	struct nvmf_subsys_config *s = fx_cfg_subsys(&f->fx.cfg, FX_SUBNQN, FX_HOSTNQN, 4);
	s->passthru.enable = true;
	snprintf(s->passthru.device_path, sizeof(s->passthru.device_path), "%s", path);
	s->passthru.admin_timeout = admin_s;
	s->passthru.io_timeout = io_s;
	fx_cfg_expose(fx_cfg_loop_port(&f->fx.cfg, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	f->fx.drive_open = fake_drive_open;
	if (fx_boot(&f->fx, "127.0.0.1", "4420") || fx_connect_admin(&f->fx)) {
		fx_teardown(&f->fx);
		free(f);
		return NULL;
	}
	fx_queue_init(&f->fx, &f->q);
	if (fx_connect(&f->q, 1, 31, FX_SUBNQN, FX_HOSTNQN, f->fx.cntlid, 0, NULL, NULL)) {
		fx_teardown(&f->fx);
		free(f);
		return NULL;
	}
	f->s = nvmf_tgt_find_subsys(&f->fx.tgt, FX_SUBNQN);
	f->drive = f->s && f->s->drive ? fake_drive_of(f->s->drive) : NULL;
	return f;
}

void pt_teardown(struct pt_fx *f)
{
	fx_teardown(&f->fx);
	free(f);
}

struct nvme_sqe pt_rw(uint8_t opcode, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	return fx_rw_sqe(opcode, 0, nsid, slba, nlb, 0x40);
}
