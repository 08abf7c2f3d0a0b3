/* A configuration saved (subsystem/config_save.c) and loaded again is the same
 * configuration, field by field; saving replaces the file atomically or not at all. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "subsystem/config.h"
#include "tests/unit/suites.h"

static const char *const rich =
	"{\"hosts\": [{\"nqn\": \"nqn.h:one\", \"dhchap\": {\"key\": "
	"   \"DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:\", \"ctrl_key\": "
	"   \"DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:\", \"hash\": \"hmac(sha384)\","
	"   \"dhgroup\": \"ffdhe3072\"}}, {\"nqn\": \"nqn.h:two\", \"nvmf_tls_key\":"
	"   \"NVMeTLSkey-1:01:kiHrhJ33zILJg+vFgAhNH0dubDZFYwV7vPfNX2AEFczmS22d:\","
	"   \"nvmf_tls_key_compat\": true}, {\"nqn\": \"nqn.h:three\", \"nvmf_tls_key\":"
	"   \"NVMeTLSkey-1:01:kiHrhJ33zILJg+vFgAhNH0dubDZFYwV7vPfNX2AEFczmS22d:\"}],"
	" \"discovery\": {\"nqn\": \"nqn.2026-12.test:disc\"},"
	" \"nvmf_target\": {\"mdts\": 6, \"threads\": 3, \"buffers_small\": 512, \"buffers_large\": 32,"
	"   \"hugepages\": false, \"idle_poll_us\": 50, \"srq\": false, \"srq_depth\": 1024, \"numa_node\": 0,"
	"   \"rpc_socket\": \"/run/x.sock\", \"discovery_log\": \"host-port\", \"discovery_kato\": 30,"
	"   \"resv_state\": \"/var/lib/x.resv.json\", \"persist\": false, \"post_thread\": \"off\"},"
	" \"ports\": [{\"portid\": 3, \"addr\": {\"adrfam\": \"ipv6\", \"traddr\": \"fd00::1\", \"trsvcid\": \"4422\","
	"   \"trtype\": \"rdma\", \"treq\": \"not required\"}, \"param\": {\"inline_data_size\": \"4096\","
	"   \"max_queue_size\": \"64\", \"mdts\": \"5\"}, \"subsystems\": [\"nqn.s:a\"],"
	"   \"referrals\": [{\"addr\": {\"adrfam\": \"ipv4\", \"portid\": \"7\", \"traddr\": \"10.1.1.1\","
	"      \"treq\": \"required\", \"trsvcid\": \"8009\", \"trtype\": \"tcp\"}, \"enable\": 1, \"name\": \"r1\"},"
	"     {\"addr\": {\"adrfam\": \"ipv6\", \"portid\": \"2\", \"traddr\": \"fd00::9\", \"treq\": \"not specified\","
	"      \"trsvcid\": \"4420\", \"trtype\": \"rdma\"}, \"enable\": 0, \"name\": \"r2\"}]},"
	"  {\"portid\": 4, \"addr\": {\"adrfam\": \"ipv4\", \"traddr\": \"0.0.0.0\", \"trtype\": \"rdma\"},"
	"   \"subsystems\": [\"nqn.s:a\", \"nqn.s:b\"]},"
	"  {\"portid\": 5, \"addr\": {\"adrfam\": \"ipv4\", \"traddr\": \"127.0.0.1\", \"trsvcid\": \"4430\", \"trtype\": \"tcp\"},"
	"   \"param\": {\"nvmf_maxh2cdata\": \"65536\", \"nvmf_zerocopy_threshold\": \"0\"},"
	"   \"subsystems\": [\"nqn.s:b\"]}],"
	" \"subsystems\": [{\"nqn\": \"nqn.s:a\", \"allowed_hosts\": [\"nqn.h:one\", \"nqn.h:two\"],"
	"   \"attr\": {\"allow_any_host\": \"0\", \"serial\": \"SER1\", \"model\": \"M one\", \"firmware\": \"F1\","
	"    \"version\": \"1.3\", \"cntlid_min\": \"5\", \"cntlid_max\": \"50\", \"qid_max\": \"8\"},"
	"   \"namespaces\": [{\"nsid\": 7, \"enable\": 0, \"device\": {\"path\": \"/img/a\","
	"     \"uuid\": \"5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11\", \"nguid\": \"ef90689c6c46d44c89c14067801309a8\"},"
	"     \"nvmf_backend\": \"file\", \"nvmf_size_bytes\": 1048576, \"nvmf_block_size\": 4096,"
	"     \"nvmf_create\": true, \"nvmf_buffered\": true, \"nvmf_eui64\": \"0011223344556677\","
	"     \"resv\": {\"enable\": \"1\"}},"
	"    {\"nsid\": 2, \"enable\": 1, \"nvmf_backend\": \"ram\", \"nvmf_size_bytes\": \"64M\"},"
	"    {\"nsid\": 3, \"nvmf_backend\": \"rbd\", \"nvmf_rbd_pool\": \"rbd\", \"nvmf_rbd_image\": \"img1\","
	"     \"nvmf_rbd_namespace\": \"t1\", \"nvmf_rbd_conf\": \"/c/ceph.conf\","
	"     \"nvmf_rbd_keyring\": \"/k/gw.keyring\", \"nvmf_rbd_client_id\": \"gw1\"},"
	"    {\"nsid\": 4, \"nvmf_backend\": \"rbd\", \"nvmf_rbd_pool\": \"p2\", \"nvmf_rbd_image\": \"i2\"}]},"
	"  {\"nqn\": \"nqn.s:b\", \"attr\": {\"allow_any_host\": \"1\"}},"
	"  {\"nqn\": \"nqn.s:c\", \"passthru\": [{\"admin_timeout\": \"30\", \"clear_ids\": 0,"
	"    \"device\": {\"path\": \"/dev/nvme1\"}, \"enable\": 1, \"io_timeout\": 5}]}]}";

static void same_ns(const struct nvmf_ns_config *a, const struct nvmf_ns_config *b)
{
	CU_ASSERT_EQUAL(a->nsid, b->nsid);
	CU_ASSERT_EQUAL(a->enable, b->enable);
	CU_ASSERT_TRUE((!a->path && !b->path) || (a->path && b->path && !strcmp(a->path, b->path)));
	CU_ASSERT_EQUAL(a->has_uuid, b->has_uuid);
	CU_ASSERT_EQUAL(memcmp(a->uuid, b->uuid, 16), 0);
	CU_ASSERT_EQUAL(a->has_nguid, b->has_nguid);
	CU_ASSERT_EQUAL(memcmp(a->nguid, b->nguid, 16), 0);
	CU_ASSERT_EQUAL(a->has_eui64, b->has_eui64);
	CU_ASSERT_EQUAL(memcmp(a->eui64, b->eui64, 8), 0);
	CU_ASSERT_EQUAL(a->kind, b->kind);
	CU_ASSERT_EQUAL(a->size_bytes, b->size_bytes);
	CU_ASSERT_EQUAL(a->block_size, b->block_size);
	CU_ASSERT_EQUAL(a->create, b->create);
	CU_ASSERT_EQUAL(a->buffered, b->buffered);
	CU_ASSERT_EQUAL(a->resv_enable, b->resv_enable);
	CU_ASSERT_EQUAL(memcmp(&a->rbd, &b->rbd, sizeof(a->rbd)), 0);
}

static void same_config(const struct nvmf_config *a, const struct nvmf_config *b)
{
	CU_ASSERT_EQUAL(memcmp(&a->target, &b->target, sizeof(a->target)), 0);
	CU_ASSERT_EQUAL_FATAL(a->n_hosts, b->n_hosts);
	for (size_t i = 0; i < a->n_hosts; i++)
		CU_ASSERT_STRING_EQUAL(a->hosts[i], b->hosts[i]);
	CU_ASSERT_EQUAL_FATAL(a->n_dhchap, b->n_dhchap);
	for (size_t i = 0; i < a->n_dhchap; i++) {
		const struct nvmf_dhchap_config *x = &a->dhchap[i], *y = &b->dhchap[i];
		CU_ASSERT_STRING_EQUAL(x->hostnqn, y->hostnqn);
		CU_ASSERT_STRING_EQUAL(x->key, y->key);
		CU_ASSERT_STRING_EQUAL(x->ctrl_key, y->ctrl_key);
		CU_ASSERT_STRING_EQUAL(x->hash, y->hash);
		CU_ASSERT_STRING_EQUAL(x->dhgroup, y->dhgroup);
	}
	CU_ASSERT_EQUAL_FATAL(a->n_tls_keys, b->n_tls_keys);
	for (size_t i = 0; i < a->n_tls_keys; i++) {
		const struct nvmf_tls_key_config *x = &a->tls_keys[i], *y = &b->tls_keys[i];
		CU_ASSERT_STRING_EQUAL(x->hostnqn, y->hostnqn);
		CU_ASSERT_STRING_EQUAL(x->key, y->key);
		CU_ASSERT_EQUAL(x->compat, y->compat);
	}
	CU_ASSERT_EQUAL_FATAL(a->n_ports, b->n_ports);
	for (size_t i = 0; i < a->n_ports; i++) {
		const struct nvmf_port_config *p = &a->ports[i], *q = &b->ports[i];
		CU_ASSERT_EQUAL(p->portid, q->portid);
		CU_ASSERT_STRING_EQUAL(p->trtype, q->trtype);
		CU_ASSERT_EQUAL(p->adrfam, q->adrfam);
		CU_ASSERT_STRING_EQUAL(p->traddr, q->traddr);
		CU_ASSERT_STRING_EQUAL(p->trsvcid, q->trsvcid);
		CU_ASSERT_EQUAL(p->treq, q->treq);
		CU_ASSERT_EQUAL(p->inline_data_size, q->inline_data_size);
		CU_ASSERT_EQUAL(p->max_queue_size, q->max_queue_size);
		CU_ASSERT_EQUAL(p->mdts, q->mdts);
		CU_ASSERT_EQUAL(p->maxh2cdata, q->maxh2cdata);
		CU_ASSERT_EQUAL(p->zerocopy_threshold, q->zerocopy_threshold);
		CU_ASSERT_EQUAL_FATAL(p->n_subsystems, q->n_subsystems);
		for (size_t k = 0; k < p->n_subsystems; k++)
			CU_ASSERT_STRING_EQUAL(p->subsystems[k], q->subsystems[k]);
		CU_ASSERT_EQUAL(p->n_referrals, q->n_referrals);
		CU_ASSERT_TRUE(nvmf_config_referrals_equal(p, q));
	}
	CU_ASSERT_EQUAL_FATAL(a->n_subsystems, b->n_subsystems);
	for (size_t i = 0; i < a->n_subsystems; i++) {
		const struct nvmf_subsys_config *s = &a->subsystems[i], *t = &b->subsystems[i];
		CU_ASSERT_STRING_EQUAL(s->nqn, t->nqn);
		CU_ASSERT_EQUAL(s->allow_any_host, t->allow_any_host);
		CU_ASSERT_STRING_EQUAL(s->serial, t->serial);
		CU_ASSERT_STRING_EQUAL(s->model, t->model);
		CU_ASSERT_STRING_EQUAL(s->firmware, t->firmware);
		CU_ASSERT_EQUAL(s->version, t->version);
		CU_ASSERT_EQUAL(s->cntlid_min, t->cntlid_min);
		CU_ASSERT_EQUAL(s->cntlid_max, t->cntlid_max);
		CU_ASSERT_EQUAL(s->qid_max, t->qid_max);
		CU_ASSERT_EQUAL_FATAL(s->n_allowed_hosts, t->n_allowed_hosts);
		for (size_t k = 0; k < s->n_allowed_hosts; k++)
			CU_ASSERT_STRING_EQUAL(s->allowed_hosts[k], t->allowed_hosts[k]);
		CU_ASSERT_EQUAL_FATAL(s->n_ns, t->n_ns);
		for (size_t k = 0; k < s->n_ns; k++)
			same_ns(&s->ns[k], &t->ns[k]);
		CU_ASSERT_EQUAL(memcmp(&s->passthru, &t->passthru, sizeof(s->passthru)), 0);
	}
}

static void saved_configuration_loads_back_the_same(void)
{
	struct nvmf_config a, b;
	char err[512] = "", dir[] = "/tmp/nvmf-save-XXXXXX", path[64];
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse(rich, &a, err, sizeof(err)), 0);
	/* What the round trip must keep beyond the defaults. */
	CU_ASSERT_EQUAL(a.ports[0].n_referrals, 2);
	CU_ASSERT_EQUAL(a.ports[0].zerocopy_threshold, NVMF_DEFAULT_ZEROCOPY);
	CU_ASSERT_EQUAL(a.ports[0].mdts, 5);
	CU_ASSERT_EQUAL(a.ports[1].mdts, 0);
	CU_ASSERT_EQUAL(a.ports[2].maxh2cdata, 65536);
	CU_ASSERT_EQUAL(a.ports[2].zerocopy_threshold, 0);
	CU_ASSERT_EQUAL(a.target.discovery_log, NVMF_DISC_LOG_HOST_PORT);
	CU_ASSERT_EQUAL(a.target.discovery_kato, 30);
	CU_ASSERT_EQUAL(a.target.post_thread, 0);
	CU_ASSERT_TRUE(a.subsystems[0].ns[0].resv_enable);
	CU_ASSERT_FALSE(a.subsystems[0].ns[1].resv_enable);
	CU_ASSERT_STRING_EQUAL(a.subsystems[0].ns[2].rbd.keyring, "/k/gw.keyring");
	CU_ASSERT_STRING_EQUAL(a.subsystems[0].ns[3].rbd.client_id, "admin"); /* defaults, */
	CU_ASSERT_STRING_EQUAL(a.subsystems[0].ns[3].rbd.conf, "/etc/ceph/ceph.conf");
	CU_ASSERT_STRING_EQUAL(a.subsystems[0].ns[3].rbd.rados_ns, "");
	CU_ASSERT_EQUAL_FATAL(a.n_tls_keys, 2);
	CU_ASSERT_TRUE(a.tls_keys[0].compat); /* nvmf_tls_key_compat, kept on and off */
	CU_ASSERT_FALSE(a.tls_keys[1].compat);
	CU_ASSERT_TRUE(a.subsystems[2].passthru.enable);
	CU_ASSERT_FALSE(a.subsystems[2].passthru.clear_ids);
	CU_ASSERT_EQUAL(a.subsystems[2].passthru.admin_timeout, 30);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/config.json", dir);
	CU_ASSERT_EQUAL_FATAL(nvmf_config_save(&a, path, err, sizeof(err)), 0);
	struct stat st;
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600); /* it holds DH-HMAC-CHAP secrets */
	if (nvmf_config_load(path, &b, err, sizeof(err)))
		fprintf(stderr, "\n  reload: %s\n", err);
	else
		same_config(&a, &b);
	CU_ASSERT_FALSE(a.target.persist); /* write-through off is kept */
	CU_ASSERT_FALSE(b.target.persist);
	/* Saved again over itself: the same bytes, and no temporary file left behind. */
	FILE *f = fopen(path, "r");
	char first[8192], second[8192];
	size_t n1 = f ? fread(first, 1, sizeof(first), f) : 0;
	if (f)
		fclose(f);
	CU_ASSERT_EQUAL(nvmf_config_save(&b, path, err, sizeof(err)), 0);
	f = fopen(path, "r");
	size_t n2 = f ? fread(second, 1, sizeof(second), f) : 0;
	if (f)
		fclose(f);
	CU_ASSERT_TRUE(n1 > 0 && n1 == n2 && !memcmp(first, second, n1));
	char tmp[96];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	CU_ASSERT_EQUAL(access(tmp, F_OK), -1);
	unlink(path);
	rmdir(dir);
	nvmf_config_free(&a);
	nvmf_config_free(&b);
}

static void save_into_a_missing_directory_names_the_file(void)
{
	struct nvmf_config a;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse("{}", &a, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(nvmf_config_save(&a, "/nonexistent/dir/c.json", err, sizeof(err)) < 0);
	CU_ASSERT_STRING_EQUAL(err,
			       "/nonexistent/dir/c.json: No such file or directory (the file is "
			       "written beside itself, then renamed)");
	CU_ASSERT_EQUAL(nvmf_config_save(&a, "/tmp", err, sizeof(err)), -EISDIR);
	CU_ASSERT_STRING_EQUAL(err, "/tmp: is a directory (give the file's name)");
	CU_ASSERT_EQUAL(nvmf_config_save(&a, "/tmp/nvmf-no-such-dir/", err, sizeof(err)), -EISDIR);
	/* Without secrets the file is an ordinary one (0644 under a 022 umask). */
	char dir[] = "/tmp/nvmf-save-XXXXXX", path[64];
	struct stat st;
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/plain.json", dir);
	mode_t old = umask(022);
	CU_ASSERT_EQUAL(nvmf_config_save(&a, path, err, sizeof(err)), 0);
	umask(old);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0644);
	/* A file the operator keeps private stays so when saved over (a live change writes
	 * it back): its host NQNs and key paths are not made readable by everyone. */
	CU_ASSERT_EQUAL(chmod(path, 0600), 0);
	old = umask(022);
	CU_ASSERT_EQUAL(nvmf_config_save(&a, path, err, sizeof(err)), 0);
	umask(old);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_EQUAL(chmod(path, 0640), 0);
	CU_ASSERT_EQUAL(nvmf_config_save(&a, path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
	unlink(path);
	rmdir(dir);
	nvmf_config_free(&a);
}

const struct unit_test config_save_tests[] = {
	{ "saved_configuration_loads_back_the_same", saved_configuration_loads_back_the_same },
	{ "save_into_a_missing_directory_names_the_file",
	  save_into_a_missing_directory_names_the_file },
	{ NULL, NULL },
};
