/* SPDX-License-Identifier: MIT */
/*
 * The core's answers to what a transport asks (target/transport.h): a port's address and
 * resolved limits, the transport's pointer for it, the main group, whether the target is
 * stopping. They let a transport work without seeing struct nvmf_tgt, nvmf_port or the
 * configuration.
 */
#include <errno.h>
#include "subsystem/subsystem.h"
#include "target/core.h"

void nvmf_port_attrs(const struct nvmf_port *port, struct nvmf_port_attrs *out)
{
	const struct nvmf_port_config *pc = port->cfg;
	out->portid = pc->portid;
	out->trtype = pc->trtype;
	out->adrfam = pc->adrfam;
	out->traddr = pc->traddr;
	out->trsvcid = pc->trsvcid;
	out->admin_queue_size = NVMF_ADMIN_QUEUE_SIZE;
	out->queue_size = port->queue_size;
	out->max_qid = port->max_qid;
	out->inline_size = port->inline_size;
	out->maxh2cdata = pc->maxh2cdata ? pc->maxh2cdata : NVMF_DEFAULT_MAXH2CDATA;
	out->zerocopy_threshold = pc->zerocopy_threshold;
	out->tls = pc->tsas != NVMF_TCP_SECTYPE_TLS13 ? NVMF_PORT_TLS_OFF :
		   pc->treq == NVMF_TREQ_NOT_REQUIRED ? NVMF_PORT_TLS_OPTIONAL :
							NVMF_PORT_TLS_REQUIRED;
}

int nvmf_transport_tls_psk(const struct nvmf_transport *t, const char *hostnqn,
			   struct nvme_tls_psk *out, bool *compat)
{
	const struct nvmf_tls_key_config *k = nvmf_config_tls_key(t->tgt->cfg, hostnqn);
	char why[160];
	*compat = k && k->compat;
	/* The loader checked the key: a parse failure here is no key at all. */
	return k && !nvme_tls_psk_parse(k->key, out, why, sizeof(why)) ? 0 : -ENOKEY;
}

void *nvmf_port_priv(const struct nvmf_port *port)
{
	return port->transport_priv;
}

void nvmf_port_set_priv(struct nvmf_port *port, void *priv)
{
	port->transport_priv = priv;
}

struct nvmf_transport *nvmf_port_transport(const struct nvmf_port *port)
{
	return port->transport;
}

uint16_t nvmf_sq_cntlid(const struct nvmf_sq *sq)
{
	return sq->ctrl ? sq->ctrl->cntlid : 0;
}

struct nvmf_pg *nvmf_transport_main_pg(const struct nvmf_transport *t)
{
	return nvmf_tgt_main_pg(t->tgt);
}

unsigned nvmf_transport_npgs(const struct nvmf_transport *t)
{
	return t->tgt->npgs;
}

struct nvmf_pg *nvmf_transport_pg(const struct nvmf_transport *t, unsigned i)
{
	return t->tgt->pgs[i];
}

size_t nvmf_transport_nports(const struct nvmf_transport *t)
{
	return t->tgt->n_ports;
}

struct nvmf_port *nvmf_transport_port(const struct nvmf_transport *t, size_t i)
{
	return t->tgt->ports[i];
}

unsigned nvmf_tgt_ntransports(const struct nvmf_tgt *tgt)
{
	return tgt->ntransports;
}

struct nvmf_transport *nvmf_tgt_transport(const struct nvmf_tgt *tgt, unsigned i)
{
	return tgt->transports[i];
}

bool nvmf_transport_stopping(const struct nvmf_transport *t)
{
	return __atomic_load_n(&t->tgt->stopping, __ATOMIC_ACQUIRE);
}
