/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "u64map.h"

static size_t slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return key & (cap - 1);
}

uint64_t *gr_u64map_get(const struct gr_u64map *m, uint64_t key)
{
	if (!m->cap || !key)
		return NULL;
	for (size_t i = slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static int grow(struct gr_u64map *m)
{
	struct gr_u64map n = {.cap = m->cap ? m->cap * 2 : 64};

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			gr_u64map_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int gr_u64map_put(struct gr_u64map *m, uint64_t key, uint64_t val)
{
	uint64_t *v;
	size_t i;

	if (!key)
		return -EINVAL;
	v = gr_u64map_get(m, key);
	if (v) {
		*v = val;
		return 0;
	}
	if ((m->len + 1) * 4 > m->cap * 3 && grow(m))
		return -ENOMEM;
	for (i = slot(key, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1))
		;
	m->keys[i] = key;
	m->vals[i] = val;
	m->len++;
	return 0;
}

void gr_u64map_free(struct gr_u64map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct gr_u64map){0};
}
