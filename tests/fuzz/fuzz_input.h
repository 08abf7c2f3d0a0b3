/* SPDX-License-Identifier: MIT */
/*
 * Reading a libFuzzer input as a stream of fields, for the harnesses that decode their
 * input into structured steps (tests/fuzz/fuzz_capsule.c, fuzz_disc_log.c). Numbers are
 * little endian; once the input is used up every read gives 0 (and fi_done says so), so
 * any input decodes to something and a shorter one to a prefix of it.
 */
#ifndef NVMF_TESTS_FUZZ_INPUT_H
#define NVMF_TESTS_FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The rest of an input: @n bytes at @p. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

/* fi_done - nothing is left of @in. */
static inline bool fi_done(const struct fuzz_in *in)
{
	return in->n == 0;
}

/* fi_bytes - copy the next @len bytes into @dst (0-filled past the end of the input);
 * returns how many came from the input. */
static inline size_t fi_bytes(struct fuzz_in *in, void *dst, size_t len)
{
	size_t n = len < in->n ? len : in->n;
	if (n) {
		memcpy(dst, in->p, n);
		in->p += n;
		in->n -= n;
	}
	memset((uint8_t *)dst + n, 0, len - n);
	return n;
}

/* fi_u8 / fi_u16 / fi_u32 / fi_u64 - the next 1, 2, 4 or 8 bytes, little endian. */
static inline uint8_t fi_u8(struct fuzz_in *in)
{
	uint8_t v = 0;
	fi_bytes(in, &v, 1);
	return v;
}

static inline uint16_t fi_u16(struct fuzz_in *in)
{
	uint8_t b[2];
	fi_bytes(in, b, 2);
	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t fi_u32(struct fuzz_in *in)
{
	uint8_t b[4];
	fi_bytes(in, b, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t fi_u64(struct fuzz_in *in)
{
	uint64_t lo = fi_u32(in);
	return lo | (uint64_t)fi_u32(in) << 32;
}

/* fi_str - a string of up to @max bytes (a length byte, then the bytes) into @dst, which
 * holds @max + 1; NUL-terminated, and cut at a NUL the input holds. Returns @dst. */
static inline char *fi_str(struct fuzz_in *in, char *dst, size_t max)
{
	size_t len = fi_u8(in);
	if (max > 255)
		len |= (size_t)(fi_u8(in) & 1) << 8; /* up to 511 where the field allows */
	if (len > max)
		len = max;
	fi_bytes(in, dst, len);
	dst[len] = '\0';
	return dst;
}

#endif
