/* SPDX-License-Identifier: MIT */
/*
 * `nvmf perf`: a load generator in the manner of fio/SPDK perf. One thread per I/O
 * queue keeps --qd commands outstanding with the asynchronous API: each completion
 * callback records the latency and submits the next I/O from the same slot, so the
 * queue depth stays constant without locks. All data buffers are slices of one region
 * registered with nvmf_mem_register (zero copy). Offsets are multiples of --bs: random
 * over the namespace (or --size), or sequential with each thread in its own stripe.
 * The main thread prints a progress line each second on stderr and the summary at the
 * end; latencies go to a log-linear histogram per thread (hist.c), merged at the end.
 * With -a repeated the queues are a multipath handle's (conn.c): the load fails over
 * between the paths, and the summary says how many I/Os each path served.
 * Ctrl-C (env->interrupted, set by main's SIGINT handler) ends the run early as --time
 * would: the threads stop issuing, drain what is in flight, and the summary of the time
 * it ran is printed, marked "(interrupted after N.N s)"; the exit status is then
 * CLI_INTERRUPTED (130), or CLI_ERR when I/Os failed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "app/nvmf/cli.h"
#include "util/clock.h"
#include "util/size.h"

static const char usage[] =
	"Usage: nvmf perf -a ADDR [-a ADDR ...] -n NQN [-s PORT ...] [--ns NSID] [--rw MODE]\n"
	"                 [--mix PCT] [--bs SIZE] [--qd N] [--queues N] [--time SEC] [--size SIZE]\n"
	"                 [--wait] [--json]\n"
	"Generate I/O load on namespace NSID and report IOPS, MB/s and latency percentiles.\n"
	"  --rw MODE     randread (default), randwrite, read, write, randrw\n"
	"  --mix PCT     percent reads for randrw (default 70)\n"
	"  --bs SIZE     bytes per I/O, a multiple of the block size (default 4k)\n"
	"  --qd N        outstanding I/Os per queue (default 32)\n"
	"  --queues N    I/O queues, one thread each (default 1)\n"
	"  --time SEC    run time in seconds (default 10)\n"
	"  --size SIZE   use only the first SIZE bytes of the namespace (default all)\n"
	"  --wait        sleep until a completion arrives when none is ready, as a\n"
	"                blocking application does (default: poll without a pause,\n"
	"                one core per queue)\n"
	"  --json        print the result as JSON\n"
	"  -a/--traddr, -s/--trsvcid, -n/--nqn, -q/--hostnqn, -I/--hostid,\n"
	"  -S/--dhchap-secret, -C/--dhchap-ctrl-secret, -t/--transport, -g/--hdr-digest,\n"
	"  -G/--data-digest, --tls, --tls-key-file, --tls-key, --tls-identity, --tls-compat,\n"
	"  -v/--verbose as for identify\n" CLI_RECOVERY_USAGE CLI_MULTIPATH_USAGE
	"Ctrl-C stops the run early: the result of the time it ran is printed, marked\n"
	"\"(interrupted after N.N s)\", and the exit status is 130.\n"
	"WARNING: write modes overwrite the namespace.\n";

static const char *const rw_names[] = {
	[CLI_RW_READ] = "read",         [CLI_RW_WRITE] = "write",
	[CLI_RW_RANDREAD] = "randread", [CLI_RW_RANDWRITE] = "randwrite",
	[CLI_RW_RANDRW] = "randrw",
};

const char *cli_rw_name(enum cli_rw rw)
{
	return (unsigned)rw < sizeof(rw_names) / sizeof(rw_names[0]) ? rw_names[rw] : "?";
}

int cli_rw_parse(const char *s, enum cli_rw *out)
{
	for (unsigned i = 0; i < sizeof(rw_names) / sizeof(rw_names[0]); i++)
		if (!strcmp(s, rw_names[i])) {
			*out = (enum cli_rw)i;
			return 0;
		}
	return -EINVAL;
}

int cli_perf_parse(int argc, char **argv, struct cli_perf_opts *o, FILE *err)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "ns", required_argument, NULL, OPT_NS },
		{ "namespace-id", required_argument, NULL, OPT_NS },
		{ "rw", required_argument, NULL, OPT_RW },
		{ "mix", required_argument, NULL, OPT_MIX },
		{ "bs", required_argument, NULL, OPT_BS },
		{ "qd", required_argument, NULL, OPT_QD },
		{ "queues", required_argument, NULL, OPT_QUEUES },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "wait", no_argument, NULL, OPT_WAIT },
		{ NULL, 0, NULL, 0 },
	};
	char msg[256];
	uint64_t v;
	int key, rc;

	memset(o, 0, sizeof(*o));
	o->c.multipath_ok = true;
	o->nsid = 1;
	o->rw = CLI_RW_RANDREAD;
	o->mix = 70;
	o->bs = 4096;
	o->qd = 32;
	o->queues = 1;
	o->time_s = 10;
	optind = 0;
	opterr = 0;
	while ((key = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		const char *name = cli_optname(argv, optind);
		rc = cli_common_opt(&o->c, key, optarg, "perf", name, err);
		if (rc != 1) {
			if (rc)
				return rc;
			continue;
		}
		switch (key) {
		case OPT_NS:
			if ((rc = cli_opt_nsid(optarg, &o->nsid, "perf", err)))
				return rc;
			break;
		case OPT_RW:
			if (cli_rw_parse(optarg, &o->rw))
				return cli_usage_error(err, "perf",
						       "--rw: unknown mode '%s' (randread, "
						       "randwrite, read, write, randrw)",
						       optarg);
			break;
		case OPT_MIX:
			if (cli_parse_u64(optarg, 0, 100, &v, msg, sizeof(msg)))
				return cli_usage_error(err, "perf", "--mix: percent reads %s", msg);
			o->mix = (unsigned)v;
			break;
		case OPT_BS:
			if (nvmf_size_parse_msg(optarg, "--bs", &o->bs, msg, sizeof(msg)))
				return cli_usage_error(err, "perf", "%s", msg);
			if (o->bs < 512 || o->bs % 512 || o->bs > (1u << 30))
				return cli_usage_error(err, "perf",
						       "--bs: %s is not a multiple of 512 "
						       "bytes from 512 to 1G",
						       optarg);
			break;
		case OPT_QD:
			if (cli_parse_u64(optarg, 1, 65535, &v, msg, sizeof(msg)))
				return cli_usage_error(err, "perf", "--qd: %s", msg);
			o->qd = (unsigned)v;
			break;
		case OPT_QUEUES:
			if (cli_parse_u64(optarg, 1, 1024, &v, msg, sizeof(msg)))
				return cli_usage_error(err, "perf", "--queues: %s", msg);
			o->queues = (unsigned)v;
			break;
		case OPT_TIME:
			if (cli_parse_u64(optarg, 1, 86400, &v, msg, sizeof(msg)))
				return cli_usage_error(err, "perf", "--time: seconds %s", msg);
			o->time_s = (unsigned)v;
			break;
		case OPT_SIZE:
			if (nvmf_size_parse_msg(optarg, "--size", &o->size, msg, sizeof(msg)))
				return cli_usage_error(err, "perf", "%s", msg);
			break;
		case OPT_WAIT:
			o->wait = true;
			break;
		default:
			return cli_usage_error(err, "perf", "unknown option '%s'", name);
		}
	}
	if (o->c.help)
		return CLI_OK;
	if (optind < argc)
		return cli_usage_error(err, "perf", "unexpected argument '%s'", argv[optind]);
	if (o->size && o->size < o->bs)
		return cli_usage_error(err, "perf", "--size is smaller than --bs");
	return cli_check_common(&o->c, CLI_NQN_NVM, "perf", err);
}

/* ---- the run ---- */

struct worker;

/* One outstanding I/O of a worker; its buffer is a bs slice of the registered region. */
struct slot {
	struct worker *w;
	uint8_t *buf;
	uint64_t t0, lba;
	bool write, pending;
};

struct worker {
	const struct cli_perf_opts *o;
	struct nvmf_queue *q;        /* one path, */
	struct nvmf_mpath_queue *mq; /* or several */
	pthread_t tid;
	struct slot *slots;
	unsigned nslots, npending;
	uint32_t nlb;                            /* blocks per I/O */
	uint64_t units;                          /* bs-sized units in the range */
	uint64_t seq_first, seq_count, seq_next; /* this thread's stripe, in units */
	uint64_t rng;
	const atomic_bool *stop;
	_Atomic uint64_t ios; /* completed without error (read by the progress line) */
	atomic_bool finished;
	uint64_t errors;
	int first_err; /* status or -errno of the first failed I/O */
	uint64_t first_err_lba;
	bool first_err_write;
	int fatal; /* poll error that ended the thread (-ECONNRESET) */
	/* One path: what ended its queue's connection (nvmf_queue_errmsg, read in this
	 * thread), for the first error's message; "" for an NVMe status or several paths. */
	char lost_why[256];
	uint64_t t_end;        /* ns, when the thread finished */
	struct cli_hist *hist; /* latency in ns */
};

/* xorshift64*: a fast per-thread generator; the offsets need no cryptographic quality. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* The queue's reason for a failure of its connection (only once: the first stays). */
static void note_lost(struct worker *w, int status)
{
	if (status < 0 && w->q && !w->lost_why[0])
		snprintf(w->lost_why, sizeof(w->lost_why), "%s", nvmf_queue_errmsg(w->q));
}

static void note_error(struct worker *w, struct slot *s, int status)
{
	if (!w->errors++) {
		w->first_err = status;
		w->first_err_lba = s->lba;
		w->first_err_write = s->write;
		note_lost(w, status);
	}
}

static void io_done(void *arg, int status, const struct nvme_cqe *cqe);

/* Start the next I/O of @s. A full queue (a split transfer needing several slots)
 * parks the slot for the poll loop to retry; other submit errors count as I/O errors. */
static void submit(struct slot *s)
{
	struct worker *w = s->w;
	const struct cli_perf_opts *o = w->o;
	uint64_t unit;
	switch (o->rw) {
	case CLI_RW_READ:
	case CLI_RW_WRITE:
		unit = w->seq_first + w->seq_next;
		w->seq_next = (w->seq_next + 1) % w->seq_count;
		s->write = o->rw == CLI_RW_WRITE;
		break;
	default:
		unit = rnd(&w->rng) % w->units;
		s->write = o->rw == CLI_RW_RANDWRITE ||
			   (o->rw == CLI_RW_RANDRW && rnd(&w->rng) % 100 >= o->mix);
		break;
	}
	s->lba = unit * w->nlb;
	s->t0 = nvmf_mono_ns();
	int rc;
	if (w->mq)
		rc = s->write ? nvmf_mpath_submit_write(w->mq, o->nsid, s->lba, w->nlb, s->buf,
							io_done, s) :
				nvmf_mpath_submit_read(w->mq, o->nsid, s->lba, w->nlb, s->buf,
						       io_done, s);
	else
		rc = s->write ?
			     nvmf_submit_write(w->q, o->nsid, s->lba, w->nlb, s->buf, io_done, s) :
			     nvmf_submit_read(w->q, o->nsid, s->lba, w->nlb, s->buf, io_done, s);
	if (rc == -EAGAIN) {
		s->pending = true;
		w->npending++;
	} else if (rc) {
		note_error(w, s, rc);
	}
}

static void io_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct slot *s = arg;
	struct worker *w = s->w;
	if (status) {
		note_error(w, s, status);
		/* An NVMe status fails this I/O only; a lost connection ends the thread. */
		if (status > 0 && !atomic_load_explicit(w->stop, memory_order_relaxed))
			submit(s);
		return;
	}
	cli_hist_record(w->hist, nvmf_mono_ns() - s->t0);
	atomic_store_explicit(&w->ios, atomic_load_explicit(&w->ios, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	if (!atomic_load_explicit(w->stop, memory_order_relaxed))
		submit(s);
}

#define DRAIN_TIMEOUT_NS (10ull * 1000000000u)

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t stop_seen = 0;
	for (unsigned i = 0; i < w->nslots; i++)
		submit(&w->slots[i]);
	for (;;) {
		bool stop = atomic_load_explicit(w->stop, memory_order_relaxed);
		if (stop && w->npending) {
			for (unsigned i = 0; i < w->nslots; i++)
				w->slots[i].pending = false;
			w->npending = 0;
		}
		unsigned outstanding = w->mq ? nvmf_mpath_outstanding(w->mq) :
					       nvmf_queue_outstanding(w->q);
		if (!outstanding && !w->npending)
			break; /* stopped and drained, or every slot failed */
		int n = w->mq ? nvmf_mpath_poll(w->mq, 0) : nvmf_queue_poll(w->q, 0);
		/* --wait: nothing ready, so sleep for it (1 ms at most: the stop flag and
		 * parked submissions are looked at again after it). */
		if (n == 0 && w->o->wait)
			n = w->mq ? nvmf_mpath_wait(w->mq, 1) : nvmf_queue_wait(w->q, 1);
		if (n < 0) {
			w->fatal = n;
			note_lost(w, n);
			break;
		}
		if (w->npending && !stop) {
			for (unsigned i = 0; i < w->nslots && w->npending; i++) {
				struct slot *s = &w->slots[i];
				if (!s->pending)
					continue;
				s->pending = false;
				w->npending--;
				submit(s);
				if (s->pending)
					break; /* still full: poll first */
			}
		}
		if (stop) {
			uint64_t t = nvmf_mono_ns();
			if (!stop_seen)
				stop_seen = t;
			else if (t - stop_seen > DRAIN_TIMEOUT_NS) {
				w->fatal = -ETIMEDOUT;
				break;
			}
		}
	}
	w->t_end = nvmf_mono_ns();
	atomic_store(&w->finished, true);
	return NULL;
}

struct result {
	uint64_t ios, errors;
	double secs, iops, mbps;
	struct cli_hist *hist;
	bool interrupted;     /* stopped by env->interrupted before --time */
	double interrupted_s; /* seconds it had run then */
};

static void print_result(FILE *f, const struct cli_perf_opts *o, unsigned qd, unsigned queues,
			 const struct result *r, const struct cli_conn *k)
{
	fprintf(f, "%s: bs=%" PRIu64 " qd=%u queues=%u ns=%u time=%.2fs", cli_rw_name(o->rw), o->bs,
		qd, queues, o->nsid, r->secs);
	if (r->interrupted)
		fprintf(f, " (interrupted after %.1f s)", r->interrupted_s);
	fputc('\n', f);
	fprintf(f, "  ios: %" PRIu64 ", errors: %" PRIu64 "\n", r->ios, r->errors);
	fprintf(f, "  IOPS: %.0f, bandwidth: %.2f MB/s\n", r->iops, r->mbps);
	fprintf(f, "  latency (us): mean %.2f, p50 %.2f, p99 %.2f, p99.9 %.2f, max %.2f\n",
		cli_hist_mean(r->hist) / 1e3, cli_hist_percentile(r->hist, 50) / 1e3,
		cli_hist_percentile(r->hist, 99) / 1e3, cli_hist_percentile(r->hist, 99.9) / 1e3,
		r->hist->count ? (double)r->hist->max / 1e3 : 0.0);
	if (k->ctrl && nvmf_ctrl_reconnects(k->ctrl)) /* --ctrl-loss-tmo rode through losses */
		fprintf(f, "  reconnects: %lu\n", nvmf_ctrl_reconnects(k->ctrl));
	cli_conn_print_paths(k, f);
}

static json_t *result_json(const struct cli_perf_opts *o, unsigned qd, unsigned queues,
			   const struct result *r, const struct cli_conn *k)
{
	json_t *j = json_object(), *lat = json_object();
	json_object_set_new(j, "rw", json_string(cli_rw_name(o->rw)));
	json_object_set_new(j, "bs", cli_json_uint(o->bs));
	json_object_set_new(j, "qd", json_integer(qd));
	json_object_set_new(j, "queues", json_integer(queues));
	json_object_set_new(j, "time_s", json_real(r->secs));
	json_object_set_new(j, "ios", cli_json_uint(r->ios));
	json_object_set_new(j, "iops", json_real(r->iops));
	json_object_set_new(j, "mbps", json_real(r->mbps));
	json_object_set_new(lat, "mean", json_real(cli_hist_mean(r->hist) / 1e3));
	json_object_set_new(lat, "p50", json_real(cli_hist_percentile(r->hist, 50) / 1e3));
	json_object_set_new(lat, "p99", json_real(cli_hist_percentile(r->hist, 99) / 1e3));
	json_object_set_new(lat, "p999", json_real(cli_hist_percentile(r->hist, 99.9) / 1e3));
	json_object_set_new(lat, "max", json_real(r->hist->count ? (double)r->hist->max / 1e3 : 0));
	json_object_set_new(j, "lat_us", lat);
	json_object_set_new(j, "errors", cli_json_uint(r->errors));
	json_object_set_new(j, "interrupted", json_boolean(r->interrupted));
	if (r->interrupted)
		json_object_set_new(j, "interrupted_after_s", json_real(r->interrupted_s));
	if (k->ctrl)
		json_object_set_new(j, "reconnects", cli_json_uint(nvmf_ctrl_reconnects(k->ctrl)));
	if (k->mp)
		json_object_set_new(j, "paths", cli_conn_paths_json(k));
	return j;
}

static bool interrupted(const struct cli_env *env)
{
	return env->interrupted && *env->interrupted;
}

/* Sleep until @t (CLOCK_MONOTONIC ns). Returns false, early, once the user asked to stop
 * (SIGINT wakes the sleep: main installs its handler without SA_RESTART). */
static bool sleep_until(uint64_t t, const struct cli_env *env)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u),
			       .tv_nsec = (long)(t % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (interrupted(env))
			return false;
	return !interrupted(env);
}

static uint64_t total_ios(struct worker *w, unsigned n)
{
	uint64_t t = 0;
	for (unsigned i = 0; i < n; i++)
		t += atomic_load_explicit(&w[i].ios, memory_order_relaxed);
	return t;
}

static bool all_finished(struct worker *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!atomic_load(&w[i].finished))
			return false;
	return true;
}

/* Run the threads for o->time_s seconds and fill @r. Returns CLI_OK or CLI_ERR. */
static int run_load(const struct cli_env *env, struct cli_conn *k, const struct cli_perf_opts *o,
		    struct worker *w, unsigned queues, struct result *r)
{
	atomic_bool stop = false;
	unsigned started = 0;
	bool cut = false;
	uint64_t t0 = nvmf_mono_ns(), t_cut = 0;
	for (unsigned i = 0; i < queues; i++) {
		w[i].stop = &stop;
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]))
			break;
		started++;
	}
	/* Every other thread (the workers, libnvmf's) started with SIGINT blocked (cli_perf):
	 * only this one takes it, so that Ctrl-C wakes its sleep at once; one that came
	 * while connecting is delivered now. */
	sigset_t sigint;
	sigemptyset(&sigint);
	sigaddset(&sigint, SIGINT);
	pthread_sigmask(SIG_UNBLOCK, &sigint, NULL);
	if (started == queues) {
		uint64_t last = 0, tlast = t0;
		for (unsigned sec = 1; sec <= o->time_s && !all_finished(w, queues); sec++) {
			if (!sleep_until(t0 + (uint64_t)sec * 1000000000u, env)) {
				cut = true; /* Ctrl-C: no progress line for a part second */
				t_cut = nvmf_mono_ns();
				break;
			}
			uint64_t ios = total_ios(w, queues), t = nvmf_mono_ns();
			double dt = (double)(t - tlast) / 1e9;
			if (!env->no_progress)
				fprintf(env->err, "[%2us/%us] %.0f IOPS, %.1f MB/s\n", sec,
					o->time_s, (double)(ios - last) / dt,
					(double)(ios - last) * (double)o->bs / 1e6 / dt);
			last = ios;
			tlast = t;
		}
	}
	pthread_sigmask(SIG_BLOCK, &sigint, NULL);
	atomic_store(&stop, true);
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	if (started < queues) {
		fprintf(env->err, "nvmf: perf: cannot start thread %u: %s\n", started,
			strerror(EAGAIN));
		return CLI_ERR;
	}

	uint64_t t_end = t0;
	memset(r, 0, sizeof(*r));
	r->hist = malloc(sizeof(*r->hist));
	if (!r->hist)
		return cli_lib_error(env->err, "perf", -ENOMEM, NULL);
	cli_hist_init(r->hist);
	const struct worker *first = NULL;
	for (unsigned i = 0; i < queues; i++) {
		cli_hist_merge(r->hist, w[i].hist);
		r->ios += w[i].ios;
		r->errors += w[i].errors;
		if (w[i].t_end > t_end)
			t_end = w[i].t_end;
		if (!first && (w[i].errors || w[i].fatal))
			first = &w[i];
	}
	r->secs = (double)(t_end - t0) / 1e9;
	r->interrupted = cut;
	r->interrupted_s = cut ? (double)(t_cut - t0) / 1e9 : 0;
	r->iops = r->secs > 0 ? (double)r->ios / r->secs : 0;
	r->mbps = r->iops * (double)o->bs / 1e6;
	if (first) {
		char what[160];
		if (first->errors)
			snprintf(what, sizeof(what),
				 "perf: %s of %u blocks at lba %" PRIu64 " "
				 "(first of %" PRIu64 " errors)",
				 first->first_err_write ? "write" : "read", first->nlb,
				 first->first_err_lba, r->errors);
		else
			snprintf(what, sizeof(what), "perf: queue %u", (unsigned)(first - w));
		/* One path: its queue's own reason (the controller's message is another
		 * thread's); several: the handle's, which names the path. */
		return cli_lib_error(env->err, what,
				     first->errors ? first->first_err : first->fatal,
				     k->mp ? cli_conn_errmsg(k) : first->lost_why);
	}
	return cut ? CLI_INTERRUPTED : CLI_OK;
}

int cli_perf(int argc, char **argv, const struct cli_env *env)
{
	struct cli_perf_opts o;
	int rc = cli_perf_parse(argc, argv, &o, env->err);
	if (rc)
		return rc;
	if (o.c.help) {
		fputs(usage, env->out);
		return CLI_OK;
	}

	struct cli_conn k;
	/* SIGINT blocked in every thread but the one that sleeps in run_load: the threads
	 * libnvmf starts while connecting and the workers inherit this mask. */
	sigset_t sigint, old_mask;
	sigemptyset(&sigint);
	sigaddset(&sigint, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigint, &old_mask);
	/* Ask for room for qd commands (a queue holds size - 1); the library caps it. */
	if ((rc = cli_conn_open(&o.c, env, "perf", o.queues, o.qd + 1 > 128 ? o.qd + 1 : 0, &k))) {
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
		return rc;
	}
	struct worker *w = NULL;
	uint8_t *region = NULL;
	size_t region_len = 0;
	bool registered = false;
	struct result r = { 0 };
	unsigned queues = cli_conn_nr_queues(&k), qd = o.qd;
	if (!queues) { /* cli_conn_open refuses a controller without I/O queues already */
		rc = cli_lib_error(env->err, "perf", -ENOTCONN, "no I/O queue was connected");
		goto out;
	}
	if (queues > o.queues)
		queues = o.queues;
	if (queues < o.queues)
		fprintf(env->err, "nvmf: perf: the controller granted %u of %u I/O queues\n",
			queues, o.queues);
	if (qd > cli_conn_depth(&k)) {
		qd = cli_conn_depth(&k);
		fprintf(env->err, "nvmf: perf: --qd %u capped to %u (queue size %u)\n", o.qd, qd,
			qd + 1);
	}

	struct nvmf_ns_info ns;
	int lrc = cli_conn_ns_info(&k, o.nsid, &ns);
	if (lrc) {
		char what[64];
		snprintf(what, sizeof(what), "perf: namespace %u", o.nsid);
		rc = cli_lib_error(env->err, what, lrc, cli_conn_errmsg(&k));
		goto out;
	}
	if (o.bs % ns.block_size) {
		rc = cli_usage_error(env->err, "perf",
				     "--bs %" PRIu64 " is not a multiple of the "
				     "block size of namespace %u (%u bytes)",
				     o.bs, o.nsid, ns.block_size);
		goto out;
	}
	uint64_t range = ns.nsze * ns.block_size;
	if (o.size && o.size < range)
		range = o.size;
	uint64_t units = range / o.bs;
	if (!units) {
		rc = cli_usage_error(env->err, "perf",
				     "namespace %u (%" PRIu64 " bytes) is smaller "
				     "than --bs",
				     o.nsid, range);
		goto out;
	}

	region_len = (size_t)queues * qd * o.bs;
	region = aligned_alloc(4096, (region_len + 4095) & ~(size_t)4095);
	w = calloc(queues, sizeof(*w));
	if (!region || !w) {
		rc = cli_lib_error(env->err, "perf", -ENOMEM, NULL);
		goto out;
	}
	/* Writes carry a non-trivial pattern (not zeroes a backend could shortcut). */
	for (size_t i = 0; i < region_len; i += 8) {
		uint64_t v = 0x9E3779B97F4A7C15ULL * (i + 1);
		memcpy(region + i, &v, region_len - i < 8 ? region_len - i : 8);
	}
	registered = cli_conn_mem_register(&k, region, region_len) == 0;
	uint64_t stripe = units >= queues ? units / queues : units;
	for (unsigned i = 0; i < queues; i++) {
		w[i].o = &o;
		if (k.mp)
			w[i].mq = nvmf_mpath_queue(k.mp, i);
		else
			w[i].q = nvmf_io_queue(k.ctrl, i);
		w[i].nlb = (uint32_t)(o.bs / ns.block_size);
		w[i].units = units;
		w[i].seq_first = units >= queues ? i * stripe : 0;
		w[i].seq_count = stripe;
		w[i].rng = 0x853C49E6748FEA9BULL ^ ((uint64_t)(i + 1) * 0x9E3779B97F4A7C15ULL) ^
			   nvmf_mono_ns();
		w[i].nslots = qd;
		w[i].slots = calloc(qd, sizeof(struct slot));
		w[i].hist = malloc(sizeof(struct cli_hist));
		if (!w[i].slots || !w[i].hist) {
			rc = cli_lib_error(env->err, "perf", -ENOMEM, NULL);
			goto out;
		}
		cli_hist_init(w[i].hist);
		for (unsigned s = 0; s < qd; s++) {
			w[i].slots[s].w = &w[i];
			w[i].slots[s].buf = region + ((size_t)i * qd + s) * o.bs;
		}
	}

	rc = run_load(env, &k, &o, w, queues, &r);
	if (r.hist) {
		if (o.c.json) {
			if (cli_json_print(env->out, result_json(&o, qd, queues, &r, &k)))
				rc = CLI_ERR;
		} else {
			print_result(env->out, &o, qd, queues, &r, &k);
		}
	}
out:
	if (registered)
		cli_conn_mem_unregister(&k, region);
	/* Commands a stuck thread left behind complete (-ECONNABORTED) inside disconnect,
	 * into the slots: free those after it. */
	cli_conn_close(&k);
	if (w)
		for (unsigned i = 0; i < queues; i++) {
			free(w[i].slots);
			free(w[i].hist);
		}
	free(w);
	free(r.hist);
	free(region);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL); /* a Ctrl-C of the drain: taken now */
	return rc;
}
