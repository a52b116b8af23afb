/* SPDX-License-Identifier: MIT */
/* Interning of fixed-size u64 keys into dense indexes (see keymap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/error.h"
#include "keymap.h"

void gr_keymap_init(struct gr_keymap *m, uint32_t nwords)
{
	memset(m, 0, sizeof(*m));
	m->nwords = nwords;
}

void gr_keymap_free(struct gr_keymap *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m->keys);
	m->slots = NULL;
	m->keys = NULL;
	m->len = m->cap = m->keys_cap = 0;
}

static int key_eq(const uint64_t *a, const uint64_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Double the slot table and reinsert every key. */
static int grow_slots(struct gr_keymap *m)
{
	uint32_t cap = m->cap ? m->cap * 2 : 64;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->len; i++) {
		uint32_t s = gr_hash_words(gr_keymap_key(m, i), m->nwords) & (cap - 1);

		while (slots[s])
			s = (s + 1) & (cap - 1);
		slots[s] = i + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int64_t gr_keymap_find(const struct gr_keymap *m, const uint64_t *key)
{
	uint32_t s, v;

	if (!m->cap)
		return -ENOENT;
	s = gr_hash_words(key, m->nwords) & (m->cap - 1);
	while ((v = m->slots[s])) {
		if (key_eq(gr_keymap_key(m, v - 1), key, m->nwords))
			return v - 1;
		s = (s + 1) & (m->cap - 1);
	}
	return -ENOENT;
}

int gr_keymap_intern(struct gr_keymap *m, const uint64_t *key, uint32_t *idx)
{
	uint32_t s, v;
	int err;

	if ((uint64_t)(m->len + 1) * 2 > m->cap) {
		if (m->cap >= (1u << 31))
			return GR_ERR_LIMIT;
		err = grow_slots(m);
		if (err)
			return err;
	}
	s = gr_hash_words(key, m->nwords) & (m->cap - 1);
	while ((v = m->slots[s])) {
		if (key_eq(gr_keymap_key(m, v - 1), key, m->nwords)) {
			*idx = v - 1;
			return 0;
		}
		s = (s + 1) & (m->cap - 1);
	}
	if (m->len == m->keys_cap) {
		uint32_t ncap = m->keys_cap ? m->keys_cap * 2 : 32;
		uint64_t *keys = realloc(m->keys, (size_t)ncap * m->nwords * sizeof(*keys));

		if (!keys)
			return -ENOMEM;
		m->keys = keys;
		m->keys_cap = ncap;
	}
	memcpy(m->keys + (size_t)m->len * m->nwords, key, m->nwords * sizeof(*key));
	m->slots[s] = m->len + 1;
	*idx = m->len++;
	return 1;
}

int gr_keymap_copy(struct gr_keymap *dst, const struct gr_keymap *src)
{
	size_t kbytes = (size_t)src->len * src->nwords * sizeof(*src->keys);
	size_t room = (size_t)dst->keys_cap * dst->nwords * sizeof(*dst->keys);

	dst->len = 0;
	if (dst->cap != src->cap) {
		uint32_t *slots = src->cap ? realloc(dst->slots, src->cap * sizeof(*slots)) : NULL;

		if (src->cap && !slots)
			goto oom;
		if (!src->cap)
			free(dst->slots);
		dst->slots = slots;
		dst->cap = src->cap;
	}
	if (src->cap)
		memcpy(dst->slots, src->slots, src->cap * sizeof(*src->slots));
	if (room < kbytes) {
		uint64_t *keys = realloc(dst->keys, kbytes);

		if (!keys)
			goto oom;
		dst->keys = keys;
		room = kbytes;
	}
	dst->nwords = src->nwords;
	dst->keys_cap = src->nwords ? (uint32_t)(room / (src->nwords * sizeof(*dst->keys))) : 0;
	if (kbytes)
		memcpy(dst->keys, src->keys, kbytes);
	dst->len = src->len;
	return 0;
oom:
	gr_keymap_free(dst);
	return -ENOMEM;
}
