/* SPDX-License-Identifier: MIT */
/*
 * record -o's pattern: one launcher line records every rank of a job into a file of its own
 * (`srun gpurec record -o trace.%h.%r.trc -- python train.py`). The escapes: %h the short host
 * name, %r the rank the launcher gave the recorder, %p the recorder's pid, %% a '%'.
 */
#ifndef GR_RECORD_OUTPUT_NAME_H
#define GR_RECORD_OUTPUT_NAME_H

#include <stddef.h>

/*
 * Expand @pattern into @out (@size bytes). @host is the host name (up to its first '.' is
 * used; a byte outside [A-Za-z0-9_-] becomes '_', so a name can never add a directory), @rank the
 * rank's digits or NULL when the launcher set none, @pid the recorder's pid. Returns 0, or -1
 * with the reason in @why (at least 128 bytes): an unknown escape, %r without a rank, a result
 * longer than @size or empty.
 */
int gr_output_name_expand(const char *pattern, const char *host, const char *rank, long pid,
			  char *out, size_t size, char *why);

/*
 * The job rank the launcher put in this process's environment: the first of RANK (torchrun),
 * OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH, Intel MPI), SLURM_PROCID (srun) that is set
 * to a decimal number. NULL when none is.
 */
const char *gr_output_name_rank(void);

#endif
