#include <stdlib.h>
#include <string.h>
#include "tests/unit/target/fixture.h"

#include <stddef.h>

/* The fake clock: the fixture that embeds @tgt holds the time. */
static uint64_t fake_now(const struct nvmf_tgt *tgt)
{
	const struct fx *f = (const void *)((const char *)tgt - offsetof(struct fx, tgt));
	return f->now;
}

int fx_setup(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	struct nvmf_config *c = &f->cfg;
	c->n_subsystems = 1;
	c->subsystems = calloc(1, sizeof(*c->subsystems));
	struct nvmf_subsys_config *s = c->subsystems;
	strcpy(s->nqn, FX_SUBNQN);
	s->n_allowed_hosts = 1;
	s->allowed_hosts = calloc(1, sizeof(char *));
	s->allowed_hosts[0] = strdup(FX_HOSTNQN);
	s->qid_max = 4;
	s->n_ns = 2;
	s->ns = calloc(2, sizeof(*s->ns));
	for (int i = 0; i < 2; i++) {
		s->ns[i].nsid = (uint32_t)i + 1;
		s->ns[i].enable = true;
		s->ns[i].kind = NVMF_BACKEND_RAM;
		s->ns[i].size_bytes = 1u << 20;
		s->ns[i].block_size = i ? 4096 : 512;
	}
	c->n_ports = 1;
	c->ports = calloc(1, sizeof(*c->ports));
	c->ports[0].portid = 1;
	c->ports[0].adrfam = 2; /* AF_INET */
	strcpy(c->ports[0].traddr, "0.0.0.0");
	strcpy(c->ports[0].trsvcid, "4420");
	c->ports[0].inline_data_size = 8192;
	c->ports[0].max_queue_size = 128;
	c->ports[0].n_subsystems = 1;
	c->ports[0].subsystems = calloc(1, sizeof(char *));
	c->ports[0].subsystems[0] = strdup(FX_SUBNQN);
	if (nvmf_aio_init(&f->aio, 64))
		return -1;
	char err[512];
	if (nvmf_tgt_init(&f->tgt, c, &f->aio, err, sizeof(err)))
		return -1;
	f->now = 1000;
	f->tgt.now_ms = fake_now;
	nvmf_loop_queue_init(&f->admin, &f->tgt, &f->tgt.ports[0]);
	return 0;
}

nvme_status_t fx_connect_admin(struct fx *f)
{
	nvme_status_t st = nvmf_loop_connect(&f->admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff,
					     5000, &f->cntlid, NULL);
	return st ? st : nvmf_loop_enable(&f->admin);
}

void fx_teardown(struct fx *f)
{
	nvmf_loop_disconnect(&f->admin);
	nvmf_tgt_fini(&f->tgt);
	nvmf_aio_fini(&f->aio);
	nvmf_config_free(&f->cfg);
}
