// SPDX-License-Identifier: GPL-2.0
/*
 * Which signals reach the traced command by themselves. The recorder forwards a signal it gets
 * only when the command did not get the same one from the same sender: a kill of the process
 * group reaches both, and coreutils timeout kills us and then the group. A separate object from
 * gpurec.bpf.c: it stays loaded while the recorder waits for a command that outlives the
 * recording (-d), when every probe is long gone.
 *
 * signal_generate runs for every signal of the machine, which is rare next to syscalls; anyone
 * else's costs one compare.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "gpurec.h"

const volatile __u32 targ_recorder_pid = 0;

__u32 command_tgid; /* set by the recorder once the command is forked */
struct gr_signal_seen command_signals[GR_NSIG];

SEC("tp_btf/signal_generate")
int BPF_PROG(on_signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	__u32 sender = bpf_get_current_pid_tgid() >> 32;
	__u32 n = sig;

	if (!command_tgid || task->tgid != command_tgid || sender == targ_recorder_pid)
		return 0;
	asm volatile("" : "+r"(n));
	if (n >= GR_NSIG)
		return 0;
	command_signals[n].sender = sender;
	/* ts last: stores stay in order on x86, and clang 14's BPF has no atomic store */
	asm volatile("" ::: "memory");
	command_signals[n].ts = bpf_ktime_get_ns();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
