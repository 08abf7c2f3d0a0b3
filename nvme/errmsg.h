/* SPDX-License-Identifier: MIT */
/* The error messages of the nvme/ parsers: a caller passes char *err, size_t errlen (err
 * may be NULL) and gets one line naming what is wrong. */
#ifndef NVMF_NVME_ERRMSG_H
#define NVMF_NVME_ERRMSG_H

#include <stddef.h>

/* Format the reason into @err (when @err and @errlen are set) and return -@code. */
__attribute__((format(printf, 4, 5))) int nvme_errmsg(int code, char *err, size_t errlen,
						      const char *fmt, ...);

#endif
