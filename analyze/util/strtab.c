/* SPDX-License-Identifier: MIT */
/* Arena and interned strings (see strtab.h). */
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

#define BLOCK_SIZE (64u << 10)

struct gr_arena_block {
	struct gr_arena_block *next;
	uint64_t data[];
};

void *gr_arena_alloc(struct gr_arena *a, size_t n)
{
	struct gr_arena_block *b;
	size_t size;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (!n)
		n = 8;
	if (!a->head || a->size - a->used < n) {
		/* A large request gets a block of its own, so the current block's tail stays
		 * usable. */
		size = n > BLOCK_SIZE / 4 ? n : BLOCK_SIZE;
		b = calloc(1, sizeof(*b) + size);
		if (!b)
			return NULL;
		if (size == n && a->head) {
			b->next = a->head->next;
			a->head->next = b;
			return b->data;
		}
		b->next = a->head;
		a->head = b;
		a->used = 0;
		a->size = size;
	}
	p = (char *)a->head->data + a->used;
	a->used += n;
	return p;
}

char *gr_arena_strndup(struct gr_arena *a, const void *p, size_t n)
{
	char *s;

	if (n == SIZE_MAX)
		return NULL;
	s = gr_arena_alloc(a, n + 1);
	if (s && n)
		memcpy(s, p, n);
	return s;
}

void gr_arena_free(struct gr_arena *a)
{
	struct gr_arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	memset(a, 0, sizeof(*a));
}

struct gr_strtab_slot {
	uint64_t hash;
	const char *s; /* NULL = empty */
	size_t n;
};

void gr_strtab_init(struct gr_strtab *t, struct gr_arena *arena)
{
	memset(t, 0, sizeof(*t));
	t->arena = arena;
}

void gr_strtab_free(struct gr_strtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->len = 0;
}

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 32);
}

static int grow(struct gr_strtab *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 256;
	struct gr_strtab_slot *slots;

	if (t->cap >= (1u << 30))
		return -1;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (uint32_t i = 0; i < t->cap; i++) {
		uint32_t s;

		if (!t->slots[i].s)
			continue;
		s = t->slots[i].hash & (cap - 1);
		while (slots[s].s)
			s = (s + 1) & (cap - 1);
		slots[s] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

const char *gr_strtab_intern(struct gr_strtab *t, const void *p, size_t n)
{
	uint64_t h = hash_bytes(p, n);
	struct gr_strtab_slot *e;
	uint32_t s;

	if ((uint64_t)(t->len + 1) * 2 > t->cap && grow(t))
		return NULL;
	s = h & (t->cap - 1);
	for (;; s = (s + 1) & (t->cap - 1)) {
		e = &t->slots[s];
		if (!e->s)
			break;
		if (e->hash == h && e->n == n && !memcmp(e->s, p, n))
			return e->s;
	}
	e->s = gr_arena_strndup(t->arena, p, n);
	if (!e->s)
		return NULL;
	e->hash = h;
	e->n = n;
	t->len++;
	return e->s;
}

const char *gr_strtab_intern_str(struct gr_strtab *t, const char *s)
{
	return gr_strtab_intern(t, s, strlen(s));
}
