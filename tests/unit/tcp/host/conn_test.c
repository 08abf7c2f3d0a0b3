/* NVMe/TCP host transport connect (tcp/host/conn.c): the TCP connect, the ICReq we send
 * and the ICResp checks (TCP transport 1.0 section 3.6.2.2/3), against the scripted
 * controller of fake_ctrl.c. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "tests/unit/suites.h"
#include "tests/unit/tcp/host/fake_ctrl.h"

/* ICReq answered with the default ICResp; then wait for the host to go. */
static void script_accept(struct fake_ctrl *f)
{
	if (!fc_icreq(f, NULL))
		fc_eof(f);
}

static void icreq_has_pfv0_hpda0_maxr2t0_and_the_digests_asked_for(void)
{
	for (int dg = 0; dg < 4; dg++) {
		struct fake_ctrl f = { .hdgst = dg & 1, .ddgst = dg & 2 };
		struct th_host h;
		char err[256];
		CU_ASSERT_EQUAL_FATAL(fc_start(&f, "127.0.0.1", script_accept), 0);
		CU_ASSERT_EQUAL(th_connect(&h, &f, "127.0.0.1", 1, err, sizeof(err)), 0);
		CU_ASSERT_STRING_EQUAL(err, "");
		struct nvmf_th_queue *q = th_queue(&h);
		CU_ASSERT_PTR_NOT_NULL_FATAL(q);
		CU_ASSERT_EQUAL(q->maxh2cdata, 131072);
		CU_ASSERT_EQUAL(q->incapsule, 0); /* I/O queue: until set_incapsule */
		th_close(&h);
		fc_join(&f);
		CU_ASSERT_EQUAL(f.errors, 0);
		CU_ASSERT_TRUE(f.icreq_ok);
		CU_ASSERT_EQUAL(f.icreq.ch.type, NVME_TCP_ICREQ);
		CU_ASSERT_EQUAL(f.icreq.ch.hlen, 128);
		CU_ASSERT_EQUAL(f.icreq.ch.pdo, 0);
		CU_ASSERT_EQUAL(le32toh(f.icreq.ch.plen), 128);
		CU_ASSERT_EQUAL(le16toh(f.icreq.pfv), 0);
		CU_ASSERT_EQUAL(f.icreq.hpda, 0);
		CU_ASSERT_EQUAL(le32toh(f.icreq.maxr2t), 0);
		CU_ASSERT_EQUAL(f.icreq.dgst, (dg & 1 ? 1 : 0) | (dg & 2 ? 2 : 0));
	}
}

static void admin_queue_carries_8k_in_capsule_and_ipv6_works(void)
{
	struct fake_ctrl f = { 0 };
	struct th_host h;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(fc_start(&f, "::1", script_accept), 0);
	CU_ASSERT_EQUAL(th_connect(&h, &f, "::1", 0, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(th_queue(&h));
	CU_ASSERT_EQUAL(th_queue(&h)->incapsule, 8192);
	char want[64];
	snprintf(want, sizeof(want), "[::1]:%s", f.port);
	CU_ASSERT_STRING_EQUAL(th_queue(&h)->peer, want);
	th_close(&h);
	fc_join(&f);
	CU_ASSERT_EQUAL(f.errors, 0);
}

/* The ICResp given in f->arg. */
static void script_icresp(struct fake_ctrl *f)
{
	if (!fc_icreq(f, f->arg))
		fc_eof(f);
}

/* Connect against an ICResp changed by @edit; returns rc, the message in @err. */
static int connect_with_icresp(void (*edit)(struct nvme_tcp_icresp *), bool hd, char *err,
			       size_t len, struct fake_ctrl *f)
{
	static struct nvme_tcp_icresp r; /* the script reads it until fc_join */
	struct th_host h;
	memset(f, 0, sizeof(*f));
	f->hdgst = hd;
	fc_default_icresp(f, &r);
	edit(&r);
	f->arg = &r;
	if (fc_start(f, "127.0.0.1", script_icresp))
		return 1;
	int rc = th_connect(&h, f, "127.0.0.1", 1, err, len);
	CU_ASSERT_PTR_NULL(th_queue(&h)); /* nothing left behind on failure */
	th_close(&h);
	fc_join(f);
	return rc;
}

static void pfv_1(struct nvme_tcp_icresp *r)
{
	r->pfv = htole16(1);
}
static void maxh2c_2048(struct nvme_tcp_icresp *r)
{
	r->maxh2cdata = htole32(2048);
}
static void maxh2c_odd(struct nvme_tcp_icresp *r)
{
	r->maxh2cdata = htole32(8190);
}
static void no_digest(struct nvme_tcp_icresp *r)
{
	r->dgst = 0;
}
static void data_digest(struct nvme_tcp_icresp *r)
{
	r->dgst = NVME_TCP_DGST_DATA;
}
static void cpda_32(struct nvme_tcp_icresp *r)
{
	r->cpda = 32;
}
static void hlen_64(struct nvme_tcp_icresp *r)
{
	r->ch.hlen = 64;
}

static void icresp_with_pfv_1_is_refused_naming_it(void)
{
	struct fake_ctrl f;
	char err[256], want[256];
	CU_ASSERT_EQUAL(connect_with_icresp(pfv_1, false, err, sizeof(err), &f), -EPROTO);
	snprintf(want, sizeof(want),
		 "icresp from 127.0.0.1:%s: unsupported PFV 1 (only 0, version 1.0)", f.port);
	CU_ASSERT_STRING_EQUAL(err, want);
}

static void icresp_maxh2cdata_below_4096_or_not_dword_multiple_is_refused(void)
{
	struct fake_ctrl f;
	char err[256];
	CU_ASSERT_EQUAL(connect_with_icresp(maxh2c_2048, false, err, sizeof(err), &f), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "MAXH2CDATA 2048: at least 4096 bytes"));
	CU_ASSERT_EQUAL(connect_with_icresp(maxh2c_odd, false, err, sizeof(err), &f), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "MAXH2CDATA 8190"));
}

static void icresp_granting_other_digests_than_asked_is_refused(void)
{
	struct fake_ctrl f;
	char err[256];
	CU_ASSERT_EQUAL(connect_with_icresp(no_digest, true, err, sizeof(err), &f), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "digests granted (header off, data off) differ from "
					   "those requested (header on, data off)"));
	CU_ASSERT_EQUAL(connect_with_icresp(data_digest, false, err, sizeof(err), &f), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "digests granted (header off, data on)"));
}

static void icresp_with_cpda_out_of_range_or_bad_hlen_is_refused(void)
{
	struct fake_ctrl f;
	char err[256];
	CU_ASSERT_EQUAL(connect_with_icresp(cpda_32, false, err, sizeof(err), &f), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "CPDA 32 out of range (0..31)"));
	CU_ASSERT_EQUAL(connect_with_icresp(hlen_64, false, err, sizeof(err), &f), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad PDU header: type 0x01 flags 0x00 hlen 64"));
}

static void script_term(struct fake_ctrl *f)
{
	if (!fc_read(f, &f->icreq, sizeof(f->icreq)))
		fc_send_term(f, NVME_TCP_FES_UNSUPPORTED_PARAM, 8);
	fc_eof(f);
}

static void c2htermreq_instead_of_icresp_is_a_refusal_with_its_fes(void)
{
	struct fake_ctrl f = { 0 };
	struct th_host h;
	char err[256], want[256];
	CU_ASSERT_EQUAL_FATAL(fc_start(&f, "127.0.0.1", script_term), 0);
	CU_ASSERT_EQUAL(th_connect(&h, &f, "127.0.0.1", 0, err, sizeof(err)), -ECONNREFUSED);
	snprintf(want, sizeof(want),
		 "icresp from 127.0.0.1:%s: the controller terminated the "
		 "connection: C2HTermReq FES 6 (unsupported parameter), FEI 8",
		 f.port);
	CU_ASSERT_STRING_EQUAL(err, want);
	th_close(&h);
	fc_join(&f);
}

static void script_close(struct fake_ctrl *f)
{
	fc_read(f, &f->icreq, sizeof(f->icreq));
	close(f->fd);
	f->fd = -1;
}

static void controller_closing_before_icresp_is_connection_reset(void)
{
	struct fake_ctrl f = { 0 };
	struct th_host h;
	char err[256], want[256];
	CU_ASSERT_EQUAL_FATAL(fc_start(&f, "127.0.0.1", script_close), 0);
	CU_ASSERT_EQUAL(th_connect(&h, &f, "127.0.0.1", 0, err, sizeof(err)), -ECONNRESET);
	snprintf(want, sizeof(want),
		 "icresp from 127.0.0.1:%s: connection closed by the controller (a port that "
		 "requires TLS does this to a host without a PSK)",
		 f.port);
	CU_ASSERT_STRING_EQUAL(err, want);
	th_close(&h);
	fc_join(&f);
	CU_ASSERT_EQUAL(f.errors, 0);
}

static void script_silent(struct fake_ctrl *f)
{
	if (!fc_read(f, &f->icreq, sizeof(f->icreq)))
		fc_eof(f); /* no ICResp: the host gives up first */
}

static void no_icresp_within_the_timeout_is_etimedout(void)
{
	struct fake_ctrl f = { 0 };
	struct nvmf_hq hq = { .t = &nvmf_tcp_host_transport };
	char err[256];
	CU_ASSERT_EQUAL_FATAL(fc_start(&f, "127.0.0.1", script_silent), 0);
	struct nvmf_ctrl_opts o = { .traddr = "127.0.0.1", .trsvcid = f.port, .timeout_ms = 200 };
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.queue_connect(&hq, &o, 0, 32, err, sizeof(err)),
			-ETIMEDOUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no ICResp: timed out"));
	CU_ASSERT_PTR_NULL(hq.tpriv);
	fc_join(&f);
	CU_ASSERT_EQUAL(f.errors, 0); /* the script saw the host close */
}

static void closed_port_is_econnrefused_naming_the_address(void)
{
	/* A port nobody listens on: bound, then closed. */
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	CU_ASSERT_EQUAL_FATAL(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
	close(fd);
	char port[8];
	snprintf(port, sizeof(port), "%u", ntohs(a.sin_port));
	struct nvmf_hq hq = { .t = &nvmf_tcp_host_transport };
	struct nvmf_ctrl_opts o = { .traddr = "127.0.0.1", .trsvcid = port };
	char err[256], want[256];
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.queue_connect(&hq, &o, 0, 32, err, sizeof(err)),
			-ECONNREFUSED);
	snprintf(want, sizeof(want), "connect 127.0.0.1:%s: Connection refused", port);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_PTR_NULL(hq.tpriv);
}

static void bad_address_or_port_or_size_is_einval_before_any_socket(void)
{
	struct nvmf_hq hq = { .t = &nvmf_tcp_host_transport };
	struct nvmf_ctrl_opts o = { .traddr = "target.example", .trsvcid = "4420" };
	char err[256];
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.queue_connect(&hq, &o, 0, 32, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "traddr 'target.example' trsvcid '4420'"));
	o.traddr = "127.0.0.1";
	o.trsvcid = "nvme";
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.queue_connect(&hq, &o, 0, 32, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(nvmf_tcp_host_transport.queue_connect(&hq, &o, 0, 1, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "queue 0: size 1: a queue has at least 2 entries");
	CU_ASSERT_PTR_NULL(hq.tpriv);
}

/* A port number out of range is refused as the RDMA host refuses it (nvmf_rh_parse_addr:
 * "trsvcid 'y': not a port number"), not taken modulo 65536: glibc's getaddrinfo accepts
 * "79956" and connects to port 14420 (79956 - 65536), another service than the one named. */
static void port_above_65535_is_einval_not_wrapped(void)
{
	struct nvmf_hq hq = { .t = &nvmf_tcp_host_transport };
	const char *bad[] = { "65536", "131071", "4294971716" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nvmf_ctrl_opts o = { .traddr = "127.0.0.1",
					    .trsvcid = bad[i],
					    .timeout_ms = 200 };
		char err[256] = "";
		int rc = nvmf_tcp_host_transport.queue_connect(&hq, &o, 0, 32, err, sizeof(err));
		CU_ASSERT_EQUAL(rc, -EINVAL);
		if (rc != -EINVAL)
			fprintf(stderr, "\n  trsvcid '%s': %d, %s\n", bad[i], rc, err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i]));
		CU_ASSERT_PTR_NULL(hq.tpriv);
	}
}

static void nvmf_connect_picks_the_transport_by_trtype(void)
{
	struct nvmf_ctrl *c = NULL;
	struct nvmf_ctrl_opts o = {
		.traddr = "127.0.0.1",
		.trsvcid = "1",
		.trtype = "fc",
		.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:6c1d0a52-7f0e-4c35-9a43-0d2b8e5f1a01",
		.timeout_ms = 2000
	};
	CU_ASSERT_EQUAL(nvmf_connect(&o, &c), -EINVAL);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(),
				      "trtype 'fc': not a transport of libnvmf (rdma or tcp)"));
	/* tcp: the TCP transport's own message, named by the core's "tcp connect of queue 0". */
	struct fake_ctrl f = { 0 };
	char want[256];
	CU_ASSERT_EQUAL_FATAL(fc_start(&f, "127.0.0.1", script_term), 0);
	o.trtype = "tcp";
	o.trsvcid = f.port;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &c), -ECONNREFUSED);
	snprintf(want, sizeof(want),
		 "tcp connect of queue 0 to 127.0.0.1:%s: icresp from "
		 "127.0.0.1:%s: the controller terminated the connection",
		 f.port, f.port);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), want));
	fc_join(&f);
}

/* nvmf_th_queue_attach on a socketpair (the fuzzer's seam): the ICResp written before is
 * taken, the ICReq is on the other end, and a read completes through the queue. */
static void attach_on_a_socketpair_takes_the_icresp_and_serves_a_read(void)
{
	int sv[2];
	struct fake_ctrl f;
	struct nvme_tcp_icresp r;
	struct nvme_tcp_icreq ic;
	struct th_host h;
	struct th_result res;
	char err[256];
	uint8_t buf[512], want[512];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(&f, 0, sizeof(f));
	f.fd = sv[1];
	f.maxh2cdata = 8192;
	fc_default_icresp(&f, &r);
	CU_ASSERT_EQUAL_FATAL(fc_write(&f, &r, sizeof(r)), 0);
	CU_ASSERT_EQUAL_FATAL(th_attach(&h, sv[0], 1, 16, false, false, 2000, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(th_queue(&h)->peer, "local");
	CU_ASSERT_EQUAL(th_queue(&h)->maxh2cdata, 8192);
	CU_ASSERT_EQUAL(fc_read(&f, &ic, sizeof(ic)), 0);
	CU_ASSERT_EQUAL(ic.ch.type, NVME_TCP_ICREQ);

	uint16_t cid = 99;
	CU_ASSERT_EQUAL_FATAL(th_submit(&h, 0x02, buf, sizeof(buf), &res, &cid), 0);
	/* Submit only queues: the capsule goes out with the next poll. */
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&h.q, 0), 0);
	struct fc_pdu p;
	CU_ASSERT_EQUAL_FATAL(fc_read_pdu(&f, &p), 0);
	CU_ASSERT_EQUAL(p.ch.type, NVME_TCP_CMD);
	fc_pdu_free(&p);
	fc_pattern(want, sizeof(want), 3);
	CU_ASSERT_EQUAL(fc_send_c2h(&f, cid, 0, want, sizeof(want), sizeof(want),
				    NVME_TCP_F_DATA_LAST | NVME_TCP_F_DATA_SUCCESS),
			0);
	th_wait(&h, &res);
	CU_ASSERT_TRUE(res.done);
	CU_ASSERT_EQUAL(res.status, 0);
	CU_ASSERT_EQUAL(memcmp(buf, want, sizeof(buf)), 0);
	th_close(&h);
	close(sv[1]);
	CU_ASSERT_EQUAL(f.errors, 0);
}

/* The other end closed before a whole ICResp: -ECONNRESET at once, with a message, the
 * socket taken and nothing left behind. */
static void attach_with_eof_before_a_whole_icresp_is_connection_reset(void)
{
	int sv[2];
	struct th_host h;
	char err[256];
	uint8_t half[64];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(half, 0, sizeof(half));
	half[0] = NVME_TCP_ICRESP;
	half[2] = 128;
	half[4] = 128;
	CU_ASSERT_EQUAL(write(sv[1], half, sizeof(half)), (ssize_t)sizeof(half));
	shutdown(sv[1], SHUT_WR);
	CU_ASSERT_EQUAL(th_attach(&h, sv[0], 0, 16, false, false, 5000, err, sizeof(err)),
			-ECONNRESET);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(err, "icresp from local: connection closed by the controller"));
	/* half an ICResp came: not a port that closed on a plain host, so no TLS hint */
	CU_ASSERT_PTR_NULL(strstr(err, "requires TLS"));
	CU_ASSERT_PTR_NULL(th_queue(&h));
	th_close(&h);
	close(sv[1]);
}

const struct unit_test tcp_host_conn_tests[] = {
	{ "attach_on_a_socketpair_takes_the_icresp_and_serves_a_read",
	  attach_on_a_socketpair_takes_the_icresp_and_serves_a_read },
	{ "attach_with_eof_before_a_whole_icresp_is_connection_reset",
	  attach_with_eof_before_a_whole_icresp_is_connection_reset },
	{ "nvmf_connect_picks_the_transport_by_trtype",
	  nvmf_connect_picks_the_transport_by_trtype },
	{ "icreq_has_pfv0_hpda0_maxr2t0_and_the_digests_asked_for",
	  icreq_has_pfv0_hpda0_maxr2t0_and_the_digests_asked_for },
	{ "admin_queue_carries_8k_in_capsule_and_ipv6_works",
	  admin_queue_carries_8k_in_capsule_and_ipv6_works },
	{ "icresp_with_pfv_1_is_refused_naming_it", icresp_with_pfv_1_is_refused_naming_it },
	{ "icresp_maxh2cdata_below_4096_or_not_dword_multiple_is_refused",
	  icresp_maxh2cdata_below_4096_or_not_dword_multiple_is_refused },
	{ "icresp_granting_other_digests_than_asked_is_refused",
	  icresp_granting_other_digests_than_asked_is_refused },
	{ "icresp_with_cpda_out_of_range_or_bad_hlen_is_refused",
	  icresp_with_cpda_out_of_range_or_bad_hlen_is_refused },
	{ "c2htermreq_instead_of_icresp_is_a_refusal_with_its_fes",
	  c2htermreq_instead_of_icresp_is_a_refusal_with_its_fes },
	{ "controller_closing_before_icresp_is_connection_reset",
	  controller_closing_before_icresp_is_connection_reset },
	{ "no_icresp_within_the_timeout_is_etimedout", no_icresp_within_the_timeout_is_etimedout },
	{ "closed_port_is_econnrefused_naming_the_address",
	  closed_port_is_econnrefused_naming_the_address },
	{ "port_above_65535_is_einval_not_wrapped", port_above_65535_is_einval_not_wrapped },
	{ "bad_address_or_port_or_size_is_einval_before_any_socket",
	  bad_address_or_port_or_size_is_einval_before_any_socket },
	{ NULL, NULL },
};
