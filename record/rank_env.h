/* SPDX-License-Identifier: MIT */
/*
 * The rank of a traced process, as the job's launcher told it (torchrun, mpirun, srun, a PMI
 * launcher): a short fixed list of environment variables read from /proc/PID/environ at its
 * exec, while the BPF side holds it. Nothing else of the environment is ever kept (DESIGN.md).
 */
#ifndef GR_RECORD_RANK_ENV_H
#define GR_RECORD_RANK_ENV_H

#include <stddef.h>
#include <sys/types.h>

/* The longest text gr_rank_env_select() writes, its NUL included. */
#define GR_RANK_ENV_MAX 512

/*
 * From an environment block @env of @len bytes (NUL-separated NAME=VALUE strings, as
 * /proc/PID/environ holds them), the launcher's variables that are set, in the fixed order of
 * docs/FORMAT.md, as "NAME=VALUE NAME=VALUE" into @out (at least GR_RANK_ENV_MAX bytes). A value
 * that is empty, longer than 32 bytes or holds anything but [0-9A-Za-z_.-] is left out: ranks and
 * sizes are numbers. Returns the text's length, 0 when none is set.
 */
size_t gr_rank_env_select(const char *env, size_t len, char *out);

/* The same, read from /proc/@pid/environ. Returns the length, 0 when none is set or the file
 * cannot be read (the process gone). */
size_t gr_rank_env_read(pid_t pid, char *out);

#endif
