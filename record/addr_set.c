/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "addr_set.h"

int gr_addr_set_add(struct gr_addr_set *set, uint32_t pid, uint64_t addr)
{
	uint64_t key = gr_u64_key2(pid, addr);

	if (gr_u64map_get(&set->seen, key))
		return 0;
	if (set->len == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 256;
		void *n = realloc(set->items, cap * sizeof(*set->items));

		if (!n)
			return -ENOMEM;
		set->items = n;
		set->cap = cap;
	}
	set->items[set->len].pid = pid;
	set->items[set->len].addr = addr;
	set->len++;
	return gr_u64map_put(&set->seen, key, 1) ? -ENOMEM : 1;
}

void gr_addr_set_free(struct gr_addr_set *set)
{
	gr_u64map_free(&set->seen);
	free(set->items);
	*set = (struct gr_addr_set){0};
}
