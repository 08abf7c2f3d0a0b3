/* SPDX-License-Identifier: MIT */
/*
 * Fault injection for tests: the wrapping backend (fault.h). A wrapped nvmf_bdev keeps
 * its own fields (fd, mem, size, ...) for the real implementation; only b->ops changes,
 * to a copy of the real table whose submit and close are ours. The copy lives in the
 * wrapper, so the wrapper is found from b->ops without any lookup.
 */
#include "tests/fault/fault.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "nvme/wire.h"

struct fault_bdev {
	struct nvmf_bdev_ops ops; /* b->ops while wrapped */
	const struct nvmf_bdev_ops *real;
	struct nvmf_bdev *b;
	uint32_t nsid;
	struct fault_bdev *next; /* in wrapped: the fds the io_uring shims look up */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fault_bdev *wrapped;

static int fault_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io);

bool nvmf_fault_attached(const struct nvmf_bdev *b)
{
	return b->ops->submit == fault_submit;
}

static struct fault_bdev *of(const struct nvmf_bdev *b)
{
	return container_of(b->ops, struct fault_bdev, ops);
}

static int fault_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	struct fault_bdev *f = of(b);
	struct nvmf_fault_io what = { .nsid = f->nsid, .op = (int)io->op };
	if (io->op != NVMF_BDEV_FLUSH) {
		/* nvmf_bdev_submit checked the geometry and completed empty I/O itself. */
		what.has_lba = true;
		what.lba_first = io->offset / b->block_size;
		what.lba_last = (io->offset + io->len - 1) / b->block_size;
	}
	struct nvmf_fault_rule r;
	if (fault_fire(FAULT_BIT(NVMF_FAULT_FAIL) | FAULT_BIT(NVMF_FAULT_BUSY), &what, &r)) {
		if (r.action == NVMF_FAULT_BUSY)
			return -EAGAIN;
		io->done(io, r.err);
		return 0;
	}
	return f->real->submit(b, aio, io);
}

void nvmf_fault_detach(struct nvmf_bdev *b)
{
	if (!nvmf_fault_attached(b))
		return;
	struct fault_bdev *f = of(b);
	pthread_mutex_lock(&lock);
	for (struct fault_bdev **pp = &wrapped; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	pthread_mutex_unlock(&lock);
	b->ops = f->real;
	free(f);
}

static void fault_close(struct nvmf_bdev *b)
{
	nvmf_fault_detach(b); /* first: the real close may print its name */
	b->ops->close(b);
}

int nvmf_fault_attach(struct nvmf_bdev *b, uint32_t nsid)
{
	if (nvmf_fault_attached(b))
		return 0;
	struct fault_bdev *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->ops = *b->ops; /* name, open, resize: the real ones */
	f->ops.submit = fault_submit;
	f->ops.close = fault_close;
	f->real = b->ops;
	f->b = b;
	f->nsid = nsid;
	pthread_mutex_lock(&lock);
	f->next = wrapped;
	wrapped = f;
	pthread_mutex_unlock(&lock);
	b->ops = &f->ops;
	return 0;
}

bool fault_fd_lookup(int fd, uint32_t *nsid, uint32_t *block_size, bool *direct)
{
	if (fd < 0)
		return false;
	bool found = false;
	pthread_mutex_lock(&lock);
	for (struct fault_bdev *f = wrapped; f && !found; f = f->next)
		if (f->b->fd == fd) {
			*nsid = f->nsid;
			*block_size = f->b->block_size;
			*direct = f->b->direct;
			found = true;
		}
	pthread_mutex_unlock(&lock);
	return found;
}

/* Linked with -Wl,--wrap=nvmf_bdev_open: every namespace the target opens comes here. */
struct nvmf_bdev *__real_nvmf_bdev_open(const struct nvmf_ns_config *cfg, char *err, size_t errlen);
struct nvmf_bdev *__wrap_nvmf_bdev_open(const struct nvmf_ns_config *cfg, char *err, size_t errlen);

struct nvmf_bdev *__wrap_nvmf_bdev_open(const struct nvmf_ns_config *cfg, char *err, size_t errlen)
{
	struct nvmf_bdev *b = __real_nvmf_bdev_open(cfg, err, errlen);
	if (b && fault_wants(cfg->nsid) && nvmf_fault_attach(b, cfg->nsid)) {
		nvmf_bdev_close(b);
		snprintf(err, errlen, "fault injection: out of memory");
		return NULL;
	}
	return b;
}
