/* SPDX-License-Identifier: MIT */
/*
 * nvmf-io: the commands the nvmf tool has no subcommand for, on libnvmf over NVMe/TCP,
 * for tests/local/rbd_test.sh:
 *   nvmf-io ADDR PORT NQN NSID zeroes SLBA NLB    Write Zeroes
 *   nvmf-io ADDR PORT NQN NSID dealloc SLBA NLB   Dataset Management, deallocate
 *   nvmf-io ADDR PORT NQN NSID flush              Flush
 *   nvmf-io ADDR PORT NQN NSID await-change SECS  connect, clear the Changed Namespace
 *       List (log 04h), print "ready", then read it every 100 ms (no Identify, which
 *       would itself make the target look at the size) until it lists NSID: print
 *       "changed NSID" and the namespace's "nsze N" (Identify), exit 0; 1 after SECS.
 *   nvmf-io ADDR PORT NQN NSID write-hold SLBA BYTE NLB   Flush, then write NLB blocks
 *       of BYTE (0-255) at SLBA, print "written" once the target answered, and keep the
 *       connection (no disconnect, so no shutdown flush) until killed; 1 on an error.
 * Exit 0 on success, 1 with the status or error on stderr, 2 on usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "initiator/nvmf.h"

struct wait {
	bool done;
	int status;
};

static void io_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct wait *w = arg;
	w->done = true;
	w->status = status;
}

/* Polls queue @q until @w is done (30 s at most). The command's status, or -ETIMEDOUT. */
static int wait_io(struct nvmf_queue *q, struct wait *w)
{
	for (int i = 0; !w->done && i < 3000; i++)
		if (nvmf_queue_poll(q, 16) == 0)
			nvmf_queue_wait(q, 10);
	return w->done ? w->status : -ETIMEDOUT;
}

/* Whether log 04h lists @nsid (up to 1024 entries, 0-ended). */
static int changed_has(struct nvmf_ctrl *c, uint32_t nsid, bool *has)
{
	uint32_t list[1024];
	int rc = nvmf_get_log_page(c, 0x04, 0xffffffff, 0, list, sizeof(list));
	*has = false;
	for (unsigned i = 0; rc == 0 && i < 1024 && list[i]; i++)
		if (list[i] == nsid || list[i] == 0xffffffff)
			*has = true;
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: nvmf-io ADDR PORT NQN NSID zeroes|dealloc SLBA NLB | flush "
				"| await-change SECS\n");
		return 2;
	}
	const char *cmd = argv[5];
	uint32_t nsid = (uint32_t)strtoul(argv[4], NULL, 0);
	struct nvmf_ctrl_opts o = {
		.traddr = argv[1], .trsvcid = argv[2], .subnqn = argv[3], .trtype = "tcp"
	};
	struct nvmf_ctrl *c;
	int rc = nvmf_connect(&o, &c);
	if (rc) {
		fprintf(stderr, "nvmf-io: connect: %s\n", nvmf_last_errmsg());
		return 1;
	}
	struct nvmf_queue *q = nvmf_io_queue(c, 0);
	struct wait w = { 0 };
	/* A command's data, the DSM range too, stays valid until its callback (nvmf.h). */
	struct nvme_dsm_range r;
	if (!strcmp(cmd, "zeroes") || !strcmp(cmd, "dealloc")) {
		if (argc != 8) {
			nvmf_disconnect(c);
			return 2;
		}
		uint64_t slba = strtoull(argv[6], NULL, 0);
		uint32_t nlb = (uint32_t)strtoul(argv[7], NULL, 0);
		if (cmd[0] == 'z') {
			rc = nvmf_submit_write_zeroes(q, nsid, slba, nlb, io_cb, &w);
		} else {
			r = (struct nvme_dsm_range){ .cattr = 0,
						     .nlb = htole32(nlb),
						     .slba = htole64(slba) };
			rc = nvmf_submit_dsm(q, nsid, &r, 1, NVME_DSMGMT_AD, io_cb, &w);
		}
		if (rc == 0)
			rc = wait_io(q, &w);
	} else if (!strcmp(cmd, "flush")) {
		rc = nvmf_submit_flush(q, nsid, io_cb, &w);
		if (rc == 0)
			rc = wait_io(q, &w);
	} else if (!strcmp(cmd, "write-hold") && argc == 9) {
		uint64_t slba = strtoull(argv[6], NULL, 0);
		int byte = atoi(argv[7]);
		uint32_t nlb = (uint32_t)strtoul(argv[8], NULL, 0);
		uint32_t bs = 512; /* the test's namespaces */
		void *buf = nlb && nlb <= 2048 ? malloc((size_t)nlb * bs) : NULL;
		if (!buf) {
			nvmf_disconnect(c);
			return 2;
		}
		memset(buf, byte, (size_t)nlb * bs);
		rc = nvmf_submit_flush(q, nsid, io_cb, &w);
		if (rc == 0)
			rc = wait_io(q, &w);
		if (rc == 0) {
			w.done = false;
			rc = nvmf_submit_write(q, nsid, slba, nlb, buf, io_cb, &w);
			if (rc == 0)
				rc = wait_io(q, &w);
		}
		free(buf);
		if (rc == 0) {
			printf("written\n");
			fflush(stdout);
			for (;;)
				pause(); /* until killed: the connection stays */
		}
	} else if (!strcmp(cmd, "await-change") && argc == 7) {
		bool has;
		int secs = atoi(argv[6]);
		rc = changed_has(c, nsid, &has); /* reading it clears it */
		printf("ready\n");
		fflush(stdout);
		for (int i = 0; rc == 0 && i < secs * 10; i++) {
			if ((rc = changed_has(c, nsid, &has)) || has)
				break;
			usleep(100 * 1000);
		}
		if (rc == 0 && !has)
			rc = -ETIMEDOUT;
		struct nvmf_ns_info info;
		if (rc == 0 && (rc = nvmf_ns_info(c, nsid, &info)) == 0)
			printf("changed %u\nnsze %llu\n", nsid, (unsigned long long)info.nsze);
	} else {
		nvmf_disconnect(c);
		fprintf(stderr, "nvmf-io: unknown command %s\n", cmd);
		return 2;
	}
	if (rc)
		fprintf(stderr, "nvmf-io: %s: %s (%d)\n", cmd,
			rc < 0 ? strerror(-rc) : nvmf_io_strerror(rc), rc);
	nvmf_disconnect(c);
	return rc ? 1 : 0;
}
