/* SPDX-License-Identifier: MIT */
/*
 * The Discovery Log Page (Get Log Page LID 70h, NVMe-oF 1.1 section 5.3 / NVMe Base 2.0
 * section 5.16.1.23): a 1024-byte header (genctr le64 @0, numrec le64 @8, recfmt le16 @16
 * = 0) followed by numrec 1024-byte entries, libnvme's struct nvmf_disc_log_entry.
 *
 * Built from plain records so that the target decides which subsystems a host may see;
 * this file only lays out bytes. The host reads the bytes back into the same records
 * (nvmf_disc_log_decode_header/_entry). Reading a window of any log (offset, length) is
 * here too.
 */
#ifndef NVMF_NVME_DISC_LOG_H
#define NVMF_NVME_DISC_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "nvme/wire.h"

#define NVMF_DISC_LOG_HDR_SIZE   1024u /* bytes, header before the first entry */
#define NVMF_DISC_LOG_ENTRY_SIZE 1024u /* bytes per entry */

/*
 * One discovery log entry, host endian. Strings are NUL-terminated C strings (NULL reads
 * as ""); the entry's fields are filled like nvmet does (discovery.c and configfs.c):
 * trsvcid (32 B) and traddr (256 B) as written, NUL padded; subnqn (256 B) NUL padded.
 * A string longer than its field is cut at the field size (the config validates lengths:
 * trsvcid <= 31, traddr <= 255, NQN <= 223 characters, so a NUL always follows).
 * The tsas.rdma bytes are written only when trtype is NVMF_TRTYPE_RDMA, tsas.tcp.sectype
 * only when it is NVMF_TRTYPE_TCP; other transports' TSAS is left zero.
 */
struct nvmf_disc_rec {
	uint8_t trtype; /* NVMF_TRTYPE_RDMA */
	uint8_t adrfam; /* NVMF_ADDR_FAMILY_IP4 / IP6 / IB */
	uint8_t subtype; /* NVME_NQN_NVME (2) subsystem, NVME_NQN_DISC (1) referral, 3 current discovery */
	uint8_t treq; /* NVMF_TREQ_*: secure channel bits 1:0, bit 2 SQ flow control disable */
	uint16_t portid;
	uint16_t cntlid;     /* 0xffff: dynamic controller model */
	uint16_t asqsz;      /* admin SQ size the host may use: 32 */
	uint16_t eflags;     /* NVMF_DISC_EFLAGS_*; nvmet leaves 0 */
	const char *trsvcid; /* e.g. "4420" */
	const char *traddr;  /* e.g. "192.168.1.10": never a wildcard address */
	const char *subnqn;
	uint8_t rdma_qptype; /* NVMF_RDMA_QPTYPE_CONNECTED (1) */
	uint8_t rdma_prtype; /* NVMF_RDMA_PRTYPE_NOT_SPECIFIED (1) */
	uint8_t rdma_cms;    /* NVMF_RDMA_CMS_RDMA_CM (1) */
	uint16_t rdma_pkey;  /* 0 unless InfiniBand partitions are used */
	uint8_t tcp_sectype; /* NVMF_TCP_SECTYPE_NONE (0): no TLS (libnvme's enum) */
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
void nvmf_disc_log_build(void *buf, uint64_t genctr, const struct nvmf_disc_rec *recs, size_t nrec);

/* The header of a log, decoded, host endian. */
struct nvmf_disc_log_hdr {
	uint64_t genctr; /* generation counter (le64 at byte 0) */
	uint64_t numrec; /* entries that follow the header (le64 at byte 8) */
	uint16_t recfmt; /* record format (le16 at byte 16); 0 is the only one defined */
};

/* Bytes of the header that hold its fields (genctr, numrec, recfmt); the rest of the
 * 1024 bytes is reserved. */
#define NVMF_DISC_LOG_HDR_FIELDS 18u

/*
 * nvmf_disc_log_decode_header - the header fields of a log whose first @len bytes are
 * at @buf (any alignment). Returns 0, or -EINVAL when @len < NVMF_DISC_LOG_HDR_FIELDS
 * (then @out is not written). Checking numrec against the bytes read and recfmt against
 * 0 is the caller's.
 */
int nvmf_disc_log_decode_header(const void *buf, size_t len, struct nvmf_disc_log_hdr *out);

/* The strings of a decoded entry: each field as a C string, one byte longer than the
 * field for the NUL. */
struct nvmf_disc_strs {
	char trsvcid[NVMF_TRSVCID_SIZE + 1]; /* field: 32 bytes */
	char traddr[NVMF_TRADDR_SIZE + 1];   /* field: 256 bytes */
	char subnqn[NVME_NQN_LENGTH + 1];    /* field: 256 bytes */
};

/*
 * nvmf_disc_log_decode_entry - one NVMF_DISC_LOG_ENTRY_SIZE-byte entry at @entry (any
 * alignment) into @rec, host endian, the reverse of what nvmf_disc_log_build lays out.
 * The strings go to @strs and @rec->trsvcid/traddr/subnqn point into it: each ends at
 * the field's first NUL (a field with none is taken whole) and loses its trailing spaces
 * (SPDK pads trsvcid with spaces; nvme_ascii_field_str). The TSAS (rdma_* fields) is read
 * only when trtype is NVMF_TRTYPE_RDMA, tcp_sectype only when it is NVMF_TRTYPE_TCP;
 * otherwise they are 0. @rec is valid as long as @strs.
 */
void nvmf_disc_log_decode_entry(const void *entry, struct nvmf_disc_rec *rec,
				struct nvmf_disc_strs *strs);

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

/*
 * nvmf_disc_ip_traddr - the TRADDR to report for an IP port listening on @listen
 * (numeric, "" / "0.0.0.0" / "::" in any spelling being the wildcard) of family @family
 * (AF_INET, AF_INET6), as seen by a host whose connection arrived at @local: @listen
 * itself, or for a wildcard the numeric address of @local (nvmet's disc_traddr: the
 * host must be told an address it can connect to). Writes @out (@len bytes). Returns
 * false when the port is a wildcard and @local is not of @family (or NULL).
 */
bool nvmf_disc_ip_traddr(const char *listen, int family, const struct sockaddr *local, char *out,
			 size_t len);

/* nvmf_disc_adrfam - the ADRFAM of an address family: NVMF_ADDR_FAMILY_IP6 for AF_INET6,
 * NVMF_ADDR_FAMILY_IP4 otherwise. */
uint8_t nvmf_disc_adrfam(int family);

#endif
