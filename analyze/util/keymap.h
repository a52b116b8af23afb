/* SPDX-License-Identifier: MIT */
/*
 * Interning of fixed-size keys (1..8 u64 words) into dense u32 indexes 0, 1, 2, ...: the first
 * key added gets 0, the next new one 1, and so on. The keys are kept in one array in index order,
 * so a caller keeps per-key data in plain arrays indexed the same way. Open addressing, linear
 * probing, power-of-two table at most half full.
 */
#ifndef GR_ANALYZE_KEYMAP_H
#define GR_ANALYZE_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

#define GR_KEYMAP_MAX_WORDS 8

struct gr_keymap {
	uint32_t nwords; /* words per key */
	uint32_t len;	 /* keys interned */
	uint32_t cap;	 /* slots; power of two, 0 before the first add */
	uint32_t *slots; /* 0 = empty, else index + 1 */
	uint64_t *keys;	 /* len * nwords words, index order */
	uint32_t keys_cap;
};

/* Prepare an empty map for keys of @nwords words (1..GR_KEYMAP_MAX_WORDS). Allocates nothing. */
void gr_keymap_init(struct gr_keymap *m, uint32_t nwords);

/* Release the map's memory (a zeroed or initialised map is accepted) and empty it. */
void gr_keymap_free(struct gr_keymap *m);

/*
 * Make @dst (initialised, maybe holding keys) a copy of @src: the same keys with the same
 * indexes. Reuses @dst's memory. Returns 0 or -ENOMEM (@dst then empty).
 */
int gr_keymap_copy(struct gr_keymap *dst, const struct gr_keymap *src);

/*
 * Find @key, adding it when absent. Returns 1 when added, 0 when it was there, -ENOMEM, or
 * GR_ERR_LIMIT past 2^31 keys; sets *@idx on success.
 */
int gr_keymap_intern(struct gr_keymap *m, const uint64_t *key, uint32_t *idx);

/* Index of @key, or -ENOENT. */
int64_t gr_keymap_find(const struct gr_keymap *m, const uint64_t *key);

/* The words of the key with index @idx (< len). Valid until the next intern. */
static inline const uint64_t *gr_keymap_key(const struct gr_keymap *m, uint32_t idx)
{
	return m->keys + (size_t)idx * m->nwords;
}

/* The hash the map uses, exposed for callers that build their own tables. */
static inline uint64_t gr_hash_words(const uint64_t *w, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull * (n + 1);

	for (uint32_t i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 29);
}

#endif
