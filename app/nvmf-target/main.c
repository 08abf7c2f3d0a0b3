/* SPDX-License-Identifier: MIT */
/*
 * nvmf-target: the NVMe over Fabrics target daemon (RDMA and TCP transports).
 *   nvmf-target -c CONFIG.json [--check] [--rpc-socket PATH | --no-rpc-socket] [--version]
 * Loads and validates the whole configuration before opening any backing file, opens
 * the namespaces, listens on every port, opens the control socket (docs/operating.md)
 * and serves until SIGINT/SIGTERM; then closes the socket, stops accepting, finishes or
 * fails in-flight commands, disconnects hosts, flushes backends and exits 0.
 * Under systemd (Type=notify) it says READY=1 once serving, RELOADING=1 ... READY=1 around
 * a SIGHUP reload and STOPPING=1 at the stop (sd_notify(3)); the core knows nothing of it.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>
#include "rdma/target/transport.h"
#include "tcp/target/transport.h"
#include "subsystem/backend.h"
#include "subsystem/config.h"
#include "subsystem/created.h"
#include "control/control.h"
#include "target/core.h"
#include "target/ephemeral.h"
#include "target/log.h"
#include "target/namespace.h"
#include "control/reload.h"
#include "gateway/gateway.h"
#include "target/resv.h"
#include "util/clock.h"
#include "util/version.h"
#include "util/log.h"

static volatile sig_atomic_t stop_requested; /* set by the signal handlers only */
static volatile sig_atomic_t reload_requested;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

/* SIGHUP: the config file again, its difference applied live (control/reload.h); with a
 * control socket, refused while live changes made through it are not in the file
 * (nvmf_ctl_reload). Returns 0, or -1 with @err (nothing was changed; logged already). */
static int reload(struct nvmf_tgt *tgt, struct nvmf_ctl *ctl, const char *config, char *err,
		  size_t errlen)
{
	json_t *changes = json_array();
	int rc;
	if (ctl->tgt) {
		rc = nvmf_ctl_reload(ctl, changes, false, err, errlen);
	} else {
		struct nvmf_config next;
		if (nvmf_config_load(config, &next, err, errlen)) {
			nvmf_log_at(tgt, NVMF_LOGC_CONTROL, NVMF_LOG_ERROR,
				    "reload (SIGHUP): %s: %s (nothing was changed)", config, err);
			json_decref(changes);
			return -1;
		}
		for (size_t i = 0; i < next.n_notes; i++)
			nvmf_log_at(tgt, NVMF_LOGC_CONTROL, NVMF_LOG_WARNING, "%s: %s", config,
				    next.notes[i]);
		rc = nvmf_tgt_reload(tgt, &next, false, changes, err, errlen);
		nvmf_config_free(&next);
	}
	if (rc)
		nvmf_log_at(tgt, NVMF_LOGC_CONTROL, NVMF_LOG_ERROR,
			    "reload (SIGHUP): %s (nothing was changed)", err);
	else
		nvmf_log_at(tgt, NVMF_LOGC_CONTROL, NVMF_LOG_INFO, "reload (SIGHUP): %zu change(s)",
			    json_array_size(changes));
	json_decref(changes);
	return rc ? -1 : 0;
}

/*
 * systemd's service notifications (sd_notify(3); the unit is Type=notify): what STATUS=
 * last said, so that a change of the served counts (a reload, the control socket) is said
 * once, and @note, appended to it (a failed reload). Without $NOTIFY_SOCKET, when not
 * started by systemd, sd_notify does nothing.
 */
struct notify_state {
	size_t subsys, ports; /* as last said; SIZE_MAX: nothing said yet */
	char note[256];       /* "" or "; ..." after the counts */
};

/* READY=1 (when @ready) and STATUS=serving N subsystems on M ports[note], if @ready or the
 * counts changed since the last. Returns sd_notifyf's result (< 0: -errno). */
static int notify_status(const struct nvmf_tgt *tgt, struct notify_state *ns, bool ready)
{
	if (!ready && ns->subsys == tgt->n_subsys && ns->ports == tgt->n_ports)
		return 0;
	ns->subsys = tgt->n_subsys;
	ns->ports = tgt->n_ports;
	return sd_notifyf(0, "%sSTATUS=serving %zu subsystem%s on %zu port%s%s",
			  ready ? "READY=1\n" : "", ns->subsys, ns->subsys == 1 ? "" : "s",
			  ns->ports, ns->ports == 1 ? "" : "s", ns->note);
}

/* The reservations' state file: nvmf_target.resv_state ("" none), else the config file's
 * absolute name + ".resv.json". 0, or -1 with an error in @lg. */
static int resv_state_path(const struct nvmf_logger *lg, const struct nvmf_config *cfg,
			   const char *config, char *out, size_t len)
{
	if (cfg->target.resv_state_set) {
		snprintf(out, len, "%s", cfg->target.resv_state);
		return 0;
	}
	char *abs = realpath(config, NULL);
	if (!abs) {
		nvmf_logger_write(lg, NVMF_LOGC_CORE, NVMF_LOG_ERROR, "%s: %s", config,
				  strerror(errno));
		return -1;
	}
	int n = snprintf(out, len, "%s.resv.json", abs);
	free(abs);
	if (n < 0 || (size_t)n >= len) {
		nvmf_logger_write(lg, NVMF_LOGC_CORE, NVMF_LOG_ERROR,
				  "%s: name too long for its reservation state file", config);
		return -1;
	}
	return 0;
}

/* The option getopt_long just refused: the last argument before @next (its optind)
 * that begins with '-' (a missing value leaves optind past the option itself). */
static const char *option_text(char **argv, int next)
{
	for (int i = next - 1; i > 0; i--)
		if (argv[i][0] == '-')
			return argv[i];
	return "?";
}

static void usage(FILE *f)
{
	char def[108];
	nvmf_rpc_default_path(def, sizeof(def));
	fprintf(f,
		"usage: nvmf-target -c CONFIG.json [--check] [--rpc-socket PATH | --no-rpc-socket]\n"
		"  -c, --config FILE    configuration (nvmetcli config.json layout, see docs/configuration.md)\n"
		"      --check          validate the configuration and open nothing, then exit\n"
		"      --rpc-socket P   control socket for nvmf-targetctl (default: nvmf_target.rpc_socket,\n"
		"                       else /run/nvmf-target.sock as root, $XDG_RUNTIME_DIR/nvmf-target.sock\n"
		"                       or /tmp/nvmf-target-UID.sock for other users; here %s)\n"
		"      --no-rpc-socket  no control socket (SIGHUP still reloads the configuration)\n"
		"      --log-level L    error, warning, info (default) or debug\n"
		"      --version        print the version and exit\n"
		"  -h, --help           this help\n",
		def);
}

static void print_model(const struct nvmf_tgt *tgt)
{
	for (size_t i = 0; i < tgt->n_subsys; i++) {
		const struct nvmf_subsys *s = tgt->subsys[i];
		nvmf_log(tgt, NVMF_LOG_INFO, "subsystem %s", s->cfg->nqn);
		if (s->cfg->allow_any_host && s->cfg->n_allowed_hosts)
			nvmf_log(
				tgt, NVMF_LOG_WARNING,
				"subsystem %s: allow_any_host is on, so any host "
				"may connect; its %zu allowed_hosts apply only once it is turned off",
				s->cfg->nqn, s->cfg->n_allowed_hosts);
		for (uint32_t n = 1; n <= s->max_nsid; n++) {
			const struct nvmf_ns *ns = s->ns[n];
			if (ns)
				nvmf_log(
					tgt, NVMF_LOG_INFO,
					"subsystem %s: namespace %u: %s backend, %llu blocks of %u bytes",
					s->cfg->nqn, n, ns->bdev->ops->name,
					(unsigned long long)ns->nlb, 1u << ns->lba_shift);
		}
	}
}

int main(int argc, char **argv)
{
	const char *config = NULL, *rpc_socket = NULL, *log_level = NULL;
	bool check_only = false, no_rpc = false;
	nvmf_config_json_wipe(); /* before any JSON: configs and requests carry secrets */
	/* A write past RLIMIT_FSIZE (ulimit -f) would kill the daemon with SIGXFSZ; ignored,
	 * the write fails with EFBIG, which the host gets as an error status and the log
	 * names. Before anything is opened: creating a file namespace writes too. */
	signal(SIGXFSZ, SIG_IGN);
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "rpc-socket", required_argument, NULL, 'S' },
		{ "no-rpc-socket", no_argument, NULL, 'N' },
		{ "version", no_argument, NULL, 'V' },
		{ "log-level", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o;
	/* getopt's own messages would begin with argv[0] as typed (a path): ours name the
	 * program and the option, as nvmf and nvmf-targetctl do. */
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":c:h", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			config = optarg;
			break;
		case 'C':
			check_only = true;
			break;
		case 'S':
			rpc_socket = optarg;
			break;
		case 'N':
			no_rpc = true;
			break;
		case 'L':
			log_level = optarg;
			break;
		case 'V':
			printf("nvmf-target %s\n", NVMF_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "nvmf-target: option '%s' needs a value\n",
				option_text(argv, optind));
			usage(stderr);
			return 2;
		default: {
			const char *t = option_text(argv, optind);
			const char *eq = strchr(t, '=');
			/* "--check=1": getopt names the option in optopt when it exists */
			if (optopt && eq && !strncmp(t, "--", 2))
				fprintf(stderr, "nvmf-target: option '%.*s' takes no value\n",
					(int)(eq - t), t);
			else if (optopt && strncmp(t, "--", 2))
				fprintf(stderr, "nvmf-target: unknown option '-%c'\n", optopt);
			else
				fprintf(stderr, "nvmf-target: unknown option '%s'\n", t);
			usage(stderr);
			return 2;
		}
		}
	}
	enum nvmf_log_level level = NVMF_LOG_INFO;
	if (log_level && !nvmf_log_level_parse(log_level, &level)) {
		fprintf(stderr,
			"nvmf-target: --log-level %s: not a level (error, warning, info, debug)\n",
			log_level);
		return 2;
	}
	if (rpc_socket && no_rpc) {
		fprintf(stderr,
			"nvmf-target: --rpc-socket and --no-rpc-socket exclude each other\n");
		return 2;
	}
	if (rpc_socket && (rpc_socket[0] != '/' || strlen(rpc_socket) > 107)) {
		fprintf(stderr,
			"nvmf-target: --rpc-socket %s: not an absolute path of at most 107 bytes\n",
			rpc_socket);
		return 2;
	}
	if (!config || optind != argc) {
		if (!config)
			fprintf(stderr, "nvmf-target: -c CONFIG is required\n");
		else
			fprintf(stderr, "nvmf-target: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Until nvmf_tgt_init there is no target, and so no target's log: the start's lines
	 * go through a logger of their own, at --log-level, then at the config's levels too
	 * once it is read (the command line's mistakes above are the usage's, exit 2). */
	struct nvmf_logger early;
	nvmf_logger_init(&early, level);
	char err[2048]; /* a refused reload names every unsaved change */
	struct nvmf_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	if (nvmf_config_load(config, &cfg, err, sizeof(err))) {
		/* "cannot open PATH: ..." names the file already. */
		if (!strncmp(err, "cannot open ", 12))
			nvmf_logger_write(&early, NVMF_LOGC_CORE, NVMF_LOG_ERROR, "%s", err);
		else
			nvmf_logger_write(&early, NVMF_LOGC_CORE, NVMF_LOG_ERROR, "%s: %s", config,
					  err);
		return 1;
	}
	nvmf_logger_apply(&early, cfg.target.log_level);
	/* Keys nvmetcli wrote that this target does not use, with a value: once per load. */
	for (size_t i = 0; i < cfg.n_notes; i++)
		nvmf_logger_write(&early, NVMF_LOGC_CORE, NVMF_LOG_WARNING, "%s: %s", config,
				  cfg.notes[i]);
	/* The target takes the same levels before it logs anything. */
	cfg.target.log_level_base_set = true;
	cfg.target.log_level_base = level;
	/* Secrets in a file others can read are no secrets: say so (as --check does too). */
	struct stat st;
	if (cfg.n_dhchap && stat(config, &st) == 0 && (st.st_mode & 044))
		nvmf_logger_write(&early, NVMF_LOGC_AUTH, NVMF_LOG_WARNING,
				  "%s holds DH-HMAC-CHAP secrets and is readable by "
				  "%s (mode %04o); chmod 600 it",
				  config, st.st_mode & 004 ? "every user" : "its group",
				  (unsigned)(st.st_mode & 07777));
	char resv_state[4096];
	if (resv_state_path(&early, &cfg, config, resv_state, sizeof(resv_state))) {
		nvmf_config_free(&cfg);
		return 1;
	}
	if (check_only) {
		if (resv_state[0] && nvmf_resv_store_check(resv_state, err, sizeof(err))) {
			nvmf_logger_write(&early, NVMF_LOGC_CORE, NVMF_LOG_ERROR, "%s", err);
			nvmf_config_free(&cfg);
			return 1;
		}
		/* What the start would warn of (a port in the ephemeral range), said now. */
		long lo, hi;
		char warn[512];
		for (size_t i = 0; !nvmf_ephemeral_range(NULL, &lo, &hi) && i < cfg.n_ports; i++)
			if (nvmf_port_ephemeral_warning(&cfg.ports[i], lo, hi, warn, sizeof(warn)))
				nvmf_logger_write(&early, NVMF_LOGC_CORE, NVMF_LOG_WARNING, "%s",
						  warn);
		/* The answer --check was asked for, not a log line: on stdout at any level. */
		printf("nvmf-target: %s: configuration is valid\n", config);
		nvmf_config_free(&cfg);
		return 0;
	}

	/* The files this target created: one that was served and is missing now is never
	 * created again empty (subsystem/created.h); the start stops naming it. */
	struct nvmf_created created;
	char created_path[4096];
	if (!realpath(config, created_path) ||
	    strlen(created_path) + sizeof(".created.json") > sizeof(created_path)) {
		nvmf_logger_write(&early, NVMF_LOGC_CORE, NVMF_LOG_ERROR,
				  "%s: no name for its record of created files", config);
		nvmf_config_free(&cfg);
		return 1;
	}
	strcat(created_path, ".created.json");
	if (nvmf_created_open(&created, created_path, err, sizeof(err)) ||
	    nvmf_created_check_config(&created, &cfg, err, sizeof(err))) {
		nvmf_logger_write(&early, NVMF_LOGC_CORE, NVMF_LOG_ERROR, "%s", err);
		nvmf_created_free(&created);
		nvmf_config_free(&cfg);
		return 1;
	}

	int rc = 1;
	bool ready = false;          /* served: a stop then reports its statistics */
	struct nvmf_ctl ctl = { 0 }; /* before any goto out: nvmf_ctl_stop sees it */
	struct nvmf_tgt tgt;
	/* The transports the ports name must start; the others are tried for ports added
	 * live, so a tcp-only config runs on a machine without RDMA. */
	static const struct nvmf_transport_ops *const transports[] = { &nvmf_rdma_transport_ops,
								       &nvmf_tcp_transport_ops };
	if (nvmf_tgt_init(&tgt, &cfg, transports, 2, err, sizeof(err))) {
		nvmf_logger_write(&early, NVMF_LOGC_CORE, NVMF_LOG_ERROR, "%s", err);
		nvmf_created_free(&created);
		nvmf_config_free(&cfg);
		return 1;
	}
	tgt.created = &created;
	/* A gateway group's member: its shared ANA groups non-optimized on every port before
	 * any port listens; the locks are taken once the target serves (below). */
	struct nvmf_gw *gw = NULL;
	if (cfg.gateway.enable) {
		const struct nvmf_gw_locks *ops;
		void *ops_ctx;
		if (nvmf_gw_rados_new(&cfg.gateway, &ops, &ops_ctx, err, sizeof(err)) ||
		    nvmf_gw_create(&tgt, &cfg.gateway, ops, ops_ctx, &gw, err, sizeof(err))) {
			nvmf_log_at(&tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_ERROR, "%s: %s", config, err);
			goto out;
		}
	}
	/* Reservations kept through a restart (PTPL): restored before any host connects; a
	 * broken file stops here, since dropping it would drop fences. */
	if (resv_state[0]) {
		if (nvmf_tgt_resv_open(&tgt, resv_state, err, sizeof(err))) {
			nvmf_log(&tgt, NVMF_LOG_ERROR, "%s", err);
			goto out;
		}
		nvmf_log(&tgt, NVMF_LOG_INFO, "reservation state file %s", resv_state);
	}
	for (size_t i = 0; i < tgt.n_subsys; i++)
		nvmf_tgt_subsys_opened(&tgt, tgt.subsys[i]); /* what it created, recorded */
	print_model(&tgt);
	if (nvmf_tgt_listen(&tgt, err, sizeof(err))) {
		nvmf_log(&tgt, NVMF_LOG_ERROR, "%s", err);
		goto out;
	}
	if (!tgt.n_ports)
		nvmf_log(&tgt, NVMF_LOG_WARNING, "%s has no ports: no host can connect", config);
	for (size_t i = 0; i < tgt.n_ports; i++) {
		char a[96];
		nvmf_log(&tgt, NVMF_LOG_INFO, "listening on %s %s (port %u)",
			 tgt.ports[i]->cfg->trtype,
			 nvmf_port_config_addr(tgt.ports[i]->cfg, a, sizeof(a)),
			 tgt.ports[i]->cfg->portid);
	}
	if (nvmf_tgt_start(&tgt, err, sizeof(err))) {
		nvmf_log(&tgt, NVMF_LOG_ERROR, "%s", err);
		goto out;
	}
	/* The control socket: the command line, else the config, else the default. */
	char sock[108];
	if (rpc_socket)
		snprintf(sock, sizeof(sock), "%s", rpc_socket);
	else if (cfg.target.rpc_socket_set)
		snprintf(sock, sizeof(sock), "%s", cfg.target.rpc_socket);
	else
		nvmf_rpc_default_path(sock, sizeof(sock));
	if (!no_rpc && sock[0]) {
		if (nvmf_ctl_start(&ctl, &tgt, sock, config, err, sizeof(err))) {
			nvmf_log_at(&tgt, NVMF_LOGC_CONTROL, NVMF_LOG_ERROR, "%s",
				    err); /* it names the socket */
			goto out;
		}
		nvmf_log_at(&tgt, NVMF_LOGC_CONTROL, NVMF_LOG_INFO, "control socket %s", sock);
		ctl.gateway_status = gw ? nvmf_gw_status_hook : NULL;
		ctl.gateway_arg = gw;
	}
	/* An unreachable cluster does not stop the start: the groups stay non-optimized here
	 * and the gateway keeps trying (docs/gateway.md). */
	if (gw && nvmf_gw_start(gw, err, sizeof(err))) {
		nvmf_log_at(&tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_ERROR, "%s", err);
		goto out;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	nvmf_log(&tgt, NVMF_LOG_INFO, "ready");
	ready = true;
	/* Every port listens and the control socket is open: systemd may start what needs us.
	 * A notification that cannot be sent would leave systemd waiting until its start
	 * timeout, then stopping us: say why now. */
	struct notify_state notify = { .subsys = SIZE_MAX, .ports = SIZE_MAX };
	int nrc = notify_status(&tgt, &notify, true);
	if (nrc < 0)
		nvmf_log(&tgt, NVMF_LOG_WARNING, "cannot notify systemd (NOTIFY_SOCKET %s): %s",
			 getenv("NOTIFY_SOCKET"), strerror(-nrc));

	/* This thread runs the main poll group: listeners, admin queues, keep-alive. */
	struct nvmf_pg *main_pg = nvmf_tgt_main_pg(&tgt);
	while (!stop_requested) {
		if (reload_requested) {
			reload_requested = 0;
			/* MONOTONIC_USEC: what systemd 253's Type=notify-reload asks with it;
			 * 252 (Debian 12) shows the unit "reloading" until READY=1. */
			sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
				   (unsigned long long)nvmf_mono_us());
			if (reload(&tgt, &ctl, config, err, sizeof(err)))
				snprintf(notify.note, sizeof(notify.note),
					 "; the last reload (SIGHUP) failed: %.200s", err);
			else
				notify.note[0] = '\0';
			notify_status(&tgt, &notify, true);
		}
		if (nvmf_pg_run_once(main_pg, 100) < 0) {
			nvmf_log(&tgt, NVMF_LOG_ERROR, "fatal error in the poll loop");
			goto out;
		}
		notify_status(&tgt, &notify, false); /* the control socket may have changed them */
	}
	nvmf_log(&tgt, NVMF_LOG_INFO, "stopping: disconnecting hosts and flushing backends");
	nvmf_ctl_warn_unsaved(&ctl); /* without write-through: what the file lacks is lost */
	rc = 0;
out:
	/* A failed start prints its error and nothing else (docs/transports.md). */
	if (!ready)
		tgt.started = false;
	else /* before the hosts are disconnected: systemd no longer counts on us */
		sd_notify(0,
			  "STOPPING=1\nSTATUS=stopping: disconnecting hosts and flushing backends");
	/* The gateway first: its groups go non-optimized and its locks are released at once,
	 * so the other gateways take them while this one is still stopping. */
	ctl.gateway_status = NULL;
	nvmf_gw_stop(gw);
	nvmf_ctl_stop(&ctl);
	nvmf_tgt_shutdown(&tgt, 10000);
	nvmf_tgt_fini(&tgt);
	nvmf_created_free(&created);
	nvmf_config_free(&cfg);
	if (!rc) /* the levels outlive nvmf_tgt_fini */
		nvmf_log(&tgt, NVMF_LOG_INFO, "stopped");
	/* An rbd close still waiting on a cluster that does not answer (logged when it was
	 * left): exit() would run librados' destructors under it. */
	if (nvmf_bdev_rbd_closing()) {
		nvmf_log(&tgt, NVMF_LOG_WARNING,
			 "exiting with %u rbd image close(s) unfinished: the cluster did not "
			 "answer them",
			 nvmf_bdev_rbd_closing());
		fflush(NULL);
		_exit(rc ? 1 : 0);
	}
	return rc;
}
