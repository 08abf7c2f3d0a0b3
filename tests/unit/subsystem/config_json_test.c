/* The config loader's typed JSON access (subsystem/config_json.c), called directly: each
 * getter's answer for a present, an absent and a wrong member, and the one-line message
 * "base.key: what is wrong" it writes. The loader's use of them, field by field, is in
 * subsystem/config. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "subsystem/config_json.h"
#include "tests/unit/suites.h"

/* An error buffer for one test. */
struct ectx {
	char err[256];
	struct cfg_ctx c;
};

static void ectx_init(struct ectx *e)
{
	memset(e, 0, sizeof(*e));
	e->c.err = e->err;
	e->c.errlen = sizeof(e->err);
}

static json_t *obj(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	return j;
}

static void fail_joins_base_and_key_with_a_dot(void)
{
	struct ectx e;
	ectx_init(&e);
	CU_ASSERT_EQUAL(cfg_fail(&e.c, "ports[0]", "addr", "bad %d", 7), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "ports[0].addr: bad 7");
	CU_ASSERT_EQUAL(cfg_fail(&e.c, "", "hosts", "x"), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "hosts: x");
	CU_ASSERT_EQUAL(cfg_fail(&e.c, "subsystems[1]", NULL, "y"), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "subsystems[1]: y");
	/* no buffer: still -1, nothing written */
	struct cfg_ctx none = { .err = NULL };
	CU_ASSERT_EQUAL(cfg_fail(&none, "a", "b", "z"), -1);
	/* a short buffer gets a cut, terminated message */
	char small[8];
	struct cfg_ctx s = { .err = small, .errlen = sizeof(small) };
	cfg_fail(&s, "abc", "def", "long message");
	CU_ASSERT_STRING_EQUAL(small, "abc.def");
}

static void quote_replaces_control_characters_and_cuts_long_values(void)
{
	char b[80], long_s[100];
	CU_ASSERT_STRING_EQUAL(cfg_quote("a\tb\x7f", b, sizeof(b)), "\"a?b?\"");
	memset(long_s, 'x', sizeof(long_s));
	long_s[61] = '\0';
	cfg_quote(long_s, b, sizeof(b));
	CU_ASSERT_EQUAL(strlen(b), 1 + 60 + 3 + 1);
	CU_ASSERT_EQUAL(strcmp(b + 61, "...\""), 0);
	long_s[60] = '\0'; /* exactly 60: whole */
	cfg_quote(long_s, b, sizeof(b));
	CU_ASSERT_EQUAL(strlen(b), 62);
	/* a buffer shorter than the value: cut, never overrun */
	char tiny[12];
	cfg_quote("abcdefghijklmnop", tiny, sizeof(tiny));
	CU_ASSERT_STRING_EQUAL(tiny, "\"abcdef...\"");
}

/* A DH-HMAC-CHAP secret typed where a name belongs is never echoed into a message. */
static void quote_never_shows_a_secret(void)
{
	char b[80];
	cfg_quote("DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:", b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "a secret (not shown)");
}

static void show_writes_each_json_type_as_written(void)
{
	char b[80];
	json_t *v = obj("[\"s\", 12, -3, 2.0, 2.5, true, false, null, {}, []]");
	const char *want[] = { "\"s\"", "12",    "-3",   "2.0",       "2.5",
			       "true",  "false", "null", "an object", "an array" };
	for (size_t i = 0; i < json_array_size(v); i++)
		CU_ASSERT_STRING_EQUAL(cfg_show(json_array_get(v, i), b, sizeof(b)), want[i]);
	json_decref(v);
}

static void bad_value_says_value_what_and_range(void)
{
	struct ectx e;
	ectx_init(&e);
	json_t *v = json_integer(70000);
	CU_ASSERT_EQUAL(cfg_bad_value(&e.c, "ports[0].addr", "trsvcid", v, "a port", "1-65535"),
			-1);
	CU_ASSERT_STRING_EQUAL(e.err, "ports[0].addr.trsvcid: 70000 is not a port (1-65535)");
	json_decref(v);
}

static void get_typed_and_str_answer_present_absent_and_wrong(void)
{
	struct ectx e;
	ectx_init(&e);
	json_t *o = obj("{\"a\": {}, \"s\": \"x\", \"n\": 3}");
	json_t *out = (json_t *)1;
	CU_ASSERT_EQUAL(cfg_get_typed(&e.c, o, "t", "a", JSON_OBJECT, true, &out), 0);
	CU_ASSERT_PTR_EQUAL(out, json_object_get(o, "a"));
	CU_ASSERT_EQUAL(cfg_get_typed(&e.c, o, "t", "missing", JSON_ARRAY, false, &out), 0);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_STRING_EQUAL(e.err, "");
	CU_ASSERT_EQUAL(cfg_get_typed(&e.c, o, "t", "missing", JSON_ARRAY, true, &out), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "t.missing: required key is missing");
	CU_ASSERT_EQUAL(cfg_get_typed(&e.c, o, "t", "n", JSON_ARRAY, false, &out), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "t.n: expected an array, got 3");
	CU_ASSERT_PTR_NULL(out);

	const char *s = NULL;
	CU_ASSERT_EQUAL(cfg_get_str(&e.c, o, "t", "s", true, &s), 0);
	CU_ASSERT_STRING_EQUAL(s, "x");
	CU_ASSERT_EQUAL(cfg_get_str(&e.c, o, "t", "none", false, &s), 0);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(cfg_get_str(&e.c, o, "t", "a", false, &s), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "t.a: expected a string, got an object");
	json_decref(o);
}

static const struct cfg_irule port_rule = { 1, 65535, true, "a port", "1-65535" };
static const struct cfg_irule count_rule = { 0, 10, false, "a count", "0-10" };

static void get_int_takes_numbers_and_digit_strings_in_range(void)
{
	struct ectx e;
	ectx_init(&e);
	json_t *o = obj("{\"n\": 4420, \"s\": \"4421\", \"neg\": \"-1\", \"e\": \"\"}");
	long long v = 0;
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "n", &port_rule, true, &v), 1);
	CU_ASSERT_EQUAL(v, 4420);
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "s", &port_rule, true, &v), 1);
	CU_ASSERT_EQUAL(v, 4421);
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "absent", &port_rule, false, &v), 0);
	/* nvmetcli's "" is an absent value, unless the key is required */
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "e", &port_rule, false, &v), 0);
	CU_ASSERT_STRING_EQUAL(e.err, "");
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "e", &port_rule, true, &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "p.e: required value is empty");
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "absent", &port_rule, true, &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "p.absent: required key is missing");
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "neg", &port_rule, true, &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "p.neg: \"-1\" is not a port (1-65535)");
	json_decref(o);
}

static void get_int_refuses_what_is_not_a_whole_number(void)
{
	struct ectx e;
	ectx_init(&e);
	json_t *o = obj("{\"hex\": \"0x10\", \"sp\": \" 5\", \"plus\": \"+5\", \"r\": 2.0,"
			" \"big\": \"99999999999999999999\", \"s\": \"3\", \"n\": 11}");
	long long v = 0;
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "hex", &port_rule, true, &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "p.hex: \"0x10\" is not a port (1-65535)");
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "sp", &port_rule, true, &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "p.sp: \" 5\" is not a port (1-65535)");
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "plus", &port_rule, true, &v), -1);
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "big", &port_rule, true, &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "p.big: \"99999999999999999999\" is not a port (1-65535)");
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "p", "r", &port_rule, true, &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "p.r: expected an integer or a string of digits, got 2.0");
	/* a rule without nvmetcli's strings takes numbers only */
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "q", "s", &count_rule, true, &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "q.s: expected an integer, got \"3\"");
	CU_ASSERT_EQUAL(cfg_get_int(&e.c, o, "q", "n", &count_rule, true, &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "q.n: 11 is not a count (0-10)");
	json_decref(o);
}

static void get_bool_takes_true_false_0_1_and_their_strings(void)
{
	struct ectx e;
	ectx_init(&e);
	json_t *o = obj("{\"t\": true, \"f\": false, \"one\": 1, \"zero\": 0, \"s1\": \"1\","
			" \"s0\": \"0\", \"two\": 2, \"yes\": \"yes\"}");
	const char *keys[] = { "t", "f", "one", "zero", "s1", "s0" };
	const bool want[] = { true, false, true, false, true, false };
	for (size_t i = 0; i < 6; i++) {
		bool v = !want[i];
		CU_ASSERT_EQUAL(cfg_get_bool(&e.c, o, "b", keys[i], &v), 1);
		CU_ASSERT_EQUAL(v, want[i]);
	}
	bool v = true;
	CU_ASSERT_EQUAL(cfg_get_bool(&e.c, o, "b", "absent", &v), 0);
	CU_ASSERT_TRUE(v); /* left as it was */
	CU_ASSERT_EQUAL(cfg_get_bool(&e.c, o, "b", "two", &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "b.two: expected 0 or 1 (or true/false), got 2");
	CU_ASSERT_EQUAL(cfg_get_bool(&e.c, o, "b", "yes", &v), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "b.yes: expected 0 or 1 (or true/false), got \"yes\"");
	json_decref(o);
}

static void check_pi_accepts_off_and_refuses_on(void)
{
	struct ectx e;
	ectx_init(&e);
	json_t *off = obj("{\"pi_enable\": \"0\"}"), *none = obj("{}"),
	       *on = obj("{\"pi_enable\": \"1\"}"), *bad = obj("{\"pi_enable\": \"on\"}");
	CU_ASSERT_EQUAL(cfg_check_pi(&e.c, off, "ns"), 0);
	CU_ASSERT_EQUAL(cfg_check_pi(&e.c, none, "ns"), 0);
	CU_ASSERT_EQUAL(cfg_check_pi(&e.c, on, "ns"), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "ns.pi_enable: \"1\" is not supported (this target has no "
				      "T10 protection information)");
	CU_ASSERT_EQUAL(cfg_check_pi(&e.c, bad, "ns"), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "ns.pi_enable: expected 0 or 1 (or true/false), got \"on\"");
	json_decref(off);
	json_decref(none);
	json_decref(on);
	json_decref(bad);
}

/* A misspelt key is named by its path, with the known key it is nearest to. */
static void check_keys_suggests_the_nearest_known_key(void)
{
	struct ectx e;
	ectx_init(&e);
	static const char *const known[] = { "path", "uuid", "nguid", NULL };
	json_t *ok = obj("{\"path\": \"/a\", \"uuid\": \"\"}");
	json_t *typo = obj("{\"pth\": \"/a\"}");
	json_t *swap = obj("{\"ngiud\": \"\"}");
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, ok, "ns.device", known, NULL), 0);
	CU_ASSERT_STRING_EQUAL(e.err, "");
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, typo, "ns.device", known, NULL), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "ns.device.pth: unknown key; did you mean 'path'? (known "
				      "here: path, uuid, nguid)");
	/* two neighbours swapped count as one edit */
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, swap, "ns.device", known, NULL), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "ns.device.ngiud: unknown key; did you mean 'nguid'? "
				      "(known here: path, uuid, nguid)");
	json_decref(ok);
	json_decref(typo);
	json_decref(swap);
}

/* A key far from every known one gets no guess; an object that reads none says so. */
static void check_keys_without_a_near_key_lists_the_known_ones(void)
{
	struct ectx e;
	ectx_init(&e);
	static const char *const known[] = { "nqn", "dhchap", NULL };
	static const char *const two[] = { "cd", NULL };
	static const char *const nothing[] = { NULL };
	json_t *far = obj("{\"color\": \"red\"}"), *one = obj("{\"ab\": 1}");
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, far, "hosts[0]", known, NULL), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "hosts[0].color: unknown key (known here: nqn, dhchap)");
	/* "ab" is 2 edits from "cd": a guess that replaces the whole key is no guess */
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, one, "d", two, NULL), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "d.ab: unknown key (known here: cd)");
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, one, "d", nothing, NULL), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "d.ab: unknown key (known here: none)");
	json_decref(far);
	json_decref(one);
}

/* A key nvmetcli writes and the target leaves: a default value passes without a word,
 * another one leaves a note naming it, a wrong type is refused, a quiet one says nothing. */
static void check_keys_notes_unused_keys_with_a_value(void)
{
	struct ectx e;
	ectx_init(&e);
	static const char *const known[] = { "serial", NULL };
	static const struct cfg_unused unused[] = { { "ieee_oui", "reported as 0" },
						    { "clear_ids", NULL },
						    { NULL, NULL } };
	json_t *dflt = obj("{\"ieee_oui\": \"0x000000\", \"clear_ids\": 1}");
	json_t *zero = obj("{\"ieee_oui\": 0}"), *empty = obj("{\"ieee_oui\": \"\"}");
	json_t *set = obj("{\"serial\": \"s\", \"ieee_oui\": \"0x001b21\"}");
	json_t *bad = obj("{\"ieee_oui\": {}}"), *near = obj("{\"ieee_ou\": \"0\"}");
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, dflt, "attr", known, unused), 0);
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, zero, "attr", known, unused), 0);
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, empty, "attr", known, unused), 0);
	CU_ASSERT_EQUAL(e.c.n_notes, 0);
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, set, "attr", known, unused), 0);
	CU_ASSERT_EQUAL_FATAL(e.c.n_notes, 1);
	CU_ASSERT_STRING_EQUAL(e.c.notes[0], "attr.ieee_oui: \"0x001b21\" is not used: reported "
					     "as 0");
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, bad, "attr", known, unused), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "attr.ieee_oui: expected a string or an integer, got an "
				      "object");
	/* the unused keys are guessed too, though not listed as read */
	CU_ASSERT_EQUAL(cfg_check_keys(&e.c, near, "attr", known, unused), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "attr.ieee_ou: unknown key; did you mean 'ieee_oui'? (known "
				      "here: serial)");
	cfg_notes_free(&e.c);
	CU_ASSERT_EQUAL(e.c.n_notes, 0);
	CU_ASSERT_PTR_NULL(e.c.notes);
	json_decref(dflt);
	json_decref(zero);
	json_decref(empty);
	json_decref(set);
	json_decref(bad);
	json_decref(near);
}

static void key_distance_counts_edits_and_swaps(void)
{
	CU_ASSERT_EQUAL(cfg_key_distance("path", "path", 2), 0);
	CU_ASSERT_EQUAL(cfg_key_distance("pth", "path", 2), 1);
	CU_ASSERT_EQUAL(cfg_key_distance("allowed_host", "allowed_hosts", 2), 1);
	CU_ASSERT_EQUAL(cfg_key_distance("allow_any_hots", "allow_any_host", 2), 1);
	CU_ASSERT_EQUAL(cfg_key_distance("adrr", "addr", 2), 1);
	CU_ASSERT_EQUAL(cfg_key_distance("nvmf_creat", "nvmf_create", 2), 1);
	CU_ASSERT_EQUAL(cfg_key_distance("trsvc", "trsvcid", 2), 2);
	/* past the cap: cap + 1, however far */
	CU_ASSERT_EQUAL(cfg_key_distance("color", "nqn", 2), 3);
	CU_ASSERT_EQUAL(cfg_key_distance("a", "abcdefgh", 2), 3);
}

/* NVMe Base 4.5: an NQN is at most 223 bytes; nvmetcli's "testnqn" is accepted. */
static void nqn_is_1_to_223_bytes_without_spaces(void)
{
	struct ectx e;
	ectx_init(&e);
	char nqn[230];
	memset(nqn, 'n', sizeof(nqn));
	nqn[223] = '\0';
	CU_ASSERT_EQUAL(cfg_check_nqn(&e.c, "s", "nqn", "testnqn"), 0);
	CU_ASSERT_EQUAL(cfg_check_nqn(&e.c, "s", "nqn", nqn), 0);
	nqn[223] = 'n';
	nqn[224] = '\0';
	CU_ASSERT_EQUAL(cfg_check_nqn(&e.c, "s", "nqn", nqn), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "s.nqn: NQN of 224 characters is too long (at most 223)");
	CU_ASSERT_EQUAL(cfg_check_nqn(&e.c, "s", "nqn", ""), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "s.nqn: empty (an NQN is 1-223 characters)");
	CU_ASSERT_EQUAL(cfg_check_nqn(&e.c, "s", "nqn", "nqn.a b"), -1);
	CU_ASSERT_STRING_EQUAL(
		e.err, "s.nqn: \"nqn.a b\" is not an NQN (no spaces or control characters)");
	CU_ASSERT_EQUAL(cfg_check_nqn(&e.c, "s", "nqn", "nqn.a\nb"), -1);
	CU_ASSERT_STRING_EQUAL(
		e.err, "s.nqn: \"nqn.a?b\" is not an NQN (no spaces or control characters)");
}

static void ascii_field_is_copied_only_when_printable_and_short_enough(void)
{
	struct ectx e;
	ectx_init(&e);
	json_t *o = obj("{\"serial\": \"SN 1\", \"long\": \"123456789\", \"tab\": \"a\\tb\","
			" \"n\": 5, \"hi\": \"caf\\u00e9\"}");
	char dst[9] = "old";
	CU_ASSERT_EQUAL(cfg_get_ascii(&e.c, o, "attr", "absent", dst, 8), 0);
	CU_ASSERT_STRING_EQUAL(dst, "old");
	CU_ASSERT_EQUAL(cfg_get_ascii(&e.c, o, "attr", "serial", dst, 8), 0);
	CU_ASSERT_STRING_EQUAL(dst, "SN 1");
	CU_ASSERT_EQUAL(cfg_get_ascii(&e.c, o, "attr", "long", dst, 8), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "attr.long: \"123456789\" is longer than 8 characters");
	CU_ASSERT_EQUAL(cfg_get_ascii(&e.c, o, "attr", "tab", dst, 8), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "attr.tab: \"a?b\" is not printable ASCII");
	CU_ASSERT_EQUAL(cfg_get_ascii(&e.c, o, "attr", "hi", dst, 8), -1);
	CU_ASSERT_EQUAL(strncmp(e.err, "attr.hi: ", 9), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.err, "is not printable ASCII"));
	CU_ASSERT_EQUAL(cfg_get_ascii(&e.c, o, "attr", "n", dst, 8), -1);
	CU_ASSERT_STRING_EQUAL(e.err, "attr.n: expected a string, got 5");
	CU_ASSERT_STRING_EQUAL(dst, "SN 1"); /* refusals leave it */
	json_decref(o);
}

static void all_zero_sees_any_set_byte(void)
{
	uint8_t id[16] = { 0 };
	CU_ASSERT_TRUE(cfg_all_zero(id, sizeof(id)));
	CU_ASSERT_TRUE(cfg_all_zero(id, 0));
	id[15] = 1;
	CU_ASSERT_FALSE(cfg_all_zero(id, sizeof(id)));
	CU_ASSERT_TRUE(cfg_all_zero(id, 15));
}

const struct unit_test config_json_tests[] = {
	{ "fail_joins_base_and_key_with_a_dot", fail_joins_base_and_key_with_a_dot },
	{ "quote_replaces_control_characters_and_cuts_long_values",
	  quote_replaces_control_characters_and_cuts_long_values },
	{ "quote_never_shows_a_secret", quote_never_shows_a_secret },
	{ "show_writes_each_json_type_as_written", show_writes_each_json_type_as_written },
	{ "bad_value_says_value_what_and_range", bad_value_says_value_what_and_range },
	{ "get_typed_and_str_answer_present_absent_and_wrong",
	  get_typed_and_str_answer_present_absent_and_wrong },
	{ "get_int_takes_numbers_and_digit_strings_in_range",
	  get_int_takes_numbers_and_digit_strings_in_range },
	{ "get_int_refuses_what_is_not_a_whole_number",
	  get_int_refuses_what_is_not_a_whole_number },
	{ "get_bool_takes_true_false_0_1_and_their_strings",
	  get_bool_takes_true_false_0_1_and_their_strings },
	{ "check_pi_accepts_off_and_refuses_on", check_pi_accepts_off_and_refuses_on },
	{ "check_keys_suggests_the_nearest_known_key", check_keys_suggests_the_nearest_known_key },
	{ "check_keys_without_a_near_key_lists_the_known_ones",
	  check_keys_without_a_near_key_lists_the_known_ones },
	{ "check_keys_notes_unused_keys_with_a_value", check_keys_notes_unused_keys_with_a_value },
	{ "key_distance_counts_edits_and_swaps", key_distance_counts_edits_and_swaps },
	{ "nqn_is_1_to_223_bytes_without_spaces", nqn_is_1_to_223_bytes_without_spaces },
	{ "ascii_field_is_copied_only_when_printable_and_short_enough",
	  ascii_field_is_copied_only_when_printable_and_short_enough },
	{ "all_zero_sees_any_set_byte", all_zero_sees_any_set_byte },
	{ NULL, NULL },
};
