/* SPDX-License-Identifier: MIT */
/*
 * gpurec check: can this machine record? One screen: kernel features, privileges, CUDA
 * libraries found. Each failed line says what to do.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cmd.h"
#include "bpf/gpurec.skel.h"

static int line(int ok, const char *what, const char *detail)
{
	printf("  [%s] %-28s %s\n", ok ? " ok " : "FAIL", what, detail);
	return ok ? 0 : 1;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* Look for CUDA libraries where they usually are; recording finds them anywhere anyway. */
static int find_cuda(char *found, size_t size)
{
	static const char *const dirs[] = {"/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu",
					   "/usr/lib64", "/usr/local/cuda/lib64/stubs"};
	size_t len = 0;
	int n = 0;

	found[0] = 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		if (!d)
			continue;
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "libcudart.so", 12) &&
			    strncmp(e->d_name, "libcuda.so", 10))
				continue;
			n++;
			if (len + strlen(dirs[i]) + strlen(e->d_name) + 4 < size)
				len += snprintf(found + len, size - len, "%s%s/%s", len ? ", " : "",
						dirs[i], e->d_name);
		}
		closedir(d);
	}
	return n;
}

int cmd_check(int argc, char **argv)
{
	struct gpurec_bpf *skel = NULL;
	struct utsname uts;
	char cuda[1024], detail[256];
	int fails = 0, root = geteuid() == 0, n;

	uname(&uts);
	printf("gpurec check: kernel %s %s\n", uts.release, uts.machine);
	fails += line(!access("/sys/kernel/btf/vmlinux", R_OK), "kernel BTF",
		      access("/sys/kernel/btf/vmlinux", R_OK)
			  ? "missing /sys/kernel/btf/vmlinux: needs CONFIG_DEBUG_INFO_BTF=y"
			  : "/sys/kernel/btf/vmlinux");
	fails += line(!access("/sys/bus/event_source/devices/uprobe/type", R_OK), "uprobe PMU",
		      access("/sys/bus/event_source/devices/uprobe/type", R_OK)
			  ? "missing: needs CONFIG_UPROBE_EVENTS=y"
			  : "/sys/bus/event_source/devices/uprobe");
	fails += line(root, "privileges",
		      root ? "root" : "not root: run with sudo (needs CAP_BPF, CAP_PERFMON)");
	if (root) {
		libbpf_set_print(quiet);
		skel = gpurec_bpf__open_and_load();
		snprintf(detail, sizeof(detail), "%s",
			 skel ? "uprobes, tp_btf sched_switch/wakeup/fork/exec/exit, ring buffer"
			      : strerror(errno));
		fails += line(skel != NULL, "BPF programs load", detail);
		if (skel) {
			int err = gpurec_bpf__attach(skel);

			snprintf(detail, sizeof(detail), "%s",
				 err ? strerror(-err) : "tracepoints attach (no tracefs needed)");
			fails += line(!err, "tp_btf attach", detail);
		}
		gpurec_bpf__destroy(skel);
	}
	n = find_cuda(cuda, sizeof(cuda));
	/* not a failure: PyTorch wheels bring their own, found when they are mapped */
	line(1, "CUDA libraries", n ? cuda : "none in the usual places (found at run time anyway)");
	printf("%s\n", fails ? "gpurec cannot record here: fix the FAIL lines above"
			     : "gpurec can record on this machine");
	return fails ? 1 : 0;
}
