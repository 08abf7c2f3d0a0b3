/* SPDX-License-Identifier: MIT */
/*
 * Internal to the configuration loader (subsystem/config.c): typed access to JSON members
 * with one-line errors naming the JSON path, and parsers for the text forms of values.
 *
 * Error convention: every cfg_get_* / cfg_check_* returns -1 after writing
 * "<base>.<key>: <what is wrong>" into the context's buffer (cfg_fail), so callers
 * chain them with || and return -1. nvmetcli saves configfs attributes as strings, so
 * integer and flag getters can accept "123" / "0" / "1" as well as JSON numbers.
 */
#ifndef NVMF_SUBSYSTEM_CONFIG_JSON_H
#define NVMF_SUBSYSTEM_CONFIG_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "subsystem/config.h"

/* Where errors go: @err of @errlen bytes (may be NULL/0). @notes: lines about keys read
 * and deliberately not used (cfg_check_keys), n_notes of them, strdup'd; whoever set up
 * the context frees them (cfg_notes_free) or hands them on. */
struct cfg_ctx {
	char *err;
	size_t errlen;
	const char *path; /* the file being loaded; NULL: text given in memory */
	char **notes;
	size_t n_notes;
};

/* A key nvmetcli writes that this target deliberately does not use. @why: what the note
 * says when the value is not the default (0 in any form, or ""); NULL when no value of it
 * can change what the target does, so that it is accepted without a word. */
struct cfg_unused {
	const char *name;
	const char *why;
};

/* Range and wording of an integer field. Out of range or non-numeric strings give
 * "<value> is not <what> (<range>)". @strings: nvmetcli's string form "123" is
 * accepted ("" then counts as absent). */
struct cfg_irule {
	long long min, max;
	bool strings;
	const char *what, *range;
};

/* Writes "base.key: message" (base or key may be empty/NULL). Always returns -1. */
int cfg_fail(struct cfg_ctx *c, const char *base, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* @s in double quotes for a message, control characters as '?', cut after 60 bytes.
 * @buf of @n >= 80 bytes. */
const char *cfg_quote(const char *s, char *buf, size_t n);

/* A JSON value as it would be written ("x", 12, true, null, an object, an array). */
const char *cfg_show(const json_t *v, char *buf, size_t n);

/* "<value> is not <what> (<range>)"; returns -1. */
int cfg_bad_value(struct cfg_ctx *c, const char *base, const char *key, const json_t *v,
		  const char *what, const char *range);

/* Member @key with JSON type @t (object, array or string) in *@out, NULL when absent.
 * Returns 0, or -1: missing with @required ("required key is missing"), wrong type
 * ("expected an object, got 3"). */
int cfg_get_typed(struct cfg_ctx *c, json_t *obj, const char *base, const char *key, json_type t,
		  bool required, json_t **out);

/* String member into *@out (NULL when absent). Returns 0 or -1 as cfg_get_typed. */
int cfg_get_str(struct cfg_ctx *c, json_t *obj, const char *base, const char *key, bool required,
		const char **out);

/* Integer member per @r. Returns 1 with *@out set, 0 when absent, -1 on error. */
int cfg_get_int(struct cfg_ctx *c, json_t *obj, const char *base, const char *key,
		const struct cfg_irule *r, bool required, long long *out);

/* Flag: true/false, 0/1 or "0"/"1". Returns 1 with *@out set, 0 when absent, -1. */
int cfg_get_bool(struct cfg_ctx *c, json_t *obj, const char *base, const char *key, bool *out);

/* nvmetcli's pi_enable in @obj: absent or "0" is fine, "1" is refused (no T10 PI). */
int cfg_check_pi(struct cfg_ctx *c, json_t *obj, const char *base);

/* cfg_check_keys - every key of @obj is in @known (NULL-terminated: the keys the loader
 * reads there) or in @unused (ended by a NULL name; may be NULL). An unknown key is refused
 * by its path, with the known key nearest to it when one is within 2 edits ("unknown key;
 * did you mean 'path'? (known here: path, uuid, nguid)"). An unused key must hold a
 * string or an integer; a value other than the default adds a note "<path>: <value> is
 * not used: <why>". Returns 0, or -1 with the message (out of memory included). */
int cfg_check_keys(struct cfg_ctx *c, json_t *obj, const char *base, const char *const *known,
		   const struct cfg_unused *unused);

/* cfg_key_distance - the edit distance of @a and @b (insertions, deletions, substitutions
 * and swaps of two neighbours count 1 each), at most @cap + 1 (longer is not computed). */
size_t cfg_key_distance(const char *a, const char *b, size_t cap);

/* cfg_note - adds a warning to @c's notes (logged at each load, the configuration still
 * valid): printf-style, at most 511 bytes. 0, or -1 (cfg_fail's "out of memory"). */
int cfg_note(struct cfg_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cfg_notes_free - frees @c's notes. */
void cfg_notes_free(struct cfg_ctx *c);

/* An NQN: 1-223 bytes (NVMe Base 4.5), no spaces or control characters, and no secret
 * (nvmf_text_has_secret: a key pasted in its place is refused without being shown). The
 * "nqn." form is not required: nvmetcli's own examples use "testnqn". */
int cfg_check_nqn(struct cfg_ctx *c, const char *base, const char *key, const char *s);

/* Identify text field (serial, model, firmware) into @dst: printable ASCII, at most @max
 * bytes (@dst holds max + 1). Left unchanged when absent. */
int cfg_get_ascii(struct cfg_ctx *c, json_t *obj, const char *base, const char *key, char *dst,
		  size_t max);

/* cfg_get_abs_path - the absolute path @key of @obj (a ceph.conf, a keyring) into @dst
 * (@max bytes with its NUL); absent: @dst untouched, or "is required" when @required.
 * 0, or -1 with "is not an absolute path" or "is longer than N characters". */
int cfg_get_abs_path(struct cfg_ctx *c, json_t *obj, const char *base, const char *key,
		     bool required, char *dst, size_t max);

/* cfg_all_zero - every one of @n bytes is 0 (an ID nvmetcli leaves unset). */
bool cfg_all_zero(const uint8_t *p, size_t n);

/* ---- the log (subsystem/config_log.c) ---- */

/* cfg_parse_log_level - nvmf_target.log_level of the "nvmf_target" object @nt, an object
 * of component name -> level name, into t->log_level (components it does not name stay
 * -1). An unknown component or level fails by name. Returns 0 or -1 with the message. */
int cfg_parse_log_level(struct cfg_ctx *c, json_t *nt, struct nvmf_target_config *t);
/* cfg_log_level_json - t->log_level as that object (new reference); NULL when it names
 * no component (the key is then left out) or out of memory. */
json_t *cfg_log_level_json(const struct nvmf_target_config *t);

/* ---- the discovery service (subsystem/config_discovery.c) ---- */

/* cfg_parse_discovery - nvmf_target.discovery_log ("all-ports" | "host-port") and
 * discovery_kato (1-3600 s) of the "nvmf_target" object @nt into @t (left at their
 * defaults when absent). Returns 0 or -1 with the message. */
int cfg_parse_discovery(struct cfg_ctx *c, json_t *nt, struct nvmf_target_config *t);

/* cfg_parse_referrals - "referrals" of the ports[] object @port into @p (absent: none).
 * Each entry as nvmetcli dumps a configfs referral: {"addr": {adrfam, portid, traddr,
 * treq, trsvcid, trtype}, "enable", "name"}. Returns 0 or -1 with the message. */
int cfg_parse_referrals(struct cfg_ctx *c, json_t *port, const char *base,
			struct nvmf_port_config *p);
/* cfg_referrals_to_json - @p's referrals in that layout (every field, strings where
 * nvmetcli writes strings): a new array, or NULL without memory. */
json_t *cfg_referrals_to_json(const struct nvmf_port_config *p);

/* ---- the gateway group (subsystem/config_gateway.c) ---- */

/* cfg_parse_gateway - the top-level "nvmf_gateway" of @root into cfg->gateway (enable
 * false when absent), after the ports: each grpid must be defined by a port of @cfg.
 * Returns 0 or -1 with the message (its path under nvmf_gateway). */
int cfg_parse_gateway(struct cfg_ctx *c, json_t *root, struct nvmf_config *cfg);
/* cfg_gateway_json - @g as that object (every key written, defaults too): a new
 * reference, or NULL without memory. */
json_t *cfg_gateway_json(const struct nvmf_gateway_config *g);

#endif
