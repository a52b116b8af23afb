// SPDX-License-Identifier: GPL-2.0
/*
 * How many of one task's scheduler events the kernel hands to BPF
 * (tests/bench/bench_sched_delivery.c): its switch-outs, switch-ins and wakeups, counted on
 * the same tracepoints gpurec's recorder uses, and nothing else.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

const volatile __s32 target_tid;
__u64 switch_outs, switch_ins, wakeups;

SEC("tp_btf/sched_switch")
int BPF_PROG(count_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	if (prev->pid == target_tid)
		__sync_fetch_and_add(&switch_outs, 1);
	if (next->pid == target_tid)
		__sync_fetch_and_add(&switch_ins, 1);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(count_wakeup, struct task_struct *p)
{
	if (p->pid == target_tid)
		__sync_fetch_and_add(&wakeups, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
