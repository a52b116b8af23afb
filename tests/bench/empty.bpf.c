// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark baselines. empty_uprobe: the cheapest possible uprobe, to divide gpurec's cost
 * by. floor_uprobe: the least any recorder of cudaLaunchKernel must do on top of it: read the
 * stack arguments (shared memory and stream lie at [sp+8] and [sp+16]) and take the time and the
 * CPU. Its ratio is the floor under gpurec's no-stack figure on this kernel and machine.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 floor_sink;

SEC("uprobe")
int empty_uprobe(void *ctx)
{
	return 0;
}

SEC("uprobe")
int floor_uprobe(struct pt_regs *ctx)
{
	/* 32 bytes, a stack under 64: the read lands on the task's kernel stack, the cheap case */
	__u64 top[4];

	if (bpf_probe_read_user(top, sizeof(top), (void *)PT_REGS_SP(ctx)))
		return 0;
	floor_sink = top[1] ^ top[2] ^ bpf_ktime_get_ns() ^ bpf_get_smp_processor_id();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
