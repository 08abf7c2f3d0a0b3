/* SPDX-License-Identifier: MIT */
/*
 * The backing files this target created or served under nvmf_create, recorded durably
 * so that creation is a one-time act: such a file that is missing at a later start,
 * reload or add (deleted, or its file system not mounted) is never created again empty,
 * which would have hosts read zeroes where their data was. The
 * record is one JSON file (by default the config file's name + ".created.json", beside
 * the reservations' state file; docs/configuration.md):
 *
 *   {"version": 1, "created": [{"path": "/srv/a.img", "at": "2026-12-05T07:50:00Z"}]}
 *
 * rewritten whole and atomically (util/atomic-file.h) when a file is created. Plain data
 * and the file system: it knows no target.
 */
#ifndef NVMF_SUBSYSTEM_CREATED_H
#define NVMF_SUBSYSTEM_CREATED_H

#include <stddef.h>
#include <time.h>
#include "subsystem/config.h"

struct nvmf_created_entry {
	char *path;  /* device.path as the config names it (absolute) */
	char at[32]; /* when it was created, UTC, "YYYY-MM-DDTHH:MM:SSZ" */
};

/* The record: its file and what it holds. */
struct nvmf_created {
	char *file;
	struct nvmf_created_entry *e;
	size_t n;
};

/* nvmf_created_open - read the record at @file (absolute; missing: an empty record)
 * into @c. 0, or -1 with @err naming @file and what is wrong (unreadable, not JSON, a bad
 * entry): a start stops then, since a record it cannot read protects nothing. */
int nvmf_created_open(struct nvmf_created *c, const char *file, char *err, size_t errlen);

/* nvmf_created_when - when @path was first recorded ("at"), or NULL: never. */
const char *nvmf_created_when(const struct nvmf_created *c, const char *path);

/* nvmf_created_add - record @path (created or served at @when; an entry already there
 * takes the new time), and write the record. 0, or
 * -errno with @err naming the record's file (the entry is kept in memory). */
int nvmf_created_add(struct nvmf_created *c, const char *path, time_t when, char *err,
		     size_t errlen);

/* nvmf_created_check - may @nc be opened? Not when it asks for its file to be created
 * (nvmf_create), the file is missing and the target created it before: -ENOENT with
 * @err "PATH: created or served by this target (nvmf_create) since AT, now missing:
 * refusing to create an empty one (...)". 0 otherwise, also for @c NULL (no record). */
int nvmf_created_check(const struct nvmf_created *c, const struct nvmf_ns_config *nc, char *err,
		       size_t errlen);

/* nvmf_created_check_config - nvmf_created_check for every namespace of @cfg, the first
 * refused one named as the loader names it: "subsystems[0].namespaces[1] (subsystem X,
 * namespace 2): PATH: created by ...". 0 or -ENOENT with @err. */
int nvmf_created_check_config(const struct nvmf_created *c, const struct nvmf_config *cfg,
			      char *err, size_t errlen);

/* nvmf_created_free - free what @c holds (not the record's file); @c may be zeroed. */
void nvmf_created_free(struct nvmf_created *c);

#endif
