/* SPDX-License-Identifier: MIT */
/*
 * The launcher's rank variables of a traced process (rank_env.h): a scan of its environment
 * block for a fixed list of names. The block is read whole, however long, since a variable may
 * lie anywhere in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rank_env.h"

#define VALUE_MAX 32

/* In the order they are written: the one the analysis takes first comes first. */
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
	if (!n || n > VALUE_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'z') ||
		      (v[i] >= 'A' && v[i] <= 'Z') || v[i] == '_' || v[i] == '.' || v[i] == '-'))
			return 0;
	return 1;
}

size_t gr_rank_env_select(const char *env, size_t len, char *out)
{
	const char *val[NNAMES] = {0};
	size_t vlen[NNAMES] = {0}, n = 0;

	for (size_t at = 0; at < len;) {
		const char *s = env + at, *end = memchr(s, 0, len - at), *eq;
		size_t slen = end ? (size_t)(end - s) : len - at;

		at += slen + 1;
		eq = memchr(s, '=', slen);
		if (!eq)
			continue;
		for (size_t i = 0; i < NNAMES; i++)
			if ((size_t)(eq - s) == strlen(names[i]) && !memcmp(s, names[i], eq - s)) {
				/* the last definition wins, as getenv() of most libcs does not, but
				 * a block holds one per name unless a program builds it by hand */
				val[i] = eq + 1;
				vlen[i] = slen - (size_t)(eq - s) - 1;
			}
	}
	out[0] = 0;
	for (size_t i = 0; i < NNAMES; i++) {
		if (!val[i] || !value_ok(val[i], vlen[i]))
			continue;
		n += (size_t)snprintf(out + n, GR_RANK_ENV_MAX - n, "%s%s=%.*s", n ? " " : "",
				      names[i], (int)vlen[i], val[i]);
	}
	return n;
}

size_t gr_rank_env_read(pid_t pid, char *out)
{
	char path[64], *buf = NULL, *nb;
	size_t len = 0, cap = 0, n;
	ssize_t got;
	int fd;

	out[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 16384;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	n = buf ? gr_rank_env_select(buf, len, out) : 0;
	free(buf);
	return n;
}
