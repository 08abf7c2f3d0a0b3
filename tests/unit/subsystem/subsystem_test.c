/* The served model's port limits (subsystem/subsystem.c, nvmf_port_resolve): the one
 * place a port's queue size, in-capsule size and highest qid are decided from its config
 * and its transport's limits. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "subsystem/subsystem.h"
#include "tests/unit/suites.h"

/* A transport's limits, as the RDMA transport has them. */
#define MAX_QUEUE  1024
#define MAX_INLINE 16384

static uint32_t queue_size(struct nvmf_port_config *pc)
{
	struct nvmf_port port = { .cfg = pc };
	nvmf_port_resolve(&port, MAX_QUEUE, MAX_INLINE);
	return port.queue_size;
}

static uint32_t inline_size(struct nvmf_port_config *pc)
{
	struct nvmf_port port = { .cfg = pc };
	nvmf_port_resolve(&port, MAX_QUEUE, MAX_INLINE);
	return port.inline_size;
}

static void port_queue_size_minus_one_means_default_and_is_clamped(void)
{
	struct nvmf_port_config pc;
	memset(&pc, 0, sizeof(pc));
	pc.max_queue_size = UINT32_MAX;
	CU_ASSERT_EQUAL(queue_size(&pc), NVMF_DEFAULT_QUEUE_SIZE);
	pc.max_queue_size = 0;
	CU_ASSERT_EQUAL(queue_size(&pc), NVMF_DEFAULT_QUEUE_SIZE);
	pc.max_queue_size = 5000;
	CU_ASSERT_EQUAL(queue_size(&pc), MAX_QUEUE);
	pc.max_queue_size = 8;
	CU_ASSERT_EQUAL(queue_size(&pc), NVMF_MIN_QUEUE_SIZE);
	pc.max_queue_size = 64;
	CU_ASSERT_EQUAL(queue_size(&pc), 64);
}

static void port_inline_size_minus_one_means_default_and_zero_means_none(void)
{
	struct nvmf_port_config pc;
	memset(&pc, 0, sizeof(pc));
	pc.inline_data_size = UINT32_MAX;
	CU_ASSERT_EQUAL(inline_size(&pc), NVMF_DEFAULT_INLINE);
	pc.inline_data_size = 0;
	CU_ASSERT_EQUAL(inline_size(&pc), 0);
	pc.inline_data_size = 1u << 20;
	CU_ASSERT_EQUAL(inline_size(&pc), MAX_INLINE);
	pc.inline_data_size = 4096;
	CU_ASSERT_EQUAL(inline_size(&pc), 4096);
}

static void port_limits_take_the_largest_qid_max_of_exposed_subsystems(void)
{
	struct nvmf_port_config pc;
	struct nvmf_subsys_config c1, c2;
	struct nvmf_subsys s1, s2, disc;
	memset(&pc, 0, sizeof(pc));
	memset(&c1, 0, sizeof(c1));
	memset(&c2, 0, sizeof(c2));
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	memset(&disc, 0, sizeof(disc));
	pc.max_queue_size = 64;
	c1.qid_max = 8;
	c2.qid_max = 16;
	s1.cfg = &c1;
	s2.cfg = &c2;
	disc.type = NVMF_SUBSYS_DISCOVERY;
	struct nvmf_subsys *list[] = { &s1, &disc, &s2 };
	struct nvmf_port port = { .cfg = &pc, .subsys = list, .n_subsys = 3 };
	nvmf_port_resolve(&port, MAX_QUEUE, MAX_INLINE);
	CU_ASSERT_EQUAL(NVMF_ADMIN_QUEUE_SIZE, 32);
	CU_ASSERT_EQUAL(port.queue_size, 64);
	CU_ASSERT_EQUAL(port.max_qid, 16);
	/* qid_max 0 in a config means the default, 128 */
	c2.qid_max = 0;
	nvmf_port_resolve(&port, MAX_QUEUE, MAX_INLINE);
	CU_ASSERT_EQUAL(port.max_qid, 128);
	/* a port with only discovery takes no I/O queue */
	port.subsys = (struct nvmf_subsys *[]){ &disc };
	port.n_subsys = 1;
	nvmf_port_resolve(&port, MAX_QUEUE, MAX_INLINE);
	CU_ASSERT_EQUAL(port.max_qid, 0);
}

/* Addresses in messages: IPv6 bracketed as in a URI, so its colons do not run into the
 * port number's; an empty trsvcid is the default 4420. */
static void port_address_for_messages_brackets_ipv6(void)
{
	struct nvmf_port_config pc;
	char b[96];
	memset(&pc, 0, sizeof(pc));
	pc.adrfam = AF_INET6;
	snprintf(pc.traddr, sizeof(pc.traddr), "::1");
	snprintf(pc.trsvcid, sizeof(pc.trsvcid), "34420");
	CU_ASSERT_STRING_EQUAL(nvmf_port_config_addr(&pc, b, sizeof(b)), "[::1]:34420");
	pc.adrfam = AF_INET;
	snprintf(pc.traddr, sizeof(pc.traddr), "10.0.0.1");
	pc.trsvcid[0] = '\0';
	CU_ASSERT_STRING_EQUAL(nvmf_port_config_addr(&pc, b, sizeof(b)), "10.0.0.1:4420");
}

/* A start (or subsystem add) whose later namespace does not open: the file an earlier
 * namespace's open created (nvmf_create) is removed with the half-built subsystem. */
static void failed_build_removes_the_file_it_created(void)
{
	char dir[] = "/tmp/nvmf-build-XXXXXX", img[96], missing[96], err[512];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/new.img", dir);
	snprintf(missing, sizeof(missing), "%s/missing.img", dir);
	struct nvmf_ns_config ns[2] = {
		{ .nsid = 1,
		  .enable = true,
		  .path = img,
		  .kind = NVMF_BACKEND_FILE,
		  .size_bytes = 1u << 20,
		  .create = true,
		  .buffered = true },
		{ .nsid = 2, .enable = true, .path = missing, .kind = NVMF_BACKEND_FILE },
	};
	struct nvmf_subsys_config sc;
	memset(&sc, 0, sizeof(sc));
	snprintf(sc.nqn, sizeof(sc.nqn), "nqn.2026-12.io.nvmf-rdma:build");
	sc.ns = ns;
	sc.n_ns = 2;
	CU_ASSERT_PTR_NULL(nvmf_subsys_build(&sc, 0, err, sizeof(err)));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "missing.img: No such file or directory"));
	CU_ASSERT_EQUAL(access(img, F_OK), -1);
	unlink(img);
	rmdir(dir);
}

const struct unit_test subsystem_model_tests[] = {
	{ "failed_build_removes_the_file_it_created", failed_build_removes_the_file_it_created },
	{ "port_queue_size_minus_one_means_default_and_is_clamped",
	  port_queue_size_minus_one_means_default_and_is_clamped },
	{ "port_inline_size_minus_one_means_default_and_zero_means_none",
	  port_inline_size_minus_one_means_default_and_zero_means_none },
	{ "port_limits_take_the_largest_qid_max_of_exposed_subsystems",
	  port_limits_take_the_largest_qid_max_of_exposed_subsystems },
	{ "port_address_for_messages_brackets_ipv6", port_address_for_messages_brackets_ipv6 },
	{ NULL, NULL },
};
