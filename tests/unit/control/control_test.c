/*
 * The control socket (control/control.c) against a whole target on the loop transport
 * (tests/unit/target/fixture.h), with the main group run by the test's thread. The
 * methods: ctl-read_test.c, ctl-change_test.c.
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "nvme/auth.h"
#include "control/control.h"
#include "target/log.h"
#include "target/namespace.h"
#include "tests/unit/suites.h"
#include "util/size.h"
#include "tests/unit/control/methods_fixture.h"

/* ---- the socket, with the main group run by this thread ---- */

struct client {
	char path[96];
	char answer[1024];
	bool done;
};

static void *client_thread(void *arg)
{
	struct client *c = arg;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", c->path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		static const char req[] =
			"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"namespace_add\",\"params\":"
			"{\"nqn\":\"" FX_SUBNQN
			"\",\"namespace\":{\"nsid\":8,\"nvmf_backend\":\"null\","
			"\"nvmf_size_bytes\":\"1M\"}}}";
		size_t got = 0;
		if (write(fd, req, sizeof(req) - 1) == (ssize_t)sizeof(req) - 1)
			while (got < sizeof(c->answer) - 1) {
				ssize_t n = read(fd, c->answer + got, sizeof(c->answer) - 1 - got);
				if (n <= 0)
					break;
				got += (size_t)n;
				if (c->answer[got - 1] == '\n')
					break;
			}
		c->answer[got] = 0;
	}
	if (fd >= 0)
		close(fd);
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void socket_calls_run_on_the_main_group(void)
{
	ctlm_setup();
	struct client c = { .done = false };
	char dir[] = "/tmp/nvmf-ctl-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(c.path, sizeof(c.path), "%s/ctl.sock", dir);
	struct nvmf_ctl ctl;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_ctl_start(&ctl, &ctlm_fx.tgt, c.path, NULL, err, sizeof(err)),
			      0);
	pthread_t t;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, client_thread, &c), 0);
	/* The call waits for the main group: run it until the client has its answer. */
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE))
		nvmf_loop_drive(&ctlm_fx.tgt);
	pthread_join(t, NULL);
	CU_ASSERT_STRING_EQUAL(c.answer,
			       "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"nsids\":[8]}}\n");
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(nvmf_tgt_find_subsys(&ctlm_fx.tgt, FX_SUBNQN), 8));
	nvmf_ctl_stop(&ctl);
	CU_ASSERT_EQUAL(access(c.path, F_OK), -1);
	rmdir(dir);
	ctlm_teardown();
}

const struct unit_test control_tests[] = {
	{ "socket_calls_run_on_the_main_group", socket_calls_run_on_the_main_group },
	{ NULL, NULL },
};
