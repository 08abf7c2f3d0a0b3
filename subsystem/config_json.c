/* SPDX-License-Identifier: MIT */
/*
 * Typed access to the JSON of a configuration file, with one-line errors that name the
 * JSON path ("subsystems[0].attr.serial: ..."), and the text forms of values (UUID,
 * NGUID, EUI-64, NVMe version; sizes are util/size.h's). Used by config.c only.
 */
#include "subsystem/config_json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/dhchap.h"
#include "util/secret.h"

#define CFG_NQN_LEN (NVMF_CFG_NQN_MAX - 1)

/* Writes "base.key: message" to the error buffer; returns -1 for "return cfg_fail(...)". */
int cfg_fail(struct cfg_ctx *c, const char *base, const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "%s%s%s: %s", base, (*base && key) ? "." : "",
			 key ? key : "", msg);
	return -1;
}

/* @s in double quotes for a message: control characters as '?', long values cut. */
const char *cfg_quote(const char *s, char *buf, size_t n)
{
	/* A secret found where it does not belong is not shown either. */
	if (nvmf_text_has_secret(s)) {
		snprintf(buf, n, "a secret (not shown)");
		return buf;
	}
	size_t len = strlen(s), i, o = 0;
	bool cut = len > 60;

	buf[o++] = '"';
	for (i = 0; i < len && i < 60 && o + 5 < n; i++)
		buf[o++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	if (cut || i < len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

/* A JSON value as written, for messages: "x", 12, true, an object. @buf >= 80 bytes. */
const char *cfg_show(const json_t *v, char *buf, size_t n)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		return cfg_quote(json_string_value(v), buf, n);
	case JSON_INTEGER:
		snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	case JSON_REAL:
		/* Keep a real looking like one: "got 2.0", not "got 2" next to "expected an integer". */
		snprintf(buf, n, "%.15g", json_real_value(v));
		if (!strpbrk(buf, ".eEn") && strlen(buf) + 3 <= n)
			strcat(buf, ".0");
		return buf;
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	case JSON_NULL:
		return "null";
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	}
	return "?";
}

static const char *type_name(json_type t)
{
	return t == JSON_OBJECT ? "an object" : t == JSON_ARRAY ? "an array" : "a string";
}

/* "<value as written> is not <what> (<range>)" */
int cfg_bad_value(struct cfg_ctx *c, const char *base, const char *key, const json_t *v,
		  const char *what, const char *range)
{
	char b[80];

	return cfg_fail(c, base, key, "%s is not %s (%s)", cfg_show(v, b, sizeof(b)), what, range);
}

/* Member @key of @obj with JSON type @t in *@out (NULL when absent and not @required).
 * Returns 0 or -1 (missing required key, wrong type). */
int cfg_get_typed(struct cfg_ctx *c, json_t *obj, const char *base, const char *key, json_type t,
		  bool required, json_t **out)
{
	json_t *v = json_object_get(obj, key);
	char b[80];

	*out = NULL;
	if (!v)
		return required ? cfg_fail(c, base, key, "required key is missing") : 0;
	if (json_typeof(v) != t)
		return cfg_fail(c, base, key, "expected %s, got %s", type_name(t),
				cfg_show(v, b, sizeof(b)));
	*out = v;
	return 0;
}

/* String member: *@out is NULL when absent. Returns 0 or -1. */
int cfg_get_str(struct cfg_ctx *c, json_t *obj, const char *base, const char *key, bool required,
		const char **out)
{
	json_t *v;

	*out = NULL;
	if (cfg_get_typed(c, obj, base, key, JSON_STRING, required, &v))
		return -1;
	if (v)
		*out = json_string_value(v);
	return 0;
}

/* Returns 1 with *@out set, 0 when absent, -1 on error (wrong type, not a number, out of
 * range, or missing with @required). */
int cfg_get_int(struct cfg_ctx *c, json_t *obj, const char *base, const char *key,
		const struct cfg_irule *r, bool required, long long *out)
{
	json_t *v = json_object_get(obj, key);
	char b[80];

	if (!v)
		return required ? cfg_fail(c, base, key, "required key is missing") : 0;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
	} else if (json_is_string(v) && r->strings) {
		const char *s = json_string_value(v);
		char *end;

		if (!*s)
			return required ? cfg_fail(c, base, key, "required value is empty") : 0;
		errno = 0;
		*out = strtoll(s, &end, 10);
		if (errno || *end || !(*s == '-' || (*s >= '0' && *s <= '9')))
			return cfg_bad_value(c, base, key, v, r->what, r->range);
	} else {
		return cfg_fail(c, base, key, "expected an integer%s, got %s",
				r->strings ? " or a string of digits" : "",
				cfg_show(v, b, sizeof(b)));
	}
	if (*out < r->min || *out > r->max)
		return cfg_bad_value(c, base, key, v, r->what, r->range);
	return 1;
}

/* A flag: JSON true/false, 0/1, or nvmetcli's "0"/"1". Returns 1, 0 (absent) or -1. */
int cfg_get_bool(struct cfg_ctx *c, json_t *obj, const char *base, const char *key, bool *out)
{
	json_t *v = json_object_get(obj, key);
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;
	char b[80];

	if (!v)
		return 0;
	if (json_is_boolean(v))
		*out = json_is_true(v);
	else if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1))
		*out = json_integer_value(v) == 1;
	else if (s && (!strcmp(s, "0") || !strcmp(s, "1")))
		*out = s[0] == '1';
	else
		return cfg_fail(c, base, key, "expected 0 or 1 (or true/false), got %s",
				cfg_show(v, b, sizeof(b)));
	return 1;
}

/* nvmetcli's pi_enable: "0" is accepted, "1" refused (no T10 protection information). */
int cfg_check_pi(struct cfg_ctx *c, json_t *obj, const char *base)
{
	bool pi = false;
	char b[80];

	if (cfg_get_bool(c, obj, base, "pi_enable", &pi) < 0)
		return -1;
	if (pi)
		return cfg_fail(c, base, "pi_enable",
				"%s is not supported (this target has no T10 "
				"protection information)",
				cfg_show(json_object_get(obj, "pi_enable"), b, sizeof(b)));
	return 0;
}

/* Optimal string alignment distance, computed on two rows and a previous one, capped
 * so that a long key costs no more than a short one. */
size_t cfg_key_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return la == lb && !strcmp(a, b) ? 0 : cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	size_t rows[3][65], *pp = rows[0], *p = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		p[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t d = p[j - 1] + cost;
			if (p[j] + 1 < d)
				d = p[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			cur[j] = d;
		}
		size_t *t = pp;
		pp = p;
		p = cur;
		cur = t;
	}
	return p[lb] > cap ? cap + 1 : p[lb];
}

/* The value (a string or an integer) of an unused key is its default: 0 in any form
 * nvmetcli writes ("0", "0x000000", 0), or "". */
static bool unused_is_default(const json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v) == 0;
	const char *s = json_string_value(v);
	if (!*s)
		return true;
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 0);
	return !errno && !*end && n == 0;
}

/* A note for @c: "base.key: <value> is not used: <why>". -1 without memory. */
int cfg_note(struct cfg_ctx *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	char **n = realloc(c->notes, (c->n_notes + 1) * sizeof(*n));
	if (!n)
		return cfg_fail(c, NULL, NULL, "out of memory");
	c->notes = n;
	if (!(n[c->n_notes] = strdup(line)))
		return cfg_fail(c, NULL, NULL, "out of memory");
	c->n_notes++;
	return 0;
}

static int add_note(struct cfg_ctx *c, const char *base, const char *key, const json_t *v,
		    const char *why)
{
	char b[80];
	return cfg_note(c, "%s%s%s: %s is not used: %s", base, *base ? "." : "", key,
			cfg_show(v, b, sizeof(b)), why);
}

/* The unknown key @k: its path, the nearest known key within 2 edits, and the keys the
 * loader reads here. */
static int unknown_key(struct cfg_ctx *c, const char *base, const char *k, const char *const *known,
		       const struct cfg_unused *unused)
{
	const char *best = NULL;
	size_t best_d = 3, n = strlen(k);
	char list[320] = "";

	for (size_t i = 0; known[i]; i++) {
		size_t d = cfg_key_distance(k, known[i], 2);
		if (d < best_d && d < n)
			best = known[i], best_d = d;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 known[i]);
	}
	for (size_t i = 0; unused && unused[i].name; i++) {
		size_t d = cfg_key_distance(k, unused[i].name, 2);
		if (d < best_d && d < n)
			best = unused[i].name, best_d = d;
	}
	if (best)
		return cfg_fail(c, base, k, "unknown key; did you mean '%s'? (known here: %s)",
				best, list[0] ? list : "none");
	return cfg_fail(c, base, k, "unknown key (known here: %s)", list[0] ? list : "none");
}

/* Every key of @obj is one the loader reads (@known) or one nvmetcli writes that it
 * deliberately leaves (@unused): nothing written in a configuration passes unread. */
int cfg_check_keys(struct cfg_ctx *c, json_t *obj, const char *base, const char *const *known,
		   const struct cfg_unused *unused)
{
	const char *k;
	json_t *v;
	char b[80];

	json_object_foreach(obj, k, v) {
		size_t i = 0;
		while (known[i] && strcmp(k, known[i]))
			i++;
		if (known[i])
			continue;
		const struct cfg_unused *u = unused;
		while (u && u->name && strcmp(k, u->name))
			u++;
		if (!u || !u->name)
			return unknown_key(c, base, k, known, unused);
		if (!json_is_string(v) && !json_is_integer(v))
			return cfg_fail(c, base, k, "expected a string or an integer, got %s",
					cfg_show(v, b, sizeof(b)));
		if (u->why && !unused_is_default(v) && add_note(c, base, k, v, u->why))
			return -1;
	}
	return 0;
}

void cfg_notes_free(struct cfg_ctx *c)
{
	for (size_t i = 0; i < c->n_notes; i++)
		free(c->notes[i]);
	free(c->notes);
	c->notes = NULL;
	c->n_notes = 0;
}

/* An NQN as nvmetcli's own examples use them ("testnqn"): 1-223 bytes, no spaces or
 * control characters. NVMe Base 4.5 limits the length; the "nqn." form is not required. */
int cfg_check_nqn(struct cfg_ctx *c, const char *base, const char *key, const char *s)
{
	size_t n = strlen(s);
	char b[80];

	if (!n)
		return cfg_fail(c, base, key, "empty (an NQN is 1-%d characters)", CFG_NQN_LEN);
	/* A key pasted where the NQN goes: refused, so it is never logged as a name. */
	if (nvmf_text_has_secret(s))
		return cfg_fail(c, base, key, "a secret (not shown) is not an NQN");
	if (n > CFG_NQN_LEN)
		return cfg_fail(c, base, key, "NQN of %zu characters is too long (at most %d)", n,
				CFG_NQN_LEN);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return cfg_fail(c, base, key,
					"%s is not an NQN (no spaces or control characters)",
					cfg_quote(s, b, sizeof(b)));
	return 0;
}

/* An Identify Controller text field (SN, MN, FR): printable ASCII, at most @max bytes. */
int cfg_get_abs_path(struct cfg_ctx *c, json_t *obj, const char *base, const char *key,
		     bool required, char *dst, size_t max)
{
	const char *v;
	char b[80];
	if (cfg_get_str(c, obj, base, key, required, &v))
		return -1;
	if (!v)
		return 0;
	if (v[0] != '/')
		return cfg_fail(c, base, key, "%s is not an absolute path",
				cfg_quote(v, b, sizeof(b)));
	if (strlen(v) >= max)
		return cfg_fail(c, base, key, "%s is longer than %zu characters",
				cfg_quote(v, b, sizeof(b)), max - 1);
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

int cfg_get_ascii(struct cfg_ctx *c, json_t *obj, const char *base, const char *key, char *dst,
		  size_t max)
{
	const char *s;
	char b[80];

	if (cfg_get_str(c, obj, base, key, false, &s))
		return -1;
	if (!s)
		return 0;
	if (strlen(s) > max)
		return cfg_fail(c, base, key, "%s is longer than %zu characters",
				cfg_quote(s, b, sizeof(b)), max);
	for (const char *p = s; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return cfg_fail(c, base, key, "%s is not printable ASCII",
					cfg_quote(s, b, sizeof(b)));
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

bool cfg_all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}
