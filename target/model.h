/* SPDX-License-Identifier: MIT */
/*
 * Subsystems and ports added, removed, linked and unlinked while hosts are connected
 * (the control plane's model changes; namespaces are target/namespace.h). Every function
 * runs on the main poll group, which owns the model, the listeners and the controllers.
 * Each one checks before it changes anything: an error leaves the target as it was.
 * Each change that alters what a host may discover moves the discovery log's generation
 * counter and notifies persistent discovery controllers (nvmf_tgt_disc_changed).
 */
#ifndef NVMF_TARGET_MODEL_H
#define NVMF_TARGET_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include "subsystem/config.h"

struct nvmf_tgt;
struct nvmf_subsys;
struct nvmf_port;

/* nvmf_tgt_subsys_add - serve subsystem @sc (copied; its enabled namespaces opened, all
 * or none), exposed on no port yet; its allowed hosts join the running config's hosts[]
 * (see nvmf_tgt_host_add). 0, or with @err: -EEXIST (the NQN is taken), -EIO
 * (a namespace did not open: "namespaces[1] (subsystem X, namespace 2): reason"),
 * -ENOMEM. */
int nvmf_tgt_subsys_add(struct nvmf_tgt *tgt, const struct nvmf_subsys_config *sc, char *err,
			size_t errlen);
/* nvmf_tgt_subsys_remove - stop serving @s: taken off every port, its controllers torn
 * down (*@dropped of them), its namespaces closed after their last command. 0 or
 * -ENOENT / -ENOMEM with @err. */
int nvmf_tgt_subsys_remove(struct nvmf_tgt *tgt, struct nvmf_subsys *s, unsigned *dropped,
			   char *err, size_t errlen);

/* nvmf_tgt_subsys_reap - free the removed subsystems no controller points at any more
 * (called as controllers go). */
void nvmf_tgt_subsys_reap(struct nvmf_tgt *tgt);

/* nvmf_tgt_port_add - listen on the port @pc describes (copied), exposing the
 * subsystems it names. 0, or with @err: -EEXIST (portid taken), -EADDRINUSE (a running
 * port holds its address: nvmf_port_config_overlaps, that port named), -ENOENT (a
 * subsystem it names does not exist), -ENOTSUP (its transport is not running),
 * -EADDRNOTAVAIL (the transport could not listen: the reason), -ENOMEM. */
int nvmf_tgt_port_add(struct nvmf_tgt *tgt, const struct nvmf_port_config *pc, char *err,
		      size_t errlen);
/* nvmf_tgt_port_remove - stop listening on @port and tear down the controllers reached
 * through it (*@dropped). 0 or -ENOENT / -ENOMEM with @err. */
int nvmf_tgt_port_remove(struct nvmf_tgt *tgt, struct nvmf_port *port, unsigned *dropped, char *err,
			 size_t errlen);
/* nvmf_tgt_port_link - @port exposes @s from now on (nvmetcli's ports/N/subsystems link).
 * 0, or -EEXIST (already) / -ENOMEM with @err. */
int nvmf_tgt_port_link(struct nvmf_tgt *tgt, struct nvmf_port *port, struct nvmf_subsys *s,
		       char *err, size_t errlen);
/* nvmf_tgt_port_unlink - @port stops exposing @s; the controllers of @s reached through
 * @port are torn down (*@dropped). 0, or -ENOENT with @err. */
int nvmf_tgt_port_unlink(struct nvmf_tgt *tgt, struct nvmf_port *port, struct nvmf_subsys *s,
			 unsigned *dropped, char *err, size_t errlen);

/* nvmf_tgt_host_add - @host (an NQN, checked by the caller) may connect to @s; it joins
 * the running config's hosts[] if not there (as nvmf_tgt_subsys_add does for the allowed
 * hosts of a new subsystem), so that config_save writes a file the loader takes. 0, or
 * -EEXIST / -ENOMEM with @err. */
int nvmf_tgt_host_add(struct nvmf_tgt *tgt, struct nvmf_subsys *s, const char *host, char *err,
		      size_t errlen);
/* nvmf_tgt_host_remove - @host may no longer connect to @s; unless any host may, its
 * controllers of @s are torn down (*@dropped). 0, or -ENOENT with @err. */
int nvmf_tgt_host_remove(struct nvmf_tgt *tgt, struct nvmf_subsys *s, const char *host,
			 unsigned *dropped, char *err, size_t errlen);
/*
 * nvmf_tgt_host_dhchap_set - give @host (an NQN, checked by the caller) DH-HMAC-CHAP
 * settings, in the running config (hosts[].dhchap, which config_save writes; @host joins
 * hosts[] if it is not there) and in the key table: as nvmf_tgt_host_auth_set (new
 * controllers, and every new transaction of live ones, use them). @key: "DHHC-1:..."
 * (required); @ctrl_key, @hash, @dhgroup: NULL for none / the defaults. 0, or -EINVAL
 * (a bad value: @err names it, never a secret) / -ENOMEM with @err.
 */
int nvmf_tgt_host_dhchap_set(struct nvmf_tgt *tgt, const char *host, const char *key,
			     const char *ctrl_key, const char *hash, const char *dhgroup, char *err,
			     size_t errlen);
/* nvmf_tgt_host_tls_key_set - give @host (an NQN, checked by the caller) the TLS PSK in
 * key file @key_file (nvmf_tls_key_file_read's rules), in the running config
 * (hosts[].nvmf_tls_key_file; @host joins hosts[] if it is not there), with @compat
 * (hosts[].nvmf_tls_key_compat: version 0 identities derived in libnvme's compat layout,
 * nvme/tls-psk.h). Used from the host's next handshake. 0, or -EINVAL / -EACCES /
 * -ENOENT ... with @err naming the file (never the key), -ENOMEM. */
int nvmf_tgt_host_tls_key_set(struct nvmf_tgt *tgt, const char *host, const char *key_file,
			      bool compat, char *err, size_t errlen);
/* nvmf_tgt_host_tls_key_clear - @host has no TLS PSK from now on. 0, or -ENOENT. */
int nvmf_tgt_host_tls_key_clear(struct nvmf_tgt *tgt, const char *host, char *err, size_t errlen);
/* nvmf_tgt_host_dhchap_clear - @host no longer authenticates: new controllers connect
 * without; live ones keep their keys (see target/auth.h). 0, or -ENOENT with @err. */
int nvmf_tgt_host_dhchap_clear(struct nvmf_tgt *tgt, const char *host, char *err, size_t errlen);
/* nvmf_tgt_host_admitted - some NVM subsystem lets @host connect: it lists @host in its
 * allowed hosts or has allow_any_host on (the discovery subsystem does not count). */
bool nvmf_tgt_host_admitted(const struct nvmf_tgt *tgt, const char *host);
/* nvmf_tgt_warn_unadmitted_keys - log a warning (component auth) for each host with
 * DH-HMAC-CHAP keys (hosts[].dhchap) that no subsystem admits: most likely an NQN mistyped
 * in hosts[] or in allowed_hosts. At start and after a reload. Returns how many. */
unsigned nvmf_tgt_warn_unadmitted_keys(struct nvmf_tgt *tgt);
/* nvmf_tgt_allow_any_host - attr.allow_any_host of @s; turned off, controllers of hosts
 * not in the list are torn down (*@dropped). Returns whether it changed. */
bool nvmf_tgt_allow_any_host(struct nvmf_tgt *tgt, struct nvmf_subsys *s, bool allow,
			     unsigned *dropped);

#endif
