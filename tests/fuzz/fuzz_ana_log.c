/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: libnvmf's reading of the ANA log (initiator/ana.c), what a hostile
 * or broken controller may send: the Identify Controller fields the host sizes the read
 * from, then the bytes of the log.
 *
 * Input (tests/fuzz/fuzz_input.h fields): CMIC, NANAGRPID (16 bits), ANAGRPMAX, MNAN and
 * NN (16 bits each), a flags byte (bit 0: a groups-only read, RGO), then the log's bytes
 * (the rest of the input, zeroes past its end, as a controller's reply).
 * Checked: the size is refused (-EOPNOTSUPP without CMIC bit 3, else -EPROTO with a
 * message) or is 16 + NANAGRPID * 32 (+ MNAN or NN * 4 without RGO); the decode fails with
 * -EPROTO and a message, or gives a log every field of which is what the bytes say and
 * within the rules: at most NANAGRPID groups, IDs 1..ANAGRPMAX and distinct, known
 * states, NSIDs valid, ascending, in one group only, none with RGO, all inside the bytes
 * read; every listed NSID is found in its group.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"
#include "tests/fuzz/fuzz_input.h"

static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool known(uint8_t st)
{
	return st == NVME_ANA_STATE_OPTIMIZED || st == NVME_ANA_STATE_NONOPTIMIZED ||
	       st == NVME_ANA_STATE_INACCESSIBLE || st == NVME_ANA_STATE_PERSISTENT_LOSS ||
	       st == NVME_ANA_STATE_CHANGE;
}

/* The decoded @log against the @len bytes @buf it came from. */
static void check_log(const struct nvmf_ana_log *log, const uint8_t *buf, size_t len,
		      const struct nvme_id_ctrl *id, bool rgo)
{
	uint32_t gmax = le32toh(id->anagrpmax);
	if (log->nr_groups > le32toh(id->nanagrpid) || log->nr_groups != (buf[8] | buf[9] << 8))
		abort();
	size_t off = 16;
	for (unsigned i = 0; i < log->nr_groups; i++) {
		const struct nvmf_ana_group *g = &log->groups[i];
		if (off + 32 > len || g->grpid != le32_at(buf + off) || !g->grpid ||
		    g->grpid > gmax || g->nr_nsids != le32_at(buf + off + 4) || !known(g->state) ||
		    g->state != (buf[off + 16] & 0x0f) || (rgo && g->nr_nsids))
			abort();
		if (off + 32 + 4 * (size_t)g->nr_nsids > len)
			abort();
		for (unsigned j = 0; j < i; j++)
			if (log->groups[j].grpid == g->grpid)
				abort();
		for (uint32_t k = 0; k < g->nr_nsids; k++) {
			uint32_t nsid = g->nsids[k];
			if (nsid != le32_at(buf + off + 32 + 4 * k) || !nsid ||
			    nsid == NVME_NSID_ALL || (k && nsid <= g->nsids[k - 1]) ||
			    nvmfh_ana_find(log, nsid, 0) != g)
				abort();
		}
		off += 32 + 4 * (size_t)g->nr_nsids;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct nvme_id_ctrl id;
	memset(&id, 0, sizeof(id));
	id.cmic = fi_u8(&in);
	id.nanagrpid = htole32(fi_u16(&in));
	id.anagrpmax = htole32(fi_u32(&in));
	id.mnan = htole32(fi_u16(&in));
	id.nn = htole32(fi_u16(&in));
	bool rgo = fi_u8(&in) & 1;

	char err[256] = "";
	size_t len = 0;
	int rc = nvmfh_ana_log_size(&id, rgo, &len, err, sizeof(err));
	if (rc) {
		bool ana = id.cmic & NVME_CTRL_CMIC_MULTI_ANA_REPORTING;
		if ((ana ? rc != -EPROTO : rc != -EOPNOTSUPP) || !err[0])
			abort();
		return 0;
	}
	uint32_t mnan = le32toh(id.mnan), nn = le32toh(id.nn);
	size_t want = 16 + 32 * (size_t)le32toh(id.nanagrpid) +
		      (rgo ? 0 : 4 * (size_t)(mnan ? mnan : nn));
	if (len != want)
		abort();
	uint8_t *buf = malloc(len);
	if (!buf)
		return 0;
	fi_bytes(&in, buf, len);
	struct nvmf_ana_log *log = NULL;
	err[0] = 0;
	rc = nvmfh_ana_log_decode(buf, len, &id, rgo, &log, err, sizeof(err));
	if (rc) {
		if ((rc != -EPROTO && rc != -ENOMEM) || log || (rc == -EPROTO && !err[0]))
			abort();
	} else {
		check_log(log, buf, len, &id, rgo);
		nvmf_ana_log_free(log);
	}
	free(buf);
	return 0;
}
