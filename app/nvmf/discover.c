/* SPDX-License-Identifier: MIT */
/*
 * `nvmf discover`: read the discovery log (NVMe-oF 1.1 section 5.3) from the discovery
 * controller at -a/-s and print it as `nvme discover` does: the same header, entry
 * separators, field names, column alignment and value strings (libnvme's nvmf_*_str, the
 * ones nvme-cli prints), or nvme-cli's JSON ("genctr", "records"). With --persistent it
 * stays connected (Keep Alive on) and prints the log again each time the controller
 * reports a Discovery Log Page Change event, until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "app/nvmf/cli.h"

static const char usage[] =
	"Usage: nvmf discover -a ADDR [-s PORT] [-t rdma|tcp] [-q HOSTNQN] [-I HOSTID] [--json] [--hold SECONDS]\n"
	"       [--persistent [--changes N]]\n"
	"Read the discovery log of the discovery controller at ADDR:PORT over RDMA or TCP and\n"
	"print it like `nvme discover`.\n"
	"  -a, --traddr ADDR     target address (IPv4 or IPv6), required\n"
	"  -s, --trsvcid PORT    port (default 4420, also for tcp)\n"
	"  -t, --transport TYPE  rdma (default) or tcp (NVMe/TCP)\n"
	"  -g, --hdr-digest      tcp: header digests (CRC32C) on every PDU header\n"
	"  -G, --data-digest     tcp: data digests (CRC32C) on every PDU's data\n"
	"      --tls             tcp: a TLS 1.3 secure channel with a PSK (key from\n"
	"                        --tls-key-file, --tls-key or $NVMF_TLS_KEY)\n"
	"      --tls-key-file FILE  tcp: the PSK (\"NVMeTLSkey-1:01:...:\", `nvme\n"
	"                        gen-tls-key`) from FILE; implies --tls\n"
	"      --tls-key KEY     tcp: the PSK itself (others may see it in ps); implies --tls\n"
	"      --tls-identity V  PSK identity version: 0 (default, the Linux host's) or 1\n"
	"      --tls-compat      derive the PSK in libnvme's compat layout (a key nvme-cli\n"
	"                        2.15 or older inserted on the target); with a TLS option\n"
	"  -n, --nqn NQN         discovery subsystem NQN (default the well-known one)\n"
	"  -q, --hostnqn NQN     host NQN (default /etc/nvme/hostnqn)\n"
	"  -I, --hostid UUID     host ID (default /etc/nvme/hostid)\n"
	"  -S, --dhchap-secret SECRET       DH-HMAC-CHAP host secret (default\n"
	"                        $NVMF_DHCHAP_SECRET); answers a controller that requires it\n"
	"  -C, --dhchap-ctrl-secret SECRET  controller secret: authenticate the controller\n"
	"                        too (default $NVMF_DHCHAP_CTRL_SECRET)\n"
	"  -v, --verbose         say on stderr how many records were read\n"
	"      --json            nvme-cli's JSON output\n"
	"      --hold SECONDS    keep the discovery connection (KATO 0, no Keep Alive) open\n"
	"                        this long after printing, then disconnect (1-86400): a\n"
	"                        host that stays connected without a word\n"
	"      --persistent      stay connected (with Keep Alive), ask for discovery log\n"
	"                        change events and print the log again, with the entries\n"
	"                        added and removed, at each one until SIGINT or SIGTERM\n"
	"      --changes N       with --persistent: exit after N changes (1-1000000)\n";

/* Read the log on a connection kept open @hold seconds after printing it (KATO 0 and no
 * Keep Alive, as nvmf_discover connects): what a host that went silent looks like to the
 * target, whose discovery KATO decides when it gives up on it. */
static int discover_and_hold(const struct nvmf_ctrl_opts *opts, const char *what, FILE *err,
			     struct nvmf_disc_entry **entries, size_t *n, uint64_t *genctr,
			     struct nvmf_ctrl **held)
{
	struct nvmf_ctrl_opts o = *opts;
	if (!o.subnqn || !o.subnqn[0])
		o.subnqn = NVME_DISC_SUBSYS_NAME;
	o.no_keep_alive = true;
	o.nr_io_queues = 0;
	int rc = nvmf_connect(&o, held);
	if (rc)
		return cli_lib_error(err, what, rc, nvmf_last_errmsg());
	rc = nvmf_read_discovery_log(*held, entries, n, genctr);
	if (rc) {
		cli_lib_error(err, what, rc, nvmf_ctrl_errmsg(*held));
		nvmf_disconnect(*held);
		*held = NULL;
		return CLI_ERR;
	}
	return CLI_OK;
}

/* Sleep @secs seconds, whatever signals interrupt the sleep (SIGSTOP/SIGCONT). */
static void hold_for(unsigned secs)
{
	struct timespec left = { .tv_sec = secs, .tv_nsec = 0 };
	while (nanosleep(&left, &left) != 0)
		;
}

/* TREQ as nvme-cli words it (libnvme's nvmf_treq_str): the secure channel requirement,
 * then ", sq flow control disable supported" for bit 2, which nvmet and our target set
 * on every port. libnvme has words for bit 2 only beside "not specified" (it says
 * "unrecognized" for "not required" with it): the two parts are worded apart here. */
static const char *treq_str(uint8_t treq, char *buf, size_t len)
{
	if (!(treq & NVMF_TREQ_DISABLE_SQFLOW) || (treq & 3) == NVMF_TREQ_NOT_SPECIFIED)
		return nvmf_treq_str(treq);
	snprintf(buf, len, "%s, sq flow control disable supported", nvmf_treq_str(treq & 3));
	return buf;
}

static void print_text(FILE *f, const struct nvmf_disc_entry *e, size_t n, uint64_t genctr)
{
	fprintf(f, "\nDiscovery Log Number of Records %zu, Generation counter %" PRIu64 "\n", n,
		genctr);
	for (size_t i = 0; i < n; i++, e++) {
		fprintf(f, "=====Discovery Log Entry %zu======\n", i);
		fprintf(f, "trtype:  %s\n", nvmf_trtype_str(e->trtype));
		/* nvme-cli leaves adrfam empty for an entry without an address. */
		fprintf(f, "adrfam:  %s\n", e->traddr[0] ? nvmf_adrfam_str(e->adrfam) : "");
		fprintf(f, "subtype: %s\n", nvmf_subtype_str(e->subtype));
		char tb[96];
		fprintf(f, "treq:    %s\n", treq_str(e->treq, tb, sizeof(tb)));
		fprintf(f, "portid:  %u\n", e->portid);
		fprintf(f, "trsvcid: %s\n", e->trsvcid);
		fprintf(f, "subnqn:  %s\n", e->subnqn);
		fprintf(f, "traddr:  %s\n", e->traddr);
		fprintf(f, "eflags:  %s\n", nvmf_eflags_str(e->eflags));
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			fprintf(f, "rdma_prtype: %s\n", nvmf_prtype_str(e->rdma_prtype));
			fprintf(f, "rdma_qptype: %s\n", nvmf_qptype_str(e->rdma_qptype));
			fprintf(f, "rdma_cms:    %s\n", nvmf_cms_str(e->rdma_cms));
			fprintf(f, "rdma_pkey: 0x%04x\n", e->rdma_pkey);
		} else if (e->trtype == NVMF_TRTYPE_TCP) {
			fprintf(f, "sectype: %s\n", nvmf_sectype_str(e->tcp_sectype));
		}
	}
}

static json_t *to_json(const struct nvmf_disc_entry *e, size_t n, uint64_t genctr);

/* ---- --persistent ---- */

/* Set by SIGINT / SIGTERM while --persistent waits. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* The newest log the event thread read, for the main thread to print. */
struct disc_watch {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct nvmf_disc_entry *entries; /* NULL: none waiting */
	size_t n;
	uint64_t genctr;
	int status;     /* of the last event's log read */
	unsigned fresh; /* events not printed yet */
};

/* The library's event thread: keep a copy of the new log (an older one not printed yet is
 * replaced: the newest is what counts). */
static void on_disc_event(void *arg, const struct nvmf_event *ev)
{
	struct disc_watch *w = arg;
	struct nvmf_disc_entry *copy = NULL;
	if (!ev->status && ev->nr_disc_entries) {
		copy = malloc(ev->nr_disc_entries * sizeof(*copy));
		if (copy)
			memcpy(copy, ev->disc_entries, ev->nr_disc_entries * sizeof(*copy));
	}
	pthread_mutex_lock(&w->lock);
	free(w->entries);
	w->entries = copy;
	w->n = copy ? ev->nr_disc_entries : 0;
	w->genctr = ev->disc_genctr;
	w->status = ev->status ? ev->status : (ev->nr_disc_entries && !copy ? -ENOMEM : 0);
	w->fresh++;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static bool same_entry(const struct nvmf_disc_entry *a, const struct nvmf_disc_entry *b)
{
	return a->trtype == b->trtype && a->subtype == b->subtype && a->portid == b->portid &&
	       !strcmp(a->subnqn, b->subnqn) && !strcmp(a->traddr, b->traddr) &&
	       !strcmp(a->trsvcid, b->trsvcid);
}

/* "added: nvme subsystem NQN at tcp 127.0.0.1:4420 (port 1)" for each entry of @a not in
 * @b (@what "added"), or of @b not in @a. */
static unsigned print_diff(FILE *f, const char *what, const struct nvmf_disc_entry *a, size_t na,
			   const struct nvmf_disc_entry *b, size_t nb)
{
	unsigned count = 0;
	for (size_t i = 0; i < na; i++) {
		bool found = false;
		for (size_t j = 0; j < nb && !found; j++)
			found = same_entry(&a[i], &b[j]);
		if (found)
			continue;
		count++;
		fprintf(f, "%s: %s %s at %s %s:%s (port %u)\n", what,
			nvmf_subtype_str(a[i].subtype), a[i].subnqn, nvmf_trtype_str(a[i].trtype),
			a[i].traddr, a[i].trsvcid, a[i].portid);
	}
	return count;
}

/*
 * Stay connected to @c (Keep Alive on) and print the log each time it changes, until a
 * SIGINT or SIGTERM (exit 0), @max_changes changes (0: no limit), or the connection is
 * lost (every AER failed: an error, exit 1). @entries/@n: the log printed first (taken).
 */
static int watch_changes(struct nvmf_ctrl *c, const char *what, bool json, unsigned max_changes,
			 struct nvmf_disc_entry *entries, size_t n, FILE *out, FILE *err)
{
	struct disc_watch w = { .entries = NULL };
	pthread_mutex_init(&w.lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w.cond, &ca);
	pthread_condattr_destroy(&ca);
	int rc = nvmf_ctrl_set_event_cb(c, NVMF_EVENT_BIT(NVMF_EVENT_DISC_CHANGED), on_disc_event,
					&w);
	if (rc) {
		cli_lib_error(err, what, rc, nvmf_ctrl_errmsg(c));
		free(entries);
		return CLI_ERR;
	}
	unsigned printed = 0, idle_ms = 0;
	rc = CLI_OK;
	while (!stop_signal && (!max_changes || printed < max_changes)) {
		pthread_mutex_lock(&w.lock);
		if (!w.fresh) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += 200 * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&w.cond, &w.lock, &ts);
		}
		unsigned fresh = w.fresh;
		struct nvmf_disc_entry *ne = w.entries;
		size_t nn = w.n;
		uint64_t gen = w.genctr;
		int st = w.status;
		w.fresh = 0;
		w.entries = NULL;
		pthread_mutex_unlock(&w.lock);
		if (!fresh) {
			/* No AER left on the controller for a second: the connection is gone (a
			 * failed AER is not posted again). */
			idle_ms = nvmf_ctrl_aers_outstanding(c) ? 0 : idle_ms + 200;
			if (idle_ms >= 1000) {
				fprintf(err,
					"nvmf: %s: the discovery controller's connection was lost%s%s\n",
					what, nvmf_ctrl_errmsg(c)[0] ? ": " : "",
					nvmf_ctrl_errmsg(c));
				rc = CLI_ERR;
				break;
			}
			continue;
		}
		idle_ms = 0;
		printed++;
		if (st) {
			cli_lib_error(err, what, st, nvmf_ctrl_errmsg(c));
			rc = CLI_ERR;
			break;
		}
		if (json) {
			rc = cli_json_print(out, to_json(ne, nn, gen));
		} else {
			fprintf(out,
				"\nDiscovery log changed (Asynchronous Event), generation counter "
				"%" PRIu64 "\n",
				gen);
			unsigned d = print_diff(out, "added", ne, nn, entries, n);
			d += print_diff(out, "removed", entries, n, ne, nn);
			if (!d)
				fprintf(out, "no entry added or removed\n");
			print_text(out, ne, nn, gen);
		}
		fflush(out);
		free(entries);
		entries = ne;
		n = nn;
		if (rc)
			break;
	}
	free(entries);
	/* The callback may run until the disconnect stops the event thread: w outlives it. */
	nvmf_ctrl_set_event_cb(c, 0, NULL, NULL);
	int drc = nvmf_disconnect(c);
	(void)drc;
	free(w.entries);
	pthread_mutex_destroy(&w.lock);
	pthread_cond_destroy(&w.cond);
	return rc;
}

static json_t *to_json(const struct nvmf_disc_entry *e, size_t n, uint64_t genctr)
{
	json_t *root = json_object(), *recs = json_array();
	json_object_set_new(root, "genctr", cli_json_uint(genctr));
	json_object_set_new(root, "records", recs);
	for (size_t i = 0; i < n; i++, e++) {
		json_t *r = json_object();
		json_object_set_new(r, "trtype", json_string(nvmf_trtype_str(e->trtype)));
		json_object_set_new(r, "adrfam",
				    json_string(e->traddr[0] ? nvmf_adrfam_str(e->adrfam) : ""));
		json_object_set_new(r, "subtype", json_string(nvmf_subtype_str(e->subtype)));
		char tb[96];
		json_object_set_new(r, "treq", json_string(treq_str(e->treq, tb, sizeof(tb))));
		json_object_set_new(r, "portid", json_integer(e->portid));
		json_object_set_new(r, "trsvcid", json_string(e->trsvcid));
		json_object_set_new(r, "subnqn", json_string(e->subnqn));
		json_object_set_new(r, "traddr", json_string(e->traddr));
		json_object_set_new(r, "eflags", json_string(nvmf_eflags_str(e->eflags)));
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			json_object_set_new(r, "rdma_prtype",
					    json_string(nvmf_prtype_str(e->rdma_prtype)));
			json_object_set_new(r, "rdma_qptype",
					    json_string(nvmf_qptype_str(e->rdma_qptype)));
			json_object_set_new(r, "rdma_cms", json_string(nvmf_cms_str(e->rdma_cms)));
			json_object_set_new(r, "rdma_pkey", json_integer(e->rdma_pkey));
		} else if (e->trtype == NVMF_TRTYPE_TCP) {
			json_object_set_new(r, "sectype",
					    json_string(nvmf_sectype_str(e->tcp_sectype)));
		}
		json_array_append_new(recs, r);
	}
	return root;
}

int cli_discover(int argc, char **argv, const struct cli_env *env)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "hold", required_argument, NULL, OPT_HOLD },
		{ "persistent", no_argument, NULL, OPT_PERSISTENT },
		{ "changes", required_argument, NULL, OPT_CHANGES },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_common c = { 0 };
	unsigned hold = 0, changes = 0;
	bool persistent = false;
	int key, rc;

	optind = 0;
	opterr = 0;
	while ((key = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (key == OPT_HOLD) {
			uint64_t v;
			char msg[160];
			if (cli_parse_u64(optarg, 1, 86400, &v, msg, sizeof(msg)))
				return cli_usage_error(env->err, "discover", "--hold: %s", msg);
			hold = (unsigned)v;
			continue;
		}
		if (key == OPT_PERSISTENT) {
			persistent = true;
			continue;
		}
		if (key == OPT_CHANGES) {
			uint64_t v;
			char msg[160];
			if (cli_parse_u64(optarg, 1, 1000000, &v, msg, sizeof(msg)))
				return cli_usage_error(env->err, "discover", "--changes: %s", msg);
			changes = (unsigned)v;
			continue;
		}
		rc = cli_common_opt(&c, key, optarg, "discover", cli_optname(argv, optind),
				    env->err);
		if (rc == 1)
			rc = cli_usage_error(env->err, "discover", "unknown option '%s'",
					     cli_optname(argv, optind));
		if (rc)
			return rc;
	}
	if (c.help) {
		fputs(usage, env->out);
		return CLI_OK;
	}
	if (optind < argc)
		return cli_usage_error(env->err, "discover", "unexpected argument '%s'",
				       argv[optind]);
	if ((rc = cli_check_common(&c, CLI_NQN_OPTIONAL, "discover", env->err)))
		return rc;
	if (persistent && hold)
		return cli_usage_error(env->err, "discover",
				       "--hold and --persistent exclude each other (one keeps a "
				       "silent connection, the other one with Keep Alive)");
	if (changes && !persistent)
		return cli_usage_error(env->err, "discover", "--changes needs --persistent");

	struct nvmf_ctrl_opts o;
	if (cli_fill_opts(&c, env, "discover", true, &o))
		return CLI_USAGE;
	struct nvmf_disc_entry *entries = NULL;
	size_t n = 0;
	uint64_t genctr = 0;
	struct nvmf_ctrl *held = NULL;
	char what[400];
	snprintf(what, sizeof(what), "discover at %s:%s", c.traddr, c.trsvcid ? c.trsvcid : "4420");
	struct sigaction old_int, old_term;
	if (persistent) {
		/* Before connecting: a signal from now on ends the watch, not the process. */
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop_signal;
		sigemptyset(&sa.sa_mask);
		stop_signal = 0;
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
		struct nvmf_ctrl_opts po = o;
		if (!po.subnqn || !po.subnqn[0])
			po.subnqn = NVME_DISC_SUBSYS_NAME;
		po.no_keep_alive = false; /* a persistent connection keeps itself alive */
		po.nr_io_queues = 0;
		rc = nvmf_connect(&po, &held);
		if (rc) {
			sigaction(SIGINT, &old_int, NULL);
			sigaction(SIGTERM, &old_term, NULL);
			return cli_lib_error(env->err, what, rc, nvmf_last_errmsg());
		}
		rc = nvmf_read_discovery_log(held, &entries, &n, &genctr);
		if (rc) {
			cli_lib_error(env->err, what, rc, nvmf_ctrl_errmsg(held));
			nvmf_disconnect(held);
			sigaction(SIGINT, &old_int, NULL);
			sigaction(SIGTERM, &old_term, NULL);
			return CLI_ERR;
		}
	} else if (hold) {
		if ((rc = discover_and_hold(&o, what, env->err, &entries, &n, &genctr, &held)))
			return rc;
	} else if ((rc = nvmf_discover(&o, &entries, &n, &genctr))) {
		return cli_lib_error(env->err, what, rc, nvmf_last_errmsg());
	}
	if (c.verbose)
		fprintf(env->err,
			"nvmf: discovery log of %s:%s: %zu record(s), generation counter "
			"%" PRIu64 "\n",
			c.traddr, c.trsvcid ? c.trsvcid : "4420", n, genctr);
	if (c.json)
		rc = cli_json_print(env->out, to_json(entries, n, genctr));
	else
		print_text(env->out, entries, n, genctr);
	if (persistent) {
		fflush(env->out);
		if (!rc)
			rc = watch_changes(held, what, c.json, changes, entries, n, env->out,
					   env->err);
		else {
			free(entries);
			nvmf_disconnect(held);
		}
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		return rc;
	}
	free(entries);
	if (held) {
		fflush(env->out);
		hold_for(hold);
		nvmf_disconnect(held);
	}
	return rc;
}
