/* SPDX-License-Identifier: MIT */
/* gr_strerror() and gr_diag_set(): the one error table of gpurec. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static const char *const gr_err_names[GR_ERR_LAST - GR_ERR_FIRST] = {
    [GR_ERR_MAGIC - GR_ERR_FIRST] = "not a gpurec trace (bad magic)",
    [GR_ERR_VERSION - GR_ERR_FIRST] = "unsupported trace format version or required feature",
    [GR_ERR_TRUNCATED - GR_ERR_FIRST] = "trace truncated",
    [GR_ERR_CHECKSUM - GR_ERR_FIRST] = "checksum mismatch",
    [GR_ERR_CORRUPT - GR_ERR_FIRST] = "corrupt trace data",
    [GR_ERR_LIMIT - GR_ERR_FIRST] = "size or count above a hard limit",
    [GR_ERR_SCHEMA - GR_ERR_FIRST] = "unknown record kind or column, or invalid schema",
    [GR_ERR_COMPRESS - GR_ERR_FIRST] = "zstd compression or decompression failed",
    [GR_ERR_STATE - GR_ERR_FIRST] = "invalid call in this state (after an earlier error?)",
};

const char *gr_strerror(int err)
{
	const char *s;

	if (err == 0)
		return "success";
	if (err >= GR_ERR_FIRST && err < GR_ERR_LAST)
		return gr_err_names[err - GR_ERR_FIRST];
	if (err < 0 && err > -4096) {
		s = strerrordesc_np(-err);
		if (s)
			return s;
	}
	return "unknown error";
}

int gr_diag_set(struct gr_diag *d, int err, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return err;
	d->err = err;
	d->offset = offset;
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	return err;
}
