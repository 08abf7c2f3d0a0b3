/* The in-memory NVMe controller of the passthru tests (fake-drive.h). Status values are
 * nvme_status_t (SC 7:0, SCT 10:8, M 13, DNR 14), as a drive's CQE has them shifted. */
#include "tests/unit/support/fake-drive.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FMT_COUNT 3 /* lbaf[0] 512 B, [1] 4096 B, [2] 4096 B + 8 B metadata */
static const uint8_t fmt_ds[FMT_COUNT] = { 9, 12, 12 };
static const uint16_t fmt_ms[FMT_COUNT] = { 0, 0, 8 };

#define ST_INVALID_OPCODE nvme_generic(NVME_SC_INVALID_OPCODE) | NVME_SC_DNR
#define ST_INVALID_FIELD  nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR
#define ST_INVALID_NS     nvme_generic(NVME_SC_INVALID_NS) | NVME_SC_DNR
#define ST_LBA_RANGE      nvme_generic(NVME_SC_LBA_RANGE) | NVME_SC_DNR
#define ST_SGL_LENGTH     nvme_generic(NVME_SC_SGL_INVALID_DATA) | NVME_SC_DNR
#define ST_COMPARE        nvme_status(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED) | NVME_SC_DNR
#define ST_INVALID_FORMAT nvme_cmd_specific(NVME_SC_INVALID_FORMAT) | NVME_SC_DNR

struct fake_drive *fake_drive_of(struct nvmf_drive *d)
{
	return d->priv;
}

static struct fake_drive_ns *ns_of(struct fake_drive *f, uint32_t nsid)
{
	for (int i = 0; i < FAKE_DRIVE_MAX_NS; i++)
		if (nsid && f->ns[i].nsid == nsid)
			return &f->ns[i];
	return NULL;
}

static unsigned fmt_of(const struct fake_drive_ns *n)
{
	return n->flbas & 0xf;
}
static uint32_t ds_of(const struct fake_drive_ns *n)
{
	return 1u << fmt_ds[fmt_of(n)];
}
static uint32_t bb_of(const struct fake_drive_ns *n)
{
	return ds_of(n) + ((n->flbas & 0x10) ? fmt_ms[fmt_of(n)] : 0);
}
static uint64_t nsze_of(const struct fake_drive_ns *n)
{
	return n->capacity / ds_of(n);
}

/* (Re)allocates @n's memory, zeroed, for its current format. */
static int ns_alloc(struct fake_drive_ns *n)
{
	free(n->data);
	n->data = calloc(nsze_of(n), bb_of(n));
	return n->data ? 0 : -ENOMEM;
}

uint32_t fake_drive_block_bytes(struct fake_drive *f, uint32_t nsid)
{
	const struct fake_drive_ns *n = ns_of(f, nsid);
	return n ? bb_of(n) : 0;
}

uint8_t *fake_drive_ns_data(struct fake_drive *f, uint32_t nsid, uint64_t lba)
{
	struct fake_drive_ns *n = ns_of(f, nsid);
	if (!n || lba >= nsze_of(n))
		return NULL;
	return n->data + lba * bb_of(n);
}

void fake_drive_set_ns(struct fake_drive *f, uint32_t nsid, bool on, uint64_t blocks)
{
	pthread_mutex_lock(&f->lock);
	struct fake_drive_ns *n = ns_of(f, nsid);
	if (!on && n) {
		free(n->data);
		memset(n, 0, sizeof(*n));
	} else if (on && !n) {
		for (int i = 0; i < FAKE_DRIVE_MAX_NS; i++)
			if (!f->ns[i].nsid) {
				n = &f->ns[i];
				n->nsid = nsid;
				n->capacity = blocks * 512;
				n->flbas = 0;
				if (ns_alloc(n) < 0)
					memset(n, 0, sizeof(*n));
				break;
			}
	}
	pthread_mutex_unlock(&f->lock);
}

static void put_le128(uint8_t *p, uint64_t v)
{
	memset(p, 0, 16);
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void pad(char *dst, size_t n, const char *s)
{
	memset(dst, ' ', n);
	memcpy(dst, s, strlen(s) < n ? strlen(s) : n);
}

static void id_ctrl(struct fake_drive *f, struct nvme_id_ctrl *id)
{
	memset(id, 0, sizeof(*id));
	id->vid = htole16(0x1b36);
	id->ssvid = htole16(0x1af4);
	pad(id->sn, sizeof(id->sn), FAKE_DRIVE_SN);
	pad(id->mn, sizeof(id->mn), FAKE_DRIVE_MN);
	pad(id->fr, sizeof(id->fr), "1.0");
	id->mdts = FAKE_DRIVE_MDTS;
	id->cntlid = htole16(FAKE_DRIVE_CNTLID);
	id->ver = htole32(0x00010400);
	id->oacs = htole16(1u << 1 | 1u << 3 | 1u << 4 | 1u << 8); /* format, ns mgmt, self
		  * test, doorbell buffer config: the target hides the last three */
	id->aerl = 3;
	id->lpa = (uint8_t)(NVME_CTRL_LPA_SMART_PER_NS |
			    (f->no_effects ? 0 : NVME_CTRL_LPA_CMD_EFFECTS));
	id->elpe = 63;
	id->wctemp = htole16(0x157);
	id->cctemp = htole16(0x175);
	id->sqes = 0x66;
	id->cqes = 0x44;
	id->maxcmd = htole16(1024);
	id->nn = htole32(FAKE_DRIVE_MAX_NS);
	id->oncs = htole16(1u << 0 | 1u << 2 | 1u << 3 | 1u << 7 | 1u << 8); /* compare, dsm,
		  * write zeroes, verify, copy */
	id->vwc = 1;
	id->sgls = 0; /* a PCIe drive: PRPs only */
	snprintf(id->subnqn, sizeof(id->subnqn), "nqn.2014.08.org.nvmexpress:fake-drive");
}

static void id_ns(const struct fake_drive_ns *n, struct nvme_id_ns *id)
{
	memset(id, 0, sizeof(*id));
	id->nsze = id->ncap = id->nuse = htole64(nsze_of(n));
	id->nlbaf = FMT_COUNT - 1;
	id->flbas = n->flbas;
	id->mc = 3; /* extended and separate metadata both supported */
	id->dlfeat = 1;
	for (unsigned i = 0; i < FMT_COUNT; i++) {
		id->lbaf[i].ds = fmt_ds[i];
		id->lbaf[i].ms = htole16(fmt_ms[i]);
	}
	for (int i = 0; i < 16; i++)
		id->nguid[i] = (uint8_t)(0x10 + n->nsid * 16 + i);
	for (int i = 0; i < 8; i++)
		id->eui64[i] = (uint8_t)(0xe0 + n->nsid + i);
}

static void ns_desc(const struct fake_drive_ns *n, uint8_t *p)
{
	memset(p, 0, 4096);
	struct nvme_id_ns id;
	id_ns(n, &id);
	p[0] = NVME_NIDT_EUI64, p[1] = 8, memcpy(p + 4, id.eui64, 8);
	p += 12;
	p[0] = NVME_NIDT_NGUID, p[1] = 16, memcpy(p + 4, id.nguid, 16);
	p += 20;
	p[0] = NVME_NIDT_UUID, p[1] = 16;
	for (int i = 0; i < 16; i++)
		p[4 + i] = (uint8_t)(0xa0 + n->nsid + i);
	p += 20;
	p[0] = NVME_NIDT_CSI, p[1] = 1; /* NVM command set: 0 */
}

static void effects(struct nvme_cmd_effects_log *e)
{
	const uint32_t s = NVME_CMD_EFFECTS_CSUPP, lbcc = NVME_CMD_EFFECTS_LBCC;
	memset(e, 0, sizeof(*e));
	static const uint8_t admin[] = {
		0x00, 0x01, 0x02, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0a, 0x0c,
		0x0d, 0x10, 0x11, 0x14, 0x15, 0x18, 0x7c, 0xc0, 0xc1, 0xc2
	};
	for (size_t i = 0; i < sizeof(admin); i++)
		e->acs[admin[i]] = htole32(s);
	/* Format NVM: data, capability and inventory change; the whole subsystem (CSE 01b
	 * would be one namespace; 10b: no other command anywhere meanwhile). */
	e->acs[nvme_admin_format_nvm] = htole32(s | lbcc | NVME_CMD_EFFECTS_NCC | 2u << 16);
	e->acs[0x0d] = htole32(s | NVME_CMD_EFFECTS_NIC | NVME_CMD_EFFECTS_NCC);
	static const uint8_t rd[] = { 0x00, 0x02, 0x05, 0x0c }, wr[] = { 0x01, 0x08, 0x09, 0x19 };
	for (size_t i = 0; i < sizeof(rd); i++)
		e->iocs[rd[i]] = htole32(s);
	for (size_t i = 0; i < sizeof(wr); i++)
		e->iocs[wr[i]] = htole32(s | lbcc);
}

static void smart(struct fake_drive *f, struct nvme_smart_log *l)
{
	memset(l, 0, sizeof(*l));
	l->temperature[0] = 0x30, l->temperature[1] = 0x01; /* 304 K */
	l->avail_spare = 100;
	l->spare_thresh = 10;
	put_le128(l->data_units_read, (f->units_read + 511999) / 512000);
	put_le128(l->data_units_written, (f->units_written + 511999) / 512000);
	put_le128(l->host_reads, f->host_reads);
	put_le128(l->host_writes, f->host_writes);
	put_le128(l->power_cycles, 3);
	put_le128(l->num_err_log_entries, f->errors);
}

static uint16_t get_log(struct fake_drive *f, const struct nvme_sqe *c, uint8_t *buf, uint32_t len)
{
	uint32_t cdw10 = le32toh(c->cdw10);
	uint8_t lid = cdw10 & 0xff;
	uint8_t page[4096];
	memset(page, 0, sizeof(page));
	switch (lid) {
	case NVME_LOG_LID_ERROR: {
		struct nvme_error_log_page *e = (struct nvme_error_log_page *)page;
		if (f->errors) {
			e->error_count = htole64(f->errors);
			e->cmdid = f->last_error_cmd.command_id;
			e->status_field = htole16((uint16_t)(f->last_error_status << 1));
			e->nsid = f->last_error_cmd.nsid;
		}
		break;
	}
	case NVME_LOG_LID_SMART:
		smart(f, (struct nvme_smart_log *)page);
		break;
	case NVME_LOG_LID_CMD_EFFECTS:
		if (f->no_effects)
			return ST_INVALID_FIELD;
		effects((struct nvme_cmd_effects_log *)page);
		break;
	default:
		return ST_INVALID_FIELD;
	}
	memcpy(buf, page, len < sizeof(page) ? len : sizeof(page));
	return 0;
}

static uint16_t identify(struct fake_drive *f, const struct nvme_sqe *c, uint8_t *buf, uint32_t len)
{
	if (len < 4096)
		return ST_SGL_LENGTH;
	uint8_t cns = le32toh(c->cdw10) & 0xff;
	uint32_t nsid = le32toh(c->nsid);
	memset(buf, 0, 4096);
	switch (cns) {
	case NVME_IDENTIFY_CNS_CTRL:
		id_ctrl(f, (struct nvme_id_ctrl *)buf);
		return 0;
	case NVME_IDENTIFY_CNS_NS:
	case NVME_IDENTIFY_CNS_NS_DESC_LIST: {
		const struct fake_drive_ns *n = ns_of(f, nsid);
		if (!n)
			return cns == NVME_IDENTIFY_CNS_NS ? 0 : ST_INVALID_NS; /* inactive:
				       * zeroes (NVMe Base 5.17.2.1) */
		if (cns == NVME_IDENTIFY_CNS_NS)
			id_ns(n, (struct nvme_id_ns *)buf);
		else
			ns_desc(n, buf);
		return 0;
	}
	case NVME_IDENTIFY_CNS_NS_ACTIVE_LIST: {
		__le32 *list = (__le32 *)buf;
		size_t k = 0;
		for (uint32_t id = nsid + 1; id <= FAKE_DRIVE_MAX_NS; id++)
			if (ns_of(f, id))
				list[k++] = htole32(id);
		return 0;
	}
	}
	return ST_INVALID_FIELD;
}

static uint16_t features(struct fake_drive *f, const struct nvme_sqe *c, bool set, uint64_t *result)
{
	uint32_t cdw11 = le32toh(c->cdw11);
	switch (le32toh(c->cdw10) & 0xff) {
	case NVME_FEAT_FID_POWER_MGMT:
		if (set)
			f->power_state = cdw11 & 0x1f;
		*result = f->power_state;
		return 0;
	case NVME_FEAT_FID_TEMP_THRESH:
		if (set)
			f->temp_threshold = cdw11 & 0xffff;
		*result = f->temp_threshold;
		return 0;
	case NVME_FEAT_FID_VOLATILE_WC:
		*result = 1;
		return 0;
	case NVME_FEAT_FID_NUM_QUEUES:
		*result = 0x003f003f; /* 64 and 64, 0's based */
		return 0;
	}
	return ST_INVALID_FIELD;
}

/* Format NVM (NVMe Base 5.23): CDW10 LBAF 3:0 (and 13:12), MSET 4; NSID one namespace
 * or FFFFFFFFh all. */
static uint16_t format(struct fake_drive *f, const struct nvme_sqe *c)
{
	uint32_t cdw10 = le32toh(c->cdw10), nsid = le32toh(c->nsid);
	unsigned lbaf = (cdw10 & 0xf) | ((cdw10 >> 12) & 3) << 4;
	if (lbaf >= FMT_COUNT)
		return ST_INVALID_FORMAT;
	if (nsid != 0xffffffff && !ns_of(f, nsid))
		return ST_INVALID_NS;
	for (int i = 0; i < FAKE_DRIVE_MAX_NS; i++) {
		struct fake_drive_ns *n = &f->ns[i];
		if (!n->nsid || (nsid != 0xffffffff && n->nsid != nsid))
			continue;
		n->flbas = (uint8_t)(lbaf | ((cdw10 & 0x10) ? 0x10 : 0));
		if (ns_alloc(n) < 0)
			return nvme_generic(NVME_SC_INTERNAL);
	}
	return 0;
}

static int fake_admin(struct nvmf_drive *d, const struct nvme_sqe *c, void *buf, uint32_t len,
		      uint32_t timeout_ms, uint16_t *status, uint64_t *result)
{
	struct fake_drive *f = d->priv;
	if ((c->opcode & 3) == 3)
		return -EINVAL;
	if (f->admin_stall_ms) {
		uint32_t ms = timeout_ms && timeout_ms < f->admin_stall_ms ? timeout_ms :
									     f->admin_stall_ms;
		struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
		if (ms < f->admin_stall_ms)
			return -ETIMEDOUT;
	}
	pthread_mutex_lock(&f->lock);
	f->admin_calls++;
	f->last_admin = *c;
	*result = 0;
	uint16_t st;
	if (f->fail_admin && c->opcode == f->fail_admin_opcode) {
		pthread_mutex_unlock(&f->lock);
		*status = nvme_generic(NVME_SC_INTERNAL);
		return 0;
	}
	switch (c->opcode) {
	case nvme_admin_identify:
		st = identify(f, c, buf, len);
		break;
	case nvme_admin_get_log_page:
		st = get_log(f, c, buf, len);
		break;
	case nvme_admin_get_features:
		st = features(f, c, false, result);
		break;
	case nvme_admin_set_features:
		st = features(f, c, true, result);
		break;
	case nvme_admin_format_nvm:
		st = format(f, c);
		break;
	case 0xc0:
		*result = le32toh(c->cdw12) | (uint64_t)le32toh(c->cdw13) << 32;
		st = 0;
		break;
	case 0xc1:
		f->vendor_len = len < sizeof(f->vendor) ? len : sizeof(f->vendor);
		memcpy(f->vendor, buf, f->vendor_len);
		*result = f->vendor_len;
		st = 0;
		break;
	case 0xc2:
		memset(buf, 0, len);
		memcpy(buf, f->vendor, len < f->vendor_len ? len : f->vendor_len);
		st = 0;
		break;
	default:
		st = ST_INVALID_OPCODE;
	}
	pthread_mutex_unlock(&f->lock);
	*status = st;
	return 0;
}

/* Checks [slba, slba + nlb) on @n and that @len covers it; 0 or a status. */
static uint16_t range(const struct fake_drive_ns *n, uint64_t slba, uint64_t nlb, uint32_t len,
		      bool data)
{
	if (slba > nsze_of(n) || nlb > nsze_of(n) - slba)
		return ST_LBA_RANGE;
	if (data && len != nlb * bb_of(n))
		return ST_SGL_LENGTH;
	return 0;
}

static uint16_t io_cmd(struct fake_drive *f, struct fake_drive_ns *n, const struct nvme_sqe *c,
		       uint8_t *buf, uint32_t len)
{
	uint64_t slba = le32toh(c->cdw10) | (uint64_t)le32toh(c->cdw11) << 32;
	uint64_t nlb = (le32toh(c->cdw12) & 0xffff) + 1ull;
	uint32_t bb = bb_of(n);
	uint16_t st;
	switch (c->opcode) {
	case nvme_cmd_flush:
		return 0;
	case nvme_cmd_write:
		if ((st = range(n, slba, nlb, len, true)))
			return st;
		memcpy(n->data + slba * bb, buf, len);
		f->units_written += len;
		f->host_writes++;
		return 0;
	case nvme_cmd_read:
		if ((st = range(n, slba, nlb, len, true)))
			return st;
		memcpy(buf, n->data + slba * bb, len);
		f->units_read += len;
		f->host_reads++;
		return 0;
	case nvme_cmd_compare:
		if ((st = range(n, slba, nlb, len, true)))
			return st;
		f->host_reads++;
		return memcmp(n->data + slba * bb, buf, len) ? ST_COMPARE : 0;
	case nvme_cmd_write_zeroes:
	case nvme_cmd_verify:
		if ((st = range(n, slba, nlb, 0, false)))
			return st;
		if (c->opcode == nvme_cmd_write_zeroes)
			memset(n->data + slba * bb, 0, nlb * bb);
		return 0;
	case nvme_cmd_dsm: {
		/* CDW10 NR 7:0 (0's based ranges of 16 bytes), CDW11 AD bit 2. */
		uint32_t nr = (le32toh(c->cdw10) & 0xff) + 1;
		if (len < nr * 16)
			return ST_SGL_LENGTH;
		for (uint32_t i = 0; i < nr; i++) {
			const uint8_t *r = buf + i * 16;
			uint64_t rl = le32toh(*(const __le32 *)(r + 4));
			uint64_t rs = le64toh(*(const __le64 *)(r + 8));
			if ((st = range(n, rs, rl, 0, false)))
				return st;
			if (le32toh(c->cdw11) & 4)
				memset(n->data + rs * bb, 0, rl * bb);
		}
		return 0;
	}
	case nvme_cmd_copy: {
		/* CDW10-11 SDLBA, CDW12 NR 7:0 (0's based), format 11:8 (0 only): 32-byte
		 * source ranges with SLBA at 8 and NLB (0's based) at 16. */
		uint64_t dst = slba;
		uint32_t nr = (le32toh(c->cdw12) & 0xff) + 1;
		if ((le32toh(c->cdw12) >> 8 & 0xf) != 0)
			return ST_INVALID_FIELD;
		if (len < nr * 32)
			return ST_SGL_LENGTH;
		for (uint32_t i = 0; i < nr; i++) {
			const uint8_t *r = buf + i * 32;
			uint64_t rs = le64toh(*(const __le64 *)(r + 8));
			uint64_t rl = (uint64_t)le16toh(*(const __le16 *)(r + 16)) + 1;
			if ((st = range(n, rs, rl, 0, false)) || (st = range(n, dst, rl, 0, false)))
				return st;
			memmove(n->data + dst * bb, n->data + rs * bb, rl * bb);
			dst += rl;
		}
		f->host_writes++;
		return 0;
	}
	}
	return ST_INVALID_OPCODE;
}

static int fake_io_submit(struct nvmf_drive *d, const struct nvmf_drive_ns *ns,
			  struct nvmf_aio *aio, const struct nvme_sqe *cmd, void *buf, uint32_t len,
			  struct nvmf_drive_io *io)
{
	(void)aio;
	struct fake_drive *f = d->priv;
	pthread_mutex_lock(&f->lock);
	f->io_calls++;
	f->last_io = *cmd;
	f->last_io.nsid = htole32(ns->nsid);
	struct fake_drive_ns *n = ns_of(f, ns->nsid);
	uint16_t st = (cmd->opcode & 3) == 3 ? ST_INVALID_FIELD :
		      n                      ? io_cmd(f, n, cmd, buf, len) :
					       ST_INVALID_NS;
	if (st) {
		f->errors++;
		f->last_error_cmd = f->last_io;
		f->last_error_status = st;
	}
	pthread_mutex_unlock(&f->lock);
	io->status = st;
	io->result = 0;
	io->done(io, 0);
	return 0;
}

static int fake_ns_open(struct nvmf_drive *d, struct nvmf_drive_ns *ns, char *err, size_t errlen)
{
	struct fake_drive *f = d->priv;
	if (f->fail_ns_open == ns->nsid) {
		snprintf(err, errlen, "%s nsid %u: busy", d->path, ns->nsid);
		return -EBUSY;
	}
	f->ns_opens++;
	snprintf(ns->path, sizeof(ns->path), "%.40sn%u", d->path, ns->nsid);
	return 0;
}

static void fake_ns_close(struct nvmf_drive *d, struct nvmf_drive_ns *ns)
{
	struct fake_drive *f = d->priv;
	f->ns_closes++;
	ns->path[0] = '\0';
}

static void fake_close(struct nvmf_drive *d)
{
	struct fake_drive *f = d->priv;
	for (int i = 0; i < FAKE_DRIVE_MAX_NS; i++)
		free(f->ns[i].data);
	pthread_mutex_destroy(&f->lock);
	free(f);
	d->priv = NULL;
}

static const struct nvmf_drive_ops fake_ops = {
	.admin = fake_admin,
	.io_submit = fake_io_submit,
	.ns_open = fake_ns_open,
	.ns_close = fake_ns_close,
	.close = fake_close,
};

struct nvmf_drive *fake_drive_open(const char *path, char *err, size_t errlen)
{
	if (strncmp(path, "/dev/fake", 9) != 0) {
		snprintf(err, errlen, "%s: No such file or directory", path);
		return NULL;
	}
	struct nvmf_drive *d = calloc(1, sizeof(*d));
	struct fake_drive *f = calloc(1, sizeof(*f));
	if (!d || !f) {
		free(d);
		free(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	pthread_mutex_init(&f->lock, NULL);
	d->ops = &fake_ops;
	d->priv = f;
	d->fd = -1;
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(d->name, sizeof(d->name), "fake");
	d->max_transfer = 4096u << FAKE_DRIVE_MDTS;
	f->temp_threshold = 0x157;
	bool sepmeta = false;
	for (const char *p = strchr(path, ','); p; p = strchr(p + 1, ',')) {
		if (!strncmp(p + 1, "sepmeta", 7))
			sepmeta = true;
		else if (!strncmp(p + 1, "noeffects", 9))
			f->no_effects = true;
		else if (!strncmp(p + 1, "mt=", 3))
			d->max_transfer = (uint32_t)strtoul(p + 4, NULL, 0);
		else if (!strncmp(p + 1, "fail=", 5)) {
			f->fail_admin = true;
			f->fail_admin_opcode = (uint8_t)strtoul(p + 6, NULL, 16);
		} else if (!strncmp(p + 1, "nsbusy=", 7))
			f->fail_ns_open = (uint32_t)strtoul(p + 8, NULL, 0);
	}
	f->ns[0] = (struct fake_drive_ns){ .nsid = 1, .capacity = 1 << 20, .flbas = 0 };
	f->ns[1] = (struct fake_drive_ns){ .nsid = 2, .capacity = 1 << 20, .flbas = 0x12 };
	if (sepmeta)
		f->ns[2] = (struct fake_drive_ns){ .nsid = 3, .capacity = 1 << 20, .flbas = 0x02 };
	for (int i = 0; i < FAKE_DRIVE_MAX_NS; i++)
		if (f->ns[i].nsid && ns_alloc(&f->ns[i]) < 0) {
			snprintf(err, errlen, "%s: out of memory", path);
			nvmf_drive_close(d);
			return NULL;
		}
	if (nvmf_drive_load(d, err, errlen) < 0) {
		nvmf_drive_close(d);
		return NULL;
	}
	return d;
}
