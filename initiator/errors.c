/* SPDX-License-Identifier: MIT */
/*
 * Error text (nvmf_strerror, per-controller and per-thread detailed messages) and the
 * host identity defaults (host NQN and host ID as nvme-cli finds them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "initiator/internal.h"
#include "nvme/identify.h"
#include "nvme/status.h"

#define UUID_NQN_PREFIX "nqn.2014-08.org.nvmexpress:uuid:"

/* The thread's last nvmf_connect / nvmf_discover failure (the API promises per thread). */
static __thread char last_errmsg[NVMFH_ERRMSG_MAX];
static __thread char strerror_buf[96];
static __thread char ctrl_errmsg_copy[NVMFH_ERRMSG_MAX];

const char *nvmf_last_errmsg(void)
{
	return last_errmsg;
}

void nvmfh_set_last_errmsg(const char *msg)
{
	snprintf(last_errmsg, sizeof(last_errmsg), "%s", msg ? msg : "");
}

/* Set while a library thread works on the application's behalf (aen.c's log reads). */
static __thread bool errf_muted;

bool nvmfh_errf_mute(bool mute)
{
	bool was = errf_muted;
	errf_muted = mute;
	return was;
}

/* Set while the controller thread reconnects: its messages go here, not to errmsg. */
static __thread char *errf_divert;
static __thread size_t errf_divert_len;

void nvmfh_errf_divert(char *buf, size_t len)
{
	errf_divert = buf;
	errf_divert_len = buf ? len : 0;
	if (buf && len)
		buf[0] = 0;
}

void nvmfh_errf(struct nvmf_ctrl *c, const char *fmt, ...)
{
	if (errf_muted)
		return;
	va_list ap;
	if (errf_divert) {
		va_start(ap, fmt);
		vsnprintf(errf_divert, errf_divert_len, fmt, ap);
		va_end(ap);
		return;
	}
	pthread_mutex_lock(&c->err_lock);
	va_start(ap, fmt);
	vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&c->err_lock);
}

const char *nvmf_ctrl_errmsg(const struct nvmf_ctrl *c)
{
	if (!c)
		return "";
	/* A copy taken under the lock: another thread's failure may rewrite c->errmsg while
	 * the caller prints it. The mutex is the only part of *c that changes here. */
	struct nvmf_ctrl *m = (struct nvmf_ctrl *)c;
	pthread_mutex_lock(&m->err_lock);
	memcpy(ctrl_errmsg_copy, c->errmsg, sizeof(ctrl_errmsg_copy));
	pthread_mutex_unlock(&m->err_lock);
	return ctrl_errmsg_copy;
}

/* @rc as text, command specific codes 80h-85h read as Fabrics (Connect) codes when
 * @fabrics, else as the NVM command set's. DNR/More and the SCT/SC values follow so that
 * nothing is lost. */
static const char *status_text(int rc, bool fabrics)
{
	if (rc == 0)
		return "success";
	if (rc == NVMF_ERR_NO_PATH)
		return "no usable path";
	if (rc == NVMF_ERR_RESET)
		return "not sent again after a controller reset";
	if (rc < 0) {
		/* GNU strerror_r may return a static string instead of filling the buffer. */
		const char *s = strerror_r(-rc, strerror_buf, sizeof(strerror_buf));
		if (s != strerror_buf)
			snprintf(strerror_buf, sizeof(strerror_buf), "%s", s);
		return strerror_buf;
	}
	nvme_status_t st = (nvme_status_t)rc;
	const char *name = nvme_status_name(st, fabrics);
	unsigned sct = (st >> NVME_SCT_SHIFT) & NVME_SCT_MASK, sc = st & NVME_SC_MASK;
	snprintf(strerror_buf, sizeof(strerror_buf), "%s (sct 0x%x, sc 0x%02x%s%s)",
		 strcmp(name, "UNKNOWN") ? name : "unknown status", sct, sc,
		 st & NVME_SC_DNR ? ", DNR" : "", st & NVME_SC_MORE ? ", MORE" : "");
	return strerror_buf;
}

/* What nvmf_connect and the admin calls return: 80h-85h are Connect's. */
const char *nvmf_strerror(int rc)
{
	return status_text(rc, true);
}

/* What the I/O calls return: 80h-85h are the NVM command set's (183h is Copy's Command
 * Size Limit Exceeded, not CONNECT_RESTART_DISC). */
const char *nvmf_io_strerror(int rc)
{
	return status_text(rc, false);
}

/* Names of the Connect command fields an IPO can point at (NVMe-oF 1.1 figures 20, 21). */
const char *nvmfh_connect_detail(int status, uint32_t dw0)
{
	unsigned sc = (unsigned)status & NVME_STATUS_CODE_MASK;
	if (sc != ((NVME_SCT_CMD_SPECIFIC << NVME_SCT_SHIFT) | NVME_SC_CONNECT_INVALID_PARAM) &&
	    sc != ((NVME_SCT_CMD_SPECIFIC << NVME_SCT_SHIFT) | NVME_SC_CONNECT_INVALID_HOST))
		return "";
	bool data = (dw0 >> 16) & 1; /* IATTR bit 0: the offset is in the Connect data */
	unsigned ipo = dw0 & 0xffff;
	if (data) {
		if (ipo < 16)
			return ": the controller rejects the host ID";
		if (ipo < 256)
			return ": the controller rejects the controller ID";
		if (ipo < 512)
			return ": the controller rejects the subsystem NQN (unknown or not on this port)";
		if (ipo < 768)
			return ": the controller rejects the host NQN (not allowed)";
		return "";
	}
	switch (ipo) {
	case offsetof(struct nvmf_connect_sqe, qid):
		return ": the controller rejects the queue ID";
	case offsetof(struct nvmf_connect_sqe, sqsize):
		return ": the controller rejects the queue size (SQSIZE)";
	case offsetof(struct nvmf_connect_sqe, kato):
		return ": the controller rejects the keep-alive timeout";
	default:
		return "";
	}
}

/* First line of DIR/NAME without trailing white space into @out; false if unreadable. */
static bool read_line(const char *dir, const char *name, char *out, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fgets(out, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	size_t n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' ' ||
		     out[n - 1] == '\t'))
		out[--n] = 0;
	return n > 0;
}

int nvmfh_host_identity(const char *dir, const char *nqn, const uint8_t *id, char *nqn_out,
			uint8_t id_out[16], char *err, size_t errlen)
{
	char line[NVMFH_NQN_FIELD + 64] = "";
	char perr[128];
	bool have_nqn = false, have_id = false;

	memset(nqn_out, 0, NVMFH_NQN_FIELD);
	if (nqn && nqn[0]) {
		snprintf(line, sizeof(line), "%s", nqn);
		have_nqn = true;
	} else if (dir && read_line(dir, "hostnqn", line, sizeof(line))) {
		have_nqn = true;
	}
	if (have_nqn && strlen(line) > NVMF_NQN_MAX) {
		snprintf(err, errlen, "host NQN is %zu characters, at most %u allowed",
			 strlen(line), NVMF_NQN_MAX);
		return -EINVAL;
	}
	if (have_nqn)
		memcpy(nqn_out, line, strlen(line) + 1);

	if (id) {
		memcpy(id_out, id, 16);
		have_id = true;
	} else if (dir && read_line(dir, "hostid", line, sizeof(line))) {
		if (nvme_uuid_parse(line, id_out, perr, sizeof(perr))) {
			snprintf(err, errlen, "%s/hostid: %s", dir, perr);
			return -EINVAL;
		}
		have_id = true;
	}
	/* nvme-cli and the kernel take the host ID from a UUID-based host NQN. */
	if (!have_id && have_nqn && !strncmp(nqn_out, UUID_NQN_PREFIX, strlen(UUID_NQN_PREFIX)) &&
	    !nvme_uuid_parse(nqn_out + strlen(UUID_NQN_PREFIX), id_out, perr, sizeof(perr)))
		have_id = true;
	if (!have_id) {
		if (getrandom(id_out, 16, 0) != 16) {
			snprintf(err, errlen, "getrandom failed: %s", strerror(errno));
			return -EIO;
		}
		id_out[6] = (uint8_t)((id_out[6] & 0x0f) | 0x40); /* RFC 4122 version 4 */
		id_out[8] = (uint8_t)((id_out[8] & 0x3f) | 0x80); /* variant 10b */
	}
	if (!have_nqn) {
		char u[NVME_UUID_STR_LEN];
		snprintf(nqn_out, NVMFH_NQN_FIELD, UUID_NQN_PREFIX "%s",
			 nvme_uuid_format(id_out, u));
	}
	return 0;
}
