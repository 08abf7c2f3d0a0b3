/* SPDX-License-Identifier: MIT */
#include "nvme/errmsg.h"

#include <stdarg.h>
#include <stdio.h>

int nvme_errmsg(int code, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -code;
}
