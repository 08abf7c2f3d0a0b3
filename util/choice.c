// SPDX-License-Identifier: MIT
/* Choice lists (see choice.h). */
#include "util/choice.h"

#include <stdio.h>
#include <string.h>

int nvmf_choice_index(const char *const *names, const char *s)
{
	for (int i = 0; s && names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

char *nvmf_choice_text(const char *const *names, char *buf, size_t len)
{
	size_t off = 0;
	if (!len)
		return buf;
	buf[0] = 0;
	for (size_t i = 0; names[i] && off < len; i++) {
		const char *sep = !i ? "" : names[i + 1] ? ", " : " or ";
		int n = snprintf(buf + off, len - off, "%s%s", sep, names[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}
