// SPDX-License-Identifier: GPL-2.0
/* The benchmark baseline: the cheapest possible uprobe, to divide gpurec's cost by. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("uprobe")
int empty_uprobe(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
