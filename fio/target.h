/* SPDX-License-Identifier: MIT */
/*
 * The target of a libnvmf fio job (fio/engine.c), from fio's filename in the form SPDK's
 * fio plugin reads, key=value words separated by spaces:
 *
 *   trtype=tcp adrfam=IPv4 traddr=127.0.0.1 trsvcid=4420 subnqn=nqn.2024-01.io.x\:y ns=1
 *
 * Keys (case-insensitive, each at most once): trtype (tcp or rdma), adrfam (IPv4 or
 * IPv6), traddr, trsvcid, subnqn, hostnqn, ns (the NSID, 1 .. 0xfffffffe). fio splits
 * filenames at ':', so an NQN's ':' is written "\:" (fio may pass the backslash on: "\:"
 * is read as ':' here). Free of fio's headers, so that it can be tested on its own.
 */
#ifndef NVMF_FIO_TARGET_H
#define NVMF_FIO_TARGET_H
#include <stddef.h>
#include <stdint.h>

/* One target as parsed; "" (or nsid 0) for a key that was not given. */
struct nvmf_fio_target {
	char trtype[8];   /* "tcp" or "rdma", lower case */
	char adrfam[8];   /* "ipv4" or "ipv6", lower case */
	char traddr[257]; /* numeric address */
	char trsvcid[33]; /* port */
	char subnqn[224]; /* NVMe NQNs are at most 223 bytes */
	char hostnqn[224];
	uint32_t nsid;
};

/*
 * nvmf_fio_target_parse - @text (fio's filename) into *@t (zeroed first). A text with
 * no '=' at all names no target: *@t stays empty and 0 is returned (the engine's
 * options must then say where to connect). Returns 0, or -EINVAL with a message in @msg
 * (@len bytes) naming what is wrong: a word without '=', an empty value, an unknown key
 * (the known ones listed), a key given twice, a value too long for its field, a trtype
 * or adrfam not known, an ns that is no NSID.
 */
int nvmf_fio_target_parse(const char *text, struct nvmf_fio_target *t, char *msg, size_t len);

/*
 * nvmf_fio_target_set - set @key (a key of the filename, case-insensitive) of @t to
 * @value, checked as in a filename; @t's field must be empty (a key given twice is an
 * error). Returns 0, or -EINVAL with a message in @msg naming the key and the value.
 */
int nvmf_fio_target_set(struct nvmf_fio_target *t, const char *key, const char *value, char *msg,
			size_t len);

/* nvmf_fio_target_merge - fill each empty field of @t (nsid 0) from @dflt. */
void nvmf_fio_target_merge(struct nvmf_fio_target *t, const struct nvmf_fio_target *dflt);

/*
 * nvmf_fio_digests_parse - SPDK's digest_enable value into *@hdr and *@data: NONE,
 * HEADER, DATA, BOTH, or HEADER and DATA separated by ',' or '|' (case-insensitive;
 * NULL or "" is NONE). Returns 0 or -EINVAL with a message in @msg.
 */
int nvmf_fio_digests_parse(const char *text, int *hdr, int *data, char *msg, size_t len);

#endif
