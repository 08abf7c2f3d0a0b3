/*
 * An in-memory NVMe controller behind the drive ops (subsystem/nvme-drive.h), for the
 * passthru tests: no build machine has a drive to give away. It answers Identify
 * (controller, namespace, active list, descriptor list), Get Log Page (error 01h, SMART
 * 02h whose counters move with I/O, effects 05h), Get/Set Features (power management
 * 02h, temperature threshold 04h, volatile write cache 06h, number of queues 07h),
 * Format NVM (changes the LBA format and zeroes the data), the vendor admin opcodes
 * C0h (no data: DW0 = CDW12, DW1 = CDW13), C1h (stores the data sent) and C2h (returns
 * it), and the I/O commands Flush, Write, Read, Compare, Write Zeroes, Dataset
 * Management (deallocate), Verify and Copy (format 0). Every I/O completes inside
 * io_submit. Data lives in memory, extended-LBA metadata inline after each block.
 *
 * Its ns_open names a namespace "<drive path>n<nsid>" (what the target takes for the
 * namespace's device, unique per drive) and counts opens and closes.
 *
 * Namespaces: 1 (512 B blocks, 2048 of them), 2 (4096 B + 8 B extended metadata, 256
 * blocks), and with "sepmeta" in the path 3 (4096 B + 8 B metadata in a separate
 * buffer: refused for fabrics).
 */
#ifndef NVMF_TESTS_UNIT_SUPPORT_FAKE_DRIVE_H
#define NVMF_TESTS_UNIT_SUPPORT_FAKE_DRIVE_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "nvme/wire.h"
#include "subsystem/nvme-drive.h"

#define FAKE_DRIVE_MAX_NS 4
#define FAKE_DRIVE_SN     "FAKESN0001"
#define FAKE_DRIVE_MN     "Fake NVMe drive"
#define FAKE_DRIVE_CNTLID 7
#define FAKE_DRIVE_MDTS   5 /* 2^5 pages of 4 KiB: 128 KiB */

struct fake_drive_ns {
	uint32_t nsid;     /* 0: slot unused (or deleted) */
	uint64_t capacity; /* data bytes, kept across a Format */
	uint8_t flbas;     /* format index 3:0, bit 4 extended */
	uint8_t *data;     /* nsze blocks of (data size + ms when extended) bytes */
};

/* The controller's state: the tests read and change it under @lock. */
struct fake_drive {
	pthread_mutex_t lock;
	struct fake_drive_ns ns[FAKE_DRIVE_MAX_NS];
	uint8_t vendor[4096]; /* what C1h stored, C2h returns */
	uint32_t vendor_len;
	uint32_t power_state;               /* feature 02h */
	uint16_t temp_threshold;            /* feature 04h, kelvin */
	uint64_t units_read, units_written; /* bytes moved (SMART reports 512000-byte units) */
	uint64_t host_reads, host_writes;   /* commands */
	uint64_t errors;                    /* commands failed: the error log's count */
	struct nvme_sqe last_error_cmd;
	uint16_t last_error_status;
	unsigned admin_calls, io_calls; /* commands that reached the drive */
	struct nvme_sqe last_admin, last_io;
	uint32_t admin_stall_ms; /* each admin command takes this long (timeout tests) */
	bool no_effects;         /* LPA bit 1 clear: no effects log */
	bool fail_admin;         /* admin opcode fail_admin_opcode answers Internal Error */
	uint8_t fail_admin_opcode;
	uint32_t fail_ns_open;        /* ns_open of this NSID fails (-EBUSY) */
	unsigned ns_opens, ns_closes; /* ns_open/ns_close calls */
};

/*
 * fake_drive_open - an in-memory drive, loaded (nvmf_drive_load), for @path: a path
 * starting "/dev/fake" opens; words after it separated by ',' change it: "sepmeta" adds
 * namespace 3, "noeffects" clears LPA bit 1, "mt=N" sets max_transfer to N bytes (default
 * 128 KiB, the MDTS), "fail=HH" has admin opcode HH (hex) fail with Internal Error,
 * "nsbusy=N" has ns_open of namespace N fail. Any other path: NULL with "<path>: No such file or directory" in
 * @err, as the Linux drive says. The signature of the target's drive_open hook.
 */
struct nvmf_drive *fake_drive_open(const char *path, char *err, size_t errlen);

/* fake_drive_of - the controller state of a drive fake_drive_open returned. */
struct fake_drive *fake_drive_of(struct nvmf_drive *d);

/* fake_drive_ns_data - where block @lba of namespace @nsid starts in its memory (NULL
 * past the end or no such namespace); blocks of fake_drive_block_bytes each. */
uint8_t *fake_drive_ns_data(struct fake_drive *f, uint32_t nsid, uint64_t lba);
uint32_t fake_drive_block_bytes(struct fake_drive *f, uint32_t nsid);

/* fake_drive_set_ns - make namespace @nsid active (@on; fresh, 512 B blocks, @blocks of
 * them) or inactive, as another host's Namespace Management would. */
void fake_drive_set_ns(struct fake_drive *f, uint32_t nsid, bool on, uint64_t blocks);

#endif
