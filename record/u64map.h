/* SPDX-License-Identifier: MIT */
/* A small open-addressing hash map from non-zero u64 keys to u64 values (pointers fit). */
#ifndef GR_RECORD_U64MAP_H
#define GR_RECORD_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct gr_u64map {
	uint64_t *keys; /* 0 = empty slot */
	uint64_t *vals;
	size_t cap, len;
};

/* Pointer to the value of @key, or NULL. */
uint64_t *gr_u64map_get(const struct gr_u64map *m, uint64_t key);
/* Insert or overwrite. Returns 0 or -ENOMEM. Key 0 is not allowed (-EINVAL). */
int gr_u64map_put(struct gr_u64map *m, uint64_t key, uint64_t val);
void gr_u64map_free(struct gr_u64map *m);

/* Iterate: for (size_t i = 0; i < m->cap; i++) if (m->keys && m->keys[i]) ... */

/* Mix two u64 into a non-zero key (for composite keys: pid and address). */
static inline uint64_t gr_u64_key2(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));

	h ^= h >> 29;
	return h ? h : 1;
}

#endif
