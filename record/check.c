/* SPDX-License-Identifier: MIT */
/*
 * gpurec check: can this machine record? One screen: kernel features, privileges, CUDA
 * libraries found. Each failed line says what to do.
 */
#include <dirent.h>
#include <getopt.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "analyze/util/options.h"
#include "cmd.h"
#include "bpf/gpurec.skel.h"
#include "attach.h"
#include "driver.h"
#include "mmap_hook.h"
#include "privilege.h"

static int line(int ok, const char *what, const char *detail)
{
	printf("  [%s] %-28s %s\n", ok ? " ok " : "FAIL", what, detail);
	return ok ? 0 : 1;
}

/* Something recording does not need but the traced programs do: said, never a failure. */
static void warn_line(const char *what, const char *detail)
{
	printf("  [warn] %-28s %s\n", what, detail);
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

/* Can CUDA programs reach a GPU here? Returns 1 when they can; prints one line either way. */
static int check_driver(void)
{
	char detail[640];

	if (gr_driver_probe(NULL, detail, sizeof(detail))) {
		line(1, "CUDA driver", detail);
		return 1;
	}
	warn_line("CUDA driver", detail);
	printf("  no CUDA driver: programs will run but every CUDA call will fail; "
	       "gpurec still records their calls\n");
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gpurec check\n"
		   "  Can this machine record? Kernel BTF, the uprobe PMU, privileges, that the\n"
		   "  BPF programs load and attach, launch sampling, the CUDA libraries and a\n"
		   "  CUDA driver; each line that fails says what to do. Exit status 0 when\n"
		   "  this machine can record (warnings or not), 1 when it cannot.\n"
		   "  -h, --help  this text\n");
}

/* No option but --help, and no argument: 0 to run the checks, else the exit status. */
static int parse_opts(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;

	gr_opt_begin();
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return -1;
		}
		gr_opt_error("check", c, argv);
		usage(stderr);
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "gpurec check: takes no argument ('%s')\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct gpurec_bpf *skel = NULL;
	struct utsname uts;
	char cuda[1024], detail[256];
	char missing[64];
	int fails = 0, n, driver, sessions = 0, privileged, opt = parse_opts(argc, argv);

	if (opt)
		return opt < 0 ? 0 : opt;
	privileged = gr_privilege_check(missing, sizeof(missing)) == 0;
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
	if (!privileged)
		snprintf(detail, sizeof(detail),
			 "missing %s: run with sudo, or sudo setcap " GR_SETCAP_CAPS " on gpurec",
			 missing);
	else
		snprintf(detail, sizeof(detail), "%s",
			 geteuid() == 0 ? "root" : "CAP_BPF, CAP_PERFMON (file capabilities)");
	fails += line(privileged, "privileges", detail);
	if (privileged) {
		libbpf_set_print(quiet);
		skel = gpurec_bpf__open();
		if (skel) {
			const char *why;

			/* as record loads it: launch sampling where the kernel has it, one
			 * hook for new mappings (mmap_hook.h) */
			sessions = gr_attach_sessions_setup(skel, 1);
			if (gr_mmap_hook_choose(skel, GR_MMAP_ASK_AUTO, &why) == GR_MMAP_HOOK_FEXIT)
				line(1, "new mappings", "fexit ksys_mmap_pgoff");
			else
				warn_line(
				    "new mappings",
				    "the dynamic loader's debug hook (fexit refused here): "
				    "code mapped without the loader needs --mmap-hook=sys_exit");
			if (gpurec_bpf__load(skel)) {
				gpurec_bpf__destroy(skel);
				skel = NULL;
			}
		}
		snprintf(detail, sizeof(detail), "%s",
			 skel ? "uprobes, tp_btf sched_switch/wakeup/fork/exec/exit, ring buffer"
			      : strerror(errno));
		fails += line(skel != NULL, "BPF programs load", detail);
		if (skel && sessions)
			line(1, "launch sampling",
			     "uprobe sessions: 1 launch in 64 per thread timed");
		else if (skel)
			warn_line("launch sampling",
				  "no uprobe sessions (Linux 6.12+): launches untimed, the launch "
				  "cost estimated, unless --launch-time");
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
	/* a warning, not a failure: recording works, and records what the calls were asked */
	driver = check_driver();
	printf("%s\n", fails	? "gpurec cannot record here: fix the FAIL lines above"
		       : driver ? "gpurec can record on this machine"
				: "gpurec can record on this machine (CUDA calls fail: no driver)");
	return fails ? 1 : 0;
}
