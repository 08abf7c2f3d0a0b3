/* SPDX-License-Identifier: MIT */
/* Fault injection for tests: the rule table, its matching and the spec text (fault.h). */
#include "tests/fault/fault.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rule_slot {
	struct nvmf_fault_rule r;
	uint64_t seen;  /* matches counted */
	uint64_t fired; /* times it acted */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rule_slot rules[NVMF_FAULT_MAX_RULES];
static unsigned nrules;
static unsigned ring_depth;

struct nvmf_fault_rule nvmf_fault_rule(uint32_t nsid, int op, enum nvmf_fault_action action)
{
	return (struct nvmf_fault_rule){ .nsid = nsid, .op = op, .action = action, .every = 1 };
}

int nvmf_fault_add(const struct nvmf_fault_rule *r)
{
	pthread_mutex_lock(&lock);
	int id = -1;
	if (nrules < NVMF_FAULT_MAX_RULES) {
		id = (int)nrules++;
		rules[id] = (struct rule_slot){ .r = *r };
	}
	pthread_mutex_unlock(&lock);
	return id;
}

uint64_t nvmf_fault_fired(int id)
{
	pthread_mutex_lock(&lock);
	uint64_t n = id >= 0 && (unsigned)id < nrules ? rules[id].fired : 0;
	pthread_mutex_unlock(&lock);
	return n;
}

void nvmf_fault_reset(void)
{
	pthread_mutex_lock(&lock);
	nrules = 0;
	ring_depth = 0;
	pthread_mutex_unlock(&lock);
}

void nvmf_fault_set_ring_depth(unsigned depth)
{
	pthread_mutex_lock(&lock);
	ring_depth = depth;
	pthread_mutex_unlock(&lock);
}

unsigned fault_ring_depth(void)
{
	pthread_mutex_lock(&lock);
	unsigned d = ring_depth;
	pthread_mutex_unlock(&lock);
	return d;
}

static bool matches(const struct nvmf_fault_rule *r, const struct nvmf_fault_io *io)
{
	if (r->action == NVMF_FAULT_SUBMIT)
		return true; /* the whole ring: nothing to match */
	if (r->nsid && r->nsid != io->nsid)
		return false;
	if (r->op != NVMF_FAULT_ANY_OP && r->op != io->op)
		return false;
	if (r->has_lba &&
	    (!io->has_lba || io->lba_last < r->lba_first || io->lba_first > r->lba_last))
		return false;
	if (r->cont_only && !io->cont)
		return false;
	return true;
}

bool fault_fire(unsigned actions, const struct nvmf_fault_io *io, struct nvmf_fault_rule *out)
{
	bool fired = false;
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < nrules && !fired; i++) {
		struct rule_slot *s = &rules[i];
		if (!(actions & FAULT_BIT(s->r.action)) || !matches(&s->r, io))
			continue;
		s->seen++;
		uint32_t every = s->r.every ? s->r.every : 1;
		if (s->seen % every || (s->r.count && s->fired >= s->r.count))
			continue;
		s->fired++;
		*out = s->r;
		fired = true;
	}
	pthread_mutex_unlock(&lock);
	return fired;
}

bool fault_wants(uint32_t nsid)
{
	bool want = false;
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < nrules && !want; i++)
		want = rules[i].r.action != NVMF_FAULT_SUBMIT &&
		       (!rules[i].r.nsid || rules[i].r.nsid == nsid);
	pthread_mutex_unlock(&lock);
	return want;
}

/* ---- spec text ---- */

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "EIO", EIO },       { "ENOSPC", ENOSPC },
	{ "EINVAL", EINVAL }, { "EOPNOTSUPP", EOPNOTSUPP },
	{ "EROFS", EROFS },   { "ENOMEM", ENOMEM },
	{ "EAGAIN", EAGAIN }, { "EBUSY", EBUSY },
	{ "ENXIO", ENXIO },   { "EFAULT", EFAULT },
	{ "EBADF", EBADF },   { "ENODEV", ENODEV },
	{ "EPERM", EPERM },   { "EINTR", EINTR },
};

static const char *const op_names[] = {
	[NVMF_BDEV_READ] = "read",       [NVMF_BDEV_WRITE] = "write",
	[NVMF_BDEV_FLUSH] = "flush",     [NVMF_BDEV_WRITE_ZEROES] = "write_zeroes",
	[NVMF_BDEV_DISCARD] = "discard",
};

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;
	if (!parse_u64(s, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* An errno by name or number, as a negative value. */
static bool parse_errno(const char *s, int *err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(s, errnos[i].name)) {
			*err = -errnos[i].err;
			return true;
		}
	uint32_t v;
	if (!parse_u32(s, &v) || v == 0 || v > 4095)
		return false;
	*err = -(int)v;
	return true;
}

static const char *errno_name(int err, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == -err)
			return errnos[i].name;
	snprintf(buf, len, "%d", -err);
	return buf;
}

/* One item "key" or "key=value" of a clause into @r; @actions counts the actions seen. */
static int parse_item(char *item, struct nvmf_fault_rule *r, unsigned *actions, bool *cont,
		      char *err, size_t errlen)
{
	char *val = strchr(item, '=');
	if (val)
		*val++ = '\0';
	const char *key = item;
	bool ok = true;
	if (!strcmp(key, "nsid") && val) {
		ok = parse_u32(val, &r->nsid) && r->nsid;
	} else if (!strcmp(key, "op") && val) {
		ok = false;
		if (!strcmp(val, "any")) {
			r->op = NVMF_FAULT_ANY_OP;
			ok = true;
		}
		for (int i = 0; i <= NVMF_BDEV_DISCARD && !ok; i++)
			if (!strcmp(val, op_names[i])) {
				r->op = i;
				ok = true;
			}
	} else if (!strcmp(key, "lba") && val) {
		char *dash = strchr(val, '-');
		if (dash)
			*dash++ = '\0';
		ok = parse_u64(val, &r->lba_first);
		r->lba_last = r->lba_first;
		if (ok && dash)
			ok = parse_u64(dash, &r->lba_last) && r->lba_last >= r->lba_first;
		r->has_lba = true;
	} else if (!strcmp(key, "every") && val) {
		ok = parse_u32(val, &r->every) && r->every;
	} else if (!strcmp(key, "count") && val) {
		ok = parse_u32(val, &r->count) && r->count;
	} else if (!strcmp(key, "fail") && val) {
		r->action = NVMF_FAULT_FAIL;
		(*actions)++;
		ok = parse_errno(val, &r->err);
		if (ok && r->err == -EAGAIN) {
			snprintf(err, errlen, "fail=EAGAIN: use busy (submit refused, retried)");
			return -1;
		}
	} else if (!strcmp(key, "busy") && !val) {
		r->action = NVMF_FAULT_BUSY;
		(*actions)++;
	} else if (!strcmp(key, "short") && val) {
		r->action = NVMF_FAULT_SHORT;
		(*actions)++;
		ok = parse_u32(val, &r->short_bytes);
	} else if (!strcmp(key, "sqe_full") && !val) {
		r->action = NVMF_FAULT_SQE_FULL;
		(*actions)++;
	} else if (!strcmp(key, "cont") && !val) {
		*cont = true;
	} else if (!strcmp(key, "submit") && val) {
		r->action = NVMF_FAULT_SUBMIT;
		(*actions)++;
		ok = parse_errno(val, &r->err);
	} else {
		snprintf(err, errlen, "unknown item '%s%s%s'", key, val ? "=" : "", val ? val : "");
		return -1;
	}
	if (!ok) {
		snprintf(err, errlen, "%s: bad value '%s'", key, val ? val : "");
		return -1;
	}
	return 0;
}

static int parse_clause(char *clause, struct nvmf_fault_rule *r, bool *is_depth, unsigned *depth,
			char *err, size_t errlen)
{
	*r = nvmf_fault_rule(0, NVMF_FAULT_ANY_OP, NVMF_FAULT_FAIL);
	*is_depth = false;
	if (!strncmp(clause, "ring_depth=", 11)) {
		uint32_t d;
		if (!parse_u32(clause + 11, &d) || !d || (d & (d - 1)) || d > 32768) {
			snprintf(err, errlen, "ring_depth: '%s' is not a power of two up to 32768",
				 clause + 11);
			return -1;
		}
		*is_depth = true;
		*depth = d;
		return 0;
	}
	unsigned actions = 0;
	bool cont = false;
	char *save = NULL;
	for (char *item = strtok_r(clause, ",", &save); item; item = strtok_r(NULL, ",", &save))
		if (parse_item(item, r, &actions, &cont, err, errlen))
			return -1;
	if (actions != 1) {
		snprintf(err, errlen, "%s action (fail=, busy, short=, sqe_full or submit=)",
			 actions ? "more than one" : "no");
		return -1;
	}
	if (cont && r->action != NVMF_FAULT_SQE_FULL) {
		snprintf(err, errlen, "cont goes with sqe_full only");
		return -1;
	}
	r->cont_only = cont;
	return 0;
}

int nvmf_fault_parse(const char *spec, struct nvmf_fault_rule *out, size_t max, size_t *n,
		     unsigned *depth, char *err, size_t errlen)
{
	char *copy = strdup(spec);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*n = 0;
	int rc = 0;
	unsigned idx = 0;
	char *save = NULL;
	for (char *clause = strtok_r(copy, ";", &save); clause && !rc;
	     clause = strtok_r(NULL, ";", &save)) {
		idx++;
		struct nvmf_fault_rule r;
		bool is_depth;
		char msg[200];
		if (parse_clause(clause, &r, &is_depth, depth, msg, sizeof(msg))) {
			snprintf(err, errlen, "clause %u: %s", idx, msg);
			rc = -1;
		} else if (!is_depth && *n >= max) {
			snprintf(err, errlen, "clause %u: more than %zu rules", idx, max);
			rc = -1;
		} else if (!is_depth) {
			out[(*n)++] = r;
		}
	}
	if (!rc && idx == 0) {
		snprintf(err, errlen, "no clause");
		rc = -1;
	}
	free(copy);
	return rc;
}

int nvmf_fault_load(const char *spec, char *err, size_t errlen)
{
	struct nvmf_fault_rule r[NVMF_FAULT_MAX_RULES];
	size_t n;
	unsigned depth = 0;
	if (nvmf_fault_parse(spec, r, NVMF_FAULT_MAX_RULES, &n, &depth, err, errlen))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (nvmf_fault_add(&r[i]) < 0) {
			snprintf(err, errlen, "more than %d rules in all", NVMF_FAULT_MAX_RULES);
			return -1;
		}
	if (depth)
		nvmf_fault_set_ring_depth(depth);
	return 0;
}

char *nvmf_fault_describe(const struct nvmf_fault_rule *r, char *buf, size_t len)
{
	char tmp[16];
	size_t o = 0;
#define PUT(...) \
	(o += (size_t)snprintf(buf + (o < len ? o : len), o < len ? len - o : 0, __VA_ARGS__))
	buf[0] = '\0';
	if (r->action != NVMF_FAULT_SUBMIT) {
		if (r->nsid)
			PUT("nsid=%" PRIu32 ",", r->nsid);
		PUT("op=%s", r->op == NVMF_FAULT_ANY_OP ? "any" : op_names[r->op]);
		if (r->has_lba)
			PUT(",lba=%" PRIu64 "-%" PRIu64, r->lba_first, r->lba_last);
		PUT(",");
	}
	switch (r->action) {
	case NVMF_FAULT_FAIL:
		PUT("fail=%s", errno_name(r->err, tmp, sizeof(tmp)));
		break;
	case NVMF_FAULT_BUSY:
		PUT("busy");
		break;
	case NVMF_FAULT_SHORT:
		PUT("short=%" PRIu32, r->short_bytes);
		break;
	case NVMF_FAULT_SQE_FULL:
		PUT("sqe_full%s", r->cont_only ? ",cont" : "");
		break;
	case NVMF_FAULT_SUBMIT:
		PUT("submit=%s", errno_name(r->err, tmp, sizeof(tmp)));
		break;
	}
	if (r->every > 1)
		PUT(",every=%" PRIu32, r->every);
	if (r->count)
		PUT(",count=%" PRIu32, r->count);
#undef PUT
	return buf;
}
