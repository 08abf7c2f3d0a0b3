/* SPDX-License-Identifier: MIT */
/*
 * The data pointer of an NVMe-oF command capsule (NVMe Base 2.0 section 4.3.2, NVMe-oF
 * 1.1 section 2.2 and the RDMA transport binding 7.3): decoding it (the target) and
 * encoding it (the host), one descriptor in the SQE either way.
 *
 * The RDMA transport accepts exactly one SGL descriptor in the SQE (MSDBD = 1), of one of
 * the kinds a Linux host sends (drivers/nvme/host/rdma.c, nvme_rdma_map_data):
 *   0x40 keyed data block, address        - the host's memory, moved by RDMA READ/WRITE
 *   0x4F keyed data block, invalidate key - the same; the target may answer with
 *                                           SEND_WITH_INV carrying the key
 *   0x01 data block, offset               - data sent in the capsule after the 64 B SQE
 * Anything with length 0 moves no data.
 */
#ifndef NVMF_NVME_SGL_H
#define NVMF_NVME_SGL_H

#include <stdbool.h>
#include <stdint.h>
#include "nvme/wire.h"

/* PSDT: bits 7:6 of the SQE flags byte (NVMe Base 2.0 Figure 88). */
#define NVME_CMD_PSDT_MASK 0xc0u
#define NVME_CMD_PSDT_PRP  0x00u
#define NVME_CMD_PSDT_SGL_MPTR \
	0x40u /* 01b: SGL, MPTR is one contiguous buffer (Linux host, nvmet) */
#define NVME_CMD_PSDT_SGL_MSEG 0x80u /* 10b: SGL, MPTR points at an SGL segment */

/* Bytes a keyed data block descriptor can describe: its length field has 24 bits. */
#define NVME_SGL_KEYED_MAX_LEN 0xffffffu

enum nvme_sgl_kind {
	NVME_SGL_KIND_NONE = 0,  /* no data: length 0 */
	NVME_SGL_KIND_KEYED,     /* host memory at addr/key, len bytes */
	NVME_SGL_KIND_INCAPSULE, /* len bytes at offset into the capsule's data */
	NVME_SGL_KIND_TRANSPORT, /* NVMe/TCP: len bytes moved by R2T/H2CData or C2HData */
};

/* A decoded data pointer. All fields host endian. */
struct nvme_sgl_info {
	enum nvme_sgl_kind kind;
	uint64_t addr;   /* KEYED: host virtual address (or offset into the MR) */
	uint32_t len;    /* bytes; 0 for KIND_NONE; KEYED at most 2^24 - 1 */
	uint32_t key;    /* KEYED: the host's rkey */
	bool invalidate; /* KEYED: type 0x4F, the host wants the key invalidated */
	uint32_t offset; /* INCAPSULE: byte offset into the data after the SQE */
};

/*
 * nvme_sgl_parse - decode and validate @cmd's data pointer.
 * @cmd:            the SQE as received.
 * @incapsule_len:  bytes of data that arrived after the 64 B SQE (receive length - 64);
 *                  0 for admin queues, where capsules carry no data.
 * @is_write:       the command moves data host to controller (opcode bit 0, or the
 *                  Fabrics fctype bit 0); in-capsule data is only legal then.
 * @out:            the decoded descriptor; zeroed first, valid only on success.
 * Returns 0, or a status (generic SCT, DNR set, as nvmet answers):
 *   INVALID_FIELD       PSDT is PRP (00b) or reserved (11b); in-capsule data on a command
 *                       that is not a write.
 *   SGL_INVALID_OFFSET  in-capsule offset + length go past the @incapsule_len bytes that
 *                       arrived (nvmet: off + len > inline_data_size).
 *   SGL_INVALID_TYPE    any other descriptor: bit bucket, (last) segment, transport SGL
 *                       data block, a data block whose subtype is not Offset, a keyed data
 *                       block whose subtype is neither Address nor Invalidate, reserved
 *                       types. (nvmet answers INVALID_FIELD for the wrong-subtype cases;
 *                       SPDK answers SGL_INVALID_TYPE for all of them, as here.)
 * A supported descriptor with length 0 decodes as NVME_SGL_KIND_NONE whatever its other fields hold.
 * A key of 0 is accepted: rkeys are opaque 32-bit values and neither nvmet nor SPDK
 * reject 0; a wrong key fails the RDMA operation instead. PSDT 10b is accepted as well as
 * 01b (both say "SGL for data"; the target never reads MPTR), although nvmet takes only
 * 01b, which is what the Linux host sends.
 * Whether the SGL length matches what the command needs is the caller's check.
 */
nvme_status_t nvme_sgl_parse(const struct nvme_sqe *cmd, uint32_t incapsule_len, bool is_write,
			     struct nvme_sgl_info *out);

/*
 * Encoding. Both encoders write all 16 bytes of @sqe->dptr (SQE bytes 24-39) and set
 * PSDT to 01b (SGL, MPTR one buffer: flags bits 7:6), keeping FUSE (flags bits 1:0) and
 * clearing the reserved bits 5:2; the rest of the SQE is left as it was. Multi-byte
 * fields are little endian. What they build, nvme_sgl_parse decodes back.
 */

/*
 * nvme_sgl_set_keyed - one keyed data block descriptor: host memory the target moves
 * with RDMA READ/WRITE.
 * @addr:       host virtual address of the first byte (or an offset into the MR, as the
 *              key's registration defines): descriptor bytes 0-7.
 * @len:        bytes, at most NVME_SGL_KEYED_MAX_LEN: bytes 8-10 (24 bits).
 * @key:        the remote key (rkey) of the registration: bytes 11-14.
 * @invalidate: type 0x4F (Invalidate Key subtype: the target may invalidate @key and
 *              answer with SEND_WITH_INV) instead of 0x40 (Address subtype).
 * @len 0 means no data: the descriptor is all zero but its type byte, as the Linux host
 * sends for commands without data (@addr and @key are not written).
 * Returns 0, or -EINVAL when @len does not fit 24 bits (then @sqe is not touched).
 */
int nvme_sgl_set_keyed(struct nvme_sqe *sqe, uint64_t addr, uint32_t len, uint32_t key,
		       bool invalidate);

/*
 * nvme_sgl_set_incapsule - one data block descriptor of the Offset subtype (type 0x01):
 * @len bytes starting @offset bytes into the data that follows the 64-byte SQE in the
 * same capsule (the offset goes in descriptor bytes 0-7, the length in bytes 8-11). A
 * host sends its data at offset 0 (nvmet takes offset + length up to its in-capsule
 * size, ICDOFF 0).
 */
void nvme_sgl_set_incapsule(struct nvme_sqe *sqe, uint32_t offset, uint32_t len);

/*
 * nvme_sgl_parse_tcp - the same for a CapsuleCmd of the NVMe/TCP binding (TCP transport
 * 1.0 section 3.3.2, MSDBD 1): the descriptor is either
 *   0x01 data block, offset     - in-capsule data, checked as nvme_sgl_parse does
 *                                 (@incapsule_len: bytes of data the CapsuleCmd PDU
 *                                 carried, at most the queue's in-capsule size)
 *   0x5A transport data block   - @out->len bytes (descriptor bytes 8-11, le32) that the
 *                                 controller pulls with R2T (writes) or pushes in C2HData
 *                                 PDUs (reads): NVME_SGL_KIND_TRANSPORT
 * Returns 0 or the status nvme_sgl_parse gives: INVALID_FIELD for PRP/reserved PSDT and
 * for in-capsule data on a command that is not a write, SGL_INVALID_OFFSET for in-capsule
 * data past what arrived, SGL_INVALID_TYPE for any other descriptor (keyed ones
 * included: TCP has no remote memory keys) or a transport data block whose subtype is
 * not Ah (as nvmet-tcp and SPDK). Length 0 decodes as NVME_SGL_KIND_NONE.
 */
nvme_status_t nvme_sgl_parse_tcp(const struct nvme_sqe *cmd, uint32_t incapsule_len, bool is_write,
				 struct nvme_sgl_info *out);

#endif
