/* SPDX-License-Identifier: MIT */
/*
 * Identify for an NVM subsystem's controller (NVMe Base 2.0 section 5.17): the
 * controller, its namespaces, the active namespace list and the namespace
 * identification descriptors. nvmf_identify_ctrl_common is shared with the discovery
 * controller (target/discovery.c).
 */
#include <string.h>
#include "nvme/identify.h"
#include "target/admin.h"
#include "target/ana.h"
#include "target/log.h"
#include "target/namespace.h"
#include "target/resv.h"

static_assert(sizeof(struct nvme_id_ctrl) == NVME_IDENTIFY_DATA_SIZE,
	      "Identify Controller is 4 KiB");
static_assert(sizeof(struct nvme_id_ns) == NVME_IDENTIFY_DATA_SIZE, "Identify Namespace is 4 KiB");

static inline uint32_t cdw10(const struct nvmf_req *req)
{
	return le32toh(req->cmd->cdw10);
}

void nvmf_identify_ctrl_common(const struct nvmf_tgt_ctrl *ctrl, struct nvme_id_ctrl *id)
{
	const struct nvmf_subsys *s = ctrl->subsys;
	memset(id, 0, sizeof(*id));
	/* vid/ssvid/ieee stay 0: no PCI vendor. */
	nvme_ascii_field(id->sn, sizeof(id->sn), s->serial);
	nvme_ascii_field(id->mn, sizeof(id->mn), s->model);
	nvme_ascii_field(id->fr, sizeof(id->fr), s->firmware);
	id->mdts = (uint8_t)ctrl->mdts;
	id->cntlid = htole16(ctrl->cntlid);
	id->ver = htole32(s->vs);
	id->aerl = NVMF_AERL;
	id->kas = htole16(NVMF_KAS);
	/* SGLS bits 1:0 = 01b: SGLs supported, no alignment rule; keyed where the transport is. */
	uint32_t sgls = 1;
	if (ctrl->transport->ops->keyed_sgl)
		sgls |= NVME_CTRL_SGLS_KEYED;
	id->sgls = htole32(sgls);
	strncpy(id->subnqn, s->cfg->nqn, sizeof(id->subnqn) - 1);
	/* Fabrics (NVMe-oF 1.1 section 4.1): capsule sizes in 16-byte units. */
	id->ioccsz = htole32(NVME_SQE_SIZE / 16);
	id->iorcsz = htole32(NVME_CQE_SIZE / 16);
	id->msdbd = ctrl->transport->ops->msdbd;
}

/* FUSES bit 0: fused Compare and Write (target/caw.c). ACWU (0's based, logical
 * blocks): the whole of one command is atomic, so what MDTS lets one carry, counted in
 * 512-byte blocks and capped at the field (NLB's 65536 blocks without MDTS). */
static void identify_fuses(const struct nvmf_tgt_ctrl *ctrl, struct nvme_id_ctrl *id)
{
	uint64_t blocks = 65536;
	if (ctrl->mdts && ctrl->mdts < 32 && (4096ull << ctrl->mdts) / 512 < blocks)
		blocks = (4096ull << ctrl->mdts) / 512;
	id->fuses = htole16(NVME_CTRL_FUSES_COMPARE_AND_WRITE);
	id->acwu = htole16((uint16_t)(blocks - 1));
}

static void identify_ctrl(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvmf_subsys *s = ctrl->subsys;
	struct nvme_id_ctrl *id = req->data;

	nvmf_identify_ctrl_common(ctrl, id);
	id->rab = 6;
	/* Several ports and several controllers (hosts or paths) may reach one subsystem;
	 * the Linux host wants CMIC and NMIC set to accept the same namespace twice. */
	id->cmic = NVME_CTRL_CMIC_MULTI_PORT | NVME_CTRL_CMIC_MULTI_CTRL;
	/* Notices the controller sends (SMART warnings have no OAES bit). */
	id->oaes = htole32(nvmf_aen_supported(ctrl) & ~0xffu);
	/* 128-bit host ID (Connect carries it); traffic based keep alive: the core refreshes
	 * the keep-alive timer on every command, so the host may skip Keep Alives. */
	id->ctratt = htole32(NVME_CTRL_CTRATT_128_ID | NVME_CTRL_CTRATT_TBKAS);
	id->cntrltype = NVME_CTRL_CNTRLTYPE_IO;
	id->acl = 3;
	id->frmw = NVME_CTRL_FRMW_1ST_RO | (1 << 1); /* one slot, read-only */
	id->lpa = NVME_CTRL_LPA_CMD_EFFECTS | NVME_CTRL_LPA_EXTENDED;
	id->elpe = NVMF_ERROR_LOG_ENTRIES - 1;
	id->npss = 0;
	/* The Composite Temperature's warning threshold: the Temperature Threshold feature's
	 * default over threshold (target/features.c). */
	id->wctemp = htole16(NVMF_TEMP_WARNING_KELVIN);
	id->sqes = 0x66;
	id->cqes = 0x44;
	id->maxcmd = htole16(ctrl->queue_size);
	id->nn = htole32(NVMF_MAX_NSID);
	id->oncs =
		htole16(NVME_CTRL_ONCS_COMPARE | NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES |
			(nvmf_resv_subsys_enabled(s) ? NVME_CTRL_ONCS_RESERVATIONS : 0));
	id->oncs |= htole16(NVME_CTRL_ONCS_VERIFY | NVME_CTRL_ONCS_COPY);
	id->ocfs = htole16(1); /* Copy descriptor format 0h only (no protection information) */
	identify_fuses(ctrl, id);
	/* VWC bit 0; bits 2:1 = 00b: Flush of NSID FFFFFFFFh support not reported (nvmet). */
	id->vwc = nvmf_subsys_has_vwc(s) ? NVME_CTRL_VWC_PRESENT : 0;
	/* In-capsule data: SGL offsets, and larger command capsules. */
	if (ctrl->inline_data_size)
		id->sgls |= htole32(NVME_CTRL_SGLS_OFFSET);
	id->ioccsz = htole32((NVME_SQE_SIZE + ctrl->inline_data_size) / 16);
	id->icdoff = 0;
	id->fcatt = 0; /* dynamic controller model */
	nvmf_ana_identify_ctrl(ctrl, id);
	nvmf_req_complete(req, 0);
}

/* MSSRL, MCL, MSRC: what Copy takes on @ns (target/io-cmd.c enforces the same). */
static void identify_ns_copy(const struct nvmf_tgt_ctrl *ctrl, const struct nvmf_ns *ns,
			     struct nvme_id_ns *id)
{
	struct nvmf_copy_limits lim;
	nvmf_copy_limits(ctrl, ns, &lim);
	id->mssrl = htole16(lim.mssrl);
	id->mcl = htole32(lim.mcl);
	id->msrc = lim.msrc;
}

static void identify_ns(struct nvmf_req *req)
{
	struct nvme_id_ns *id = req->data;
	struct nvmf_ns *ns = nvmf_subsys_ns(req->sq->ctrl->subsys, le32toh(req->cmd->nsid));

	memset(id, 0, sizeof(*id));
	if (!ns) { /* a valid but inactive NSID reads as zeroes (5.17.2.1) */
		nvmf_req_complete(req, 0);
		return;
	}
	/* A device's size is read again, as nvmet does here (a cheap ioctl): a device grown
	 * (lvextend) or shrunk reaches the host at its next look, with the notice to the
	 * other controllers. The admin queue runs on the main group, which owns the model. */
	if (ns->bdev->ops->device_size) {
		char err[512];
		if (nvmf_tgt_ns_revalidate(req->sq->tgt, req->sq->ctrl->subsys, ns, err,
					   sizeof(err)) < 0)
			nvmf_log(req->sq->tgt, NVMF_LOG_WARNING, "%s", err);
	}
	/* Fully provisioned: every block of the namespace counts as in use. */
	id->nsze = id->ncap = id->nuse = htole64(nvmf_ns_nlb(ns));
	id->nlbaf = 0;                                   /* one format, */
	id->flbas = 0;                                   /* that one, no metadata */
	id->nmic = NVME_NS_NMIC_SHARED;                  /* see CMIC */
	id->rescap = nvmf_resv_rescap(req->sq->tgt, ns); /* 0: reservations off */
	/* Deallocated blocks read as zeroes (001b) and Write Zeroes may deallocate: every
	 * backend guarantees zeroes after DISCARD and WRITE_ZEROES (subsystem/backend.h). */
	id->dlfeat = NVME_NS_DLFEAT_RB_ALL_0S | NVME_NS_DLFEAT_WRITE_ZEROES;
	if (ns->has_nguid)
		memcpy(id->nguid, ns->nguid, sizeof(id->nguid));
	if (ns->has_eui64)
		memcpy(id->eui64, ns->eui64, sizeof(id->eui64));
	id->lbaf[0].ds = (uint8_t)ns->lba_shift;
	nvmf_identify_ns_io_hints(ns, id);
	identify_ns_copy(req->sq->ctrl, ns, id);
	nvmf_ana_identify_ns(req->sq->port, ns, id);
	nvmf_req_complete(req, 0);
}

/* Fields of the I/O Command Set Independent Identify Namespace data (NVMe Base 2.1
 * figure 319) that libnvme 1.3 has no names for: NSFEAT bit 5 (VWCNP, no volatile write
 * cache for this namespace), NSTAT bit 0 (NRDY, namespace ready). */
#define CS_INDEP_NSFEAT_VWCNP (1u << 5)
#define CS_INDEP_NSTAT_NRDY   (1u << 0)

static_assert(sizeof(struct nvme_id_independent_id_ns) == NVME_IDENTIFY_DATA_SIZE,
	      "I/O Command Set Independent Identify Namespace is 4 KiB");

/*
 * CNS 08h: the namespace's command set independent identity, as nvmet answers it: NMIC
 * shared (see CMIC), RESCAP, ANAGRPID, NSTAT ready (a host that reads this instead of
 * CNS 00h, as Linux 6.x does from NVMe 2.0 on, treats a namespace without NRDY as not
 * ready), VWCNP where the namespace's backend has no volatile cache while another
 * namespace's has (the host then turns FUA and flushes off for it).
 */
static void identify_ns_cs_indep(struct nvmf_req *req)
{
	struct nvme_id_independent_id_ns *id = req->data;
	/* Looked up again: the namespace may have gone since the parser saw it (a buffer
	 * wait can put passes between the two). */
	const struct nvmf_ns *ns = nvmf_subsys_ns(req->sq->ctrl->subsys, le32toh(req->cmd->nsid));

	memset(id, 0, sizeof(*id));
	if (!ns) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INVALID_NS) | NVME_SC_DNR);
		return;
	}
	if (!ns->bdev->volatile_cache)
		id->nsfeat |= CS_INDEP_NSFEAT_VWCNP;
	id->nmic = NVME_NS_NMIC_SHARED;
	id->rescap = nvmf_resv_rescap(req->sq->tgt, ns);
	id->anagrpid = htole32(__atomic_load_n(&ns->anagrpid, __ATOMIC_RELAXED));
	id->nstat = CS_INDEP_NSTAT_NRDY;
	nvmf_req_complete(req, 0);
}

/* CNS 02h: up to 1024 active NSIDs greater than the command's NSID, ascending. */
static void identify_active_list(struct nvmf_req *req)
{
	const struct nvmf_subsys *s = req->sq->ctrl->subsys;
	uint32_t start = le32toh(req->cmd->nsid);
	__le32 *list = req->data;
	size_t n = 0;

	memset(list, 0, NVME_IDENTIFY_DATA_SIZE);
	for (uint32_t nsid = start + 1; nsid <= s->max_nsid && n < NVME_ID_NS_LIST_MAX; nsid++)
		if (nvmf_subsys_ns(s, nsid))
			list[n++] = htole32(nsid);
	nvmf_req_complete(req, 0);
}

/* Append one Namespace Identification Descriptor (Figure 280) at *off. */
static void put_desc(uint8_t *buf, size_t *off, uint8_t type, uint8_t len, const void *id)
{
	struct nvme_ns_id_desc *d = (struct nvme_ns_id_desc *)(buf + *off);
	d->nidt = type;
	d->nidl = len;
	memcpy(d->nid, id, len);
	*off += sizeof(*d) + len;
}

/* CNS 03h: the identifiers the namespace has, then its command set (NVM). */
static void identify_desc_list(struct nvmf_req *req)
{
	struct nvmf_ns *ns = nvmf_subsys_ns(req->sq->ctrl->subsys, le32toh(req->cmd->nsid));
	uint8_t *buf = req->data;
	const uint8_t csi = NVME_CSI_NVM;
	size_t off = 0;

	memset(buf, 0, NVME_IDENTIFY_DATA_SIZE);
	if (!ns) { /* nvmet: an inactive NSID has no descriptors to give */
		nvmf_req_complete(req, nvme_generic(NVME_SC_INVALID_NS) | NVME_SC_DNR);
		return;
	}
	if (ns->has_eui64)
		put_desc(buf, &off, NVME_NIDT_EUI64, NVME_NIDT_EUI64_LEN, ns->eui64);
	if (ns->has_nguid)
		put_desc(buf, &off, NVME_NIDT_NGUID, NVME_NIDT_NGUID_LEN, ns->nguid);
	if (ns->has_uuid)
		put_desc(buf, &off, NVME_NIDT_UUID, NVME_NIDT_UUID_LEN, ns->uuid);
	put_desc(buf, &off, NVME_NIDT_CSI, NVME_NIDT_CSI_LEN, &csi);
	nvmf_req_complete(req, 0);
}

/* Valid NSIDs are 1..NN (NVMe Base 3.2.1.2); FFFFFFFFh (broadcast) is not accepted by
 * Identify Namespace here since we have no Namespace Management (nvmet likewise). */
static bool nsid_valid(uint32_t nsid)
{
	return nsid >= 1 && nsid <= NVMF_MAX_NSID;
}

nvme_status_t nvmf_parse_identify(struct nvmf_req *req)
{
	uint32_t nsid = le32toh(req->cmd->nsid);

	switch (cdw10(req) & 0xff) {
	case NVME_IDENTIFY_CNS_NS:
		if (!nsid_valid(nsid))
			return nvme_generic(NVME_SC_INVALID_NS);
		req->execute = identify_ns;
		break;
	case NVME_IDENTIFY_CNS_CTRL:
		req->execute = identify_ctrl;
		break;
	case NVME_IDENTIFY_CNS_NS_ACTIVE_LIST:
		/* Figure 274: FFFFFFFEh and FFFFFFFFh are invalid starting points. */
		if (nsid >= 0xfffffffeu)
			return nvme_generic(NVME_SC_INVALID_NS);
		req->execute = identify_active_list;
		break;
	case NVME_IDENTIFY_CNS_NS_DESC_LIST:
		if (!nsid_valid(nsid))
			return nvme_generic(NVME_SC_INVALID_NS);
		req->execute = identify_desc_list;
		break;
	case NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS:
		/* nvmet_req_find_ns: only an active namespace has this data. */
		if (!nsid_valid(nsid) || !nvmf_subsys_ns(req->sq->ctrl->subsys, nsid))
			return nvme_generic(NVME_SC_INVALID_NS);
		req->execute = identify_ns_cs_indep;
		break;
	case NVME_IDENTIFY_CNS_CSI_NS:
	case NVME_IDENTIFY_CNS_CSI_CTRL:
	case NVME_IDENTIFY_CNS_CSI_NS_ACTIVE_LIST: {
		nvme_status_t st = nvmf_parse_identify_cs(req);
		if (st)
			return st;
		break;
	}
	default:
		return nvme_generic(NVME_SC_INVALID_FIELD);
	}
	req->dir = NVMF_XFER_C2H;
	req->data_len = NVME_IDENTIFY_DATA_SIZE;
	return 0;
}
