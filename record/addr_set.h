/* SPDX-License-Identifier: MIT */
/*
 * A set of (pid, address) pairs in the order first added: the launched functions and stack
 * frames that translate.c collects while recording, which symbols.c names when first added and
 * again at the end for what it could not name then.
 */
#ifndef GR_RECORD_ADDR_SET_H
#define GR_RECORD_ADDR_SET_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct gr_addr_set {
	struct gr_u64map seen; /* key(pid, addr) -> 1 */
	struct {
		uint32_t pid;
		uint64_t addr;
	} * items;
	size_t len, cap;
};

/* Add (@pid, @addr) unless present. Returns 1 when added, 0 when present, or -ENOMEM. */
int gr_addr_set_add(struct gr_addr_set *set, uint32_t pid, uint64_t addr);

/* Free the items; @set is empty again. */
void gr_addr_set_free(struct gr_addr_set *set);

#endif
