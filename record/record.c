/* SPDX-License-Identifier: MIT */
/*
 * gpurec record: load the BPF side, start (or attach to) the traced processes, drain the ring
 * buffer into the trace writer on a timer (names, symbols and mappings are written as they are
 * learned), and at the end add what is still missing and the closing facts.
 *
 * cmd_record() is parse_opts(), checks, then setup(), run() and finish(). This file owns the
 * session (struct session) and hands each module only its part: discovery the process table
 * (discover.h), probing the BPF object's programs (attach.h), translation its own state
 * (translate.h), the end of the recording what translation collected (symbols.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "analyze/util/options.h"
#include "analyze/util/progress.h"
#include "analyze/util/text.h"
#include "attach.h"
#include "cfi.h"
#include "bpf/gpurec.h"
#include "bpf/gpurec.skel.h"
#include "calibrate.h"
#include "child.h"
#include "clock.h"
#include "cmd.h"
#include "cupti.h"
#include "nvtx_env.h"
#include "nvtx_probe.h"
#include "discover.h"
#include "format/events.h"
#include "forward.h"
#include "identity.h"
#include "mmap_hook.h"
#include "output.h"
#include "output_name.h"
#include "privilege.h"
#include "record/python/python.h"
#include "ringbuf.h"
#include "symbols.h"
#include "translate.h"
#include "unwind.h"
#include "watchdog.h"

#define DRAIN_MS 20
/* While no event comes the drain sleeps longer, up to this: out of the traced threads' way.
 * The command's exit (a pidfd), a process held, a filling ring buffer wake it at once. */
#define QUIET_DRAIN_MS 200
/*
 * --call-graph dwarf, when the recorder falls behind: past 5/8 of the ring it stops unwinding
 * (the costly part of draining a raw stack), and should the ring still fill, past 3/4 the BPF
 * side leaves the stack bytes out of the events. Both keep events and lose stacks, counted.
 * A burst that fits 5/8 of the ring (~1250 events of 8 KiB in 16 MiB) keeps every stack; the
 * last quarter holds ~16k events without stacks (~250 B) for a recorder starved of CPU.
 */
#define UNWIND_FILL_EIGHTHS 5
#define SHED_FILL_EIGHTHS   6
/* Events wait at most this long in memory before they are in the file: what a kill can lose. */
#define FLUSH_AGE_NS 1000000000ull

struct record_opts {
	const char *output;
	char *pids; /* -p list */
	double duration;
	int stacks;
	int python;	      /* Python frames with the stacks (--no-python: 0) */
	unsigned dwarf_bytes; /* --call-graph dwarf: stack bytes per event; 0 = walked in BPF */
	int cfi;	      /* --call-graph cfi (the default): walked by unwind tables */
	int launch_time;
	int cupti; /* --cupti: GPU activity from CUPTI, injected into the command */
	int nvtx;  /* the command's NVTX calls, through our NVTX tool (--no-nvtx: 0) */
	int sched;
	int verbose;
	int quiet; /* -q: no progress line at the end */
	unsigned ringbuf_mb;
	enum gr_mmap_hook_ask mmap_hook; /* --mmap-hook */
	char **argv;			 /* the command */
	int argc;
};

/* Why the recording stopped: the value of the STOP session fact (format/events.h). */
enum stop_reason {
	STOP_EXIT = 0,	   /* the command, or every -p process, exited */
	STOP_SIGNAL = 1,   /* SIGINT, SIGTERM or SIGHUP ended a -p recording */
	STOP_DURATION = 2, /* -d SECS passed */
};

/* One recording, from setup() to the end of cmd_record(). */
struct session {
	struct record_opts o;
	struct gr_identity id; /* the invoking user (see identity.h) */
	char exe[4096];	       /* the command, resolved as that user */

	struct gpurec_bpf *skel;
	struct gr_watchdog wd;
	struct gr_ringbuf *rb;
	struct gr_unwind *unwind; /* --call-graph dwarf: raw stacks are unwound; else NULL */
	struct gr_attach attach;
	struct gr_procs procs;
	struct gr_cfi cfi;	   /* --call-graph cfi: the unwind tables (cfi.h) */
	struct gr_procs own_procs; /* the recorder's own mappings, for calibrate() */
	struct gr_python py;
	struct gr_translate tr;
	struct gr_trace_writer *w;
	struct gr_cupti cupti;	     /* --cupti's channel (cupti.h) */
	struct gr_nvtx_probe nvtx;   /* the probe on our NVTX library's tap (nvtx_probe.h) */
	struct gr_nvtx_env nvtx_env; /* the NVTX tool's variables (nvtx_env.h) */
	char *env[6];		     /* the command's added variables: cupti's and nvtx's */
	struct gr_calibration cal;   /* what our probes cost here */
	int calibrated;		     /* cal holds a measurement */
	int size_fd;		     /* the trace file, for its size in the closing line */
	char tmp[PATH_MAX];	     /* where the trace is written until the command runs */
	int committed;		     /* the trace is at o.output (or stays at tmp: said) */
	uint64_t last_drain_ns;
	int64_t drained; /* records the last drain took */
	int polled;	 /* the end of the recording is noticed by polling, not a pidfd */
	int err;	 /* first fatal error of the loop */

	/* which program sees new mappings (mmap_hook.h), and why not fexit */
	enum gr_mmap_hook mmap_hook;
	const char *mmap_hook_why;

	struct gr_forward *fwd;
	struct gr_child child;
	int status, child_done; /* the command's wait status, once reaped */
	int not_run;		/* the command could not be started: ret says why */
	enum stop_reason stop_reason;
	int ret; /* exit status of cmd_record() */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpurec record [options] -- COMMAND [ARGS...]\n"
		"       gpurec record [options] -p PID[,PID...]\n\n"
		"  -o, --output FILE     trace file (default gpurec.trc; an old one becomes .old\n"
		"                        once the command runs); %%h, %%r, %%p in FILE become\n"
		"                        the short host name, the launcher's rank (RANK,\n"
		"                        OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID) and\n"
		"                        the recorder's pid; %%%% is a '%%'\n"
		"  -p, --pid PIDS        attach to running processes (and their new children)\n"
		"  -d, --duration SECS   stop recording after SECS seconds\n"
		"      --call-graph MODE user stacks at launches, copies and syncs:\n"
		"                        cfi (default): walk by unwind tables built from\n"
		"                        each binary's .eh_frame, frame pointers where a\n"
		"                        binary has none: code with or without frame pointers\n"
		"                        fp: walk frame pointers only\n"
		"                        dwarf[,SIZE]: copy the registers and SIZE bytes of\n"
		"                        stack (default %u; a multiple of 8, 64..%u) per\n"
		"                        event, unwound with DWARF CFI while recording: for\n"
		"                        code built without frame pointers. Costs SIZE bytes\n"
		"                        per event in the ring buffer; the trace keeps each\n"
		"                        copy (RAWSTACK records) up to the last byte the\n"
		"                        unwinder read, often 0.5-5 KiB before compression\n"
		"                        none: no stacks (and no Python frames)\n"
		"      --no-python       no Python frames: by default, the stack of an event\n"
		"                        of a CPython process (3.10+) holds the Python frames\n"
		"                        of its thread, file:line function, in place of the\n"
		"                        interpreter's own frames\n"
		"      --launch-time     also time every launch call (return probes: ~2x cost)\n"
		"      --cupti           also record what the GPU ran (kernels, copies, memsets:\n"
		"                        GPU start and duration) with CUPTI, injected into the\n"
		"                        command through the CUDA driver; costs the program\n"
		"                        CUPTI's overhead. Needs a driver and a command (not -p)\n"
		"      --no-nvtx         do not record the command's NVTX ranges, marks and names\n"
		"                        (by default record gives the command its NVTX tool\n"
		"                        through NVTX_INJECTION64_PATH; a tool already named\n"
		"                        there still runs, after ours)\n"
		"      --no-sched        no scheduler events\n"
		"      --ringbuf-mb N    BPF ring buffer size in MiB (default 16)\n"
		"      --mmap-hook MODE  how libraries loaded late are seen: auto (default):\n"
		"                        fexit on mmap where the kernel allows it, else the\n"
		"                        dynamic loader's debug hook; ldso: that hook;\n"
		"                        sys_exit: a program at every system call of the\n"
		"                        machine, for code mapped without the loader\n"
		"  -v, --verbose         say which libraries are probed; at the end, the\n"
		"                        recorder's cost, the verifier's work on each BPF\n"
		"                        program and (kernel.bpf_stats_enabled=1) its time\n"
		"                        per run\n"
		"  -q, --quiet           no progress line on a terminal while the trace is\n"
		"                        finished after the command's end\n"
		"  -h, --help            this text\n"
		"Exit status: the command's; 126 or 127 when it cannot be started (as a shell),\n"
		"and then the trace at -o and its .old are left as they were.\n",
		GR_DWARF_DEFAULT, GR_DWARF_MAX);
}

/* "dwarf" or "dwarf,SIZE": 0 and the size, or -1 with the reason printed. */
static int parse_dwarf(const char *arg, unsigned *bytes)
{
	const char *size = arg + strlen("dwarf");
	unsigned long n = GR_DWARF_DEFAULT;
	char *end;

	if (*size == ',') {
		errno = 0;
		n = strtoul(size + 1, &end, 10);
		if (!isdigit((unsigned char)size[1]) || *end || errno || n < 64 ||
		    n > GR_DWARF_MAX || n % 8) {
			fprintf(stderr,
				"gpurec record: --call-graph dwarf,SIZE: SIZE is the stack bytes "
				"to copy per event, a multiple of 8 from 64 to %u, not '%s'\n",
				GR_DWARF_MAX, size + 1);
			return -1;
		}
	} else if (*size) {
		return 1;
	}
	*bytes = n;
	return 0;
}

/* --call-graph MODE: 0, or -1 with the reason printed. */
static int parse_call_graph(const char *arg, struct record_opts *o)
{
	int dwarf;

	o->dwarf_bytes = 0;
	o->cfi = 0;
	if (!strcmp(arg, "none")) {
		o->stacks = 0;
	} else if (!strcmp(arg, "fp") || !strcmp(arg, "cfi")) {
		o->stacks = 1;
		o->cfi = !strcmp(arg, "cfi");
	} else if (!strncmp(arg, "dwarf", 5) && (dwarf = parse_dwarf(arg, &o->dwarf_bytes)) <= 0) {
		if (dwarf < 0)
			return -1;
		o->stacks = 1;
	} else {
		fprintf(stderr,
			"gpurec record: --call-graph '%s' is not supported: "
			"use cfi, fp, dwarf[,SIZE] or none\n",
			arg);
		return -1;
	}
	return 0;
}

/* -o's pattern (output_name.h) made the path, before anything is created or run. */
static int expand_output(struct record_opts *o)
{
	static char path[PATH_MAX];
	char host[256] = "", why[128];

	if (gethostname(host, sizeof(host) - 1))
		host[0] = 0;
	if (gr_output_name_expand(o->output, host, gr_output_name_rank(), (long)getpid(), path,
				  sizeof(path), why)) {
		fprintf(stderr, "gpurec record: -o '%s': %s\n", GR_TEXT(o->output), why);
		return -1;
	}
	o->output = path;
	return 0;
}

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"pid", required_argument, NULL, 'p'},
	    {"duration", required_argument, NULL, 'd'},
	    {"call-graph", required_argument, NULL, 'g'},
	    {"launch-time", no_argument, NULL, 'L'},
	    {"cupti", no_argument, NULL, 'C'},
	    {"no-nvtx", no_argument, NULL, 'N'},
	    {"no-sched", no_argument, NULL, 'S'},
	    {"no-python", no_argument, NULL, 'P'},
	    {"ringbuf-mb", required_argument, NULL, 'R'},
	    {"mmap-hook", required_argument, NULL, 'M'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	char *end;
	int c;

	*o = (struct record_opts){.output = "gpurec.trc",
				  .stacks = 1,
				  .cfi = 1,
				  .python = 1,
				  .nvtx = 1,
				  .sched = 1,
				  .ringbuf_mb = 16};
	gr_opt_begin();
	while ((c = getopt_long(argc, argv, "+:o:p:d:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			o->pids = optarg;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || o->duration <= 0) {
				fprintf(stderr, "gpurec record: -d wants seconds > 0, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'g':
			if (parse_call_graph(optarg, o))
				return -1;
			break;
		case 'L':
			o->launch_time = 1;
			break;
		case 'C':
			o->cupti = 1;
			break;
		case 'N':
			o->nvtx = 0;
			break;
		case 'S':
			o->sched = 0;
			break;
		case 'P':
			o->python = 0;
			break;
		case 'R':
			o->ringbuf_mb = strtoul(optarg, &end, 10);
			if (*end || !o->ringbuf_mb || o->ringbuf_mb > 4096 ||
			    (o->ringbuf_mb & (o->ringbuf_mb - 1))) {
				fprintf(stderr,
					"gpurec record: --ringbuf-mb wants a power of two\n");
				return -1;
			}
			break;
		case 'M':
			if (gr_mmap_hook_parse(optarg, &o->mmap_hook)) {
				fprintf(stderr,
					"gpurec record: --mmap-hook '%s': use auto, ldso or "
					"sys_exit\n",
					optarg);
				return -1;
			}
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			gr_opt_error("record", c, argv);
			usage(stderr);
			return -1;
		}
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	if (!o->argc == !o->pids) {
		fprintf(stderr, "gpurec record: give a command after -- or -p PID, not %s\n",
			o->argc ? "both" : "neither");
		usage(stderr);
		return -1;
	}
	if (strchr(o->output, '%') && expand_output(o))
		return -1;
	if (o->cupti && o->pids) {
		fprintf(stderr,
			"gpurec record: --cupti needs a command: the CUDA driver loads "
			"CUPTI only into a process that starts with it, not into -p ones\n");
		return -1;
	}
	return 0;
}

/* Environment worth keeping with a recording: how CUDA was configured, nothing personal. */
static char *collect_env(void)
{
	static const char *const prefixes[] = {
	    "CUDA_", "NCCL_", "PYTORCH_", "TORCH_", "OMP_NUM_THREADS=", "CUBLAS_", "TRITON_"};
	extern char **environ;
	size_t len = 0, cap = 1;
	char *buf;

	for (char **e = environ; *e; e++)
		cap += strlen(*e) + 1;
	buf = calloc(1, cap);
	if (!buf)
		return NULL;
	for (char **e = environ; *e; e++)
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			if (!strncmp(*e, prefixes[i], strlen(prefixes[i]))) {
				len += sprintf(buf + len, "%s\n", *e);
				break;
			}
	return buf;
}

static char *join_args(int argc, char *const *argv)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static int check_privileges(void)
{
	char missing[64], self[4096] = "gpurec";
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int err;

	if (n > 0)
		self[n] = 0;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr,
			"gpurec record: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"gpurec needs CONFIG_DEBUG_INFO_BTF=y (kernel 5.8+ built with BTF)\n");
		return -1;
	}
	err = gr_privilege_check(missing, sizeof(missing));
	if (err == -EPERM) {
		fprintf(stderr,
			"gpurec record: not enough privilege to load BPF programs: missing %s; run "
			"it as root (sudo gpurec record ...) or give this binary the capabilities "
			"(sudo setcap " GR_SETCAP_CAPS " %s)\n",
			missing, self);
		return -1;
	}
	if (err) {
		fprintf(stderr, "gpurec record: cannot read this process's capabilities: %s\n",
			strerror(-err));
		return -1;
	}
	return 0;
}

/* GPUREC_TEST_DRAIN_MS: drain only this often and never on a fill threshold (tests only). */
static int test_drain_ms(void)
{
	const char *v = getenv("GPUREC_TEST_DRAIN_MS");

	return v ? atoi(v) : 0;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN && getenv("GPUREC_DEBUG") ? vfprintf(stderr, fmt, ap) : 0;
}

/* --call-graph dwarf: the unwinder, and descriptors enough for what it holds. */
static int setup_unwind(struct session *s)
{
	struct rlimit nofile;
	int err = gr_unwind_new(&s->unwind);

	if (err)
		return err;
	/* each unwinding session holds a descriptor per file of its process */
	if (!getrlimit(RLIMIT_NOFILE, &nofile) && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	return 0;
}

/* Library discovery's hook: a fallback is said in the trace and at the end (report_summary). */
static void choose_mmap_hook(struct session *s, struct gpurec_bpf *skel)
{
	s->mmap_hook = gr_mmap_hook_choose(skel, s->o.mmap_hook, &s->mmap_hook_why);
	/* discovery probes each loader it finds (attach.h) */
	s->attach.ldso_hook = s->mmap_hook == GR_MMAP_HOOK_LDSO;
}

/* NVTX is recorded when our library's tap can be probed; else the recording goes on without it. */
static void probe_nvtx(struct session *s)
{
	char why[PATH_MAX + 128];

	if (gr_nvtx_probe_attach(&s->nvtx, s->skel, why, sizeof(why)))
		fprintf(stderr, "gpurec record: NVTX: %s: NVTX ranges will not be recorded\n", why);
}

static int load_bpf(struct session *s)
{
	const struct record_opts *o = &s->o;
	const struct gr_probe_opts popts = {.stacks = o->stacks, .launch_time = o->launch_time};
	struct gpurec_bpf *skel;
	int err;

	skel = gpurec_bpf__open();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "gpurec record: cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	gr_attach_init(&s->attach, skel, &popts, o->verbose);
	gr_nvtx_probe_prepare(&s->nvtx, skel);
	choose_mmap_hook(s, skel);
	skel->rodata->targ_recorder_pid = getpid();
	skel->rodata->targ_stack_frames = o->stacks ? GR_MAX_FRAMES : 0;
	skel->rodata->targ_dwarf_bytes = o->stacks ? o->dwarf_bytes : 0;
	/* past 3/4 full, raw stacks are left out and the events kept (SHED_FILL_EIGHTHS) */
	if (o->stacks && o->dwarf_bytes)
		skel->rodata->targ_shed_bytes = ((uint64_t)o->ringbuf_mb << 17) * SHED_FILL_EIGHTHS;
	skel->rodata->targ_sched = o->sched;
	skel->rodata->targ_python = o->stacks && o->python;
	skel->rodata->targ_cfi = o->stacks && o->cfi;
	/* no tables: they cost no memory (one entry, never read) */
	if (!(o->stacks && o->cfi)) {
		bpf_map__set_max_entries(skel->maps.cfi_rows, 1);
		bpf_map__set_max_entries(skel->maps.cfi_buckets, 1);
	}
	skel->rodata->targ_wakeup_bytes = (uint64_t)o->ringbuf_mb << 18; /* a quarter full */
	/* test hook: a consumer that falls behind, so losses can be checked exactly */
	if (test_drain_ms())
		skel->rodata->targ_wakeup_bytes = (uint64_t)o->ringbuf_mb << 20;
	bpf_map__set_max_entries(skel->maps.events, o->ringbuf_mb << 20);
	/* run once, at the stop (sweep_in_flight()), not attached with the tracepoints */
	bpf_program__set_autoattach(skel->progs.in_flight_at_stop, false);
	err = gpurec_bpf__load(skel);
	if (err) {
		fprintf(stderr,
			"gpurec record: the kernel refused the BPF programs (%s): it needs BTF, "
			"uprobes and tp_btf (Linux 5.17+); run 'gpurec check' for details\n",
			strerror(-err));
		gpurec_bpf__destroy(skel);
		return err;
	}
	err = gpurec_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "gpurec record: cannot attach the tracepoints: %s\n",
			strerror(-err));
		gpurec_bpf__destroy(skel);
		return err;
	}
	s->skel = skel;
	/* the library is given to a command only: -p processes were started without it */
	if (s->nvtx_env.active)
		probe_nvtx(s);
	gr_python_init(&s->py, o->stacks && o->python ? bpf_map__fd(skel->maps.py_procs) : -1);
	return 0;
}

/*
 * The kernel's id of @map: the ring buffer's tells the watchdog when no program of ours can run
 * any more (every program that holds a process reports the hold through it).
 */
static int map_id(const struct bpf_map *map, uint32_t *id)
{
	struct bpf_map_info info = {0};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_map__fd(map), &info, &len))
		return -errno;
	*id = info.id;
	return 0;
}

static int start_watchdog(struct session *s)
{
	uint32_t events_id = 0;
	int err = map_id(s->skel->maps.events, &events_id);

	if (!err)
		err = gr_watchdog_start(&s->wd, (const uint64_t *)s->skel->bss->traced_bits,
					sizeof(s->skel->bss->traced_bits) / sizeof(uint64_t),
					events_id);
	if (err)
		fprintf(stderr, "gpurec record: cannot start the watchdog: %s\n", strerror(-err));
	return err;
}

/* Create the output as the invoking user and write the header; say why not. */
static int open_trace(struct session *s)
{
	const struct record_opts *o = &s->o;
	struct gr_trace_header hdr = {0};
	struct utsname uts;
	int fd, err;

	fd = gr_output_create(&s->id, o->output, s->tmp, sizeof(s->tmp));
	if (fd < 0) {
		fprintf(stderr, "gpurec record: cannot create %s: %s\n", o->output,
			gr_output_strerror(fd));
		return fd;
	}
	s->size_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	uname(&uts);
	hdr.host = uts.nodename;
	hdr.kernel = uts.release;
	hdr.tool_version = GPUREC_VERSION;
	hdr.cmdline = o->argc ? join_args(o->argc, o->argv) : join_args(1, &o->pids);
	hdr.env = collect_env();
	if (getrandom(hdr.session_id, sizeof(hdr.session_id), 0) != sizeof(hdr.session_id))
		memset(hdr.session_id, 0, sizeof(hdr.session_id));
	hdr.clock_monotonic_ns = gr_clock_ns(CLOCK_MONOTONIC);
	hdr.clock_realtime_ns = gr_clock_ns(CLOCK_REALTIME);
	err = gr_trace_writer_open(&s->w, fd, &hdr, gr_events_schema(), NULL);
	free((char *)hdr.cmdline);
	free((char *)hdr.env);
	if (err) {
		fprintf(stderr, "gpurec record: cannot write %s: %s\n", o->output,
			gr_strerror(err));
		close(fd);
	}
	return err;
}

/* The stack mode as the CALL_GRAPH session fact says it. */
static void call_graph_name(const struct record_opts *o, char *buf, size_t size)
{
	if (o->stacks && o->dwarf_bytes)
		snprintf(buf, size, "dwarf,%u", o->dwarf_bytes);
	else
		snprintf(buf, size, "%s", !o->stacks ? "none" : o->cfi ? "cfi" : "fp");
}

/*
 * Measure what our probes cost on this machine, before anything is traced (calibrate.h). A
 * failure only costs the compensation, which the trace then lacks: said, not fatal.
 */
static void calibrate(struct session *s)
{
	uint32_t self = getpid();
	int err;

	/*
	 * Default stacks: walked by our own unwind tables meanwhile, so the cost measured is the
	 * walk the traced program's calls take (own_procs: not the traced processes' table)
	 */
	if (s->procs.cfi) {
		s->own_procs.cfi = s->procs.cfi;
		gr_discover_scan(&s->own_procs, self);
	}
	err =
	    gr_calibrate(s->skel, s->rb, s->attach.multi, s->attach.sessions, s->o.stacks, &s->cal);
	if (s->procs.cfi)
		bpf_map_delete_elem(bpf_map__fd(s->skel->maps.cfi_procs), &self);
	s->calibrated = !err;
	if (err)
		fprintf(stderr,
			"gpurec record: cannot measure the probes' own cost (%s): reports will "
			"not compensate for it\n",
			strerror(-err));
}

static int write_session(struct session *s, unsigned key, uint64_t value, const char *text);

/* The calibration as SESSION facts, at the start of the trace. */
static void write_calibration(struct session *s)
{
	const uint64_t v[] = {s->cal.entry_pre, s->cal.entry_post, s->cal.call_pre, s->cal.call_in,
			      s->cal.call_post};
	char mode[32];

	if (!s->calibrated)
		return;
	call_graph_name(&s->o, mode, sizeof(mode));
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		write_session(s, GR_SESS_PROBE_ENTRY_PRE + i, v[i], mode);
}

/* Which launches were timed (GR_SESS_LAUNCH_SAMPLE), for the report's launch cost. */
static void write_launch_sample(struct session *s)
{
	const struct gr_attach *a = &s->attach;

	if (s->o.launch_time)
		write_session(s, GR_SESS_LAUNCH_SAMPLE, 1, "all");
	else if (!a->sessions)
		write_session(s, GR_SESS_LAUNCH_SAMPLE, 0, "no uprobe sessions");
	else if (a->session_failed)
		write_session(s, GR_SESS_LAUNCH_SAMPLE, 0, "session attach failed");
	else
		write_session(s, GR_SESS_LAUNCH_SAMPLE, a->popts.launch_sample, "sampled");
}

/*
 * A stop signal (@sig, 0: none) before the command started: nothing ran, and nothing was created,
 * so the previous trace at the output path stays as it was. Exit as the signal says, like a
 * shell's 128 + N. Returns 0, or -EINTR with the reason printed and s->ret set.
 */
static int interrupted(struct session *s, int sig)
{
	if (!sig)
		return 0;
	if (s->o.pids)
		fprintf(stderr,
			"gpurec record: interrupted by %s before tracing started; no trace "
			"written\n",
			gr_forward_signal_name(sig));
	else
		fprintf(stderr,
			"gpurec record: interrupted by %s before the command started; nothing was "
			"run, no trace written\n",
			gr_forward_signal_name(sig));
	s->ret = 128 + sig;
	return -EINTR;
}

/*
 * Everything recording needs before anything is traced: the unwinder, the BPF side and its
 * watchdog, the ring buffer, the probe cost, the trace file. Returns 0, or a negative error with
 * the reason printed (none for the unwinder, which can only run out of memory).
 */
static int setup(struct session *s)
{
	int err = 0;

	libbpf_set_print(libbpf_quiet);
	setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){RLIM_INFINITY, RLIM_INFINITY});
	if (s->o.stacks && s->o.dwarf_bytes)
		err = setup_unwind(s);
	if (!err)
		err = load_bpf(s);
	if (!err)
		err = start_watchdog(s);
	if (!err) {
		err = gr_ringbuf_open(&s->rb, bpf_map__fd(s->skel->maps.events));
		if (err)
			fprintf(stderr, "gpurec record: cannot map the ring buffer: %s\n",
				strerror(-err));
	}
	if (!err && s->o.stacks && s->o.cfi) {
		gr_cfi_init(&s->cfi, bpf_map__fd(s->skel->maps.cfi_rows), GR_CFI_MAX_ROWS,
			    bpf_map__fd(s->skel->maps.cfi_buckets), GR_CFI_MAX_BUCKETS,
			    bpf_map__fd(s->skel->maps.cfi_procs));
		s->cfi.verbose = s->o.verbose;
		s->procs.cfi = &s->cfi;
	}
	if (!err)
		calibrate(s);
	/* a stop signal from here on waits for the command to run (gr_forward_hold()) */
	if (!err)
		err = interrupted(s, gr_forward_hold());
	if (!err)
		err = open_trace(s);
	if (err)
		return err;
	write_calibration(s);
	write_session(s, GR_SESS_MMAP_HOOK, s->mmap_hook, gr_mmap_hook_name(s->mmap_hook));
	s->procs.attach = &s->attach;
	gr_translate_init(&s->tr, s->w, &s->procs, s->unwind, bpf_map__fd(s->skel->maps.counters));
	s->tr.py = &s->py;
	gr_holds_init(&s->tr.holds, bpf_map__fd(s->skel->maps.holds));
	if (s->unwind)
		gr_translate_unwind_limit(&s->tr, s->rb,
					  gr_ringbuf_size(s->rb) / 8 * UNWIND_FILL_EIGHTHS);
	s->last_drain_ns = gr_clock_ns(CLOCK_MONOTONIC);
	return 0;
}

/* Set the pid's bit in the BPF side's traced set (its .bss is mapped into our memory). */
static int trace_pid(struct session *s, uint32_t pid)
{
	if (pid / 64 >= sizeof(s->skel->bss->traced_bits) / 8)
		return -ERANGE;
	__atomic_fetch_or(&s->skel->bss->traced_bits[pid / 64], 1ull << (pid % 64),
			  __ATOMIC_SEQ_CST);
	return 0;
}

static int drain(struct session *s, int timeout_ms)
{
	int err = gr_ringbuf_wait(s->rb, timeout_ms);
	uint64_t oldest;

	if (err)
		return err;
	/* events written without a wakeup are consumed on this timer */
	s->drained = gr_ringbuf_consume(s->rb, gr_translate_event, &s->tr);
	if (s->tr.err && !s->err)
		s->err = s->tr.err;
	if ((err = gr_cupti_drain(&s->cupti, s->w)) && !s->err)
		s->err = err;
	gr_translate_losses(&s->tr, s->last_drain_ns, gr_clock_ns(CLOCK_MONOTONIC));
	s->last_drain_ns = gr_clock_ns(CLOCK_MONOTONIC);
	/* a chunk in the file survives a kill; one still pending here does not */
	if (gr_trace_writer_pending(s->w, &oldest) && s->last_drain_ns - oldest >= FLUSH_AGE_NS &&
	    (err = gr_trace_writer_flush(s->w)) && !s->err)
		s->err = err;
	return 0;
}

static int write_session(struct session *s, unsigned key, uint64_t value, const char *text)
{
	uint64_t v[GR_SESS_NCOLS] = {gr_clock_ns(CLOCK_MONOTONIC), key, value, 0};
	struct gr_bytes b = {(const uint8_t *)text, (uint32_t)strlen(text)};

	return gr_trace_writer_append(s->w, GR_K_SESSION, v, &b);
}

/*
 * The -p list, checked before anything is created: every entry a live process that the invoking
 * user could debug (under sudo, or with file capabilities, only the user's own: their calls and
 * stacks go into the user's file). Returns 0, or -1 with the reason printed.
 */
static int check_pids(const struct gr_identity *id, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int ret = copy ? 0 : -1;

	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long pid = strtol(tok, &end, 10);
		int err;

		/* EPERM: it exists, and may_trace says why it is not the user's to trace */
		if (*end || pid <= 0 || pid > INT32_MAX || (kill(pid, 0) && errno == ESRCH)) {
			fprintf(stderr, "gpurec record: no process %s\n", tok);
			ret = -1;
		} else if ((err = gr_identity_may_trace(id, pid))) {
			fprintf(stderr, "gpurec record: -p %ld: %s\n", pid,
				err == -ESRCH
				    ? "no such process"
				    : "not your process: gpurec attaches only to processes "
				      "the invoking user could debug");
			ret = -1;
		}
	}
	free(copy);
	return ret;
}

/* Attach to running processes (checked by check_pids): trace them, probe what they map. */
static int attach_pids(struct session *s, char *list)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		long pid = strtol(tok, NULL, 10);
		uint64_t v[GR_PROC_NCOLS] = {
		    gr_clock_ns(CLOCK_MONOTONIC), GR_PROC_ATTACH, 0, 0, 0, 0};
		struct gr_bytes b = {(const uint8_t *)"", 0};

		if (kill(pid, 0)) {
			fprintf(stderr, "gpurec record: process %ld is gone\n", pid);
			return -ESRCH;
		}
		trace_pid(s, pid);
		gr_discover_scan(&s->procs, pid);
		gr_python_note(&s->py, &s->procs, s->w, v[GR_PROC_TS], pid);
		gr_symbols_libraries(&s->tr.sym, v[GR_PROC_TS], pid);
		v[GR_PROC_PID] = v[GR_PROC_TID] = pid;
		gr_trace_writer_append(s->w, GR_K_PROC, v, &b);
	}
	return 0;
}

/*
 * What a shell exits with when it cannot run a command: 127 when it is not found, 126 when it
 * is found and cannot be run (not executable, not a program, the privilege drop refused).
 */
static int not_run_status(int err)
{
	return err == -ENOENT ? 127 : 126;
}

/* What the command gets added to its environment: --cupti's channel, the NVTX tool. */
static void command_env(struct session *s)
{
	size_t n = 0;

	for (char **e = s->cupti.active ? s->cupti.env : NULL; e && *e; e++)
		s->env[n++] = *e;
	for (char **e = s->nvtx_env.active && gr_nvtx_probed(&s->nvtx) ? s->nvtx_env.env : NULL;
	     e && *e; e++)
		s->env[n++] = *e;
	s->env[n] = NULL;
	s->child.env = s->env;
}

/* Start the command, traced from its first instruction; on failure s->ret is 126 or 127. */
static int start_command(struct session *s)
{
	int err, exec_err = 0;

	command_env(s);
	err = gr_child_start(&s->child, &s->id, s->exe, s->o.argv);
	gr_cupti_started(&s->cupti);

	if (!err)
		err = trace_pid(s, s->child.pid);
	if (!err)
		gr_forward_set_command(s->fwd, s->child.pid);
	if (!err)
		err = exec_err = gr_child_release(&s->child);
	if (err) {
		/* found and executable, and still refused: say what the kernel's word means here */
		fprintf(stderr, "gpurec record: cannot run %s: %s%s\n", GR_TEXT(s->o.argv[0]),
			strerror(-err),
			exec_err == -ENOEXEC  ? " (not a program this machine runs: no #! line, or "
						"built for another architecture)"
			: exec_err == -ENOENT ? " (the file is there: its #! interpreter or its "
						"ELF loader is not)"
					      : "");
		if (exec_err)
			waitpid(s->child.pid, &s->status, 0);
		else
			gr_child_abandon(&s->child, &s->status);
		/* fork or tracing failed: the recorder's fault, not the command's; 127 as before */
		s->ret = exec_err ? not_run_status(exec_err) : 127;
		s->not_run = 1;
	}
	return err;
}

/* How stacks are taken, known from the start: a trace cut short still says it. */
static int write_call_graph(struct session *s)
{
	char call_graph[32];

	call_graph_name(&s->o, call_graph, sizeof(call_graph));
	return write_session(s, GR_SESS_CALL_GRAPH, 0, call_graph);
}

/*
 * Who the recorder is, so that replay names its processes as the recording's own ("gpurec (this
 * recording)") wherever they took a CPU, and whether scheduler records have wait windows.
 */
static void write_recorder_facts(struct session *s)
{
	write_session(s, GR_SESS_RECORDER_PID, (uint64_t)getpid(), "");
	if (s->wd.pid > 0)
		write_session(s, GR_SESS_WATCHDOG_PID, (uint64_t)s->wd.pid, "");
	if (s->o.sched)
		write_session(s, GR_SESS_SCHED_WINDOWS, 1, "");
}

/* The recorder's CPU time so far (user + sys, ns), for info beside the recording's length. */
static void write_recorder_cpu(struct session *s)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return;
	write_session(s, GR_SESS_RECORDER_CPU,
		      ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
			      1000000000ull +
			  ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull,
		      "");
}

/*
 * The command runs (its exec succeeded) or the -p processes are traced: the trace takes the
 * output path now, and the previous one becomes .old. Not before: a command that cannot be
 * started must leave both as they were. A failure leaves the trace where it is written, said.
 */
static void commit_trace(struct session *s)
{
	int err = gr_output_commit(&s->id, s->o.output, s->tmp);

	s->committed = 1;
	if (!err)
		return;
	fprintf(stderr, "gpurec record: cannot put the trace at %s (%s): it is written to %s\n",
		s->o.output, gr_output_strerror(err), s->tmp);
	s->o.output = s->tmp;
}

/*
 * The start failed: nothing ran, so nothing is kept; the output path and its .old stay as they
 * were. The command's failure was said by start_command().
 */
static void discard_trace(struct session *s)
{
	int err;

	gr_trace_writer_close(s->w);
	s->w = NULL;
	err = gr_output_discard(&s->id, s->tmp);
	if (err)
		fprintf(stderr, "gpurec record: cannot remove %s: %s\n", s->tmp, strerror(-err));
	fprintf(stderr, "gpurec record: nothing recorded; %s left as it was\n", s->o.output);
}

/* Pass signals on, then trace the -p processes or start the command; say why not. */
static int start(struct session *s)
{
	int err = gr_forward_open(&s->fwd);

	if (!s->fwd) {
		fprintf(stderr, "gpurec record: %s\n", strerror(-err));
		return err;
	}
	if (err && s->o.verbose)
		fprintf(stderr,
			"gpurec record: cannot see which signals reach the command (%s): every "
			"SIGINT, SIGTERM and SIGHUP sent to gpurec is passed on to it\n",
			strerror(-err));
	/* a write error here stays in the writer: its close reports it */
	write_call_graph(s);
	write_recorder_facts(s);
	if (!s->o.pids) {
		err = start_command(s);
	} else {
		err = attach_pids(s, s->o.pids);
		if (!err)
			write_session(s, GR_SESS_ATTACHED, 1, "");
	}
	if (!err)
		commit_trace(s);
	return err;
}

/*
 * What the traced threads still alive hold when the recording stops: the call events they
 * batched, and the calls they are inside (a hung sync, a -d or Ctrl-C stop mid-call), each sent
 * by the BPF task iterator as an in-flight call event. Threads that exited sent both at their
 * exit.
 */
static void sweep_in_flight(struct session *s)
{
	struct bpf_link *link = bpf_program__attach_iter(s->skel->progs.in_flight_at_stop, NULL);
	char buf[256];
	int fd = -1;

	if (link)
		fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		fprintf(stderr,
			"gpurec record: cannot list the calls in flight at the stop (%s): calls "
			"still running now are not in the trace\n",
			strerror(errno));
	} else {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	bpf_link__destroy(link);
}

/*
 * Start tracing, then drain until the command exits, a signal ends a -p recording, every -p
 * process is gone, or the duration has passed. Nothing is drained when the start failed.
 */
/* How long the next drain may sleep: longer while nothing comes, never past what is due. */
static int drain_timeout(const struct session *s, int last_ms, uint64_t deadline)
{
	uint64_t now = gr_clock_ns(CLOCK_MONOTONIC), due = gr_forward_next_ns(s->fwd, now);
	int ms = s->drained ? DRAIN_MS : last_ms * 2;

	if (test_drain_ms())
		return test_drain_ms();
	if (ms > QUIET_DRAIN_MS)
		ms = QUIET_DRAIN_MS;
	/* what ends the recording is polled (-p processes, a kernel without pidfds) */
	if (s->polled && ms > DRAIN_MS * 5)
		ms = DRAIN_MS * 5;
	if (due && due / 1000000 + 1 < (uint64_t)ms)
		ms = due / 1000000 + 1;
	if (deadline && (deadline <= now || (deadline - now) / 1000000 + 1 < (uint64_t)ms))
		ms = deadline <= now ? 0 : (deadline - now) / 1000000 + 1;
	return ms;
}

static void run(struct session *s)
{
	uint64_t deadline = 0;
	int ms = DRAIN_MS, pidfd = -1, err;

	err = start(s);
	/* the command runs (or never will): what came during the start is handled now */
	gr_forward_unhold();
	if (err)
		return;
	if (s->o.duration > 0)
		deadline = gr_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(s->o.duration * 1e9);
	/* the command's end wakes the drain (a pidfd); without one, the sleeps stay short */
	if (s->child.pid > 0)
		pidfd = syscall(SYS_pidfd_open, s->child.pid, 0);
	s->polled = s->o.pids || pidfd < 0 || gr_ringbuf_watch(s->rb, pidfd);
	/* so does an unwind table built on first need (cfi.h): stacks are whole from then on */
	if (s->cfi.ready && s->cfi.wake_fd >= 0)
		gr_ringbuf_watch(s->rb, s->cfi.wake_fd);
	/* GPU records wake the drain too: a burst waits in the pipe no longer than needed */
	if (s->cupti.rd >= 0 && gr_ringbuf_watch(s->rb, s->cupti.rd))
		s->polled = 1;
	while (!s->err) {
		ms = drain_timeout(s, ms, deadline);
		if (drain(s, ms))
			break;
		gr_cfi_poll(&s->cfi, &s->procs);
		gr_forward_due(s->fwd, gr_clock_ns(CLOCK_MONOTONIC));
		if (s->child.pid > 0 && !s->child_done &&
		    waitpid(s->child.pid, &s->status, WNOHANG) > 0)
			s->child_done = 1;
		if (s->child_done) {
			s->stop_reason = STOP_EXIT;
			break;
		}
		if (s->o.pids && (gr_forward_stop_signal() || !gr_discover_alive(&s->procs))) {
			s->stop_reason = gr_forward_stop_signal() ? STOP_SIGNAL : STOP_EXIT;
			break;
		}
		if (deadline && gr_clock_ns(CLOCK_MONOTONIC) >= deadline) {
			s->stop_reason = STOP_DURATION;
			break;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	/* the probes go first: no call enters, returns or is half batched while the sweep runs */
	gr_attach_detach(&s->attach);
	gr_nvtx_probe_detach(&s->nvtx);
	sweep_in_flight(s);
	/* what the last process wrote before exiting is still in the buffer */
	drain(s, 0);
}

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* Wait for the command to exit after the recording, passing on signals as they fall due. */
static void wait_command(struct gr_forward *fwd, pid_t pid, int *status)
{
	struct pollfd pfd = {.fd = (int)syscall(SYS_pidfd_open, pid, 0), .events = POLLIN};

	while (waitpid(pid, status, WNOHANG) == 0) {
		uint64_t next = gr_forward_next_ns(fwd, gr_clock_ns(CLOCK_MONOTONIC));
		int timeout_ms = next ? (int)(next / 1000000) + 1 : pfd.fd < 0 ? 100 : -1;

		/* woken by the exit (pidfd readable), a signal, or a pass-on falling due */
		poll(&pfd, pfd.fd >= 0, timeout_ms);
		gr_forward_due(fwd, gr_clock_ns(CLOCK_MONOTONIC));
	}
	if (pfd.fd >= 0)
		close(pfd.fd);
}

/* Free what traces the processes; each part is zeroed, so a second call does nothing. */
static void session_free(struct session *s)
{
	gr_ringbuf_free(s->rb);
	s->rb = NULL;
	gr_unwind_free(s->unwind);
	s->unwind = NULL;
	gr_attach_free(&s->attach);
	gr_discover_free(&s->procs);
	gr_discover_free(&s->own_procs);
	gr_cfi_free(&s->cfi);
	/* what the probes held and the drain did not resume, the watchdog resumes (watchdog.h) */
	gpurec_bpf__destroy(s->skel);
	s->skel = NULL;
	gr_translate_free(&s->tr);
	gr_python_free(&s->py);
	gr_cupti_close(&s->cupti);
	gr_nvtx_env_close(&s->nvtx_env);
}

/*
 * What the verifier checked of each program (5.16+): its instructions against the kernel's
 * limit of a million a program (BPF_COMPLEXITY_LIMIT_INSNS), past which the load fails with
 * E2BIG in the stack-walking modes. With kernel.bpf_stats_enabled=1 the kernel also times every
 * run of our programs: say what each cost per run (the calibration's runs included); quiet when
 * the counts are off.
 */
static void report_bpf_stats(const struct session *s)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, s->skel->obj)
	{
		struct bpf_prog_info info = {0};
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		if (info.verified_insns)
			fprintf(stderr,
				"gpurec record: bpf %s: %u instructions verified (limit 1000000)\n",
				bpf_program__name(prog), info.verified_insns);
		if (!info.run_cnt)
			continue;
		fprintf(stderr,
			"gpurec record: bpf %s: %llu runs, %.1f ns per run "
			"(kernel.bpf_stats_enabled)\n",
			bpf_program__name(prog), (unsigned long long)info.run_cnt,
			(double)info.run_time_ns / info.run_cnt);
	}
}

/* Like perf's closing line: what was written, what was lost, what it cost us. */
static void report_summary(const struct session *s, uint64_t records)
{
	struct rusage ru;
	struct stat st;
	const uint64_t *seen = s->tr.counters_seen;
	uint64_t lost = 0, stacks = seen[C_STACK_LOST] + seen[C_STACK_SHED] + s->tr.unwind_skipped;

	for (int i = 0; i < C_COUNT; i++)
		if (i != C_STOP_SENT && i != C_UNTRACED && i != C_STACK_LOST && i != C_STACK_SHED)
			lost += seen[i];
	/* the file's size through our descriptor: the path is the user's to look up, not ours */
	if (fstat(s->size_fd, &st))
		st.st_size = 0;
	fprintf(stderr,
		"gpurec record: wrote %s (%" PRIu64 " records, %.2f MB), %" PRIu64 " events lost\n",
		s->o.output, records, st.st_size / 1e6, lost);
	/* never from the BPF side we built: said, so that a mismatch of the two halves shows */
	if (s->tr.malformed)
		fprintf(stderr,
			"gpurec record: %" PRIu64 " ring-buffer records dropped: not an event of "
			"bpf/gpurec.h (the BPF object and the recorder disagree)\n",
			s->tr.malformed);
	if (stacks)
		fprintf(stderr,
			"gpurec record: %" PRIu64 " events kept without their stack: %" PRIu64
			" not unwound (the recorder behind), %" PRIu64
			" left out by the kernel side (the ring buffer filling), %" PRIu64
			" unreadable\n",
			stacks, s->tr.unwind_skipped, seen[C_STACK_SHED], seen[C_STACK_LOST]);
	if (s->mmap_hook == GR_MMAP_HOOK_SYS_EXIT)
		fprintf(stderr,
			"gpurec record: %s: new mappings were seen with %s instead, a program that "
			"ran at every system call of the machine while recording\n",
			s->mmap_hook_why, gr_mmap_hook_name(s->mmap_hook));
	else if (s->mmap_hook == GR_MMAP_HOOK_LDSO && s->o.verbose)
		fprintf(stderr,
			"gpurec record: %s: new mappings were seen through %d dynamic loaders' "
			"debug hook, %" PRIu64 " holds (code mapped without the loader is not: "
			"--mmap-hook=sys_exit sees it)\n",
			s->mmap_hook_why, s->attach.loaders, s->tr.loader_holds);
	if (s->calibrated)
		fprintf(stderr,
			"gpurec record: probe cost measured here: %" PRIu64 " ns per launch "
			"(entry only), %" PRIu64 " ns per timed call (%" PRIu64
			" ns of it inside its duration); reports compensate for it\n",
			s->cal.entry_pre + s->cal.entry_post,
			s->cal.call_pre + s->cal.call_in + s->cal.call_post, s->cal.call_in);
	if (s->calibrated && s->o.verbose)
		fprintf(stderr,
			"gpurec record: probe cost split: entry %" PRIu64 " + %" PRIu64
			" ns, call %" PRIu64 " + %" PRIu64 " + %" PRIu64
			" ns around its timestamps; measured in %.1f ms\n",
			s->cal.entry_pre, s->cal.entry_post, s->cal.call_pre, s->cal.call_in,
			s->cal.call_post, s->cal.elapsed_ns / 1e6);
	if (s->o.verbose && !getrusage(RUSAGE_SELF, &ru))
		fprintf(stderr,
			"gpurec record: recorder cpu %.3f s user %.3f s sys, max rss %ld KiB\n",
			ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
			ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
	if (s->o.verbose)
		report_bpf_stats(s);
	if (s->o.verbose && s->unwind) {
		struct gr_unwind_stats us;

		gr_unwind_get_stats(s->unwind, &us);
		fprintf(stderr,
			"gpurec record: unwound %" PRIu64 " stacks (%.1f frames each) in %.3f s: "
			"%.2f us per stack, %" PRIu64 " libdwfl sessions\n",
			us.stacks, us.stacks ? (double)us.frames / us.stacks : 0, us.ns / 1e9,
			us.stacks ? us.ns / 1e3 / us.stacks : 0, us.sessions);
	}
}

/* --cupti: whether GPU activity was recorded, and what of it was lost (FORMAT.md). */
static void write_cupti_facts(struct session *s)
{
	char why[160], lost[160];
	uint64_t recorded, dropped;

	gr_cupti_facts(&s->cupti, &recorded, why, sizeof(why), &dropped, lost, sizeof(lost));
	write_session(s, GR_SESS_CUPTI, recorded, why);
	write_session(s, GR_SESS_CUPTI_DROPPED, dropped, lost);
	if (s->cupti.active && !recorded)
		fprintf(stderr, "gpurec record: --cupti: %s: no GPU times were recorded\n",
			GR_TEXT(why));
	else if (recorded)
		fprintf(stderr,
			"gpurec record: --cupti: %" PRIu64 " GPU records, %" PRIu64 " lost (%s)\n",
			s->cupti.rows, dropped, GR_TEXT(lost));
}

/* Once, at the end: which of the user's binaries had no line tables for their frames. */
static void say_lineless(const struct gr_symbols *sym)
{
	const char *paths[4];
	size_t n = gr_symbols_lineless(sym, paths, 4);

	if (!n)
		return;
	fprintf(stderr,
		"gpurec record: no line tables (host code built without -g, or stripped) in ");
	for (size_t i = 0; i < n && i < 4; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", paths[i]);
	if (n > 4)
		fprintf(stderr, " and %zu more", n - 4);
	fprintf(stderr, ": their frames read function+offset\n");
}

/*
 * What is known only at the end: the names and mappings not written as they were learned
 * (record/symbols.h), then the closing session facts.
 */
static void write_trailer(struct session *s)
{
	uint64_t untraced = s->tr.counters_seen[C_UNTRACED];

	/* a command still running (-d) owns the terminal: no line over its output */
	if (s->child.pid <= 0 || s->child_done)
		gr_progress_begin("naming functions and lines",
				  s->tr.refs.funcs.len + s->tr.refs.frames.len, "addresses");
	gr_symbols_finish(&s->tr.sym, &s->tr.refs, s->last_drain_ns);
	gr_progress_end();
	say_lineless(&s->tr.sym);
	write_session(s, GR_SESS_STOP, s->stop_reason, "");
	write_session(s, GR_SESS_CUDA_SEEN, s->attach.cuda_files, "");
	write_launch_sample(s);
	if (s->o.cupti)
		write_cupti_facts(s);
	write_recorder_cpu(s);
	if (untraced) {
		write_session(s, GR_SESS_UNTRACED, untraced, "");
		fprintf(stderr,
			"gpurec record: %" PRIu64 " privileged programs (setuid, setgid or file "
			"capabilities) started by the traced processes were not traced: their "
			"memory is not yours to read\n",
			untraced);
	}
	if (s->child.pid > 0 && s->child_done)
		write_session(s, GR_SESS_EXIT_STATUS, exit_status(s->status), "");
}

/*
 * Close the trace (names, closing facts, footer), stop tracing so the command runs on
 * untraced, wait for it, and settle s->ret: the command's exit status, 0 for a -p recording,
 * 1 when the trace could not be written, 126 or 127 when the command could not be started.
 */
static void finish(struct session *s)
{
	uint64_t records;
	int err;

	if (!s->committed) {
		discard_trace(s);
		session_free(s);
		gr_watchdog_release(&s->wd);
		return;
	}
	if (s->err)
		fprintf(stderr, "gpurec record: writing %s failed: %s\n", s->o.output,
			gr_strerror(s->err));
	write_trailer(s);
	records = gr_trace_writer_records(s->w);
	err = gr_trace_writer_close(s->w);
	s->w = NULL;
	if (err) {
		fprintf(stderr, "gpurec record: writing %s failed: %s\n", s->o.output,
			gr_strerror(err));
		s->ret = 1;
	} else {
		report_summary(s, records);
	}
	gr_call_status_report(&s->tr.calls, stderr);
	gr_stack_cuts_report(&s->tr.cuts, stderr);
	gr_cfi_report(&s->cfi, stderr, s->o.verbose);
	if (!s->attach.cuda_files)
		fprintf(stderr, "gpurec record: no CUDA library was loaded by the traced processes "
				"(nothing to probe); the trace holds process and scheduler events "
				"only\n");
	/* probes off before we wait: the command runs on untraced */
	session_free(s);
	gr_watchdog_release(&s->wd);
	if (s->child.pid > 0 && !s->child_done) {
		if (s->stop_reason == STOP_DURATION)
			fprintf(
			    stderr,
			    "gpurec record: stopped recording after %g s; waiting for %s (pid %d)"
			    " to exit\n",
			    s->o.duration, s->o.argv[0], s->child.pid);
		wait_command(s->fwd, s->child.pid, &s->status);
		s->child_done = 1;
	}
	if (s->child.pid > 0 && s->child_done && !s->not_run)
		s->ret = err ? 1 : exit_status(s->status);
	else if (s->o.pids)
		s->ret = err ? 1 : 0;
}

int cmd_record(int argc, char **argv)
{
	struct session s = {
	    .wd = {.pid = 0, .fd = -1},
	    .child = {.pid = 0, .go_fd = -1, .report_fd = -1},
	    .size_fd = -1,
	    .cupti = {.rd = -1, .wr = -1},
	    .nvtx = {.fd = -1},
	    .ret = 1,
	};
	char msg[PATH_MAX * 2 + 128];
	int err;

	if (parse_opts(argc, argv, &s.o))
		return 2;
	/* shown only once the command is over: while it runs, the terminal is its own */
	gr_progress_init("record", s.o.quiet);
	/* before anything is loaded: Ctrl-C from now on is ours to handle (interrupted()) */
	gr_forward_init();
	/* before anything is traced: the user database loads NSS modules (see identity.h) */
	gr_identity_resolve(&s.id);
	if (s.o.argc && (err = gr_child_resolve(&s.id, s.o.argv[0], s.exe, sizeof(s.exe)))) {
		fprintf(stderr, "gpurec record: %s: %s\n", GR_TEXT(s.o.argv[0]),
			err == -ENOENT ? "command not found" : strerror(-err));
		return not_run_status(err);
	}
	if (check_privileges())
		return 1;
	if (s.o.pids && check_pids(&s.id, s.o.pids))
		return 1;
	if (s.o.cupti && gr_cupti_open(&s.cupti, &s.id, msg, sizeof(msg))) {
		fprintf(stderr, "gpurec record: %s\n", msg);
		return 1;
	}
	if (s.o.cupti && !s.cupti.active)
		fprintf(stderr, "gpurec record: --cupti: %s here: GPU times will not be recorded\n",
			s.cupti.why);
	if (s.o.nvtx && s.o.argc && gr_nvtx_env_open(&s.nvtx_env))
		fprintf(stderr, "gpurec record: %s: NVTX ranges will not be recorded\n",
			s.nvtx_env.why);
	if (!setup(&s)) {
		run(&s);
		finish(&s);
	}
	session_free(&s);
	gr_watchdog_release(&s.wd);
	gr_forward_close(s.fwd);
	if (s.size_fd >= 0)
		close(s.size_fd);
	return s.ret;
}
