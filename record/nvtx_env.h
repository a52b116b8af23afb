/* SPDX-License-Identifier: MIT */
/*
 * record's NVTX tool in the traced command's environment: NVTX_INJECTION64_PATH names
 * libgpurec_nvtx.so (found beside gpurec, own_library.h), so that each NVTX copy in the command's
 * processes loads it at its first call. A tool the user had named there is not lost: it moves to
 * GPUREC_NVTX_CHAIN, which the library loads and calls after itself (nvtx/inject.c).
 *
 * Only the command's environment changes (the child adds these variables after the fork); the
 * recorder's own is left as is. -p processes are already running: NVTX is not injected there.
 * The command gets the variables only when the recorder probes the library's tap (nvtx_probe.h).
 */
#ifndef GR_RECORD_NVTX_ENV_H
#define GR_RECORD_NVTX_ENV_H

#include <limits.h>

#include "nvtx/tap.h"

#define GR_NVTX_INJECTION_ENV "NVTX_INJECTION64_PATH"
#define GR_NVTX_CHAIN_ENV     "GPUREC_NVTX_CHAIN"

struct gr_nvtx_env {
	int active;		     /* the command gets the library */
	char lib[PATH_MAX];	     /* the library's real path: the one the recorder probes */
	char why[PATH_MAX * 2 + 64]; /* why not active */
	char *env[3];		     /* for the command: "NAME=value" strings, NULL-terminated */
	int chained;		     /* the user's own tool runs after ours */
};

/*
 * The variables for a command, given our library's path @lib and the user's
 * NVTX_INJECTION64_PATH @user (NULL or "" when unset). A user's tool becomes the chain; one that
 * is our library itself (a recording inside a recording) is left as it is, and so is the chain
 * it inherited. Returns 0, or -ENOMEM with nothing set.
 */
int gr_nvtx_env_make(struct gr_nvtx_env *e, const char *lib, const char *user);

/*
 * Find the library and make the variables from the recorder's environment. Returns 0 (active),
 * or -ENOENT / -ENOMEM with @e->why saying so: the command then runs with its environment
 * unchanged, and without NVTX ranges.
 */
int gr_nvtx_env_open(struct gr_nvtx_env *e);

void gr_nvtx_env_close(struct gr_nvtx_env *e);

#endif
