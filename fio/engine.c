/* SPDX-License-Identifier: MIT */
/*
 * libnvmf as an external fio ioengine (build/libnvmf-fio.so; docs/libnvmf.md "fio
 * engine"):
 *
 *   fio --thread --ioengine=external:build/libnvmf-fio.so \
 *       --filename='trtype=tcp adrfam=IPv4 traddr=127.0.0.1 trsvcid=4420 subnqn=NQN ns=1' ...
 *
 * Each file of a job is one namespace of one controller (fio/target.h: the filename in
 * the form SPDK's fio plugin reads; the engine's options fill in what it leaves out).
 * Controllers are shared: every fio thread that names the same target with the same
 * connection options uses one controller (one association, one keep-alive thread, one
 * admin queue), connected by the first and disconnected by the last, and gets an I/O
 * queue of its own. libnvmf's data path takes no lock because a queue has one thread;
 * one controller per thread would cost an association each (an admin queue, a
 * keep-alive thread, Identify commands) for nothing. The controller asks for as many I/O
 * queues as fio has threads (fio's thread_number) unless nr_io_queues says otherwise; a
 * thread finding no free queue fails, naming the option. The registry of controllers
 * has a mutex; only setup and cleanup take it, never the I/O path.
 *
 * fio must run with thread=1: the controllers, their keep-alive threads and the
 * registry live in the process that connected them (SPDK's plugin asks the same).
 * Secrets never come from the command line (it is visible to every user of the machine
 * in /proc): NVMF_DHCHAP_SECRET, NVMF_DHCHAP_CTRL_SECRET and NVMF_TLS_KEY are read from
 * the environment.
 *
 * I/O: ->queue submits (read, write, trim as Dataset Management deallocate, sync as
 * Flush) and returns FIO_Q_QUEUED, or FIO_Q_BUSY when the queue is full; the completion
 * callback puts the io_u on the thread's list of completed ones; ->getevents polls every
 * queue of the thread (nvmf_queue_poll) until it has @min of them, or the timeout passed.
 * An NVMe status fails the io_u with EIO (the first one of each thread is logged with
 * its name), a local or transport error with its errno.
 */
#include <fio.h>
#include <optgroup.h>

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fio/target.h"
#include "initiator/nvmf.h"

#define ENGINE "nvmf"

/* ---- options ---- */

/* The engine's options (td->eo): the target's keys for jobs whose filename leaves them
 * out, and the connection's settings. fio's option offsets may not be 0: pad first. */
struct nf_options {
	void *pad;
	char *trtype, *adrfam, *traddr, *trsvcid, *subnqn, *hostnqn;
	unsigned int ns;
	char *digest_enable;
	unsigned int hdr_digest, data_digest;
	unsigned int nr_io_queues;  /* 0: fio's thread count */
	unsigned int io_queue_size; /* entries; 0: max(128, iodepth + 1) */
	/* Timeouts and automatic reconnect (nvmf_ctrl_opts), seconds; 0: the library's.
	 * Checked at setup (fio checks no lower bound of 0: its minval 0 means none). */
	int io_timeout, reconnect_delay;
	int ctrl_loss_tmo, fast_io_fail_tmo; /* ctrl_loss_tmo -1: for ever */
};

#define SEC_OPT(n, field, lo, h)                                                                 \
	{                                                                                        \
		.name = n, .lname = n, .type = FIO_OPT_INT,                                      \
		.off1 = offsetof(struct nf_options, field), .minval = lo, .maxval = INT_MAX,     \
		.help = h, .def = "0", .category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID, \
	}

#define STR_OPT(n, field, h)                                              \
	{                                                                 \
		.name = n, .lname = n, .type = FIO_OPT_STR_STORE,         \
		.off1 = offsetof(struct nf_options, field), .help = h,    \
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID, \
	}

static struct fio_option options[] = {
	STR_OPT("trtype", trtype, "Transport: tcp or rdma (default: the filename's, else rdma)"),
	STR_OPT("adrfam", adrfam, "Address family: IPv4 or IPv6"),
	STR_OPT("traddr", traddr, "Target address (numeric), when the filename names none"),
	STR_OPT("trsvcid", trsvcid, "Target port (default 4420)"),
	STR_OPT("subnqn", subnqn, "Subsystem NQN, when the filename names none"),
	STR_OPT("hostnqn", hostnqn, "Host NQN (default: /etc/nvme/hostnqn, else generated)"),
	{
		.name = "ns",
		.lname = "ns",
		.type = FIO_OPT_INT,
		.off1 = offsetof(struct nf_options, ns),
		.minval = 0,
		.help = "Namespace ID, when the filename names none (default 1)",
		.def = "0",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	STR_OPT("digest_enable", digest_enable,
		"NVMe/TCP digests as SPDK's plugin: NONE, HEADER, DATA, BOTH (or HEADER,DATA)"),
	{
		.name = "hdr_digest",
		.lname = "hdr_digest",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(struct nf_options, hdr_digest),
		.help = "NVMe/TCP header digests (CRC32C)",
		.def = "0",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "data_digest",
		.lname = "data_digest",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(struct nf_options, data_digest),
		.help = "NVMe/TCP data digests (CRC32C)",
		.def = "0",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "nr_io_queues",
		.lname = "nr_io_queues",
		.type = FIO_OPT_INT,
		.off1 = offsetof(struct nf_options, nr_io_queues),
		.minval = 0,
		.maxval = 65535,
		.help = "I/O queues a controller asks for (0: one per fio thread); each fio "
			"thread uses one",
		.def = "0",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "io_queue_size",
		.lname = "io_queue_size",
		.type = FIO_OPT_INT,
		.off1 = offsetof(struct nf_options, io_queue_size),
		.minval = 0,
		.maxval = 65536,
		.help = "Entries per I/O queue (0: the larger of 128 and iodepth + 1; capped by "
			"the controller's MQES)",
		.def = "0",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	SEC_OPT("io_timeout", io_timeout, INT_MIN + 1,
		"Seconds before an unanswered I/O is aborted, then the controller reset "
		"(0: 30)"),
	SEC_OPT("ctrl_loss_tmo", ctrl_loss_tmo, INT_MIN + 1,
		"Seconds to reconnect automatically when the connection is lost, I/O waiting "
		"(-1: for ever; 0: no automatic reconnect)"),
	SEC_OPT("reconnect_delay", reconnect_delay, INT_MIN + 1,
		"Seconds between reconnect attempts (0: 10)"),
	SEC_OPT("fast_io_fail_tmo", fast_io_fail_tmo, INT_MIN + 1,
		"Seconds reconnecting before waiting I/O fails (0: wait until ctrl_loss_tmo)"),
	{
		.name = NULL,
	},
};

/* ---- shared controllers ---- */

/* One controller and the fio threads using it. */
struct nf_ctrl {
	struct nf_ctrl *next;
	char key[1024]; /* every connection setting: who may share it */
	char name[640]; /* "SUBNQN at ADDR:PORT (tcp)" for messages */
	struct nvmf_ctrl *ctrl;
	unsigned refs;
	unsigned nr_queues;
	bool *queue_used;
	bool rdma;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nf_ctrl *registry;

/* ---- per thread ---- */

struct nf_thread;

/* One file of a thread: a namespace through one I/O queue. */
struct nf_file {
	struct nf_ctrl *c;
	struct nvmf_queue *q;
	unsigned qidx;
	uint32_t nsid;
	uint32_t block_size;
	uint64_t size; /* bytes */
	bool lost_logged;
};

/* Per io_u (io_u->engine_data): what the callback needs, the trim range. */
struct nf_io {
	struct nf_thread *t;
	struct io_u *io_u;
	struct nvme_dsm_range dsm;
};

/* td->io_ops_data. */
struct nf_thread {
	struct thread_data *td;
	struct nf_file *files; /* td->o.nr_files */
	unsigned nfiles;
	/* Completed io_us not yet handed to fio: a ring of @cap, one entry per io_u of
	 * the job (->io_u_init counts them: each is in flight at most once). ->event(i) reads done[(head + i) % cap] of the last
	 * ->getevents, which handed out @given of them. */
	struct io_u **done;
	unsigned cap, head, count, given;
	unsigned outstanding;
	bool status_logged;
	void *registered; /* the io_u buffers, registered with every RDMA controller */
};

/* The message of a setup failure: fio's error for the job (td_verror) and a log line. */
static int setup_fail(struct thread_data *td, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int setup_fail(struct thread_data *td, int err, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_err(ENGINE ": %s: %s\n", td->o.name, msg);
	td_vmsg(td, err, msg, ENGINE);
	return 1;
}

/* The environment's secret @name, or NULL when unset or empty. */
static const char *env_secret(const char *name)
{
	const char *v = getenv(name);
	return v && v[0] ? v : NULL;
}

/* Drop one reference of @c (registry_lock held); the last disconnects. */
static void ctrl_put(struct nf_ctrl *c)
{
	if (--c->refs)
		return;
	for (struct nf_ctrl **pp = &registry; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	unsigned long n = nvmf_ctrl_reconnects(c->ctrl);
	if (n) /* a reset or a lost connection was ridden through: say so (ctrl_loss_tmo) */
		fprintf(stderr, ENGINE ": %s: reconnected %lu time%s during the run\n", c->name, n,
			n == 1 ? "" : "s");
	nvmf_disconnect(c->ctrl);
	free(c->queue_used);
	free(c);
}

/*
 * Connect to (or share) the controller of @tg with the job's options and take an I/O
 * queue of it for @f. Called with registry_lock held. 0, or 1 with the job's error set.
 */
static int file_attach(struct thread_data *td, struct nf_file *f, const struct nvmf_fio_target *tg,
		       const struct nf_options *o, bool hdr, bool data)
{
	const char *dhchap = env_secret("NVMF_DHCHAP_SECRET");
	const char *dhchap_ctrl = env_secret("NVMF_DHCHAP_CTRL_SECRET");
	const char *tls_key = env_secret("NVMF_TLS_KEY");
	const char *trtype = tg->trtype[0] ? tg->trtype : "rdma";
	const char *trsvcid = tg->trsvcid[0] ? tg->trsvcid : "4420";
	unsigned nrq = o->nr_io_queues ? o->nr_io_queues : (thread_number ? thread_number : 1);
	unsigned qsize = o->io_queue_size;
	if (!qsize)
		qsize = td->o.iodepth + 1 > 128 ? td->o.iodepth + 1 : 128;
	if ((hdr || data) && strcmp(trtype, "tcp"))
		return setup_fail(td, EINVAL, "digests are NVMe/TCP's: trtype is %s", trtype);
	if (tls_key && strcmp(trtype, "tcp"))
		return setup_fail(td, EINVAL,
				  "NVMF_TLS_KEY is set but trtype is %s (TLS is NVMe/TCP's)",
				  trtype);
	if (dhchap_ctrl && !dhchap)
		return setup_fail(
			td, EINVAL,
			"NVMF_DHCHAP_CTRL_SECRET needs NVMF_DHCHAP_SECRET (the host's secret)");
	/* fio itself checks no lower bound here (its minval 0 means none): each value named. */
	const struct {
		const char *name;
		int v, lo;
	} sec[] = { { "io_timeout", o->io_timeout, 0 },
		    { "ctrl_loss_tmo", o->ctrl_loss_tmo, -1 },
		    { "reconnect_delay", o->reconnect_delay, 0 },
		    { "fast_io_fail_tmo", o->fast_io_fail_tmo, 0 } };
	for (unsigned i = 0; i < sizeof(sec) / sizeof(sec[0]); i++)
		if (sec[i].v < sec[i].lo || sec[i].v > 86400)
			return setup_fail(td, EINVAL, "%s=%d: seconds from %d to 86400%s",
					  sec[i].name, sec[i].v, sec[i].lo,
					  sec[i].lo < 0 ? " (-1: for ever)" : "");
	if ((o->reconnect_delay || o->fast_io_fail_tmo) && !o->ctrl_loss_tmo)
		return setup_fail(td, EINVAL,
				  "%s is for automatic reconnect: set ctrl_loss_tmo too",
				  o->reconnect_delay ? "reconnect_delay" : "fast_io_fail_tmo");

	char key[sizeof(((struct nf_ctrl *)0)->key)];
	/* The secrets are the environment's, the same for every thread: not in the key. */
	snprintf(key, sizeof(key), "%s|%s|%s|%s|%s|%d%d|%u|%u|%d|%d|%d|%d", trtype, tg->traddr,
		 trsvcid, tg->subnqn, tg->hostnqn, hdr, data, nrq, qsize, o->io_timeout,
		 o->ctrl_loss_tmo, o->reconnect_delay, o->fast_io_fail_tmo);
	struct nf_ctrl *c;
	for (c = registry; c; c = c->next)
		if (!strcmp(c->key, key))
			break;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return setup_fail(td, ENOMEM, "out of memory");
		snprintf(c->key, sizeof(c->key), "%s", key);
		snprintf(c->name, sizeof(c->name), "%s at %s:%s (%s)", tg->subnqn, tg->traddr,
			 trsvcid, trtype);
		struct nvmf_ctrl_opts co = {
			.traddr = tg->traddr,
			.trsvcid = trsvcid,
			.subnqn = tg->subnqn,
			.hostnqn = tg->hostnqn[0] ? tg->hostnqn : NULL,
			.nr_io_queues = nrq,
			.queue_size = qsize,
			.trtype = trtype,
			.hdr_digest = hdr,
			.data_digest = data,
			.dhchap_secret = dhchap,
			.dhchap_ctrl_secret = dhchap_ctrl,
			.tls_key = tls_key,
			.io_timeout_ms = o->io_timeout * 1000,
			.ctrl_loss_tmo_ms = o->ctrl_loss_tmo < 0 ? -1 : o->ctrl_loss_tmo * 1000,
			.reconnect_delay_ms = (unsigned)o->reconnect_delay * 1000,
			.fast_io_fail_tmo_ms = o->fast_io_fail_tmo * 1000,
		};
		int rc = nvmf_connect(&co, &c->ctrl);
		if (rc) {
			char name[sizeof(c->name)];
			memcpy(name, c->name, sizeof(name));
			free(c);
			return setup_fail(td, rc < 0 ? -rc : EIO, "cannot connect to %s: %s (%s)",
					  name, nvmf_strerror(rc), nvmf_last_errmsg());
		}
		c->rdma = !strcmp(trtype, "rdma");
		c->nr_queues = nvmf_ctrl_nr_io_queues(c->ctrl);
		c->queue_used = calloc(c->nr_queues ? c->nr_queues : 1, sizeof(bool));
		if (!c->queue_used) {
			nvmf_disconnect(c->ctrl);
			free(c);
			return setup_fail(td, ENOMEM, "out of memory");
		}
		c->next = registry;
		registry = c;
		/* On stderr itself, not fio's log: fio writes its log into --output's file too,
		 * which may be its JSON output. */
		fprintf(stderr,
			ENGINE ": connected to %s: controller %u, %u I/O queues of %u entries, "
			       "digests %s%s%s%s%s\n",
			c->name, nvmf_ctrl_cntlid(c->ctrl), c->nr_queues,
			nvmf_ctrl_queue_size(c->ctrl), hdr ? "header" : "", hdr && data ? "+" : "",
			data ? "data" : "", hdr || data ? "" : "none", tls_key ? ", TLS" : "");
	}
	c->refs++;
	f->c = c;

	unsigned i;
	for (i = 0; i < c->nr_queues && c->queue_used[i]; i++)
		;
	if (i == c->nr_queues) {
		int rc = setup_fail(
			td, EBUSY,
			"no free I/O queue on %s: every one of its %u is taken by another "
			"fio thread (one queue per thread; nr_io_queues=%u asked for; "
			"raise nr_io_queues or lower numjobs)",
			c->name, c->nr_queues, nrq);
		f->c = NULL;
		ctrl_put(c);
		return rc;
	}
	c->queue_used[i] = true;
	f->qidx = i;
	f->q = nvmf_io_queue(c->ctrl, i);

	struct nvmf_ns_info ns;
	int rc = nvmf_ns_info(c->ctrl, f->nsid, &ns);
	if (rc > 0 || (!rc && !ns.nsze))
		return setup_fail(td, EINVAL, "namespace %u is not active on %s (%s)", f->nsid,
				  c->name, rc ? nvmf_strerror(rc) : "size 0");
	if (rc)
		return setup_fail(td, -rc, "Identify Namespace %u on %s failed: %s (%s)", f->nsid,
				  c->name, nvmf_strerror(rc), nvmf_ctrl_errmsg(c->ctrl));
	f->block_size = ns.block_size;
	f->size = ns.nsze * ns.block_size;
	return 0;
}

/* Release what @f holds (registry_lock held). */
static void file_detach(struct nf_file *f)
{
	if (!f->c)
		return;
	if (f->q)
		f->c->queue_used[f->qidx] = false;
	ctrl_put(f->c);
	f->c = NULL;
	f->q = NULL;
}

static void thread_free(struct nf_thread *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&registry_lock);
	for (unsigned i = 0; i < t->nfiles; i++) {
		struct nf_file *f = &t->files[i];
		if (t->registered && f->c && f->c->rdma)
			nvmf_mem_unregister(f->c->ctrl, t->registered);
		file_detach(f);
	}
	pthread_mutex_unlock(&registry_lock);
	free(t->files);
	free(t->done);
	free(t);
}

/* The block sizes of the job against namespace @f's logical block size. */
static int check_block_size(struct thread_data *td, const struct nf_file *f, const char *fname)
{
	static const char *const dname[] = { "read", "write", "trim" };
	for (int d = DDIR_READ; d <= DDIR_TRIM; d++) {
		unsigned long long lo = td->o.min_bs[d], hi = td->o.max_bs[d];
		if ((lo && lo % f->block_size) || (hi && hi % f->block_size)) {
			char range[64];
			if (lo == hi)
				snprintf(range, sizeof(range), "%llu", lo);
			else
				snprintf(range, sizeof(range), "%llu-%llu", lo, hi);
			return setup_fail(td, EINVAL,
					  "%s block size %s is not a multiple of namespace %u's "
					  "logical block size (%u bytes) (filename '%s')",
					  dname[d], range, f->nsid, f->block_size, fname);
		}
	}
	if (td->o.bs_unaligned)
		return setup_fail(td, EINVAL,
				  "bs_unaligned makes I/O sizes that are not multiples of the "
				  "logical block size (%u bytes) (filename '%s')",
				  f->block_size, fname);
	return 0;
}

/*
 * ->setup: in fio's main thread before the jobs start (or in the job's thread with
 * create_serialize=0). Connect (or share), take a queue per file, size each file as its
 * namespace. 0, or 1 with the job's error set (fio then skips the job and exits non-zero).
 */
static int nf_setup(struct thread_data *td)
{
	struct nf_options *o = td->eo;
	if (td->io_ops_data)
		return 0;
	if (!td->o.use_thread)
		return setup_fail(td, EINVAL,
				  "fio must run with thread=1 (--thread): the engine's controllers "
				  "are shared by the threads of one process");
	int hdr = 0, data = 0;
	char msg[512];
	if (nvmf_fio_digests_parse(o->digest_enable, &hdr, &data, msg, sizeof(msg)))
		return setup_fail(td, EINVAL, "%s", msg);
	hdr |= !!o->hdr_digest;
	data |= !!o->data_digest;

	/* The options' target, checked as a filename's words are. */
	struct nvmf_fio_target dflt;
	memset(&dflt, 0, sizeof(dflt));
	const struct {
		const char *key, *value;
	} opt_keys[] = {
		{ "trtype", o->trtype },   { "adrfam", o->adrfam }, { "traddr", o->traddr },
		{ "trsvcid", o->trsvcid }, { "subnqn", o->subnqn }, { "hostnqn", o->hostnqn },
	};
	for (size_t i = 0; i < sizeof(opt_keys) / sizeof(opt_keys[0]); i++)
		if (opt_keys[i].value && opt_keys[i].value[0] &&
		    nvmf_fio_target_set(&dflt, opt_keys[i].key, opt_keys[i].value, msg,
					sizeof(msg)))
			return setup_fail(td, EINVAL, "option %s", msg);
	if (o->ns) {
		char v[16];
		snprintf(v, sizeof(v), "%u", o->ns);
		if (nvmf_fio_target_set(&dflt, "ns", v, msg, sizeof(msg)))
			return setup_fail(td, EINVAL, "option %s", msg);
	}

	struct nf_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return setup_fail(td, ENOMEM, "out of memory");
	t->td = td;
	t->nfiles = td->files_index;
	t->files = calloc(t->nfiles ? t->nfiles : 1, sizeof(*t->files));
	if (!t->files) {
		thread_free(t);
		return setup_fail(td, ENOMEM, "out of memory");
	}
	if (!t->nfiles) {
		thread_free(t);
		return setup_fail(td, EINVAL,
				  "no filename: give the target as --filename='trtype=tcp "
				  "traddr=ADDR trsvcid=PORT subnqn=NQN ns=NSID'");
	}

	struct fio_file *ff;
	unsigned i;
	int rc = 0;
	for_each_file(td, ff, i)
	{
		struct nf_file *f = &t->files[i];
		struct nvmf_fio_target tg;
		if (nvmf_fio_target_parse(ff->file_name, &tg, msg, sizeof(msg))) {
			rc = setup_fail(td, EINVAL, "filename '%s': %s", ff->file_name, msg);
			break;
		}
		nvmf_fio_target_merge(&tg, &dflt);
		if (!tg.traddr[0] || !tg.subnqn[0]) {
			rc = setup_fail(td, EINVAL,
					"filename '%s' names no %s: give the target as "
					"--filename='trtype=tcp traddr=ADDR trsvcid=PORT "
					"subnqn=NQN ns=NSID' (an NQN's ':' as '\\:'), or with the "
					"engine's options --traddr and --subnqn",
					ff->file_name, !tg.traddr[0] ? "traddr" : "subnqn");
			break;
		}
		f->nsid = tg.nsid ? tg.nsid : 1;
		pthread_mutex_lock(&registry_lock);
		rc = file_attach(td, f, &tg, o, hdr, data);
		pthread_mutex_unlock(&registry_lock);
		if (rc)
			break;
		if ((rc = check_block_size(td, f, ff->file_name)))
			break;
		ff->filetype = FIO_TYPE_BLOCK;
		ff->real_file_size = f->size;
		fio_file_set_size_known(ff);
		ff->engine_data = f;
	}
	if (rc) {
		for_each_file(td, ff, i) ff->engine_data = NULL;
		thread_free(t);
		return rc;
	}
	td->io_ops_data = t;
	return 0;
}

/* ->init: in the job's thread; the work was done in ->setup. */
static int nf_init(struct thread_data *td)
{
	if (!td->io_ops_data)
		return setup_fail(td, EINVAL, "the job was not set up (fio called init first)");
	return 0;
}

/* ->post_init: fio's I/O buffers exist now; RDMA controllers register them once
 * (zero-copy keyed SGLs), NVMe/TCP needs nothing. */
static int nf_post_init(struct thread_data *td)
{
	struct nf_thread *t = td->io_ops_data;
	if (!td->orig_buffer || !td->orig_buffer_size)
		return 0;
	pthread_mutex_lock(&registry_lock);
	for (unsigned i = 0; i < t->nfiles; i++) {
		struct nf_ctrl *c = t->files[i].c;
		bool seen = false;
		for (unsigned j = 0; j < i; j++)
			seen |= t->files[j].c == c;
		if (!c || !c->rdma || seen)
			continue;
		int rc = nvmf_mem_register(c->ctrl, td->orig_buffer, td->orig_buffer_size);
		if (rc)
			log_err(ENGINE
				": %s: registering fio's %zu-byte buffer area with %s failed "
				"(%s): its I/O is copied through libnvmf's own buffers\n",
				td->o.name, td->orig_buffer_size, c->name, nvmf_strerror(rc));
	}
	t->registered = td->orig_buffer;
	pthread_mutex_unlock(&registry_lock);
	return 0;
}

static int nf_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct nf_thread *t = td->io_ops_data;
	struct io_u **grown = realloc(t->done, (t->cap + 1) * sizeof(*grown));
	if (!grown)
		return 1;
	t->done = grown;
	t->cap++;
	struct nf_io *io = calloc(1, sizeof(*io));
	if (!io)
		return 1;
	io->t = t;
	io->io_u = io_u;
	io_u->engine_data = io;
	return 0;
}

static void nf_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	(void)td;
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

static const char *ddir_name(enum fio_ddir d)
{
	switch (d) {
	case DDIR_READ:
		return "read";
	case DDIR_WRITE:
		return "write";
	case DDIR_TRIM:
		return "trim";
	default:
		return "flush";
	}
}

/* Completion callback, inside nvmf_queue_poll on the job's thread. */
static void nf_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct nf_io *io = arg;
	struct nf_thread *t = io->t;
	struct io_u *io_u = io->io_u;
	struct nf_file *f = io_u->file->engine_data;
	if (status > 0) {
		io_u->error = EIO;
		if (!t->status_logged) {
			t->status_logged = true;
			log_err(ENGINE
				": %s: %s of %llu bytes at offset %llu of namespace %u on %s: "
				"NVMe status 0x%x %s (EIO; further statuses of this job are not "
				"logged)\n",
				t->td->o.name, ddir_name(io_u->ddir), io_u->xfer_buflen,
				io_u->offset, f->nsid, f->c->name, (unsigned)status,
				nvmf_io_strerror(status));
		}
	} else if (status < 0) {
		io_u->error = -status;
		if (!f->lost_logged) {
			f->lost_logged = true;
			const char *why = nvmf_queue_errmsg(f->q);
			log_err(ENGINE ": %s: I/O queue %u of %s: %s%s%s\n", t->td->o.name, f->qidx,
				f->c->name, nvmf_strerror(status), why[0] ? ": " : "", why);
		}
	} else {
		io_u->error = 0;
		io_u->resid = 0;
	}
	t->done[(t->head + t->count) % t->cap] = io_u;
	t->count++;
	t->outstanding--;
}

static enum fio_q_status nf_queue(struct thread_data *td, struct io_u *io_u)
{
	struct nf_thread *t = td->io_ops_data;
	struct nf_file *f = io_u->file->engine_data;
	struct nf_io *io = io_u->engine_data;
	fio_ro_check(td, io_u);
	if (ddir_rw(io_u->ddir) || io_u->ddir == DDIR_TRIM) {
		if (io_u->offset % f->block_size || io_u->xfer_buflen % f->block_size ||
		    !io_u->xfer_buflen) {
			io_u->error = EINVAL;
			return FIO_Q_COMPLETED;
		}
	}
	uint64_t slba = io_u->offset / f->block_size;
	uint64_t nlb = io_u->xfer_buflen / f->block_size;
	int rc;
	switch (io_u->ddir) {
	case DDIR_READ:
		rc = nvmf_submit_read(f->q, f->nsid, slba, (uint32_t)nlb, io_u->xfer_buf, nf_done,
				      io);
		break;
	case DDIR_WRITE:
		rc = nvmf_submit_write(f->q, f->nsid, slba, (uint32_t)nlb, io_u->xfer_buf, nf_done,
				       io);
		break;
	case DDIR_TRIM:
		if (nlb > UINT32_MAX) {
			io_u->error = EINVAL;
			return FIO_Q_COMPLETED;
		}
		io->dsm.cattr = 0;
		io->dsm.nlb = htole32((uint32_t)nlb);
		io->dsm.slba = htole64(slba);
		rc = nvmf_submit_dsm(f->q, f->nsid, &io->dsm, 1, NVME_DSMGMT_AD, nf_done, io);
		break;
	case DDIR_SYNC:
	case DDIR_DATASYNC:
		rc = nvmf_submit_flush(f->q, f->nsid, nf_done, io);
		break;
	default:
		io_u->error = EINVAL;
		return FIO_Q_COMPLETED;
	}
	if (rc == -EAGAIN)
		return FIO_Q_BUSY;
	if (rc) {
		io_u->error = rc > 0 ? EIO : -rc;
		if (rc > 0 || !f->lost_logged) {
			f->lost_logged = rc < 0;
			log_err(ENGINE ": %s: submitting a %s to namespace %u on %s: %s\n",
				td->o.name, ddir_name(io_u->ddir), f->nsid, f->c->name,
				rc > 0 ? nvmf_io_strerror(rc) : nvmf_strerror(rc));
		}
		return FIO_Q_COMPLETED;
	}
	t->outstanding++;
	return FIO_Q_QUEUED;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * ->getevents: hand fio the io_us completed since the last call, polling every queue of
 * the thread until there are @min (at most @max are handed out; the rest wait for the
 * next call), or @t passed (NULL: no limit). Returns how many; ->event(i) gives them.
 */
static int nf_getevents(struct thread_data *td, unsigned int min, unsigned int max,
			const struct timespec *ts)
{
	struct nf_thread *t = td->io_ops_data;
	if (!t->cap)
		return 0;
	/* What fio took last time leaves the ring. */
	t->head = (t->head + t->given) % t->cap;
	t->count -= t->given;
	t->given = 0;
	uint64_t deadline =
		ts ? now_ns() + (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec : 0;
	for (;;) {
		for (unsigned i = 0; i < t->nfiles; i++) {
			struct nf_file *f = &t->files[i];
			bool dup = false;
			for (unsigned j = 0; j < i; j++)
				dup |= t->files[j].q == f->q;
			if (!dup && f->q)
				(void)nvmf_queue_poll(f->q,
						      0); /* -ECONNRESET: its commands failed */
		}
		if (t->count >= min || t->count >= max)
			break;
		/* Nothing more can come: every command has completed. */
		if (!t->outstanding)
			break;
		if (ts && now_ns() >= deadline)
			break;
	}
	t->given = t->count < max ? t->count : max;
	return (int)t->given;
}

static struct io_u *nf_event(struct thread_data *td, int event)
{
	struct nf_thread *t = td->io_ops_data;
	return t->done[(t->head + (unsigned)event) % t->cap];
}

/* ->cleanup: in the job's thread once it ended (in fio's main thread for a job that never
 * started). Every command has completed by then (fio reaps them all). */
static void nf_cleanup(struct thread_data *td)
{
	struct nf_thread *t = td->io_ops_data;
	if (!t)
		return;
	/* Should any command still be out (an aborted job), wait for it before its io_u
	 * goes: at most 30 s, then disconnecting ends it. */
	uint64_t until = now_ns() + 30ull * 1000000000u;
	while (t->outstanding && now_ns() < until)
		for (unsigned i = 0; i < t->nfiles; i++)
			if (t->files[i].q && nvmf_queue_poll(t->files[i].q, 0) < 0)
				break;
	struct fio_file *ff;
	unsigned i;
	for_each_file(td, ff, i) ff->engine_data = NULL;
	thread_free(t);
	td->io_ops_data = NULL;
}

static int nf_open_file(struct thread_data *td, struct fio_file *f)
{
	(void)td;
	(void)f;
	return 0;
}

static int nf_close_file(struct thread_data *td, struct fio_file *f)
{
	(void)td;
	(void)f;
	return 0;
}

/* The namespaces have no page cache to drop. */
static int nf_invalidate(struct thread_data *td, struct fio_file *f)
{
	(void)td;
	(void)f;
	return 0;
}

/* What fio looks up in the library it loads (ioengine=external:PATH or ioengine=PATH);
 * the only symbol the library exports (fio/engine.map). */
__attribute__((visibility("default"))) struct ioengine_ops ioengine = {
	.name = "libnvmf",
	.version = FIO_IOOPS_VERSION,
	.flags = FIO_RAWIO | FIO_NOEXTEND | FIO_NODISKUTIL | FIO_MEMALIGN | FIO_DISKLESSIO,
	.setup = nf_setup,
	.init = nf_init,
	.post_init = nf_post_init,
	.queue = nf_queue,
	.getevents = nf_getevents,
	.event = nf_event,
	.cleanup = nf_cleanup,
	.open_file = nf_open_file,
	.close_file = nf_close_file,
	.invalidate = nf_invalidate,
	.io_u_init = nf_io_u_init,
	.io_u_free = nf_io_u_free,
	.option_struct_size = sizeof(struct nf_options),
	.options = options,
};
