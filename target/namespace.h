/* SPDX-License-Identifier: MIT */
/*
 * Namespaces changed while hosts run I/O: added, removed, enabled, disabled, resized.
 * Every function here runs on the main poll group (the control socket's calls do), the
 * only writer of the model; I/O groups see a change through the namespace slot
 * (nvmf_subsys_ns) and the size (nvmf_ns_nlb), never through a lock.
 *
 * A namespace taken away (removed or disabled) reads as inactive at once: new commands
 * to it fail with Invalid Namespace or Format. Commands already holding it finish
 * normally; its backend is closed after the last of them has answered (every group has
 * seen the change, by message, and its in-flight count reads 0). Each change adds the
 * nsid to the Changed Namespace List (log 04h) of every controller of the subsystem and
 * sends a Namespace Attribute Changed event where the host enabled it (NVMe Base 2.0
 * sections 5.2 and 5.16.1.5); the Linux host then rescans on its own.
 *
 * The subsystem's configuration (s->cfg->ns) is changed with the model, so the running
 * configuration always describes what is served.
 */
#ifndef NVMF_TARGET_NAMESPACE_H
#define NVMF_TARGET_NAMESPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "subsystem/config.h"

struct nvmf_tgt;
struct nvmf_subsys;

/* A namespace closed after its last command (see above); the target's list. */
struct nvmf_ns_drain {
	struct nvmf_ns *ns;
	char nqn[NVMF_CFG_NQN_MAX]; /* for the log line */
	bool round_sent;            /* the message to every poll group is out */
	bool seen;                  /* every poll group has run it */
	bool staged;                /* added by a reload that was then refused
					    * (tgt->ns_discarding when it was taken away) */
	struct nvmf_ns_drain *next;
};

/*
 * nvmf_tgt_ns_add - add the @n namespaces @ncs (config objects; copied, paths too) to
 * subsystem @s, all or none: each is checked and, when enabled, its backend opened
 * before any is published. nsid 0 takes the lowest free one. Their nsids go to @nsids
 * (@n entries). Returns 0, or -errno with @err naming the entry ("namespaces[1] (nsid
 * 3): ..."), nothing changed: -EEXIST nsid in use (or twice in @ncs), -ENOSPC no free
 * nsid, -EIO a backend did not open (the backend's reason), -EPERM @s is a passthru
 * subsystem (its namespaces are its drive's), -ENOMEM.
 */
int nvmf_tgt_ns_add(struct nvmf_tgt *tgt, struct nvmf_subsys *s, const struct nvmf_ns_config *ncs,
		    size_t n, uint32_t *nsids, char *err, size_t errlen);
/* nvmf_tgt_ns_add_at - the same, with messages naming entry i as "@base[@index[i]]"
 * (the object it came from, e.g. "subsystems[0].namespaces" and the namespace's index
 * in the file; @index NULL: i) and a namespace that does not open or is not unique as
 * the loader names it: "subsystems[0].namespaces[3] (subsystem nqn.x, namespace 4): ...". */
int nvmf_tgt_ns_add_at(struct nvmf_tgt *tgt, struct nvmf_subsys *s,
		       const struct nvmf_ns_config *ncs, size_t n, uint32_t *nsids,
		       const char *base, const size_t *index, char *err, size_t errlen);

/* nvmf_tgt_ns_remove - remove namespace @nsid (enabled or not) from @s and its config;
 * a RAM namespace's data is freed (after its last command). 0, or -ENOENT (none), or
 * -EPERM (a passthru subsystem: its namespaces are the drive's) with @err. */
int nvmf_tgt_ns_remove(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid, char *err,
		       size_t errlen);

/* nvmf_tgt_ns_enable - expose (@enable: backend opened) or hide (closed after its last
 * command) namespace @nsid of @s; nvmetcli's "enable". A RAM namespace's memory is kept
 * while it is disabled (nvmf_subsys_keep), so it is enabled with its data. Returns 1 when
 * it changed, 0 when it already was so, or -ENOENT / -EPERM (passthru: the drive's) /
 * -EIO (backend did not open; still
 * disabled) / -ENOMEM (no memory to keep RAM data; still enabled) with @err. */
int nvmf_tgt_ns_enable(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid, bool enable,
		       char *err, size_t errlen);

/*
 * nvmf_tgt_ns_resize - make enabled namespace @nsid of @s @bytes long (a multiple of its
 * block size; ram, null and file backends). Growing is seen by hosts at once; after a
 * shrink, commands already past the new end fail. The config's nvmf_size_bytes follows
 * where it was set (ram, null, a file created by the target). Shrinking a file
 * truncates it: what lies past the new end is gone. @bytes 0: the size its device has
 * now (bdev, nvme: nvmf_tgt_ns_revalidate; -ENOTSUP for the others). 0, or -ENOENT,
 * -EPERM (a passthru subsystem: its namespaces are the drive's),
 * -ENODEV (disabled: answered as refused), and nvmf_bdev_resize's errors, with @err.
 */
int nvmf_tgt_ns_resize(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid, uint64_t bytes,
		       char *err, size_t errlen);

/*
 * nvmf_tgt_ns_revalidate - enabled namespace @ns of @s takes the size its device has now
 * (bdev, nvme: an lvextend, a drive resized), as nvmet does at Identify Namespace and on
 * its revalidate_size attribute. A growth is logged (info), a shrink too, as an error:
 * hosts then see the new size, and the data past it is gone for them. Either way the
 * controllers of @s get the Namespace Attribute Changed notice. Returns 1 when the size
 * changed, 0 when not, or with @err: -ENOTSUP (file, ram, null: the namespace decides its
 * size), -EIO (the device reports less than one block: not followed), -errno reading it.
 */
int nvmf_tgt_ns_revalidate(struct nvmf_tgt *tgt, struct nvmf_subsys *s, struct nvmf_ns *ns,
			   char *err, size_t errlen);

/*
 * nvmf_tgt_ns_check_unique - may @ns (opened, not published) become a namespace of @s?
 * Not when its backing file or device already backs a namespace of any subsystem, nor
 * when its NGUID, UUID or EUI-64 is another namespace's of @s (the Linux host refuses
 * duplicate identifiers). @batch: @nbatch namespaces being added with it (NULL entries
 * skipped). 0, or -EEXIST with @err ("/srv/a.img already backs namespace 2 of nqn.x").
 */
int nvmf_tgt_ns_check_unique(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
			     const struct nvmf_ns *ns, struct nvmf_ns *const *batch, size_t nbatch,
			     char *err, size_t errlen);

/* nvmf_tgt_subsys_check_unique - the same for every namespace of @s, a subsystem not yet
 * in tgt->subsys. 0, or -EEXIST with @err ("namespace 2: ..."). */
int nvmf_tgt_subsys_check_unique(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s, char *err,
				 size_t errlen);

/* nvmf_tgt_ns_opened - @ns of @s was just published: a file it created (nvmf_create) is
 * logged and recorded in tgt->created (a failure to record is a warning), and the
 * running config's nvmf_create is cleared, so config_save never asks to create a file
 * that exists. An rbd namespace starts to be followed: its backend's change notices
 * (the image resized elsewhere) make the main group revalidate it within half a second
 * (nvmf_tgt_ns_revalidate: new size, Namespace Attribute Changed). Called again for one
 * already published, it does nothing more. nvmf_tgt_subsys_opened - the same for every
 * namespace of @s. */
void nvmf_tgt_ns_opened(struct nvmf_tgt *tgt, struct nvmf_subsys *s, struct nvmf_ns *ns);
void nvmf_tgt_subsys_opened(struct nvmf_tgt *tgt, struct nvmf_subsys *s);

/* nvmf_tgt_ns_check_unlinked - look (fstat of the open file) whether the backing file of
 * each enabled file namespace was deleted while served (st_nlink 0): ns->unlinked is set
 * or cleared, a newly deleted one logged as a warning saying how to copy it out. Returns
 * how many are deleted. The keep-alive timer runs it once a second; statistics, lists
 * and saves before they answer. */
unsigned nvmf_tgt_ns_check_unlinked(struct nvmf_tgt *tgt);

/* nvmf_tgt_ns_check_discard - may enabled namespace @nsid of @s be closed (disabled,
 * removed, by a reload too)? Not when it is a file namespace whose backing file has been
 * deleted (fstat st_nlink 0): the open file holds the only copy of its data, lost at
 * close. -EBUSY with @err "subsystem X, namespace N: its backing file PATH has been
 * deleted; closing it discards its data: restore it (e.g. ln /proc/PID/fd/FD PATH) or
 * pass --force"; 0 otherwise (also disabled, absent, or another kind). */
int nvmf_tgt_ns_check_discard(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
			      uint32_t nsid, char *err, size_t errlen);

/* nvmf_tgt_ns_take_away - unpublish namespace @nsid of @s (no config entry touched, no
 * host told: the caller does) and close it after its last command. A passthru subsystem's
 * rescan (target/passthru.c). */
void nvmf_tgt_ns_take_away(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid);

/* nvmf_tgt_ns_draining - namespaces taken away whose backend is not closed yet. */
unsigned nvmf_tgt_ns_draining(const struct nvmf_tgt *tgt);

/* nvmf_tgt_ns_fini - close and free what is still draining (the groups are gone). */
void nvmf_tgt_ns_fini(struct nvmf_tgt *tgt);

/* nvmf_tgt_ns_space_warning - nvmf_bdev_space_warning of @ns (a thin file beyond its
 * file system's free space, a RAM namespace beyond the machine's memory) as one line
 * naming @s, the nsid and the path into @msg; false when there is none. Logged (component
 * backend, warning) where a namespace opens: at start, at add and enable. */
bool nvmf_tgt_ns_space_warning(const struct nvmf_subsys *s, const struct nvmf_ns *ns, char *msg,
			       size_t len);

/* nvmf_ns_log_notes - what the backend of @ns said at open (nvmf_bdev.note), one log line
 * each (component backend, info); nvmf_subsys_log_notes - the same for every namespace
 * of @s, each followed by its space warning (nvmf_tgt_ns_space_warning), if any. */
void nvmf_ns_log_notes(const struct nvmf_tgt *tgt, const struct nvmf_ns *ns);
void nvmf_subsys_log_notes(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s);

#endif
