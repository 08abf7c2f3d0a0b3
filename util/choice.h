/* SPDX-License-Identifier: MIT */
/*
 * Choice lists: the names a value may take (ANA states, log levels, DH-HMAC-CHAP hashes...),
 * as NULL-ended arrays of strings, looked up and written for messages and help one way.
 */
#ifndef NVMF_UTIL_CHOICE_H
#define NVMF_UTIL_CHOICE_H

#include <stddef.h>

/* nvmf_choice_index - the index of @s (exactly, case included) in the NULL-ended @names,
 * or -1 when it is none of them (or @s is NULL). */
int nvmf_choice_index(const char *const *names, const char *s);

/* nvmf_choice_text - @names for people, "a, b, c or d" ("a" for one), into @buf (cut to
 * @len - 1 bytes). Returns @buf. */
char *nvmf_choice_text(const char *const *names, char *buf, size_t len);

#endif
