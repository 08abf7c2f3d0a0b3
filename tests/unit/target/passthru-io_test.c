/*
 * I/O commands on a passthru namespace (target/passthru-io.c) through the whole stack: a
 * host on the loop transport, the target, the in-memory drive
 * (tests/unit/support/fake-drive.h: namespace 1 of 2048 blocks of 512 B, namespace 2 of
 * 256 blocks of 4096 B + 8 B metadata inline).
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/passthru_fixture.h"

/* A Write then a Read of the same blocks: the data reaches the drive and reads back. */
static void write_then_read_back_through_the_drive(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uint8_t out[4096], in[4096];
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + 3);
	struct nvme_sqe c = pt_rw(nvme_cmd_write, 1, 10, 8);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, out, sizeof(out), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(fake_drive_ns_data(f->drive, 1, 10), out, sizeof(out)), 0);
	c = pt_rw(nvme_cmd_read, 1, 10, 8);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, in, sizeof(in), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
	/* The drive saw the host's command as it was, with its own NSID. */
	CU_ASSERT_EQUAL(f->drive->last_io.opcode, nvme_cmd_read);
	CU_ASSERT_EQUAL(le32toh(f->drive->last_io.cdw10), 10);
	/* Counted into the controller's SMART counters as the core's Reads and Writes. */
	CU_ASSERT_EQUAL(fx_io_stats(&f->fx).host_reads, 1);
	CU_ASSERT_EQUAL(fx_io_stats(&f->fx).host_writes, 1);
	pt_teardown(f);
}

/* Namespace 2 carries 8 bytes of metadata inline: a host's Write moves 4104 bytes a
 * block, and they land in the drive as sent. */
static void extended_lba_write_carries_metadata_inline(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uint8_t out[4104];
	memset(out, 0xa5, sizeof(out));
	memset(out + 4096, 0x3c, 8);
	struct nvme_sqe c = pt_rw(nvme_cmd_write, 2, 5, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, out, sizeof(out), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(fake_drive_ns_data(f->drive, 2, 5), out, sizeof(out)), 0);
	pt_teardown(f);
}

/* The drive's Compare Failure reaches the host as the drive said it, DNR included. */
static void compare_mismatch_status_from_the_drive_reaches_the_host(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uint8_t buf[512];
	memset(buf, 0x11, sizeof(buf));
	memset(fake_drive_ns_data(f->drive, 1, 3), 0x22, 512);
	struct nvme_sqe c = pt_rw(nvme_cmd_compare, 1, 3, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, sizeof(buf), NULL),
			PT_DNR(PT_ST(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED)));
	memset(buf, 0x22, sizeof(buf));
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, sizeof(buf), NULL), 0);
	pt_teardown(f);
}

/* More than the drive moves in one command (max_transfer 8 KiB here), or than MDTS:
 * Invalid Field, and the drive never sees it. */
static void oversize_transfer_gets_invalid_field(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0,mt=8192");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	static uint8_t buf[16384];
	unsigned before = f->drive->io_calls;
	struct nvme_sqe c = pt_rw(nvme_cmd_read, 1, 0, 32);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, sizeof(buf), NULL),
			PT_DNR(PT_GEN(NVME_SC_INVALID_FIELD)));
	CU_ASSERT_EQUAL(f->drive->io_calls, before);
	c = pt_rw(nvme_cmd_read, 1, 0, 16);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, 8192, NULL), 0);
	pt_teardown(f);
}

/* An opcode the drive's effects log does not list: Invalid Command Opcode from the
 * target, the drive never sees it. */
static void unsupported_opcode_is_refused(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	unsigned before = f->drive->io_calls;
	struct nvme_sqe c = pt_rw(0x7c, 1, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, NULL, 0, NULL), PT_DNR(PT_GEN(NVME_SC_INVALID_OPCODE)));
	CU_ASSERT_EQUAL(f->drive->io_calls, before);
	pt_teardown(f);
}

/* Dataset Management deallocate passes with its ranges: the blocks read back zero. */
static void dsm_deallocate_passes_with_its_ranges(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	memset(fake_drive_ns_data(f->drive, 1, 0), 0x77, 16 * 512);
	uint8_t range[16] = { 0 };
	range[4] = 4; /* 4 blocks */
	range[8] = 2; /* from LBA 2 */
	struct nvme_sqe c = pt_rw(nvme_cmd_dsm, 1, 0, 1);
	c.cdw10 = 0;                /* one range */
	c.cdw11 = htole32(1u << 2); /* deallocate */
	c.cdw12 = 0;
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, range, sizeof(range), NULL), 0);
	const uint8_t *m = fake_drive_ns_data(f->drive, 1, 0);
	CU_ASSERT_EQUAL(m[2 * 512 - 1], 0x77);
	for (int i = 2 * 512; i < 6 * 512; i++)
		if (m[i]) {
			CU_FAIL("deallocated block not zero");
			break;
		}
	CU_ASSERT_EQUAL(m[6 * 512], 0x77);
	pt_teardown(f);
}

/* Fused Compare and Write on a passthru namespace: the core's, through the drive's Read
 * and Write. A match writes; a mismatch leaves the blocks as they were. */
static void fused_compare_and_write_on_a_passthru_namespace(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	memset(fake_drive_ns_data(f->drive, 1, 7), 0x10, 512);
	uint8_t cmp[512], data[512];
	memset(cmp, 0x10, sizeof(cmp));
	memset(data, 0x99, sizeof(data));
	struct fx_cmd h1, h2;
	struct nvme_sqe a = pt_rw(nvme_cmd_compare, 1, 7, 1), b = pt_rw(nvme_cmd_write, 1, 7, 1);
	a.flags = NVMF_FUSED_FIRST;
	b.flags = NVMF_FUSED_SECOND;
	b.command_id = 0x41;
	CU_ASSERT_EQUAL_FATAL(fx_submit(&f->q, &h1, &a, cmp, sizeof(cmp)), 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q, &h2, &b, data, sizeof(data)), 0);
	CU_ASSERT_FATAL(fx_done(&h1));
	CU_ASSERT_FATAL(fx_done(&h2));
	CU_ASSERT_EQUAL(h1.status, 0);
	CU_ASSERT_EQUAL(h2.status, 0);
	CU_ASSERT_EQUAL(fake_drive_ns_data(f->drive, 1, 7)[0], 0x99);
	/* Again with the old contents: Compare Failure, nothing written. */
	CU_ASSERT_EQUAL_FATAL(fx_submit(&f->q, &h1, &a, cmp, sizeof(cmp)), 0);
	memset(data, 0x55, sizeof(data));
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q, &h2, &b, data, sizeof(data)), 0);
	CU_ASSERT_FATAL(fx_done(&h1));
	CU_ASSERT_FATAL(fx_done(&h2));
	CU_ASSERT_EQUAL(h1.status, PT_DNR(PT_ST(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED)));
	CU_ASSERT_NOT_EQUAL(h2.status, 0);
	CU_ASSERT_EQUAL(fake_drive_ns_data(f->drive, 1, 7)[0], 0x99);
	pt_teardown(f);
}

/* On namespace 2 (metadata inline) the target's Compare and Write cannot carry the
 * metadata: the first half is Invalid Field, the second fails with it. */
static void fused_compare_and_write_with_inline_metadata_is_refused(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uint8_t cmp[4096] = { 0 }, data[4096];
	memset(data, 0x99, sizeof(data));
	struct fx_cmd h1, h2;
	struct nvme_sqe a = pt_rw(nvme_cmd_compare, 2, 0, 1), b = pt_rw(nvme_cmd_write, 2, 0, 1);
	a.flags = NVMF_FUSED_FIRST;
	b.flags = NVMF_FUSED_SECOND;
	b.command_id = 0x41;
	unsigned before = f->drive->io_calls;
	CU_ASSERT_EQUAL_FATAL(fx_submit(&f->q, &h1, &a, cmp, sizeof(cmp)), 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q, &h2, &b, data, sizeof(data)), 0);
	CU_ASSERT_FATAL(fx_done(&h1));
	CU_ASSERT_FATAL(fx_done(&h2));
	CU_ASSERT_EQUAL(h1.status, PT_DNR(PT_GEN(NVME_SC_INVALID_FIELD)));
	CU_ASSERT_NOT_EQUAL(h2.status, 0);
	CU_ASSERT_EQUAL(f->drive->io_calls, before);
	pt_teardown(f);
}

/* Reservation commands are the target's, never the drive's: off on a drive's
 * namespaces, they are Invalid Command Opcode. */
static void reservation_commands_stay_with_the_target(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	unsigned before = f->drive->io_calls;
	uint8_t buf[4096];
	struct nvme_sqe c = pt_rw(nvme_cmd_resv_report, 1, 0, 1);
	c.cdw10 = htole32(sizeof(buf) / 4 - 1);
	c.cdw11 = 0;
	c.cdw12 = 0;
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, sizeof(buf), NULL),
			PT_DNR(PT_GEN(NVME_SC_INVALID_OPCODE)));
	CU_ASSERT_EQUAL(f->drive->io_calls, before);
	pt_teardown(f);
}

/* io_timeout reaches the drive (the kernel aborts past it), and a command the kernel
 * aborted answers Command Abort Requested, without DNR: the host may retry. */
static void io_timeout_reaches_the_drive_and_a_timed_out_command_is_aborted(void)
{
	struct pt_fx *f = pt_setup_timeouts("/dev/fake0", 0, 7);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uint8_t buf[512];
	struct nvme_sqe c = pt_rw(nvme_cmd_read, 1, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, sizeof(buf), NULL), 0);
	CU_ASSERT_EQUAL(f->drive->last_io_timeout_ms, 7000);
	pt_teardown(f);
	f = pt_setup("/dev/fake0,iotimeout");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, sizeof(buf), NULL), PT_GEN(NVME_SC_ABORT_REQ));
	CU_ASSERT_EQUAL(f->drive->last_io_timeout_ms, 0); /* no io_timeout: the driver's */
	pt_teardown(f);
}

const struct unit_test passthru_io_tests[] = {
	{ "io_timeout_reaches_the_drive_and_a_timed_out_command_is_aborted",
	  io_timeout_reaches_the_drive_and_a_timed_out_command_is_aborted },
	{ "fused_compare_and_write_with_inline_metadata_is_refused",
	  fused_compare_and_write_with_inline_metadata_is_refused },
	{ "reservation_commands_stay_with_the_target", reservation_commands_stay_with_the_target },
	{ "write_then_read_back_through_the_drive", write_then_read_back_through_the_drive },
	{ "extended_lba_write_carries_metadata_inline",
	  extended_lba_write_carries_metadata_inline },
	{ "compare_mismatch_status_from_the_drive_reaches_the_host",
	  compare_mismatch_status_from_the_drive_reaches_the_host },
	{ "oversize_transfer_gets_invalid_field", oversize_transfer_gets_invalid_field },
	{ "unsupported_opcode_is_refused", unsupported_opcode_is_refused },
	{ "dsm_deallocate_passes_with_its_ranges", dsm_deallocate_passes_with_its_ranges },
	{ "fused_compare_and_write_on_a_passthru_namespace",
	  fused_compare_and_write_on_a_passthru_namespace },
	{ NULL, NULL },
};
