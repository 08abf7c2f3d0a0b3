/*
 * Ports in the kernel's ephemeral port range (target/ephemeral.c; the range's file is
 * read by util/ephemeral.c, tests/unit/util/ephemeral_test.c): the warning for a tcp or rdma port in it
 * (bounds included) naming the port and the range, none for a port outside it or another
 * transport, and the target's log line when it listens on one.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "target/ephemeral.h"
#include "target/log.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

/* A file holding @text, its path in @path (at least 64 bytes). */
static void range_file(char *path, const char *text)
{
	snprintf(path, 64, "/tmp/nvmf-ephemeral-XXXXXX");
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static struct nvmf_port_config port(const char *trtype, const char *traddr, const char *trsvcid)
{
	struct nvmf_port_config pc;
	memset(&pc, 0, sizeof(pc));
	nvmf_config_port_defaults(&pc);
	pc.portid = 3;
	pc.adrfam = strchr(traddr, ':') ? AF_INET6 : AF_INET;
	snprintf(pc.trtype, sizeof(pc.trtype), "%s", trtype);
	snprintf(pc.traddr, sizeof(pc.traddr), "%s", traddr);
	snprintf(pc.trsvcid, sizeof(pc.trsvcid), "%s", trsvcid);
	return pc;
}

static void tcp_port_in_the_range_is_warned_with_the_port_and_the_range(void)
{
	char msg[512] = "";
	struct nvmf_port_config pc = port("tcp", "127.0.0.1", "40000");
	CU_ASSERT_TRUE(nvmf_port_ephemeral_warning(&pc, 32768, 60999, msg, sizeof(msg)));
	CU_ASSERT_STRING_EQUAL(
		msg, "port 3 (tcp 127.0.0.1:40000): 40000 is in the kernel's ephemeral "
		     "port range 32768-60999 (net.ipv4.ip_local_port_range): an outgoing TCP "
		     "connection of this machine may take it while the target is down, and the "
		     "next start would fail to bind; choose a port outside the range");
}

/* rdma_cm gives outgoing RDMA connections their port from the same range. */
static void rdma_port_in_the_range_is_warned_too(void)
{
	char msg[512] = "";
	struct nvmf_port_config pc = port("rdma", "fd00::1", "32768");
	CU_ASSERT_TRUE(nvmf_port_ephemeral_warning(&pc, 32768, 60999, msg, sizeof(msg)));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg,
				      "port 3 (rdma [fd00::1]:32768): 32768 is in the kernel's "
				      "ephemeral port range 32768-60999"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "an outgoing RDMA (rdma_cm) connection"));
}

static void port_outside_the_range_or_of_another_transport_is_not_warned(void)
{
	char msg[16] = "untouched";
	struct nvmf_port_config below = port("tcp", "0.0.0.0", "32767");
	struct nvmf_port_config above = port("tcp", "0.0.0.0", "61000");
	struct nvmf_port_config usual = port("rdma", "0.0.0.0", "4420");
	struct nvmf_port_config top = port("tcp", "0.0.0.0", "60999");
	struct nvmf_port_config loop = port("loop", "127.0.0.1", "40000");
	CU_ASSERT_FALSE(nvmf_port_ephemeral_warning(&below, 32768, 60999, msg, sizeof(msg)));
	CU_ASSERT_FALSE(nvmf_port_ephemeral_warning(&above, 32768, 60999, msg, sizeof(msg)));
	CU_ASSERT_FALSE(nvmf_port_ephemeral_warning(&usual, 32768, 60999, msg, sizeof(msg)));
	CU_ASSERT_FALSE(nvmf_port_ephemeral_warning(&loop, 32768, 60999, msg, sizeof(msg)));
	CU_ASSERT_STRING_EQUAL(msg, "untouched");
	CU_ASSERT_TRUE(nvmf_port_ephemeral_warning(&top, 32768, 60999, msg, sizeof(msg)));
}

/* The target's log: one warning line for a port in the range, with the range the file
 * says (a changed sysctl is what counts); nothing for one outside it, or without a range. */
static void target_logs_one_warning_line_for_a_port_in_the_range(void)
{
	char path[64];
	range_file(path, "10000 10010\n");
	struct nvmf_tgt tgt;
	memset(&tgt, 0, sizeof(tgt));
	nvmf_log_level_set_all(&tgt, NVMF_LOG_INFO);
	tgt.ephemeral_range_path = path;
	struct nvmf_port_config in = port("tcp", "127.0.0.1", "10010");
	struct nvmf_port_config out = port("tcp", "127.0.0.1", "40000");
	struct fx_stderr err;
	fx_stderr_begin(&err);
	nvmf_tgt_warn_ephemeral(&tgt, &in);
	nvmf_tgt_warn_ephemeral(&tgt, &out);
	unlink(path);
	nvmf_tgt_warn_ephemeral(&tgt, &in); /* no range to read: no warning */
	fx_stderr_end(&err);
	CU_ASSERT_STRING_EQUAL(
		err.text,
		"nvmf-target: core: warning: port 3 (tcp 127.0.0.1:10010): 10010 is "
		"in the kernel's ephemeral port range 10000-10010 (net.ipv4.ip_local_port_range): "
		"an outgoing TCP connection of this machine may take it while the target is "
		"down, and the next start would fail to bind; choose a port outside the range\n");
}

const struct unit_test ephemeral_tests[] = {
	{ "tcp_port_in_the_range_is_warned_with_the_port_and_the_range",
	  tcp_port_in_the_range_is_warned_with_the_port_and_the_range },
	{ "rdma_port_in_the_range_is_warned_too", rdma_port_in_the_range_is_warned_too },
	{ "port_outside_the_range_or_of_another_transport_is_not_warned",
	  port_outside_the_range_or_of_another_transport_is_not_warned },
	{ "target_logs_one_warning_line_for_a_port_in_the_range",
	  target_logs_one_warning_line_for_a_port_in_the_range },
	{ NULL, NULL },
};
