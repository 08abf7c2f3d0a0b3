/* The NVMe/TCP host transport's ops (tcp/host/io.c) end to end against the scripted
 * controller: a 1 MiB write and read back with both digests, in 64 KiB PDUs; a queue
 * without a connection answers every op as lost. The receive
 * side's rules: rx_test.c; the send side's: tx_test.c. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/suites.h"
#include "tests/unit/tcp/host/io_fixture.h"

static void script_big(struct fake_ctrl *f)
{
	struct io_case *c = f->arg;
	uint16_t cid;
	if (fc_icreq(f, NULL) || read_capsule(f, 0, &cid))
		return;
	uint8_t *got = calloc(1, c->len);
	c->h2c_pdus[0] =
		fc_send_r2t(f, cid, 9, 0, c->len) ? -1 : fc_read_h2c(f, cid, 9, got, c->len, 65536);
	c->h2c_ok = !memcmp(got, c->data, c->len);
	memcpy(c->data, got, c->len);
	free(got);
	if (fc_send_rsp(f, cid, 0, 0) || read_capsule(f, 1, &cid))
		return;
	for (uint32_t off = 0; off < c->len; off += 65536)
		if (fc_send_c2h(f, cid, off, c->data + off, 65536, 65536,
				off + 65536 == c->len ? NVME_TCP_F_DATA_LAST : 0))
			return;
	fc_send_rsp(f, cid, 0, 0);
	c->eof = fc_eof(f);
}

static void one_mib_write_and_read_back_with_digests_in_64k_pdus(void)
{
	/* CPDA 3: our H2C data at a PDO that is a multiple of 16 (24 + 4 -> 32). */
	struct fake_ctrl f = { .hdgst = true, .ddgst = true, .maxh2cdata = 65536, .cpda = 3 };
	struct io_case c = { .len = 1u << 20 };
	struct th_result r;
	uint8_t *out = malloc(c.len), *in = malloc(c.len);
	c.data = malloc(c.len);
	fc_pattern(out, c.len, 3);
	memcpy(c.data, out, c.len);
	struct th_host *h = connect_host(&f, &c, script_big, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(th_submit(h, OPC_WRITE, out, c.len, &r, NULL), 0);
	th_wait(h, &r);
	CU_ASSERT_TRUE(r.done);
	CU_ASSERT_EQUAL(r.status, 0);
	memset(in, 0, c.len);
	CU_ASSERT_EQUAL(th_submit(h, OPC_READ, in, c.len, &r, NULL), 0);
	th_wait(h, &r);
	CU_ASSERT_TRUE(r.done);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_EQUAL(memcmp(in, out, c.len), 0);
	th_close(h);
	fc_join(&f);
	CU_ASSERT_EQUAL(f.errors, 0);
	CU_ASSERT_STRING_EQUAL(f.why, "");
	CU_ASSERT_EQUAL(c.h2c_pdus[0], 16);
	CU_ASSERT_TRUE(c.h2c_ok);
	CU_ASSERT_TRUE(c.digests_ok);
	free(out);
	free(in);
	free(c.data);
}

/* ---- data digest: the command fails, the queue lives ---- */

static void queue_without_connection_reports_connection_lost(void)
{
	struct nvmf_hq hq = { .t = &nvmf_tcp_host_transport };
	struct nvmf_hcmd cmd;
	memset(&cmd, 0, sizeof(cmd));
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.submit(&hq, &cmd), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.poll(&hq, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.wait(&hq, 0), -ECONNRESET);
	nvmf_tcp_host_transport.queue_disconnect(&hq);
	char buf[64];
	/* No registration on TCP: any buffer is fine. */
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.mem_register(&hq, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.mem_unregister(&hq, buf), 0);
}

const struct unit_test tcp_host_io_tests[] = {
	{ "one_mib_write_and_read_back_with_digests_in_64k_pdus",
	  one_mib_write_and_read_back_with_digests_in_64k_pdus },
	{ "queue_without_connection_reports_connection_lost",
	  queue_without_connection_reports_connection_lost },
	{ NULL, NULL },
};
