/* SPDX-License-Identifier: MIT */
/*
 * The one way a command opens a trace: load it, or tell the user why not in one line, "gpurec
 * CMD: PATH: reason (offset N)", with a hint when the file does not exist. Every command that
 * reads a trace goes through here, so a damaged or missing file reads the same everywhere.
 */
#ifndef GR_ANALYZE_LOAD_H
#define GR_ANALYZE_LOAD_H

#include "model.h"

/* Load @path into *@out for command @cmd ("report", ...), with @o (NULL: defaults, every CPU).
 * Returns 0, or a negative error after printing why (stderr). */
int gr_load_trace(const char *cmd, const char *path, const struct gr_model_load_opts *o,
		  struct gr_model **out);

#endif
