/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the control socket's JSON-RPC (control/rpc.h) against the real method
 * table (control/control.h nvmf_ctl_methods) of a whole target on the loop transport.
 *
 * Each input gets a target of its own (tests/unit/target/fixture.h: FX_SUBNQN with two
 * RAM namespaces on loop port 1, driven mode) with a host connected through raw loop
 * queues (admin queue enabled, I/O queue 1), and a control context whose config file is a scratch file rewritten
 * with the same content before every input (config_save writes it, config_reload reads
 * it). The input is the byte stream a client writes to the socket: it is cut into
 * requests with nvmf_rpc_frame and each is answered (nvmf_rpc_answer, or the parse error
 * for bytes that are not JSON), the target running between calls as the daemon's main
 * group would; then the whole input once more as one request text (nvmf_rpc_handle).
 * Every answer must be JSON.
 *
 * The harness opens no file but its scratch config: a call whose parameters name a path
 * (a "path" member anywhere, or any string starting with '/') is refused before it runs,
 * so file, block device and NVMe namespaces and config_save to another file are out of
 * reach; RAM and null namespaces of any size are not (they reserve address space only).
 * Seeds: tests/fuzz/corpus/rpc/; dictionary: tests/fuzz/rpc.dict.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "nvme/sgl.h"
#include "control/control.h"
#include "target/core.h"
#include "target/log.h"
#include "target/namespace.h"
#include "control/rpc.h"
#include "tests/unit/target/fixture.h"
#include "nvme/fabrics.h"

/* The config file reload finds: the fixture's subsystem, one more, no port (the loader
 * takes rdma ports only, which this target does not run). */
static const char config_text[] =
	"{\"subsystems\":[{\"nqn\":\"" FX_SUBNQN "\",\"attr\":{\"allow_any_host\":\"0\","
	"\"qid_max\":\"4\"},\"allowed_hosts\":[\"" FX_HOSTNQN "\"],\"namespaces\":["
	"{\"nsid\":1,\"enable\":1,\"device\":{},\"nvmf_backend\":\"ram\",\"nvmf_size_bytes\":1048576,"
	"\"nvmf_block_size\":512},"
	"{\"nsid\":3,\"enable\":1,\"device\":{},\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":\"1M\"}]},"
	"{\"nqn\":\"nqn.2026-11.io.nvmf-rdma:reloaded\",\"attr\":{\"allow_any_host\":\"1\"},"
	"\"namespaces\":[]}],\"ports\":[],\"hosts\":[{\"nqn\":\"" FX_HOSTNQN "\"}]}";

static char dir[64], config_path[96];
static bool trace; /* FUZZ_TRACE=1: every answer on stderr */
static struct nvmf_rpc_method guarded[64];

/* @j names a path somewhere: a "path" member, or a string that starts with '/'. */
static bool names_path(json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;
	switch (json_typeof(j)) {
	case JSON_STRING:
		return json_string_value(j)[0] == '/';
	case JSON_OBJECT:
		json_object_foreach(j, key, v)
			if (!strcmp(key, "path") || names_path(v))
				return true;
		return false;
	case JSON_ARRAY:
		json_array_foreach(j, i, v)
			if (names_path(v))
				return true;
		return false;
	default:
		return false;
	}
}

/* Every method goes through here: refused when it names a path, else the real one. */
static void guard(void *ctx, struct nvmf_rpc_call *call)
{
	if (names_path(call->params)) {
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS,
			       "fuzz_rpc: paths are not allowed here");
		return;
	}
	for (const struct nvmf_rpc_method *m = nvmf_ctl_methods; m->name; m++)
		if (!strcmp(m->name, call->method)) {
			m->fn(ctx, call);
			return;
		}
	abort(); /* the dispatcher found a method the table does not have */
}

static void write_config(void)
{
	FILE *f = fopen(config_path, "w");
	if (!f || fputs(config_text, f) < 0 || fclose(f))
		abort();
}

static void cleanup(void)
{
	char tmp[128];
	unlink(config_path);
	/* config_save's temporary file, if one was left. */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", config_path, (int)getpid());
	unlink(tmp);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *t = getenv("FUZZ_TRACE");
	trace = t && *t == '1';
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof(dir), "%s/nvmf-fuzz-rpc-XXXXXX", base);
	if (!mkdtemp(dir))
		abort();
	snprintf(config_path, sizeof(config_path), "%s/config.json", dir);
	atexit(cleanup);
	size_t n = 0;
	for (const struct nvmf_rpc_method *m = nvmf_ctl_methods; m->name; m++) {
		if (n + 1 >= sizeof(guarded) / sizeof(guarded[0]))
			abort();
		guarded[n] = *m;
		guarded[n++].fn = guard;
	}
	guarded[n] = (struct nvmf_rpc_method){ NULL, NULL, NULL };
	return 0;
}

/* An answer is JSON (an object, or an array for a batch); NULL only when nothing is
 * to be answered. */
static void check_answer(char *text)
{
	if (!text)
		return;
	json_t *j = json_loads(text, 0, NULL);
	if (!j || (!json_is_object(j) && !json_is_array(j))) {
		fprintf(stderr, "fuzz_rpc: not a JSON answer: %s\n", text);
		abort();
	}
	json_decref(j);
	if (trace)
		fprintf(stderr, "-> %s\n", text);
	free(text);
}

/* One command on raw queue @q, answered before it returns: its status (0 = success),
 * dword 0 of the CQE in *@dw0. */
static int exec_raw(struct fx *f, struct nvmf_loop_raw *q, struct nvme_sqe *sqe, void *data,
		    uint32_t len, uint32_t *dw0)
{
	nvme_sgl_set_keyed(sqe, (uintptr_t)data, len, nvmf_loop_raw_key(q), false);
	if (nvmf_loop_raw_send(q, sqe, NULL, 0, data, len))
		return -1;
	nvmf_loop_drive(&f->tgt);
	struct nvme_cqe cqe;
	if (nvmf_loop_raw_reap(q, &cqe, 1) != 1)
		return -1;
	if (dw0)
		*dw0 = le32toh(cqe.result.u32);
	return le16toh(cqe.status) >> 1;
}

/* Fabrics Connect of queue @qid (@sqsize 0's based) to controller @cntlid on @q. */
static int connect_raw(struct fx *f, struct nvmf_loop_raw *q, uint16_t qid, uint16_t sqsize,
		       uint16_t *cntlid)
{
	static struct nvmf_connect_data d;
	memset(&d, 0, sizeof(d));
	d.cntlid = htole16(*cntlid);
	strcpy(d.subsysnqn, FX_SUBNQN);
	strcpy(d.hostnqn, FX_HOSTNQN);
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	uint8_t *p = (uint8_t *)&c;
	p[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	memcpy(p + NVMF_CONNECT_QID, &(uint16_t){ htole16(qid) }, 2);
	memcpy(p + NVMF_CONNECT_SQSIZE, &(uint16_t){ htole16(sqsize) }, 2);
	uint32_t dw0 = 0;
	int st = exec_raw(f, q, &c, &d, sizeof(d), &dw0);
	*cntlid = (uint16_t)dw0;
	return st;
}

/* CC.EN = 1 (IOSQES 6, IOCQES 4) on the admin queue @q. */
static int enable_raw(struct fx *f, struct nvmf_loop_raw *q)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	uint8_t *p = (uint8_t *)&c;
	p[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_property_set;
	uint32_t off = htole32(NVMF_PROP_CC), cc = htole32(1u | 6u << 16 | 4u << 20);
	memcpy(p + NVMF_PROP_OFFSET, &off, 4);
	memcpy(p + NVMF_PROP_VALUE, &cc, 4);
	return exec_raw(f, q, &c, NULL, 0, NULL);
}

/* The target: FX_SUBNQN (host FX_HOSTNQN) with two RAM namespaces on loop port 1, small
 * queues; a host connected (admin queue enabled, I/O queue 1) through raw queues. */
static void boot(struct fx *f, struct nvmf_loop_raw **admin, struct nvmf_loop_raw **io)
{
	memset(f, 0, sizeof(*f));
	struct nvmf_subsys_config *s = fx_cfg_subsys(&f->cfg, FX_SUBNQN, FX_HOSTNQN, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, 1u << 20, 4096);
	struct nvmf_port_config *p = fx_cfg_loop_port(&f->cfg, 1, AF_INET, "0.0.0.0", "4420");
	p->max_queue_size = 16;
	p->inline_data_size = 4096;
	fx_cfg_expose(p, FX_SUBNQN);
	if (fx_boot(f, "127.0.0.1", "4420"))
		abort();
	nvmf_log_level_set_all(&f->tgt, NVMF_LOG_ERROR);
	uint16_t cntlid = 0xffff;
	if (nvmf_loop_raw_connect(&f->tgt, "127.0.0.1", "4420", 0, 32, admin) ||
	    connect_raw(f, *admin, 0, 31, &cntlid) || enable_raw(f, *admin) ||
	    nvmf_loop_raw_connect(&f->tgt, "127.0.0.1", "4420", 1, 16, io) ||
	    connect_raw(f, *io, 1, 15, &cntlid))
		abort();
}

/* Between calls the main group runs, as the daemon's does, and 10 ms go by on the
 * target's clock: its timers (a removed namespace's drain check) fire. */
static void step(struct fx *f)
{
	f->now += 10;
	nvmf_loop_drive(&f->tgt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fx f;
	struct nvmf_loop_raw *admin = NULL, *io = NULL;
	write_config();
	boot(&f, &admin, &io);
	struct nvmf_ctl ctl;
	memset(&ctl, 0, sizeof(ctl));
	ctl.tgt = &f.tgt;
	ctl.config_path = config_path;
	/* Odd-sized inputs write each change through to the file (the daemon's default), even
	 * ones count it unsaved: both paths after every change. */
	ctl.persist = size % 2;

	const char *buf = (const char *)data;
	size_t left = size;
	for (unsigned calls = 0; left && calls < 64; calls++) {
		size_t used = 0;
		json_t *value = NULL;
		enum nvmf_rpc_frame fr = nvmf_rpc_frame(buf, left, &used, &value);
		if (fr == NVMF_RPC_FRAME_MORE) {
			if (used || value)
				abort();
			break;
		}
		if (used == 0 || used > left)
			abort(); /* no progress, or past the buffer */
		if (fr == NVMF_RPC_FRAME_VALUE)
			check_answer(nvmf_rpc_answer(guarded, &ctl, value));
		else if (value)
			abort();
		else
			check_answer(nvmf_rpc_error_text(NVMF_RPC_PARSE_ERROR, "parse error"));
		step(&f);
		buf += used;
		left -= used;
	}
	check_answer(nvmf_rpc_handle(guarded, &ctl, (const char *)data, size));
	step(&f);
	json_decref(ctl.unsaved); /* the changes counted unsaved, if any */
	if (trace)
		fprintf(stderr, "namespaces still draining: %u\n", nvmf_tgt_ns_draining(&f.tgt));
	nvmf_loop_raw_disconnect(io);
	nvmf_loop_raw_disconnect(admin);
	if (nvmf_tgt_live_queues(&f.tgt))
		abort(); /* a queue the target never released */
	fx_teardown(&f);
	return 0;
}
