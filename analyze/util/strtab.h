/* SPDX-License-Identifier: MIT */
/*
 * An arena (bump allocator for data that lives as long as its owner) and a string table on top
 * of it that stores each distinct string once: equal strings get the same pointer, so callers
 * compare and hash interned strings by address.
 */
#ifndef GR_ANALYZE_STRTAB_H
#define GR_ANALYZE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct gr_arena_block;

struct gr_arena {
	struct gr_arena_block *head;
	size_t used, size; /* of head's data */
};

/* Allocate @n bytes aligned to 8, zeroed, from @a; NULL when out of memory. Lives until
 * gr_arena_free(). */
void *gr_arena_alloc(struct gr_arena *a, size_t n);
/* Copy @n bytes of @p into the arena with a NUL after them; NULL when out of memory. */
char *gr_arena_strndup(struct gr_arena *a, const void *p, size_t n);
/* Free every block (a zeroed arena is accepted) and leave @a empty. */
void gr_arena_free(struct gr_arena *a);

struct gr_strtab_slot;

struct gr_strtab {
	struct gr_arena *arena; /* where the strings live; not owned */
	struct gr_strtab_slot *slots;
	uint32_t cap, len;
};

/* An empty table storing its strings in @arena. Allocates nothing. */
void gr_strtab_init(struct gr_strtab *t, struct gr_arena *arena);
/* Free the table's index; the strings stay in the arena. */
void gr_strtab_free(struct gr_strtab *t);
/*
 * The interned copy of the @n bytes at @p (NUL-terminated; a NUL inside ends the C string but
 * the bytes still compare in full), or NULL when out of memory. Valid while the arena lives.
 */
const char *gr_strtab_intern(struct gr_strtab *t, const void *p, size_t n);
/* Same for a C string. */
const char *gr_strtab_intern_str(struct gr_strtab *t, const char *s);

#endif
