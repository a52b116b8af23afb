/* SPDX-License-Identifier: MIT */
/*
 * Whether this kernel hands every scheduler event of a task to BPF. A child sleeps SLEEPS times
 * for MICROS each; tests/bench/sched_delivery.bpf.c counts its switch-outs, switch-ins and
 * wakeups on the tracepoints the recorder uses, and the kernel's own accounting says how many
 * there were: a switch-out for each voluntary or involuntary context switch
 * (/proc/PID/status), a switch-in for each switch-out (the child is asleep when counting starts
 * and when it ends), a wakeup for each voluntary switch. What BPF never saw, the recorder cannot
 * record either: the replay infers those switches (docs/REPORTS.md, section 4).
 *
 *   bench_sched_delivery [SLEEPS [MICROS]]     (default 20000 sleeps of 100 us)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "tests/bench/sched_delivery.skel.h"

/* The child: waits for the go byte, sleeps, then waits to be killed. */
static void sleeper(int go, long sleeps, long micros)
{
	struct timespec t = {micros / 1000000, micros % 1000000 * 1000};
	char c;

	if (read(go, &c, 1) != 1)
		_exit(1);
	for (long i = 0; i < sleeps; i++)
		nanosleep(&t, NULL);
	for (;;)
		pause();
}

/* Field @name of /proc/@pid/status, -1 when missing. */
static long status_field(pid_t pid, const char *name)
{
	char path[64], line[256];
	size_t len = strlen(name);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			v = atol(line + len + 1);
	if (f)
		fclose(f);
	return v;
}

/* Whether @pid is asleep in pause() after its sleeps: its state is S and it made them all. */
static int done_sleeping(pid_t pid, long voluntary_at_start, long sleeps)
{
	char path[64], buf[512], *end;
	ssize_t n = 0;
	FILE *f;

	/* each sleep is one voluntary switch, and so is pause(); the first read's wait is before */
	if (status_field(pid, "voluntary_ctxt_switches") < voluntary_at_start + sleeps + 1)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		n = (ssize_t)fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n > 0 ? n : 0] = 0;
	end = strrchr(buf, ')');
	return end && end[1] == ' ' && end[2] == 'S';
}

int main(int argc, char **argv)
{
	long sleeps = argc > 1 ? atol(argv[1]) : 20000, micros = argc > 2 ? atol(argv[2]) : 100;
	long vol0, invol0, vol, invol, outs;
	struct sched_delivery_bpf *skel;
	int go[2], status = 1;
	pid_t child;

	if (sleeps <= 0 || micros <= 0 || pipe(go)) {
		fprintf(stderr, "usage: bench_sched_delivery [SLEEPS [MICROS]]\n");
		return 2;
	}
	child = fork();
	if (child < 0)
		return 1;
	if (!child)
		sleeper(go[0], sleeps, micros);
	skel = sched_delivery_bpf__open();
	if (skel) {
		skel->rodata->target_tid = child;
		if (sched_delivery_bpf__load(skel) || sched_delivery_bpf__attach(skel)) {
			sched_delivery_bpf__destroy(skel);
			skel = NULL;
		}
	}
	if (!skel) {
		fprintf(stderr, "bench_sched_delivery: cannot load BPF: %s\n", strerror(errno));
		goto out;
	}
	/* the child waits in read(): nothing of it happens between here and the go byte */
	vol0 = status_field(child, "voluntary_ctxt_switches");
	invol0 = status_field(child, "nonvoluntary_ctxt_switches");
	if (write(go[1], "g", 1) != 1)
		goto out;
	while (!done_sleeping(child, vol0, sleeps))
		usleep(20000);
	vol = status_field(child, "voluntary_ctxt_switches") - vol0;
	invol = status_field(child, "nonvoluntary_ctxt_switches") - invol0;
	outs = vol + invol;
	printf("switch-outs %llu of %ld (the kernel's context switches of the task)\n",
	       (unsigned long long)skel->bss->switch_outs, outs);
	printf("switch-ins  %llu of %ld (one per switch-out)\n",
	       (unsigned long long)skel->bss->switch_ins, outs);
	printf("wakeups     %llu of %ld (one per voluntary switch)\n",
	       (unsigned long long)skel->bss->wakeups, vol);
	status = 0;
out:
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	sched_delivery_bpf__destroy(skel);
	return status;
}
