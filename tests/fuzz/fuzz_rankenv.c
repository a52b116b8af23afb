/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: a traced process's environment block (/proc/PID/environ, which the program may
 * fill with anything) through gr_rank_env_select(), as record/rank_env.c reads it at exec.
 *
 * Invariants: the text is shorter than GR_RANK_ENV_MAX and as long as returned; it is
 * space-separated NAME=VALUE pairs, each name one of the launcher's (in the fixed order, each
 * once), each value 1..32 bytes of [0-9A-Za-z_.-], and each pair is, as given, the last
 * definition of that name in the block; a name whose last definition has such a value is never
 * left out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/rank_env.h"
#include "tests/fuzz/fuzz.h"

/* rank_env.c's list, in its order: the order of the text is part of the trace format */
static const char *const names[] = {
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
    "SLURM_PROCID",
    "SLURM_NTASKS",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static int value_ok(const char *v, size_t n)
{
	if (!n || n > 32)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.-",
			    v[i]) ||
		    !v[i])
			return 0;
	return 1;
}

/* The last definition of @name in the block: its value and length; NULL when none. */
static const char *last_def(const char *env, size_t len, const char *name, size_t *vlen)
{
	const char *found = NULL;
	size_t nlen = strlen(name);

	for (size_t at = 0; at < len;) {
		const char *s = env + at, *end = memchr(s, 0, len - at);
		size_t slen = end ? (size_t)(end - s) : len - at;

		if (slen > nlen && !memcmp(s, name, nlen) && s[nlen] == '=') {
			found = s + nlen + 1;
			*vlen = slen - nlen - 1;
		}
		at += slen + 1;
	}
	return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *env = (const char *)data;
	char out[GR_RANK_ENV_MAX + 1];
	size_t n, next = 0;
	const char *p;

	memset(out, 'Z', sizeof(out));
	n = gr_rank_env_select(env, size, out);
	FUZZ_ASSERT(n < GR_RANK_ENV_MAX && strlen(out) == n);
	p = out;
	for (size_t i = 0; i < NNAMES; i++) {
		size_t vlen = 0, nlen = strlen(names[i]);
		const char *v = last_def(env, size, names[i], &vlen);

		if (!v || !value_ok(v, vlen))
			continue;
		/* this name comes next, with its last value as given */
		if (next++)
			FUZZ_ASSERT(*p++ == ' ');
		FUZZ_ASSERT(!strncmp(p, names[i], nlen) && p[nlen] == '=');
		p += nlen + 1;
		FUZZ_ASSERT(!memcmp(p, v, vlen));
		p += vlen;
	}
	/* nothing else */
	FUZZ_ASSERT(*p == 0);
	return 0;
}
