/* What the control socket's server and nvmf-targetctl share (control/proto.c): the
 * default socket path for root and for other users, and the framing of requests on a
 * byte stream. */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control/proto.h"
#include "tests/unit/suites.h"

/* $XDG_RUNTIME_DIR set to @run (unset when NULL) for one call; the old value restored. */
static void path_with_runtime_dir(const char *run, char *buf, size_t len)
{
	const char *old = getenv("XDG_RUNTIME_DIR");
	char *saved = old ? strdup(old) : NULL;
	if (run)
		setenv("XDG_RUNTIME_DIR", run, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	nvmf_rpc_default_path(buf, len);
	if (saved)
		setenv("XDG_RUNTIME_DIR", saved, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	free(saved);
}

/* What a user other than root gets: $XDG_RUNTIME_DIR/nvmf-target.sock when that is an
 * absolute path short enough for sun_path, else /tmp/nvmf-target-UID.sock. */
static void check_user_paths(void)
{
	char buf[108], want[108], long_dir[120];
	snprintf(want, sizeof(want), "/tmp/nvmf-target-%u.sock", (unsigned)geteuid());

	path_with_runtime_dir("/run/user/1000", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "/run/user/1000/nvmf-target.sock");
	path_with_runtime_dir(NULL, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, want);
	path_with_runtime_dir("run/user/1000", buf, sizeof(buf)); /* relative */
	CU_ASSERT_STRING_EQUAL(buf, want);
	path_with_runtime_dir("", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, want);
	/* 90 + sizeof("/nvmf-target.sock") = 108 still fits sun_path with its NUL; 91 does
	 * not */
	memset(long_dir, 'd', sizeof(long_dir));
	long_dir[0] = '/';
	long_dir[90] = '\0';
	path_with_runtime_dir(long_dir, buf, sizeof(buf));
	CU_ASSERT_EQUAL(strlen(buf), 107);
	CU_ASSERT_EQUAL(strncmp(buf, long_dir, 90), 0);
	long_dir[90] = 'd';
	long_dir[91] = '\0';
	path_with_runtime_dir(long_dir, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, want);
}

/* Root always gets /run/nvmf-target.sock, whatever $XDG_RUNTIME_DIR says; any other
 * user the paths above (checked as nobody when the tests run as root). */
static void default_path_is_run_for_root_else_runtime_dir_or_tmp(void)
{
	char buf[108];
	if (geteuid() != 0) {
		check_user_paths();
		return;
	}
	path_with_runtime_dir("/run/user/0", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, NVMF_RPC_DEFAULT_SOCKET);
	path_with_runtime_dir(NULL, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "/run/nvmf-target.sock");
	CU_ASSERT_EQUAL_FATAL(seteuid(65534), 0);
	check_user_paths();
	CU_ASSERT_EQUAL_FATAL(seteuid(0), 0);
}

static void frame_finds_each_value_in_a_stream(void)
{
	/* The length left is counted, not strlen(s) after s += used: gcc 12 -O2 got that
	 * strlen wrong here (21, not 5), and jansson, reading the NUL after the buffer as
	 * its end, hid it until a NUL became BAD. */
	const char *s = "  {\"a\":[1,{\"b\":\"}\"}]} \n[1]{\"c\":";
	size_t used, left = strlen(s);
	CU_ASSERT_EQUAL(nvmf_rpc_frame(s, left, &used, NULL), NVMF_RPC_FRAME_VALUE);
	CU_ASSERT_EQUAL(used, strlen("  {\"a\":[1,{\"b\":\"}\"}]}"));
	s += used;
	left -= used;
	CU_ASSERT_EQUAL(nvmf_rpc_frame(s, left, &used, NULL), NVMF_RPC_FRAME_VALUE);
	CU_ASSERT_EQUAL(used, strlen(" \n[1]"));
	s += used;
	left -= used;
	CU_ASSERT_EQUAL(left, 5);
	CU_ASSERT_EQUAL(nvmf_rpc_frame(s, left, &used, NULL), NVMF_RPC_FRAME_MORE);
	CU_ASSERT_EQUAL(used, 0);
	CU_ASSERT_EQUAL(nvmf_rpc_frame(" \n\t", 3, &used, NULL), NVMF_RPC_FRAME_MORE);
	CU_ASSERT_EQUAL(nvmf_rpc_frame("", 0, &used, NULL), NVMF_RPC_FRAME_MORE);
	/* a value split anywhere is incomplete until its last byte */
	const char *v = "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":\"a b\"}";
	for (size_t n = 1; n < strlen(v); n++)
		CU_ASSERT_EQUAL(nvmf_rpc_frame(v, n, &used, NULL), NVMF_RPC_FRAME_MORE);
	CU_ASSERT_EQUAL(nvmf_rpc_frame(v, strlen(v), &used, NULL), NVMF_RPC_FRAME_VALUE);
	CU_ASSERT_EQUAL(used, strlen(v));
	/* the value comes parsed, for nvmf_rpc_answer */
	json_t *val = (json_t *)1;
	CU_ASSERT_EQUAL(nvmf_rpc_frame(v, strlen(v), &used, &val), NVMF_RPC_FRAME_VALUE);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(val, "id")), "a b");
	json_decref(val);
	CU_ASSERT_EQUAL(nvmf_rpc_frame(v, 5, &used, &val), NVMF_RPC_FRAME_MORE);
	CU_ASSERT_PTR_NULL(val);
	/* not JSON: the whole buffer goes */
	CU_ASSERT_EQUAL(nvmf_rpc_frame("{]  {}", 6, &used, NULL), NVMF_RPC_FRAME_BAD);
	CU_ASSERT_EQUAL(used, 6);
	CU_ASSERT_EQUAL(nvmf_rpc_frame("{\"a\":1,\"a\":2}", 13, &used, NULL), NVMF_RPC_FRAME_BAD);
}

/* A value need not be an object (the dispatcher answers what is not a request), and a
 * bad stream hands back no value. */
static void frame_takes_any_value_and_gives_none_when_bad(void)
{
	size_t used = 99;
	json_t *val = NULL;
	CU_ASSERT_EQUAL(nvmf_rpc_frame("42 ", 3, &used, &val), NVMF_RPC_FRAME_VALUE);
	CU_ASSERT_EQUAL(used, 2);
	CU_ASSERT_TRUE(json_is_integer(val));
	CU_ASSERT_EQUAL(json_integer_value(val), 42);
	json_decref(val);
	CU_ASSERT_EQUAL(nvmf_rpc_frame("\"x\"", 3, &used, &val), NVMF_RPC_FRAME_VALUE);
	CU_ASSERT_STRING_EQUAL(json_string_value(val), "x");
	json_decref(val);
	val = (json_t *)1;
	CU_ASSERT_EQUAL(nvmf_rpc_frame("{\"a\":1,\"a\":2} {}", 16, &used, &val),
			NVMF_RPC_FRAME_BAD);
	CU_ASSERT_EQUAL(used, 16);
	CU_ASSERT_PTR_NULL(val);
	val = (json_t *)1;
	used = 99;
	CU_ASSERT_EQUAL(nvmf_rpc_frame("  ", 2, &used, &val), NVMF_RPC_FRAME_MORE);
	CU_ASSERT_EQUAL(used, 0);
	CU_ASSERT_PTR_NULL(val);
}

/* A NUL byte is no JSON: BAD at once wherever it is, not MORE (jansson reads it as the
 * end of the input); a value complete before it is still taken, the NUL then BAD. */
static void frame_calls_a_nul_byte_bad_not_incomplete(void)
{
	size_t used = 99;
	json_t *val = (json_t *)1;
	CU_ASSERT_EQUAL(nvmf_rpc_frame("{\"a\":\0}\n", 8, &used, &val), NVMF_RPC_FRAME_BAD);
	CU_ASSERT_EQUAL(used, 8);
	CU_ASSERT_PTR_NULL(val);
	CU_ASSERT_EQUAL(nvmf_rpc_frame("{\"a\":\0", 6, &used, NULL), NVMF_RPC_FRAME_BAD);
	CU_ASSERT_EQUAL(nvmf_rpc_frame("\0", 1, &used, NULL), NVMF_RPC_FRAME_BAD);
	CU_ASSERT_EQUAL(used, 1);
	CU_ASSERT_EQUAL(nvmf_rpc_frame(" \0{}", 4, &used, NULL), NVMF_RPC_FRAME_BAD);
	CU_ASSERT_EQUAL(nvmf_rpc_frame("{\"a\":\"x\0\"}", 10, &used, NULL), NVMF_RPC_FRAME_BAD);
	CU_ASSERT_EQUAL(nvmf_rpc_frame("{}\0", 3, &used, NULL), NVMF_RPC_FRAME_VALUE);
	CU_ASSERT_EQUAL(used, 2);
}

const struct unit_test proto_tests[] = {
	{ "frame_calls_a_nul_byte_bad_not_incomplete", frame_calls_a_nul_byte_bad_not_incomplete },
	{ "default_path_is_run_for_root_else_runtime_dir_or_tmp",
	  default_path_is_run_for_root_else_runtime_dir_or_tmp },
	{ "frame_finds_each_value_in_a_stream", frame_finds_each_value_in_a_stream },
	{ "frame_takes_any_value_and_gives_none_when_bad",
	  frame_takes_any_value_and_gives_none_when_bad },
	{ NULL, NULL },
};
