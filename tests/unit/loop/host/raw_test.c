/* Raw host queues of the loop transport (loop/host/raw.c): capsules go to the target as
 * built, CQEs come back as sent, and a keyed SGL reaches only the memory its capsule
 * names, with the queue's key. The target is the whole-stack fixture (fixture.h) in
 * driven mode with auto drive off: each test drives it. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "nvme/sgl.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "nvme/fabrics.h"

#define DATA_XFER_ERROR (nvme_generic(NVME_SC_DATA_XFER_ERROR) | NVME_SC_DNR)

static struct fx F;

/* The CQE of the one command outstanding on @q, after driving the target. */
static int reap_one(struct nvmf_loop_raw *q, struct nvme_cqe *cqe)
{
	nvmf_loop_drive(&F.tgt);
	return nvmf_loop_raw_reap(q, cqe, 1);
}

static uint16_t status_of(const struct nvme_cqe *cqe)
{
	return le16toh(cqe->status) >> 1;
}

/* An admin Connect of FX_HOSTNQN to FX_SUBNQN whose data travels by keyed SGL @len bytes
 * at @at with @key (@data holds the Connect data, at least 1024 bytes). */
static void connect_sqe(struct nvme_sqe *c, uint16_t cid, void *at, uint32_t len, uint32_t key)
{
	memset(c, 0, sizeof(*c));
	c->opcode = nvme_admin_fabrics;
	c->command_id = cid;
	uint8_t *p = (uint8_t *)c;
	p[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	p[NVMF_CONNECT_SQSIZE] = 31;
	nvme_sgl_set_keyed(c, (uintptr_t)at, len, key, false);
}

static void connect_data(void *buf)
{
	struct nvmf_connect_data d;
	memset(&d, 0, sizeof(d));
	d.cntlid = htole16(0xffff);
	strcpy(d.subsysnqn, FX_SUBNQN);
	strcpy(d.hostnqn, FX_HOSTNQN);
	memcpy(buf, &d, sizeof(d));
}

static void a_raw_capsule_goes_as_built_and_its_cqe_comes_back_as_sent(void)
{
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
	struct nvmf_loop_raw *q = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_loop_raw_connect(&F.tgt, "127.0.0.1", "4420", 0, 32, &q), 0);
	CU_ASSERT_EQUAL(nvmf_loop_raw_inline(q), 0); /* admin capsules carry no data */
	static uint8_t data[1024];
	connect_data(data);
	struct nvme_sqe c;
	connect_sqe(&c, 0xbeef, data, sizeof(data), nvmf_loop_raw_key(q));
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, data, sizeof(data)), 0);
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL_FATAL(reap_one(q, &cqe), 1);
	CU_ASSERT_EQUAL(cqe.command_id, 0xbeef); /* any id, echoed */
	CU_ASSERT_EQUAL(status_of(&cqe), 0);
	CU_ASSERT_NOT_EQUAL(le32toh(cqe.result.u32) & 0xffff, 0); /* the cntlid */
	CU_ASSERT_EQUAL(reap_one(q, &cqe), 0);                    /* one CQE per capsule */
	/* In-capsule data on the admin queue: more than its receive buffer holds. */
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, data, 16, NULL, 0), -EINVAL);
	nvmf_loop_raw_disconnect(q);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&F.tgt), 0);
	fx_teardown(&F);
}

/* nvmf_loop_drop: the next CQE of the queue's qid is lost, the one after it arrives. */
static void a_dropped_cqe_never_arrives_and_the_next_does(void)
{
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
	struct nvmf_loop_raw *q = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_loop_raw_connect(&F.tgt, "127.0.0.1", "4420", 0, 32, &q), 0);
	static uint8_t data[1024];
	connect_data(data);
	struct nvme_sqe c;
	struct nvme_cqe cqe;
	connect_sqe(&c, 1, data, sizeof(data), nvmf_loop_raw_key(q));
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, data, sizeof(data)), 0);
	CU_ASSERT_EQUAL_FATAL(reap_one(q, &cqe), 1);
	nvmf_loop_drop(&F.tgt, 0, 1);
	struct nvme_sqe ka;
	memset(&ka, 0, sizeof(ka));
	ka.opcode = nvme_admin_keep_alive;
	ka.command_id = 2;
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &ka, NULL, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(reap_one(q, &cqe), 0); /* lost */
	ka.command_id = 3;
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &ka, NULL, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(reap_one(q, &cqe), 1);
	CU_ASSERT_EQUAL(cqe.command_id, 3);
	nvmf_loop_raw_disconnect(q);
	fx_teardown(&F);
}

static void a_keyed_sgl_outside_its_memory_or_with_another_key_fails_with_data_transfer_error(void)
{
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
	struct nvmf_loop_raw *q = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_loop_raw_connect(&F.tgt, "127.0.0.1", "4420", 0, 32, &q), 0);
	static uint8_t data[2048];
	connect_data(data + 1024);
	uint32_t key = nvmf_loop_raw_key(q);
	struct nvme_sqe c;
	struct nvme_cqe cqe;
	/* The region is the first 1024 bytes; the SGL names the next 1024. */
	connect_sqe(&c, 1, data + 1024, 1024, key);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, data, 1024), 0);
	CU_ASSERT_EQUAL_FATAL(reap_one(q, &cqe), 1);
	CU_ASSERT_EQUAL(status_of(&cqe), DATA_XFER_ERROR);
	/* One byte past the end; an address whose sum with the length wraps around. */
	connect_sqe(&c, 2, data + 1025, 1024, key);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, data + 1024, 1024), 0);
	CU_ASSERT_EQUAL_FATAL(reap_one(q, &cqe), 1);
	CU_ASSERT_EQUAL(status_of(&cqe), DATA_XFER_ERROR);
	connect_sqe(&c, 3, (void *)(uintptr_t)UINT64_MAX, 1024, key);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, data + 1024, 1024), 0);
	CU_ASSERT_EQUAL_FATAL(reap_one(q, &cqe), 1);
	CU_ASSERT_EQUAL(status_of(&cqe), DATA_XFER_ERROR);
	/* The right memory with another key. */
	connect_sqe(&c, 4, data + 1024, 1024, key ^ 0x100);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, data + 1024, 1024), 0);
	CU_ASSERT_EQUAL_FATAL(reap_one(q, &cqe), 1);
	CU_ASSERT_EQUAL(status_of(&cqe), DATA_XFER_ERROR);
	/* No memory at all. */
	connect_sqe(&c, 5, data + 1024, 1024, key);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(reap_one(q, &cqe), 1);
	CU_ASSERT_EQUAL(status_of(&cqe), DATA_XFER_ERROR);
	/* And inside it, the Connect goes through. */
	connect_sqe(&c, 6, data + 1024, 1024, key);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, data + 1024, 1024), 0);
	CU_ASSERT_EQUAL_FATAL(reap_one(q, &cqe), 1);
	CU_ASSERT_EQUAL(status_of(&cqe), 0);
	nvmf_loop_raw_disconnect(q);
	fx_teardown(&F);
}

static void a_raw_queue_takes_at_most_its_size_of_unreaped_commands(void)
{
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
	struct nvmf_loop_raw *q = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_loop_raw_connect(&F.tgt, NULL, NULL, 0, 4, &q), 0);
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_identify; /* before Connect: Invalid Opcode */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, NULL, 0), -EAGAIN);
	nvmf_loop_drive(&F.tgt);
	struct nvme_cqe cqe[8];
	CU_ASSERT_EQUAL(nvmf_loop_raw_reap(q, cqe, 8), 4);
	CU_ASSERT_EQUAL(status_of(&cqe[0]), nvme_generic(NVME_SC_INVALID_OPCODE) | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, NULL, 0), 0);
	/* Broken: sends and reaps fail; the CQE not reaped is lost. */
	nvmf_loop_break(&F.tgt);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, NULL, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_loop_raw_reap(q, cqe, 8), -ECONNRESET);
	nvmf_loop_raw_disconnect(q);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&F.tgt), 0);
	fx_teardown(&F);
}

static void delete_ctrl(void *arg)
{
	nvmf_tgt_ctrl_delete(arg);
}

static void cqes_sent_before_the_target_closes_the_queue_are_still_reaped(void)
{
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
	struct nvmf_loop_raw *q = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_loop_raw_connect(&F.tgt, "127.0.0.1", "4420", 0, 32, &q), 0);
	static uint8_t data[1024];
	connect_data(data);
	struct nvme_sqe c;
	connect_sqe(&c, 7, data, sizeof(data), nvmf_loop_raw_key(q));
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, data, sizeof(data)), 0);
	nvmf_loop_drive(&F.tgt); /* answered: the CQE waits in the ring */
	struct nvmf_tgt_ctrl *ctrl = F.tgt.ctrls;
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctrl);
	CU_ASSERT_EQUAL(nvmf_loop_run_on(&F.tgt, 0, delete_ctrl, ctrl), 0);
	nvmf_loop_drive(&F.tgt); /* the queue is closed by the target */
	struct nvme_cqe cqe[2];
	CU_ASSERT_EQUAL(nvmf_loop_raw_reap(q, cqe, 2), 1);
	CU_ASSERT_EQUAL(cqe[0].command_id, 7);
	CU_ASSERT_EQUAL(nvmf_loop_raw_reap(q, cqe, 2), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_loop_raw_send(q, &c, NULL, 0, data, sizeof(data)), -ECONNRESET);
	nvmf_loop_raw_disconnect(q);
	fx_teardown(&F);
}

static void a_raw_queue_to_no_listening_port_is_refused(void)
{
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
	struct nvmf_loop_raw *q = NULL;
	CU_ASSERT_EQUAL(nvmf_loop_raw_connect(&F.tgt, "127.0.0.1", "4421", 0, 32, &q),
			-ECONNREFUSED);
	CU_ASSERT_EQUAL(nvmf_loop_raw_connect(&F.tgt, "127.0.0.1", "4420", 0, 1, &q), -EINVAL);
	CU_ASSERT_PTR_NULL(q);
	fx_teardown(&F);
}

const struct unit_test loop_raw_tests[] = {
	{ "a_raw_capsule_goes_as_built_and_its_cqe_comes_back_as_sent",
	  a_raw_capsule_goes_as_built_and_its_cqe_comes_back_as_sent },
	{ "a_keyed_sgl_outside_its_memory_or_with_another_key_fails_with_data_transfer_error",
	  a_keyed_sgl_outside_its_memory_or_with_another_key_fails_with_data_transfer_error },
	{ "a_raw_queue_takes_at_most_its_size_of_unreaped_commands",
	  a_raw_queue_takes_at_most_its_size_of_unreaped_commands },
	{ "cqes_sent_before_the_target_closes_the_queue_are_still_reaped",
	  cqes_sent_before_the_target_closes_the_queue_are_still_reaped },
	{ "a_dropped_cqe_never_arrives_and_the_next_does",
	  a_dropped_cqe_never_arrives_and_the_next_does },
	{ "a_raw_queue_to_no_listening_port_is_refused",
	  a_raw_queue_to_no_listening_port_is_refused },
	{ NULL, NULL },
};
