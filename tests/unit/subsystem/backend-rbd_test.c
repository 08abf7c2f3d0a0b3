/* Unit tests for subsystem/backend-rbd.c. The failures before any cluster is reached run
 * everywhere; the data path needs a Ceph cluster: NVMF_TEST_CEPH_CONF (its ceph.conf) and
 * NVMF_TEST_CEPH_KEYRING (client.admin's keyring), as tests/ceph/cluster start prints
 * them, with a pool "rbd". Without them those tests count as not run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rados/librados.h>
#include <rbd/librbd.h>
#include "subsystem/backend.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"

static struct nvmf_ns_config rbd_cfg(const char *pool, const char *image, const char *conf,
				     const char *keyring)
{
	struct nvmf_ns_config c = { .nsid = 1, .enable = true, .kind = NVMF_BACKEND_RBD };
	snprintf(c.rbd.pool, sizeof(c.rbd.pool), "%s", pool);
	snprintf(c.rbd.image, sizeof(c.rbd.image), "%s", image);
	snprintf(c.rbd.conf, sizeof(c.rbd.conf), "%s", conf);
	snprintf(c.rbd.keyring, sizeof(c.rbd.keyring), "%s", keyring ? keyring : "");
	snprintf(c.rbd.client_id, sizeof(c.rbd.client_id), "admin");
	return c;
}

static void rbd_missing_conf_is_named(void)
{
	char err[512] = "";
	struct nvmf_ns_config c = rbd_cfg("rbd", "img1", "/nonexistent/ceph.conf", NULL);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err,
			       "rbd rbd/img1: cannot read /nonexistent/ceph.conf: No such file or "
			       "directory");
}

static void rbd_missing_keyring_is_named_not_taken_for_bad_credentials(void)
{
	char err[512] = "";
	struct nvmf_ns_config c = rbd_cfg("rbd", "img1", "/etc/ceph/ceph.conf", "/nonexistent.kr");
	snprintf(c.rbd.rados_ns, sizeof(c.rbd.rados_ns), "t1");
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(
		err, "rbd rbd/t1/img1: keyring /nonexistent.kr: No such file or directory");
}

/* ---- against a cluster ---- */

struct cluster {
	const char *conf, *keyring;
	rados_t rados;
	rados_ioctx_t io;
	char image[64];
};

/* Connects as client.admin and creates a fresh image of @size bytes. false (not run)
 * without a cluster. */
static bool cluster_up(struct cluster *k, uint64_t size)
{
	memset(k, 0, sizeof(*k));
	k->conf = getenv("NVMF_TEST_CEPH_CONF");
	k->keyring = getenv("NVMF_TEST_CEPH_KEYRING");
	if (!k->conf || !k->keyring) {
		unit_not_run("no Ceph cluster: set NVMF_TEST_CEPH_CONF and NVMF_TEST_CEPH_KEYRING "
			     "(tests/ceph/cluster start)");
		return false;
	}
	CU_ASSERT_EQUAL_FATAL(rados_create2(&k->rados, "ceph", "client.admin", 0), 0);
	CU_ASSERT_EQUAL_FATAL(rados_conf_read_file(k->rados, k->conf), 0);
	CU_ASSERT_EQUAL_FATAL(rados_conf_set(k->rados, "keyring", k->keyring), 0);
	CU_ASSERT_EQUAL_FATAL(rados_connect(k->rados), 0);
	CU_ASSERT_EQUAL_FATAL(rados_ioctx_create(k->rados, "rbd", &k->io), 0);
	snprintf(k->image, sizeof(k->image), "unit-%d-%ld", (int)getpid(), (long)time(NULL));
	int order = 22; /* 4 MiB objects */
	CU_ASSERT_EQUAL_FATAL(rbd_create(k->io, k->image, size, &order), 0);
	return true;
}

static void cluster_down(struct cluster *k)
{
	rbd_remove(k->io, k->image);
	rados_ioctx_destroy(k->io);
	rados_shutdown(k->rados);
}

struct seen {
	struct nvmf_bdev_watch w;
	unsigned notices; /* atomic */
};

static void count_notice(struct nvmf_bdev_watch *w)
{
	__atomic_add_fetch(&((struct seen *)w)->notices, 1, __ATOMIC_RELEASE);
}

static void rbd_data_path_reads_writes_zeroes_flushes_and_hears_a_resize(void)
{
	struct cluster k;
	if (!cluster_up(&k, 64ull << 20))
		return;
	char err[512] = "";
	struct nvmf_ns_config c = rbd_cfg("rbd", k.image, k.conf, k.keyring);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, err, sizeof(err));
	if (!b)
		fprintf(stderr, "\n    open: %s\n", err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->size, 64ull << 20);
	CU_ASSERT_EQUAL(b->block_size, 512);
	CU_ASSERT_FALSE(b->volatile_cache); /* librbd's cache off: written is on the OSDs */
	CU_ASSERT_STRING_EQUAL(b->ops->name, "rbd");
	struct nvmf_aio aio;
	CU_ASSERT_EQUAL_FATAL(nvmf_aio_init(&aio, 64), 0);
	check_round_trip(b, &aio, 0, 4096, 1);
	check_round_trip(b, &aio, (4ull << 20) - 2048, 1 << 20, 2); /* across an object */
	CU_ASSERT_FALSE(nvmf_aio_busy(&aio));

	/* Write Zeroes and Deallocate read back zeroes, also on part of an object. */
	char *buf = aligned_buf(1 << 20);
	fill(buf, 1 << 20, 3);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_WRITE, 8ull << 20, 1 << 20, buf), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_WRITE_ZEROES, 8ull << 20, 4096, NULL), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_DISCARD, (8ull << 20) + 65536, 512, NULL), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_FLUSH, 0, 0, NULL), 0);
	memset(buf, 0xee, 1 << 20);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 8ull << 20, 1 << 20, buf), 0);
	CU_ASSERT_TRUE(all_zero(buf, 4096));
	CU_ASSERT_TRUE(all_zero(buf + 65536, 512));
	CU_ASSERT_FALSE(all_zero(buf + 4096, 512)); /* the rest is as written */
	CU_ASSERT_FALSE(all_zero(buf + 65536 + 512, 512));

	/* Past the end: refused before librbd sees it. */
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 64ull << 20, 4096, buf), -EINVAL);

	/* Resized elsewhere: the watch hears it, the device size follows. */
	struct seen s = { .w = { .fn = count_notice } };
	__atomic_store_n(&b->watch, &s.w, __ATOMIC_RELEASE);
	rbd_image_t other;
	CU_ASSERT_EQUAL_FATAL(rbd_open(k.io, k.image, &other, NULL), 0);
	CU_ASSERT_EQUAL(rbd_resize(other, 96ull << 20), 0);
	rbd_close(other);
	for (int i = 0; i < 500 && !__atomic_load_n(&s.notices, __ATOMIC_ACQUIRE); i++)
		usleep(10 * 1000);
	CU_ASSERT_TRUE(__atomic_load_n(&s.notices, __ATOMIC_ACQUIRE) > 0);
	uint64_t now = 0;
	CU_ASSERT_EQUAL(nvmf_bdev_device_size(b, &now), 0);
	CU_ASSERT_EQUAL(now, 96ull << 20);
	CU_ASSERT_EQUAL(b->size, 64ull << 20); /* the target decides when to follow */

	free(buf);
	nvmf_aio_fini(&aio);
	nvmf_bdev_close(b);
	cluster_down(&k);
}

static void rbd_missing_image_and_pool_are_named(void)
{
	struct cluster k;
	if (!cluster_up(&k, 1 << 20))
		return;
	char err[512] = "";
	struct nvmf_ns_config c = rbd_cfg("rbd", "nosuch", k.conf, k.keyring);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "rbd rbd/nosuch: no such image");
	c = rbd_cfg("nopool", "img1", k.conf, k.keyring);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "rbd nopool/img1: no such pool");
	cluster_down(&k);
}

const struct unit_test backend_rbd_tests[] = {
	{ "rbd_missing_conf_is_named", rbd_missing_conf_is_named },
	{ "rbd_missing_keyring_is_named_not_taken_for_bad_credentials",
	  rbd_missing_keyring_is_named_not_taken_for_bad_credentials },
	{ "rbd_data_path_reads_writes_zeroes_flushes_and_hears_a_resize",
	  rbd_data_path_reads_writes_zeroes_flushes_and_hears_a_resize },
	{ "rbd_missing_image_and_pool_are_named", rbd_missing_image_and_pool_are_named },
	{ NULL, NULL },
};
