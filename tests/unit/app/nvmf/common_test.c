/* The nvmf tool's error lines (app/nvmf/common.c): a library error is one line
 * naming what failed, the error and the library's detail; on a machine without RDMA
 * (ENODEV) it says how to reach an NVMe/TCP target instead. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/nvmf/cli.h"
#include "tests/unit/suites.h"

/* What cli_lib_error(@rc, @detail) prints for "connect to 127.0.0.1:4420", into @out. */
static void printed(int rc, const char *detail, char *out, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(cli_lib_error(f, "connect to 127.0.0.1:4420", rc, detail), CLI_ERR);
	fclose(f);
	snprintf(out, len, "%s", text ? text : "");
	free(text);
}

static void no_rdma_device_error_says_to_use_tcp(void)
{
	char out[512];
	printed(-ENODEV, "rdma connect of queue 0 to 127.0.0.1:4420: rdma_create_event_channel: "
		"No such device (no RDMA device, or rdma_ucm not loaded?)", out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "nvmf: connect to 127.0.0.1:4420: No such device: rdma connect "
			       "of queue 0 to 127.0.0.1:4420: rdma_create_event_channel: No such device "
			       "(no RDMA device, or rdma_ucm not loaded?); for NVMe/TCP use -t tcp\n");
	printed(-ENODEV, NULL, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "nvmf: connect to 127.0.0.1:4420: No such device; for NVMe/TCP "
			       "use -t tcp\n");
}

static void other_errors_have_no_transport_hint(void)
{
	char out[512];
	printed(-ECONNREFUSED, "tcp connect to 127.0.0.1:4420", out, sizeof(out));
	CU_ASSERT_PTR_NULL(strstr(out, "-t tcp"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "nvmf: connect to 127.0.0.1:4420: "));
}

const struct unit_test cli_common_tests[] = {
	{"no_rdma_device_error_says_to_use_tcp", no_rdma_device_error_says_to_use_tcp},
	{"other_errors_have_no_transport_hint", other_errors_have_no_transport_hint},
	{NULL, NULL},
};
