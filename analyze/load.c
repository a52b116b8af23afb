/* SPDX-License-Identifier: MIT */
/* Load a trace or say why not (load.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "load.h"

int gr_load_trace(const char *cmd, const char *path, const struct gr_model_load_opts *o,
		  struct gr_model **out)
{
	struct gr_diag diag = {0};
	int err = gr_model_load_opts(out, path, o, &diag);

	if (err == -ENOENT)
		fprintf(stderr, "gpurec %s: %s: %s (record one with: sudo gpurec record -- CMD)\n",
			cmd, path, gr_strerror(err));
	else if (err && diag.reason[0])
		fprintf(stderr, "gpurec %s: %s: %s (offset %" PRIu64 ")\n", cmd, path, diag.reason,
			diag.offset);
	else if (err)
		fprintf(stderr, "gpurec %s: %s: %s\n", cmd, path, gr_strerror(err));
	return err;
}
