/* libnvmf DH-HMAC-CHAP (initiator/auth.c) against our target (target/auth.c) through the
 * loop host transport: every hash and DH group, bidirectional, the failures and their
 * messages, and that nothing reaches the namespace when authentication fails. The
 * controller-message checks of the host are in initiator_auth_bad (a scripted
 * controller). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/auth.h"
#include "tests/unit/loop/host/loop_host.h"
#include "tests/unit/suites.h"

/* `nvme gen-dhchap-key` secrets (the target's auth tests use the same). */
#define HOST_KEY  "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:"
#define CTRL_KEY  "DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:"
#define OTHER_KEY "DHHC-1:02:z4TrAW32nxlXcjD1k2MD2dw718ixnFci6MaNJBrlNf4PCs3Moq0GL4ZsU+Gj07JrUw6SIQ==:"

static struct loop_host *lh;
static struct nvmf_ctrl *ctrl;

static void setup(const char *key, const char *ctrl_key, const char *hash, const char *group)
{
	struct loop_host_params p = { .dhchap_key = key, .dhchap_ctrl_key = ctrl_key,
				      .dhchap_hash = hash, .dhchap_dhgroup = group };
	lh = loop_host_new(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lh);
	ctrl = NULL;
}

static void teardown(void)
{
	if (ctrl)
		nvmf_disconnect(ctrl);
	ctrl = NULL;
	loop_host_free(lh);
	lh = NULL;
}

static unsigned sends(void)
{
	return loop_host_fabrics_count(lh, nvme_fabrics_type_auth_send);
}

static unsigned receives(void)
{
	return loop_host_fabrics_count(lh, nvme_fabrics_type_auth_receive);
}

/* Write 8 blocks of a pattern at @slba and read them back. */
static void check_io(uint64_t slba, uint8_t seed)
{
	uint8_t w[4096], r[4096];
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)(seed + i * 7);
	memset(r, 0, sizeof(r));
	CU_ASSERT_EQUAL(nvmf_write(ctrl, 1, slba, 8, w), 0);
	CU_ASSERT_EQUAL(nvmf_read(ctrl, 1, slba, 8, r), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
}

static void every_hash_and_group_authenticates_every_queue(void)
{
	static const char *const hashes[] = { "hmac(sha256)", "hmac(sha384)", "hmac(sha512)" };
	static const char *const groups[] = { "null", "ffdhe2048", "ffdhe3072", "ffdhe4096",
					      "ffdhe6144", "ffdhe8192" };
	for (unsigned h = 0; h < 3; h++) {
		for (unsigned g = 0; g < 6; g++) {
			setup(HOST_KEY, NULL, hashes[h], groups[g]);
			struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
			o.dhchap_secret = HOST_KEY;
			o.nr_io_queues = 2;
			int rc = nvmf_connect(&o, &ctrl);
			CU_ASSERT_EQUAL(rc, 0);
			if (rc) {
				fprintf(stderr, "%s %s: %s\n", hashes[h], groups[g], nvmf_last_errmsg());
				teardown();
				continue;
			}
			struct nvmf_auth_info ai;
			CU_ASSERT_EQUAL(nvmf_ctrl_auth_info(ctrl, &ai), 0);
			CU_ASSERT_TRUE(ai.authenticated);
			CU_ASSERT_FALSE(ai.bidirectional);
			CU_ASSERT_EQUAL(ai.hash_id, h + 1);
			CU_ASSERT_EQUAL(ai.dhgroup_id, g);
			/* Admin and both I/O queues: Negotiate and Reply sent, Challenge and
			 * Success1 received; no Success2 without a controller secret. */
			CU_ASSERT_EQUAL(sends(), 3 * 2);
			CU_ASSERT_EQUAL(receives(), 3 * 2);
			check_io(8 * (h * 6 + g), (uint8_t)(h * 6 + g));
			teardown();
		}
	}
}

/* With a controller secret, on both kinds of exchange (a DH group and the null group). */
static void bidirectional_checks_the_controller_and_sends_success2(void)
{
	static const struct { const char *hash, *group; uint8_t dhgroup_id; } pairs[] = {
		{ "hmac(sha384)", "ffdhe2048", 1 }, { "hmac(sha512)", "null", 0 },
	};
	for (unsigned i = 0; i < 2; i++) {
		setup(HOST_KEY, CTRL_KEY, pairs[i].hash, pairs[i].group);
		struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
		o.dhchap_secret = HOST_KEY;
		o.dhchap_ctrl_secret = CTRL_KEY;
		CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &ctrl), 0);
		struct nvmf_auth_info ai;
		CU_ASSERT_EQUAL(nvmf_ctrl_auth_info(ctrl, &ai), 0);
		CU_ASSERT_TRUE(ai.authenticated);
		CU_ASSERT_TRUE(ai.bidirectional);
		CU_ASSERT_EQUAL(ai.dhgroup_id, pairs[i].dhgroup_id);
		CU_ASSERT_EQUAL(sends(), 2 * 3);   /* admin and one I/O queue, with Success2 */
		check_io(16 * i, (uint8_t)(3 + i));
		teardown();
	}
}

static void wrong_host_secret_is_refused_with_the_controllers_reason(void)
{
	setup(HOST_KEY, NULL, "hmac(sha256)", "ffdhe2048");
	struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
	o.dhchap_secret = OTHER_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), -EKEYREJECTED);
	CU_ASSERT_PTR_NULL(ctrl);
	const char *m = nvmf_last_errmsg();
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "queue 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "AUTH_Failure1, authentication failed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "explanation 01h"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, LH_HOSTNQN));
	/* Nothing past authentication: no Identify, no I/O queue, no I/O. */
	CU_ASSERT_EQUAL(loop_host_admin_count(lh, nvme_admin_identify), 0);
	CU_ASSERT_EQUAL(loop_host_io_count(lh, nvme_cmd_write), 0);
	CU_ASSERT_EQUAL(loop_host_io_count(lh, nvme_cmd_read), 0);
	teardown();
}

/* The controller has no controller secret for us: its "authentication failed" may mean
 * that or a wrong host secret, and the message says both. */
static void controller_without_a_controller_secret_refuses_bidirectional(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
	o.dhchap_secret = HOST_KEY;
	o.dhchap_ctrl_secret = CTRL_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), -EKEYREJECTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "AUTH_Failure1, authentication failed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "or it has no controller secret for it "
				      "(bidirectional authentication was asked for)"));
	teardown();
}

static void no_secret_for_a_controller_that_requires_one_is_eacces(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), -EACCES);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "requires in-band authentication"));
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "--dhchap-secret"));
	CU_ASSERT_EQUAL(sends(), 0);
	CU_ASSERT_EQUAL(loop_host_admin_count(lh, nvme_admin_identify), 0);
	teardown();
}

static void wrong_controller_secret_refuses_the_controller(void)
{
	setup(HOST_KEY, CTRL_KEY, "hmac(sha256)", "null");
	struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
	o.dhchap_secret = HOST_KEY;
	o.dhchap_ctrl_secret = OTHER_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), -EKEYREJECTED);
	const char *m = nvmf_last_errmsg();
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "response (R2) is wrong"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "sent AUTH_Failure2 (authentication failed)"));
	/* Negotiate, Reply, Failure2: never Success2. */
	CU_ASSERT_EQUAL(sends(), 3);
	CU_ASSERT_EQUAL(loop_host_admin_count(lh, nvme_admin_identify), 0);
	teardown();
}

static void controller_secret_with_a_controller_that_does_not_authenticate_is_eacces(void)
{
	setup(NULL, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
	o.dhchap_secret = HOST_KEY;
	o.dhchap_ctrl_secret = CTRL_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), -EACCES);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "does not authenticate"));
	CU_ASSERT_EQUAL(loop_host_admin_count(lh, nvme_admin_identify), 0);
	teardown();
}

static void host_secret_with_a_controller_that_does_not_ask_connects(void)
{
	setup(NULL, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
	o.dhchap_secret = HOST_KEY;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &ctrl), 0);
	struct nvmf_auth_info ai;
	nvmf_ctrl_auth_info(ctrl, &ai);
	CU_ASSERT_FALSE(ai.authenticated);
	CU_ASSERT_EQUAL(sends(), 0);
	check_io(0, 9);
	teardown();
}

static void malformed_secrets_are_einval_naming_the_option(void)
{
	setup(NULL, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
	o.dhchap_secret = "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD/:"; /* CRC */
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "dhchap_secret: "));
	CU_ASSERT_PTR_NULL(strstr(nvmf_last_errmsg(), "ab3CAVb"));   /* never the secret */
	o.dhchap_secret = HOST_KEY;
	o.dhchap_ctrl_secret = "DHHC-1:09:AAAA:";
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "dhchap_ctrl_secret: "));
	o.dhchap_secret = NULL;
	o.dhchap_ctrl_secret = CTRL_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "needs dhchap_secret"));
	/* Nothing was sent for any of them. */
	CU_ASSERT_EQUAL(loop_host_fabrics_count(lh, nvme_fabrics_type_connect), 0);
	teardown();
}

static void reconnect_authenticates_again_with_the_same_secrets(void)
{
	setup(HOST_KEY, CTRL_KEY, "hmac(sha256)", "ffdhe2048");
	char secret[] = HOST_KEY, csecret[] = CTRL_KEY;
	struct nvmf_ctrl_opts o = loop_host_opts(lh, LH_SUBNQN);
	o.dhchap_secret = secret;
	o.dhchap_ctrl_secret = csecret;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &ctrl), 0);
	/* The library keeps no pointer to the caller's strings. */
	memset(secret, 'x', sizeof(secret) - 1);
	memset(csecret, 'x', sizeof(csecret) - 1);
	check_io(0, 1);
	unsigned before = sends();
	loop_host_break(lh);
	CU_ASSERT_EQUAL_FATAL(nvmf_reconnect(ctrl), 0);
	CU_ASSERT_EQUAL(sends() - before, 2 * 3);
	struct nvmf_auth_info ai;
	nvmf_ctrl_auth_info(ctrl, &ai);
	CU_ASSERT_TRUE(ai.bidirectional);
	check_io(8, 2);
	teardown();
}

const struct unit_test initiator_auth_tests[] = {
	{"every_hash_and_group_authenticates_every_queue", every_hash_and_group_authenticates_every_queue},
	{"bidirectional_checks_the_controller_and_sends_success2", bidirectional_checks_the_controller_and_sends_success2},
	{"wrong_host_secret_is_refused_with_the_controllers_reason", wrong_host_secret_is_refused_with_the_controllers_reason},
	{"controller_without_a_controller_secret_refuses_bidirectional", controller_without_a_controller_secret_refuses_bidirectional},
	{"no_secret_for_a_controller_that_requires_one_is_eacces", no_secret_for_a_controller_that_requires_one_is_eacces},
	{"wrong_controller_secret_refuses_the_controller", wrong_controller_secret_refuses_the_controller},
	{"controller_secret_with_a_controller_that_does_not_authenticate_is_eacces", controller_secret_with_a_controller_that_does_not_authenticate_is_eacces},
	{"host_secret_with_a_controller_that_does_not_ask_connects", host_secret_with_a_controller_that_does_not_ask_connects},
	{"malformed_secrets_are_einval_naming_the_option", malformed_secrets_are_einval_naming_the_option},
	{"reconnect_authenticates_again_with_the_same_secrets", reconnect_authenticates_again_with_the_same_secrets},
	{NULL, NULL},
};
