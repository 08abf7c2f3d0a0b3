/* SPDX-License-Identifier: MIT */
/*
 * Sizes as users type them, one grammar for every size option of nvmf and
 * nvmf-targetctl and the config's size strings (docs/operating.md#sizes):
 *
 *   SIZE   := DIGITS [UNIT] | "0x" HEXDIGITS     (either case; no sign, no spaces)
 *   UNIT   := ("K" | "M" | "G" | "T" | "P") ["B" | "iB"]
 *
 * Every unit is a power of 1024: K = KiB = KB = 2^10 bytes, M = 2^20, G = 2^30,
 * T = 2^40, P = 2^50 (the IEC binary prefixes; "KB" is read as fio and nvme-cli read it,
 * as 1024). Hexadecimal takes no unit. At most 2^64 - 1 bytes.
 */
#ifndef NVMF_UTIL_SIZE_H
#define NVMF_UTIL_SIZE_H
#include <stddef.h>
#include <stdint.h>

/* The grammar in a few words, for messages and usage texts. */
#define NVMF_SIZE_GRAMMAR                                                  \
	"bytes: digits, 0x hex, or digits with a K, M, G, T or P suffix, " \
	"powers of 1024: 64M = 64 MiB"

/*
 * nvmf_size_parse - @text by the grammar above into *@out (bytes). Returns 0, -EINVAL
 * (NULL or empty, no digits, a sign, an unknown unit, anything after the unit) or
 * -ERANGE (more than 2^64 - 1 bytes); *@out is untouched on error.
 */
int nvmf_size_parse(const char *text, uint64_t *out);

/*
 * nvmf_size_parse_msg - nvmf_size_parse, with the message of a failure in @msg naming
 * @what (the option or key, e.g. "--size") and the text: "WHAT 'TEXT' is not a size
 * (NVMF_SIZE_GRAMMAR)" or "WHAT 'TEXT' is too large". Returns the same.
 */
int nvmf_size_parse_msg(const char *text, const char *what, uint64_t *out, char *msg, size_t len);

/*
 * nvmf_u64_parse - a plain number, @text as DIGITS or "0x" HEXDIGITS (either case; no
 * unit, sign or space) into *@out. Returns 0, -EINVAL (NULL or empty, no digits, anything
 * after them) or -ERANGE (more than 2^64 - 1); *@out is untouched on error.
 */
int nvmf_u64_parse(const char *text, uint64_t *out);

#endif
