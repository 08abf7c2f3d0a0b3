/* SPDX-License-Identifier: MIT */
/*
 * The target's configuration, as read from JSON: nvmetcli's config.json layout loads
 * unchanged, and our extensions live under keys named "nvmf_*" (see docs/configuration.md).
 * This is plain data: loading it opens no backing file and changes nothing on disk, so a
 * broken config is rejected before the target touches any storage.
 */
#ifndef NVMF_SUBSYSTEM_CONFIG_H
#define NVMF_SUBSYSTEM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/log-names.h"

#define NVMF_CFG_NQN_MAX      224 /* NQN buffer: 223 characters + NUL (NVMe Base 4.5) */
/* ANA group IDs (NVMe Base 2.0 section 8.1.2): 1 to 128, as the kernel target
 * (NVMET_MAX_ANAGRPS); group 1 exists on every port. */
#define NVMF_MAX_ANAGRPID     128
#define NVMF_DEFAULT_ANAGRPID 1

/* Kind of storage behind a namespace. nvmetcli files have only device.path; the kind is
 * then inferred from what the path is (regular file, block device, NVMe block device). */
enum nvmf_backend_kind {
	NVMF_BACKEND_AUTO = 0, /* infer from device.path when the backend opens */
	NVMF_BACKEND_FILE,     /* regular file; created and sized if nvmf_size_bytes given */
	NVMF_BACKEND_BDEV,     /* block device */
	NVMF_BACKEND_NVME, /* raw NVMe drive: its block device for data, identity from the drive */
	NVMF_BACKEND_RAM,  /* anonymous memory of nvmf_size_bytes */
	NVMF_BACKEND_NULL, /* completes without storing; reads return zeroes */
	NVMF_BACKEND_PASSTHRU, /* a namespace of a passthru subsystem's drive (never in a
				* namespace's config: nvmf_bdev_open_passthru) */
	NVMF_BACKEND_RBD,      /* a Ceph RBD image through librbd (nvmf_rbd_* keys) */
};

/* Default Ceph configuration file and client of an rbd namespace. */
#define NVMF_RBD_DEFAULT_CONF   "/etc/ceph/ceph.conf"
#define NVMF_RBD_DEFAULT_CLIENT "admin"

/* Where an rbd namespace's image is (its namespace's nvmf_rbd_* keys; docs/ceph.md).
 * Strings, "" when not given; the loader fills conf and client_id with their defaults. */
struct nvmf_rbd_config {
	char pool[128];     /* nvmf_rbd_pool (required) */
	char image[128];    /* nvmf_rbd_image (required) */
	char rados_ns[128]; /* nvmf_rbd_namespace: the RADOS namespace in the pool, "" none */
	char conf[256];     /* nvmf_rbd_conf: ceph.conf, an absolute path */
	char keyring[256];  /* nvmf_rbd_keyring: an absolute path, "" = what ceph.conf says
			      * (a path, never the key itself: nothing secret is kept here) */
	char client_id[64]; /* nvmf_rbd_client_id: the cephx user without "client." */
};

/* One namespace of a subsystem (nvmetcli "namespaces[]"). */
struct nvmf_ns_config {
	uint32_t nsid; /* 1..NVMF_MAX_NSID, unique in its subsystem */
	bool enable;   /* nvmetcli "enable": disabled namespaces are not exposed */
	char *path;    /* device.path; NULL for ram/null */
	bool has_uuid, has_nguid, has_eui64;
	uint8_t uuid[16];            /* device.uuid, RFC 4122 byte order */
	uint8_t nguid[16];           /* device.nguid, bytes in the order written */
	uint8_t eui64[8];            /* nvmf_eui64 (extension) */
	enum nvmf_backend_kind kind; /* nvmf_backend: "file", "bdev", "nvme", "ram", "null",
				      * "rbd" */
	uint64_t size_bytes; /* nvmf_size_bytes: ram/null size, or file size to create; 0 = as found */
	uint32_t block_size; /* nvmf_block_size: 512 or 4096; 0 = from the device (file: 512) */
	bool create;         /* nvmf_create: create the file if missing (needs size_bytes) */
	bool buffered;       /* nvmf_buffered: do not use O_DIRECT */
	uint32_t anagrpid;   /* ana_grpid (and nvmetcli's ana.grpid): its ANA group,
				     * 1..NVMF_MAX_ANAGRPID; 0 (configs built in code) = 1 */
	bool resv_enable;    /* nvmetcli "resv": {"enable": "1"}: NVMe reservations
				     * (target/resv.h); default off, as nvmet */
	struct nvmf_rbd_config rbd; /* kind NVMF_BACKEND_RBD only (all "" otherwise) */
};

/* A subsystem's passthru group (nvmetcli "subsystems[].passthru", the kernel's configfs
 * passthru/ attributes): with enable, the subsystem serves a whole NVMe drive
 * (subsystem/nvme-drive.h) and has no namespaces[] of its own. */
struct nvmf_passthru_config {
	bool enable;            /* "enable" "0"/"1" */
	char device_path[256];  /* "device": {"path"}: the controller's char device, /dev/nvmeX */
	uint32_t admin_timeout; /* "admin_timeout", seconds per admin command; 0 = the drive's
				 * default (the kernel's admin_timeout, 60 s) */
	uint32_t io_timeout;    /* "io_timeout", seconds per I/O command; 0 = default (30 s) */
	bool clear_ids;         /* "clear_ids" (the kernel's default 1): Identify answers
				 * without the drive's EUI-64/NGUID/UUID, so a host that also
				 * sees the drive locally does not take the two for one path */
};

/* One subsystem (nvmetcli "subsystems[]"). */
struct nvmf_subsys_config {
	char nqn[NVMF_CFG_NQN_MAX];
	bool allow_any_host;  /* attr.allow_any_host "0"/"1" */
	char **allowed_hosts; /* host NQNs, n_allowed_hosts of them */
	size_t n_allowed_hosts;
	char serial[21];                 /* attr.serial, ASCII; "" = derived from the NQN */
	char model[41];                  /* attr.model; "" = default model string */
	char firmware[9];                /* attr.firmware; "" = "0.1" (subsystem.c) */
	uint32_t version;                /* attr.version "1.3" -> 0x00010300; 0 = default (2.0) */
	uint16_t cntlid_min, cntlid_max; /* attr.cntlid_min/max; defaults 1 and 0xffef */
	uint16_t qid_max;                /* attr.qid_max, I/O queues per controller; default 128 */
	struct nvmf_ns_config *ns;
	size_t n_ns;
	struct nvmf_passthru_config passthru; /* enable: serves a drive, n_ns is 0 */
};

/* One referral of a port (nvmetcli's "ports[].referrals[]": the configfs referral's
 * addr_* attributes, enable and its directory name): another discovery service that the
 * port's discovery log points hosts to (subtype 1, NVMe-oF 1.1 section 5.3). The
 * address is the referred service's, so any transport nvme-cli can reach is taken. */
struct nvmf_referral_config {
	char name[256];   /* "name": its configfs directory name, unique in the port */
	char trtype[8];   /* addr.trtype: "rdma" or "tcp" */
	int adrfam;       /* addr.adrfam: AF_INET or AF_INET6 */
	char traddr[64];  /* addr.traddr: numeric IP address of adrfam, not a wildcard */
	char trsvcid[32]; /* addr.trsvcid: decimal port; default 4420 (rdma), 8009 (tcp) */
	uint8_t treq;     /* addr.treq: 0 not specified, 1 required, 2 not required (the
				     * referred service's requirement, advertised as it is) */
	uint16_t portid;  /* addr.portid: the referred service's port ID; default 0 */
	bool enable;      /* "enable" (default 1): a disabled one is kept, not listed */
};

/* One ANA group a port defines (nvmetcli "ports[].ana_groups[]") and its ANA state
 * there: a NVME_ANA_STATE_* value of libnvme (01h optimized, 02h non-optimized, 03h
 * inaccessible, 04h persistent loss, 0Fh change; NVMe Base 2.0 figure 262). */
struct nvmf_ana_group_config {
	uint32_t grpid; /* 1..NVMF_MAX_ANAGRPID, once per port */
	uint8_t state;
};

/* One port (nvmetcli "ports[]"). Only trtype "rdma" is loaded from a file; others are
 * refused there. */
struct nvmf_port_config {
	uint16_t portid;
	char trtype[16];  /* addr.trtype: the transport's name ("rdma", "tcp"; "loop" in tests) */
	int adrfam;       /* AF_INET or AF_INET6 */
	char traddr[256]; /* numeric address; "0.0.0.0" / "::" = any */
	char trsvcid[32]; /* decimal port; default "4420" */
	uint8_t treq;     /* discovery log TREQ byte: 0 not specified, 1 required, 2 not required;
				     * a tls1.3 port's "not specified" is loaded as required */
	uint8_t tsas;     /* addr.tsas of a tcp port: NVMF_TCP_SECTYPE_NONE (0), or
				     * NVMF_TCP_SECTYPE_TLS13 (2): TLS 1.3 with a PSK, required
				     * (treq 1) or the host's choice (treq 2) */
	uint32_t inline_data_size;   /* param.inline_data_size bytes; -1 in the file = default */
	uint32_t max_queue_size;     /* param.max_queue_size entries; -1 = default */
	uint32_t mdts;               /* param.mdts (the kernel's param_mdts, 6.x on): MDTS of
				     * the controllers of this port, log2(max transfer / 4 KiB),
				     * 1-10; 0 = nvmf_target.mdts (the file's 0, the kernel's "no
				     * limit", and -1 mean that) */
	uint32_t maxh2cdata;         /* param.nvmf_maxh2cdata (tcp ports): bytes one H2CData PDU
				     * may carry, the ICResp MAXH2CDATA; 0 = default
				     * NVMF_DEFAULT_MAXH2CDATA */
	uint32_t zerocopy_threshold; /* param.nvmf_zerocopy_threshold (tcp ports): C2HData
				     * payloads of at least this many bytes are sent with
				     * MSG_ZEROCOPY; 0 = never. Default NVMF_DEFAULT_ZEROCOPY */
	char **subsystems;           /* NQNs exposed on this port */
	size_t n_subsystems;
	struct nvmf_referral_config *referrals; /* "referrals": n_referrals of them */
	size_t n_referrals;
	struct nvmf_ana_group_config *ana_groups; /* groups defined here, n_ana_groups of them;
				     * group 1 is defined even when not listed (optimized), any
				     * other group not listed is inaccessible here, as nvmet
				     * (nvmf_port_config_ana_state) */
	size_t n_ana_groups;
};

/* What the discovery log lists to a host (nvmf_target.discovery_log). */
enum nvmf_disc_log_mode {
	NVMF_DISC_LOG_ALL_PORTS = 0, /* "all-ports" (default): every port's entries, so a
					 * multipath host sees every path */
	NVMF_DISC_LOG_HOST_PORT,     /* "host-port": only the port the host came in on (nvmet) */
};

/* The log's levels and components (enum nvmf_log_level, enum nvmf_log_component) and
 * their names are util/log-names.h's: the config names them (nvmf_target.log_level) as
 * the target, its control socket and nvmf-targetctl do. */

/* Target-wide settings (extension object "nvmf_target"). */
struct nvmf_target_config {
	char discovery_nqn[NVMF_CFG_NQN_MAX]; /* "discovery.nqn"; default the well-known NQN */
	uint32_t mdts; /* nvmf_target.mdts: max data transfer 2^mdts * 4 KiB; default 8 (1 MiB) */
	uint32_t threads; /* nvmf_target.threads: 1 (default): one thread does everything;
				     * N > 1: N I/O poll-group threads beside the main thread */
	uint32_t buffers_small, buffers_large; /* pool sizes (buffers); defaults 1024 and 64 */
	bool hugepages;        /* nvmf_target.hugepages: try huge pages for pools; default true */
	uint32_t idle_poll_us; /* busy-poll this long after the last work before sleeping; default 1000 */
	bool srq;              /* nvmf_target.srq: one shared receive queue per poll group and
				     * device where the device has SRQs; default true */
	uint32_t srq_depth; /* nvmf_target.srq_depth: receives per SRQ; default 4096 */
	int post_thread;    /* nvmf_target.post_thread: "auto" (default) -1: RDMA poll groups
				     * post large send chains from a thread of their own on
				     * software devices (rxe, siw); "on" 1: on every device;
				     * "off" 0: never */
	int numa_node;      /* nvmf_target.numa_node: where worker threads run; -1 (default):
				     * the RDMA device's node */
	enum nvmf_disc_log_mode discovery_log; /* nvmf_target.discovery_log; default all-ports */
	uint32_t discovery_kato; /* nvmf_target.discovery_kato: seconds a discovery controller
				     * whose host asked for KATO 0 lives without commands; default
				     * 120 (nvmet's NVMET_DISC_KATO_MS) */
	char rpc_socket[108];    /* nvmf_target.rpc_socket: the control socket's path; "" with
				     * rpc_socket_set: none. Unset: the default (--rpc-socket wins) */
	bool rpc_socket_set;
	char resv_state[1024]; /* nvmf_target.resv_state: the reservations' state file
				     * (Persist Through Power Loss, target/resv.h); "" with
				     * resv_state_set: none (PTPL unsupported). Unset: the config
				     * file's name + ".resv.json" */
	bool resv_state_set;
	bool persist; /* nvmf_target.persist (default true): each live change made through the
		       * control socket is written through to the config file (control/control.h);
		       * false: reload refuses while live changes are unsaved, unless forced */
	int8_t log_level[NVMF_LOGC_COUNT]; /* nvmf_target.log_level, {"tcp": "debug", ...}: a
				     * component's enum nvmf_log_level; -1 (default): not named,
				     * so the daemon's --log-level (default info) */
	bool log_level_base_set;           /* log_level_base is the level of the components
				     * log_level does not name: the daemon's --log-level, set
				     * by the program before nvmf_tgt_init, which then applies
				     * both (never read from or saved to the file). Unset (a
				     * config built in code): nvmf_tgt_init sets every
				     * component to info */
	enum nvmf_log_level log_level_base;
};

/* hosts[].dhchap of a host that has a key: nvmetcli's dump of the kernel's configfs host
 * attributes dhchap_key, dhchap_ctrl_key, dhchap_hash, dhchap_dhgroup. The strings are
 * as written (checked by the loader); the secrets are zeroed when the config is freed. */
struct nvmf_dhchap_config {
	char *hostnqn;
	char *key;      /* "DHHC-1:NN:...:" */
	char *ctrl_key; /* NULL: none (unidirectional only) */
	char *hash;     /* "hmac(sha256)" ...; NULL: hmac(sha256) */
	char *dhgroup;  /* "null", "ffdhe2048" ...; NULL: null */
};

/* hosts[].nvmf_tls_key or hosts[].nvmf_tls_key_file of a host with a TLS pre-shared key
 * (NVMe/TCP secure channel, TCP transport spec section 3.6): the configured PSK in its
 * interchange form, checked by the loader. The secret is zeroed when freed. */
struct nvmf_tls_key_config {
	char *hostnqn;
	char *key;      /* "NVMeTLSkey-1:01:<base64>:" (or :02:) */
	char *key_file; /* the absolute path it was read from (a file only its owner can
			   * read); NULL: inline in the configuration file */
	bool compat;    /* hosts[].nvmf_tls_key_compat: version 0 identities get the TLS PSK
			 * of libnvme's compat HKDF layout (nvme-cli <= 2.15 inserted keys so;
			 * nvme/tls-psk.h), not RFC 8446's; version 1 ones go by their digest */
};

/* ---- a gateway group (top-level "nvmf_gateway", subsystem/config_gateway.c) ---- */

#define NVMF_GW_NAME_MAX      63 /* gateway and group names: bytes, [A-Za-z0-9_-] */
#define NVMF_GW_LEASE_MIN     3  /* lease_seconds' range */
#define NVMF_GW_LEASE_MAX     120
#define NVMF_GW_LEASE_DEFAULT 10

/* One ANA group the gateway group manages, and the gateway it belongs to while alive. */
struct nvmf_gateway_ana_config {
	uint32_t grpid;                       /* 1..NVMF_MAX_ANAGRPID, defined on a port */
	char preferred[NVMF_GW_NAME_MAX + 1]; /* the preferred gateway's name */
};

/* "nvmf_gateway": this target is gateway @name of the gateway group @group, whose members
 * share ANA groups through RADOS object locks in @pool (gateway/gateway.h,
 * docs/gateway.md). Fixed-size: a copy of the config copies it. */
struct nvmf_gateway_config {
	bool enable;                          /* the key is in the file */
	char name[NVMF_GW_NAME_MAX + 1];      /* this gateway, unique in its group */
	char group[NVMF_GW_NAME_MAX + 1];     /* the gateway group */
	char ceph_conf[1024];                 /* absolute path of ceph.conf */
	char keyring[1024];                   /* absolute path; "" = ceph.conf's */
	char client_id[NVMF_GW_NAME_MAX + 1]; /* the Ceph user without "client."; default admin */
	char pool[128];                       /* the RADOS pool of the lock objects; default rbd */
	uint32_t lease_seconds;               /* a lock's lease, NVMF_GW_LEASE_MIN..MAX */
	struct nvmf_gateway_ana_config ana_groups[NVMF_MAX_ANAGRPID];
	size_t n_ana_groups; /* at least 1, each grpid once */
};

/* nvmf_gateway_config_diff - the name of the first key of "nvmf_gateway" in which @a and
 * @b differ ("nvmf_gateway" itself when one has the key and the other not,
 * "nvmf_gateway.ana_groups" for any difference there), or NULL when equal. */
const char *nvmf_gateway_config_diff(const struct nvmf_gateway_config *a,
				     const struct nvmf_gateway_config *b);
/* nvmf_gateway_config_manages - @g is enabled and shares ANA group @grpid: the gateway
 * group decides its state on every port, nothing else does. */
bool nvmf_gateway_config_manages(const struct nvmf_gateway_config *g, uint32_t grpid);

/* The whole configuration. */
struct nvmf_config {
	struct nvmf_target_config target;
	char **hosts; /* "hosts[].nqn": known hosts */
	size_t n_hosts;
	struct nvmf_dhchap_config *dhchap; /* the hosts that must authenticate, n_dhchap */
	size_t n_dhchap;
	struct nvmf_tls_key_config *tls_keys; /* the hosts with a TLS PSK, n_tls_keys */
	size_t n_tls_keys;
	struct nvmf_port_config *ports;
	size_t n_ports;
	struct nvmf_subsys_config *subsystems;
	size_t n_subsystems;
	struct nvmf_gateway_config gateway; /* "nvmf_gateway"; enable false: none */
	/* One line each about a key nvmetcli writes that this target does not use, found with
	 * a value other than its default ("subsystems[0].attr.ieee_oui: \"0x001b21\" is not
	 * used: ..."); the start and each reload log them. n_notes of them. */
	char **notes;
	size_t n_notes;
};

/* Defaults (nvmetcli's where it has the key; ours for the nvmf_* keys). */
#define NVMF_DEFAULT_QUEUE_SIZE 128    /* param.max_queue_size, entries */
#define NVMF_DEFAULT_INLINE     8192   /* param.inline_data_size, bytes */
#define NVMF_DEFAULT_MAXH2CDATA 131072 /* param.nvmf_maxh2cdata, bytes (SPDK's default) */
#define NVMF_DEFAULT_ZEROCOPY \
	32768                              /* param.nvmf_zerocopy_threshold, bytes: the kernel's
					* MSG_ZEROCOPY notes put the gain above about 10 KB */
#define NVMF_DEFAULT_QID_MAX   128         /* attr.qid_max, I/O queues per controller */
#define NVMF_DEFAULT_VERSION   0x00020000u /* attr.version: NVMe 2.0 (VS register layout) */
#define NVMF_DEFAULT_MDTS      8           /* nvmf_target.mdts: 2^8 x 4 KiB = 1 MiB */
#define NVMF_DEFAULT_DISC_KATO 120         /* nvmf_target.discovery_kato, seconds */

/*
 * Defaults, applied by the loader before each object is read; configs built in code
 * (tests, embedding programs) call them the same way. nvmf_config_target_defaults sets
 * every field of @t; the others only the fields that have a default (NQNs, lists and
 * the rest are the caller's).
 */
void nvmf_config_target_defaults(struct nvmf_target_config *t);
void nvmf_config_subsys_defaults(struct nvmf_subsys_config *s);
void nvmf_config_port_defaults(struct nvmf_port_config *p);

/*
 * nvmf_config_load - read and validate a JSON configuration file.
 * @path:   file name.
 * @cfg:    filled on success; release with nvmf_config_free().
 * @err:    on failure, one line naming the JSON path and what is wrong, e.g.
 *          "ports[0].addr.trsvcid: \"44x\" is not a port number (1-65535)";
 *          "cannot open PATH: <strerror>" for an unreadable file, "is a directory, not
 *          a configuration file", "is a FIFO, not a regular file" (a character or block
 *          device, a socket likewise), "is larger than 16 MiB (the limit for this
 *          file)" (NVMF_CONFIG_FILE_MAX), "is empty (a configuration is one JSON
 *          object)" for one with nothing but white space, and
 *          "line L, column C: <jansson's message>" for bad JSON (duplicate keys included).
 * @errlen: size of @err in bytes.
 * Returns 0, or -1 with @err set (file unreadable, bad JSON with line and column, a key
 * the loader does not know, by its path and with the known key nearest to it ("did you
 * mean"), a value of the wrong JSON type, any invalid field, duplicate NQN/nsid/portid, a port naming an unknown subsystem, a port
 * whose trtype is not rdma or tcp, an ANA group or state that is not one, a namespace in an ANA
 * group no port defines). On -1, @cfg is left zeroed (nothing to free). Touches no
 * backing file. The messages are listed in docs/configuration.md.
 */
int nvmf_config_load(const char *path, struct nvmf_config *cfg, char *err, size_t errlen);

/* nvmf_config_parse - the same from a JSON string (for tests). */
int nvmf_config_parse(const char *json, struct nvmf_config *cfg, char *err, size_t errlen);

struct json_t;
/*
 * nvmf_config_parse_ns - one namespaces[] object @obj (nvmetcli keys plus nvmf_*) into
 * @ns, with the loader's rules and messages; @base names the object in them (e.g.
 * "namespace" gives "namespace.device.path: not an absolute path"). The control socket
 * adds namespaces with it. 0, or -1 with @err; on -1 @ns holds nothing to free. Notes
 * about unused nvmetcli keys (nvmf_config.notes) are not kept here.
 */
int nvmf_config_parse_ns(struct json_t *obj, const char *base, struct nvmf_ns_config *ns, char *err,
			 size_t errlen);
/* nvmf_config_parse_subsys - one subsystems[] object (its namespaces too) as the loader
 * reads it; @disc_nqn is refused as its NQN. nvmf_config_parse_port - one ports[] object;
 * the subsystems it names are not checked here (the caller knows which exist). Both: 0,
 * or -1 with @err (paths under @base), nothing left to free. */
int nvmf_config_parse_subsys(struct json_t *obj, const char *base, const char *disc_nqn,
			     struct nvmf_subsys_config *s, char *err, size_t errlen);
int nvmf_config_parse_port(struct json_t *obj, const char *base, struct nvmf_port_config *p,
			   char *err, size_t errlen);
/* nvmf_port_config_overlaps - whether @a and @b cannot both listen: the same trtype,
 * address family and trsvcid, and the same traddr or either one its family's wildcard
 * (0.0.0.0, ::), so the second bind would fail with EADDRINUSE. An rdma and a tcp port
 * never overlap: rdma_cm binds in its own port space on RoCE and InfiniBand (on iWARP,
 * whose connections are TCP's, the bind fails at start and says so). The loader
 * refuses such a pair in one file; a port added live is checked against the running ones
 * with it. */
bool nvmf_port_config_overlaps(const struct nvmf_port_config *a, const struct nvmf_port_config *b);
/* nvmf_config_check_nqn - @nqn is a valid NQN (1-223 bytes, no spaces or control
 * characters); else -1 with @err "@what: reason". */
int nvmf_config_check_nqn(const char *what, const char *nqn, char *err, size_t errlen);
/* nvmf_backend_kind_name - "auto", "file", "bdev", "nvme", "ram", "null" or "rbd", as the
 * config's nvmf_backend spells it ("passthru" for a drive's namespace, "?" for anything
 * else). */
const char *nvmf_backend_kind_name(enum nvmf_backend_kind kind);
/* nvmf_config_ns_free - what nvmf_config_parse_ns allocated in @ns (its path). */
void nvmf_config_ns_free(struct nvmf_ns_config *ns);

/*
 * nvmf_config_to_json - @cfg in nvmetcli's layout plus our nvmf_* keys: what
 * nvmf_config_load reads back into the same configuration (subsystem/config_save.c).
 * A new reference, or NULL without memory.
 */
struct json_t *nvmf_config_to_json(const struct nvmf_config *cfg);
/*
 * nvmf_config_save - write nvmf_config_to_json(@cfg) to @path atomically: a temporary
 * file beside it, fsync, rename over @path, fsync of the directory; a crash leaves the
 * old file or the new one, never a mix. 0, or -errno with @err naming the file.
 */
int nvmf_config_save(const struct nvmf_config *cfg, const char *path, char *err, size_t errlen);

/* nvmf_disc_log_mode_name - "all-ports" or "host-port", as nvmf_target.discovery_log
 * spells the mode ("?" for anything else). */
const char *nvmf_disc_log_mode_name(enum nvmf_disc_log_mode mode);

/* nvmf_post_thread_name - "auto", "off" or "on" for nvmf_target.post_thread's -1, 0 or 1
 * ("?" for anything else). */
const char *nvmf_post_thread_name(int post_thread);

/* nvmf_config_referrals_dup - a deep copy of @n referrals of @src into *@out (NULL when @n
 * is 0): 0 or -ENOMEM (nothing allocated). nvmf_config_referrals_equal - the same
 * referrals in the same order. */
int nvmf_config_referrals_dup(const struct nvmf_referral_config *src, size_t n,
			      struct nvmf_referral_config **out);
bool nvmf_config_referrals_equal(const struct nvmf_port_config *a,
				 const struct nvmf_port_config *b);

/* nvmf_config_subsys_dup / nvmf_config_port_dup - a deep copy of @src in @dst (lists and
 * paths copied): 0, or -ENOMEM with @dst left empty. _clear frees what a copy or the loader
 * put in one and zeroes it. The served model owns such copies (subsystem/subsystem.h). */
int nvmf_config_subsys_dup(const struct nvmf_subsys_config *src, struct nvmf_subsys_config *dst);
void nvmf_config_subsys_clear(struct nvmf_subsys_config *s);
int nvmf_config_port_dup(const struct nvmf_port_config *src, struct nvmf_port_config *dst);
void nvmf_config_port_clear(struct nvmf_port_config *p);

/* ---- ANA (subsystem/config_ana.c, NVMe Base 2.0 section 8.1) ---- */

/* The ANA states' names are nvme/ana-state.h's (nvme_ana_state_name, _parse). */
/* nvmf_ns_config_anagrpid - @ns's ANA group: its anagrpid, 1 when 0. */
uint32_t nvmf_ns_config_anagrpid(const struct nvmf_ns_config *ns);
/* nvmf_port_config_ana_group - @p's entry of group @grpid, or NULL when it lists none. */
const struct nvmf_ana_group_config *nvmf_port_config_ana_group(const struct nvmf_port_config *p,
							       uint32_t grpid);
/* nvmf_port_config_defines - @p defines group @grpid: listed, or group 1. */
bool nvmf_port_config_defines(const struct nvmf_port_config *p, uint32_t grpid);
/* nvmf_port_config_ana_state - the state of group @grpid (1..NVMF_MAX_ANAGRPID) on @p:
 * the listed one; group 1 unlisted optimized; any other unlisted group inaccessible (the
 * kernel target's port defaults, configfs.c). */
uint8_t nvmf_port_config_ana_state(const struct nvmf_port_config *p, uint32_t grpid);
/* nvmf_config_ana_groups_dup - a copy of @n entries of @src into *@out (NULL when @n is
 * 0). 0 or -ENOMEM (nothing allocated then). */
int nvmf_config_ana_groups_dup(const struct nvmf_ana_group_config *src, size_t n,
			       struct nvmf_ana_group_config **out);

/* nvmf_config_free - release everything nvmf_config_load() allocated; @cfg may be zeroed. */
void nvmf_config_free(struct nvmf_config *cfg);
/* nvmf_config_json_wipe - make jansson zero every block it frees (process-wide; call
 * once at start, before any JSON exists): parsed configs and control requests hold
 * DH-HMAC-CHAP secrets in jansson's strings, which it frees without zeroing. */
void nvmf_config_json_wipe(void);
/* nvmf_tls_key_file_read - the TLS PSK in key file @path (absolute; a regular file of at
 * most 4 KiB no one but its owner may read, holding one key in the interchange form, as
 * `nvme gen-tls-key` prints it) into *@out (malloc'ed, trailing white space dropped; the
 * caller zeroes and frees it). 0, or -errno with @err naming @path and what is wrong
 * (never the key): -EINVAL not absolute / not one key (bad CRC, length, form), -EACCES
 * group or other permission bits, and nvmf_read_regular_file's errors. */
int nvmf_tls_key_file_read(const char *path, char **out, char *err, size_t errlen);
/* nvmf_config_tls_keys_clear - free what entry @e holds (the key zeroed) and zero it. */
void nvmf_config_tls_keys_clear(struct nvmf_tls_key_config *e);
/* nvmf_config_tls_keys_free - free the @n entries of @k and @k itself, secrets zeroed. */
void nvmf_config_tls_keys_free(struct nvmf_tls_key_config *k, size_t n);
/* nvmf_config_tls_keys_dup - a deep copy of @n entries of @src into *@out (NULL when @n
 * is 0). 0 or -ENOMEM (nothing allocated then). */
int nvmf_config_tls_keys_dup(const struct nvmf_tls_key_config *src, size_t n,
			     struct nvmf_tls_key_config **out);
/* nvmf_config_tls_key - the entry of @host in @cfg's TLS keys, or NULL. */
const struct nvmf_tls_key_config *nvmf_config_tls_key(const struct nvmf_config *cfg,
						      const char *host);
/* nvmf_config_dhchap_clear - free what entry @e holds (secrets zeroed) and zero it. */
void nvmf_config_dhchap_clear(struct nvmf_dhchap_config *e);
/* nvmf_config_dhchap_free - free the @n entries of @d and @d itself, secrets zeroed. */
void nvmf_config_dhchap_free(struct nvmf_dhchap_config *d, size_t n);
/* nvmf_config_dhchap_dup - a deep copy of @n entries of @src into *@out (NULL when @n is
 * 0). Returns 0 or -ENOMEM (nothing allocated then). */
int nvmf_config_dhchap_dup(const struct nvmf_dhchap_config *src, size_t n,
			   struct nvmf_dhchap_config **out);

#endif
