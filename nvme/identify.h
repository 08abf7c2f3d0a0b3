/* SPDX-License-Identifier: MIT */
/*
 * Small pure helpers for Identify data and the configuration that feeds it: ASCII
 * string fields (serial, model, firmware), the Version value, and the 16-byte UUID /
 * NGUID and 8-byte EUI-64 namespace identifiers in their text forms.
 *
 * Parsers return 0 or a negative errno and, when @err is not NULL, write one line saying
 * what is wrong with the value (without naming the value or where it came from, so that
 * the caller can prefix "subsystems[0].namespaces[1].device.uuid: ").
 */
#ifndef NVMF_NVME_IDENTIFY_H
#define NVMF_NVME_IDENTIFY_H

#include <stddef.h>
#include <stdint.h>

/* Identify Controller ASCII field sizes in bytes (NVMe Base 2.0 Figure 275). */
#define NVME_SN_LEN 20
#define NVME_MN_LEN 40
#define NVME_FR_LEN 8

#define NVME_UUID_STR_LEN  37 /* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" + NUL */
#define NVME_EUI64_STR_LEN 17 /* 16 hex digits + NUL */
#define NVME_VS_STR_LEN    20 /* "65535.255.255" + NUL, with room */

/*
 * nvme_ascii_field - store @src in a fixed ASCII field of @size bytes, left justified
 * and padded with spaces, no NUL (NVMe Base 2.0 section 1.5 "ASCII string"; SN, MN, FR).
 * @src: NULL reads as "".
 * Returns 0; -E2BIG when @src is longer than @size (the field holds its first @size
 * characters); -EINVAL when @src has a character outside 20h-7Eh (the field is all
 * spaces then, so nothing unprintable reaches the wire).
 */
int nvme_ascii_field(char *field, size_t size, const char *src);

/*
 * nvme_ascii_field_str - the reverse: @size bytes of a fixed field into the C string
 * @dst (@dst_len bytes, NUL terminated when @dst_len > 0) with trailing spaces and NULs
 * removed; the field may hold a NUL before its end (then it stops there).
 * Returns the string length written (cut to @dst_len - 1).
 */
size_t nvme_ascii_field_str(char *dst, size_t dst_len, const char *field, size_t size);

/*
 * nvme_version_parse - "MAJOR.MINOR" or "MAJOR.MINOR.TERTIARY" (decimal, as nvmet's
 * attr_version takes it) into the VS register value MAJOR << 16 | MINOR << 8 | TERTIARY
 * (NVMe Base 2.0 section 3.1.3.2): "1.3" -> 0x00010300, "1.2.1" -> 0x00010201.
 * Returns 0; -EINVAL for anything but digits and one or two dots ("", "1", "1.", "v1.3",
 * " 1.3", "1.3.0.1"); -ERANGE for MAJOR > 65535, MINOR or TERTIARY > 255.
 */
int nvme_version_parse(const char *s, uint32_t *vs, char *err, size_t errlen);

/* nvme_version_format - @vs as "1.3" or "1.2.1" (TERTIARY shown when not 0); returns @buf
 * (@len bytes, NVME_VS_STR_LEN suffices). */
char *nvme_version_format(uint32_t vs, char *buf, size_t len);

/*
 * nvme_uuid_parse - an RFC 4122 UUID as 36 characters 8-4-4-4-12
 * ("5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11") or 32 hex digits without dashes, either case,
 * into 16 bytes in the order written (the NIDT 3 byte order). No spaces, braces or
 * "urn:uuid:" prefix. Returns 0, or -EINVAL with @err saying which character or length
 * is wrong. @out is written only on success.
 */
int nvme_uuid_parse(const char *s, uint8_t out[16], char *err, size_t errlen);

/*
 * nvme_nguid_parse - an NGUID as 32 hex digits, one '-' or ':' allowed after any pair,
 * as nvmet's configfs device_nguid takes it (so the dashed UUID form, which nvmetcli
 * saves, and plain hex both load). 16 bytes in the order written. Returns 0 or -EINVAL
 * (with @err), @out written only on success.
 */
int nvme_nguid_parse(const char *s, uint8_t out[16], char *err, size_t errlen);

/* nvme_eui64_parse - the same rule for an 8-byte EUI-64: 16 hex digits, optional '-' or
 * ':' after any pair ("00:25:38:b1:c2:d3:e4:f5"). */
int nvme_eui64_parse(const char *s, uint8_t out[8], char *err, size_t errlen);

/* nvme_uuid_format - 16 bytes as lower-case 8-4-4-4-12 (also how nvmet shows an NGUID);
 * returns @out. */
char *nvme_uuid_format(const uint8_t in[16], char out[NVME_UUID_STR_LEN]);

/* nvme_eui64_format - 8 bytes as 16 lower-case hex digits; returns @out. */
char *nvme_eui64_format(const uint8_t in[8], char out[NVME_EUI64_STR_LEN]);

#endif
