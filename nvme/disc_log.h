/* SPDX-License-Identifier: MIT */
/*
 * The Discovery Log Page (Get Log Page LID 70h, NVMe-oF 1.1 section 5.3 / NVMe Base 2.0
 * section 5.16.1.23): a 1024-byte header (genctr le64 @0, numrec le64 @8, recfmt le16 @16
 * = 0) followed by numrec 1024-byte entries, libnvme's struct nvmf_disc_log_entry.
 *
 * Built from plain records so that the target decides which subsystems a host may see;
 * this file only lays out bytes. Reading a window of any log (offset, length) is here too.
 */
#ifndef NVMF_NVME_DISC_LOG_H
#define NVMF_NVME_DISC_LOG_H

#include <stddef.h>
#include <stdint.h>
#include "nvme/wire.h"

#define NVMF_DISC_LOG_HDR_SIZE   1024u   /* bytes, header before the first entry */
#define NVMF_DISC_LOG_ENTRY_SIZE 1024u   /* bytes per entry */

/*
 * One discovery log entry, host endian. Strings are NUL-terminated C strings (NULL reads
 * as ""); the entry's fields are filled like nvmet does (discovery.c and configfs.c):
 * trsvcid (32 B) and traddr (256 B) as written, NUL padded; subnqn (256 B) NUL padded.
 * A string longer than its field is cut at the field size (the config validates lengths:
 * trsvcid <= 31, traddr <= 255, NQN <= 223 characters, so a NUL always follows).
 * The tsas.rdma bytes are written only when trtype is NVMF_TRTYPE_RDMA; other
 * transports' TSAS is left zero.
 */
struct nvmf_disc_rec {
	uint8_t trtype;          /* NVMF_TRTYPE_RDMA */
	uint8_t adrfam;          /* NVMF_ADDR_FAMILY_IP4 / IP6 / IB */
	uint8_t subtype;         /* NVME_NQN_NVME (2) subsystem, NVME_NQN_DISC (1) referral, 3 current discovery */
	uint8_t treq;            /* NVMF_TREQ_*: secure channel bits 1:0, bit 2 SQ flow control disable */
	uint16_t portid;
	uint16_t cntlid;         /* 0xffff: dynamic controller model */
	uint16_t asqsz;          /* admin SQ size the host may use: 32 */
	uint16_t eflags;         /* NVMF_DISC_EFLAGS_*; nvmet leaves 0 */
	const char *trsvcid;     /* e.g. "4420" */
	const char *traddr;      /* e.g. "192.168.1.10": never a wildcard address */
	const char *subnqn;
	uint8_t rdma_qptype;     /* NVMF_RDMA_QPTYPE_CONNECTED (1) */
	uint8_t rdma_prtype;     /* NVMF_RDMA_PRTYPE_NOT_SPECIFIED (1) */
	uint8_t rdma_cms;        /* NVMF_RDMA_CMS_RDMA_CM (1) */
	uint16_t rdma_pkey;      /* 0 unless InfiniBand partitions are used */
};

/* nvmf_disc_log_size - bytes of a log with @nrec entries: 1024 * (1 + nrec); SIZE_MAX if
 * that does not fit in a size_t. */
size_t nvmf_disc_log_size(size_t nrec);

/*
 * nvmf_disc_log_build - lay out the whole log in @buf, which must hold
 * nvmf_disc_log_size(@nrec) bytes; every byte is written (reserved ones zero).
 * @genctr: generation counter; the host re-reads the log when it changes between reads.
 * @recs:   @nrec records, in the order they should appear (may be NULL when nrec = 0).
 */
void nvmf_disc_log_build(void *buf, uint64_t genctr, const struct nvmf_disc_rec *recs,
			 size_t nrec);

/*
 * nvmf_disc_log_hash - 64-bit FNV-1a over the content of @n records, in order (every
 * field, strings with their terminating NUL so "ab"+"c" differs from "a"+"bc").
 * Equal record lists give equal hashes; the target bumps genctr when the hash it last
 * served a host differs, so genctr changes only when the content does.
 */
uint64_t nvmf_disc_log_hash(const struct nvmf_disc_rec *recs, size_t n);

/*
 * nvmf_log_window - copy the window [@offset, @offset + @dst_len) of a log into @dst.
 * Bytes of the window inside the log (@log_len bytes) are copied, the rest of @dst is
 * zero filled (Get Log Page returns zeroes past the end, NVMe Base 2.0 section 5.16).
 * Returns the bytes copied from the log: min(dst_len, log_len - offset), 0 when
 * @offset >= @log_len. Deciding the status is the caller's: an offset past the end of
 * the log is INVALID_FIELD, and nvmet also wants LPO dword aligned.
 */
size_t nvmf_log_window(void *dst, uint32_t dst_len, const void *log, size_t log_len,
		       uint64_t offset);

#endif
