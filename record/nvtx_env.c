/* SPDX-License-Identifier: MIT */
/* record's NVTX tool in the traced command's environment: see nvtx_env.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx_env.h"
#include "own_library.h"

int gr_nvtx_env_make(struct gr_nvtx_env *e, const char *lib, const char *user)
{
	int n = 0;

	e->env[0] = e->env[1] = e->env[2] = NULL;
	if (user && !*user)
		user = NULL;
	if (asprintf(&e->env[n++], GR_NVTX_INJECTION_ENV "=%s", lib) < 0)
		goto nomem;
	/* always set: a chain left in the environment with no tool of the user's is not one */
	if (!user || strcmp(user, lib)) {
		if (asprintf(&e->env[n++], GR_NVTX_CHAIN_ENV "=%s", user ? user : "") < 0)
			goto nomem;
		e->chained = user != NULL;
	}
	e->env[n] = NULL;
	e->active = 1;
	return 0;
nomem:
	e->env[n - 1] = NULL;
	gr_nvtx_env_close(e);
	snprintf(e->why, sizeof(e->why), "%s", strerror(ENOMEM));
	return -ENOMEM;
}

int gr_nvtx_env_open(struct gr_nvtx_env *e)
{
	char lib[sizeof(e->why)];

	memset(e, 0, sizeof(*e));
	if (gr_own_library(GR_NVTX_LIBRARY, lib, sizeof(lib)) || strlen(lib) >= sizeof(e->lib)) {
		snprintf(e->why, sizeof(e->why),
			 GR_NVTX_LIBRARY
			 " is missing: found neither %s (make builds it next to gpurec)",
			 lib);
		return -ENOENT;
	}
	snprintf(e->lib, sizeof(e->lib), "%s", lib);
	return gr_nvtx_env_make(e, e->lib, getenv(GR_NVTX_INJECTION_ENV));
}

void gr_nvtx_env_close(struct gr_nvtx_env *e)
{
	for (int i = 0; i < 2; i++) {
		free(e->env[i]);
		e->env[i] = NULL;
	}
	e->active = 0;
}
