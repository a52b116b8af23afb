/* SPDX-License-Identifier: MIT */
/*
 * gpurec export [FILE] [-o OUT] [--from T] [--to T] [--pid PIDS] [--no-flows] [--step SPEC]: the
 * trace as Chrome trace-event JSON for ui.perfetto.dev or chrome://tracing (see export.h for what
 * it holds). Warns when the output is too large for a browser, with the options that narrow it.
 * --step finds the named steps with the report's own finder (report.h) and hands them to export
 * as plain timestamps: the export library never depends on the report's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/export/export.h"
#include "analyze/export/export_tables.h"
#include "analyze/model/load.h"
#include "analyze/model/model.h"
#include "analyze/report/report.h"
#include "analyze/util/options.h"
#include "analyze/util/progress.h"
#include "analyze/util/text.h"
#include "cmd.h"

/* Browsers fail or crawl on JSON traces past a few hundred MB (one JS string, a V8 heap). */
#define WARN_MB 256
/* Above this many times the limit (estimated before writing) export refuses without --force:
 * such a file takes minutes to write and no browser opens it. */
#define REFUSE_FACTOR 4
#define EVENT_BYTES   190 /* average bytes of one event line, measured on launch-heavy traces */
#define MAX_PIDS      64

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpurec export [FILE] [-o OUT] [--format FMT] [--from TIME] [--to TIME]\n"
		"                     [--pid PIDS] [--no-flows] [--step SPEC] [--warn-mb N]\n"
		"                     [--force] [--max-events N] [-j N] [-q]\n"
		"  FILE           trace to export (default gpurec.trc); -i FILE names it too,\n"
		"                 as perf does\n"
		"  -o, --output OUT  file to write (default FILE with .trc replaced by .json,\n"
		"                 or the format's suffix; '-' for standard output)\n"
		"  --format FMT   json (the default), sqlite (the default when OUT ends in\n"
		"                 .sqlite, .sqlite3 or .db: FILE.sqlite without -o) or csv\n"
		"                 (-o names an existing directory: one CSV file per table);\n"
		"                 the tables are in docs/EXPORT.md; a database is replaced;\n"
		"                 or perfetto (Perfetto's protobuf trace, the default when\n"
		"                 OUT ends in .pftrace or .perfetto-trace)\n"
		"  --from TIME    start of the window, from the recording start (default 0)\n"
		"  --to TIME      end of the window (default: the end of the recording)\n"
		"                 TIME is seconds, or a number with ns, us, ms or s\n"
		"  -p, --pid PIDS only these processes (comma-separated)\n"
		"  --no-flows     no flow arrows (launch to stream track, call to GPU row)\n"
		"  --step SPEC    a track \"steps (--step SPEC)\" with a slice per training step,\n"
		"                 SPEC naming the step as for gpurec report --step: a kernel,\n"
		"                 a CUDA API, a Python FILE:LINE or function (json, perfetto)\n"
		"  --warn-mb N    warn when the output is over N MiB (default %d); when it\n"
		"                 would be over %d times that, stop before writing\n"
		"  --force        write it anyway\n"
		"  --max-events N refuse a trace of more than N events (default: what half the\n"
		"                 memory holds, %llu here; 0 = no limit)\n"
		"  -j, --jobs N   threads that load the trace (default: one per CPU; 1: none)\n"
		"  -q, --quiet    no progress on a terminal (shown for work of more than 2 s)\n"
		"  -h, --help     this text\n"
		"Open the output in ui.perfetto.dev or chrome://tracing. --from, --to, --pid,\n"
		"--no-flows, --step and --warn-mb are for JSON and Perfetto.\n",
		WARN_MB, REFUSE_FACTOR, (unsigned long long)gr_load_max_events());
}

/* "1.5", "1.5s", "200ms", "30us", "100ns" -> ns; -EINVAL when malformed or negative. */
static int parse_time(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {{"", 1e9}, {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v >= 0))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v * units[i].scale >= 1.8e19)
			return -EINVAL;
		*ns = (uint64_t)(v * units[i].scale + 0.5);
		return 0;
	}
	return -EINVAL;
}

static int parse_pids(char *s, uint32_t *pids, size_t *n)
{
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(tok, &end, 10);
		if (errno || end == tok || *end || !v || v > UINT32_MAX || *n == MAX_PIDS)
			return -EINVAL;
		pids[(*n)++] = (uint32_t)v;
	}
	return *n ? 0 : -EINVAL;
}

static char *default_output(const char *in, const char *ext)
{
	size_t n = strlen(in);
	char *out = malloc(n + strlen(ext) + 1);

	if (!out)
		return NULL;
	memcpy(out, in, n + 1);
	if (n > 4 && !strcmp(in + n - 4, ".trc"))
		out[n - 4] = 0;
	strcat(out, ext);
	return out;
}

enum out_format { FMT_JSON = 0, FMT_SQLITE, FMT_CSV, FMT_PERFETTO };

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);

	return n > e && !strcmp(s + n - e, end);
}

/* The format when --format does not say: a database for the names databases have. */
static enum out_format format_of(const char *out)
{
	if (out &&
	    (ends_with(out, ".sqlite") || ends_with(out, ".sqlite3") || ends_with(out, ".db")))
		return FMT_SQLITE;
	if (out && (ends_with(out, ".pftrace") || ends_with(out, ".perfetto-trace")))
		return FMT_PERFETTO;
	return FMT_JSON;
}

/* 1 when @out names the file @in (the trace being read): writing it would destroy the input. */
static int same_file(const char *in, const char *out)
{
	struct stat a, b;

	return !stat(in, &a) && !stat(out, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* --format sqlite and csv: the tables of docs/EXPORT.md, and a line saying what was written. */
static int export_tables(const struct gr_model *m, enum out_format fmt, const char *out)
{
	static const char *const ftables[] = {"launches",     "copies", "memsets",     "allocs",
					      "frees",	      "syncs",	"graph_calls", "nccl_calls",
					      "sched_states", "losses", "gpu_activity"};
	struct gr_export_table_stats st;
	const struct gr_xtable *t;
	const char *why = NULL;
	size_t nt;
	int err;

	/* why: SQLite's message when it failed (-EIO); for CSV, the file that failed */
	if (fmt == FMT_SQLITE)
		err = gr_export_sqlite(m, out, GPUREC_VERSION, &st, &why);
	else
		err = gr_export_csv(m, out, GPUREC_VERSION, &st, &why);
	gr_progress_end();
	if (err && fmt == FMT_SQLITE)
		fprintf(stderr, "gpurec export: writing %s: %s\n", out,
			err == -EIO && why ? why : gr_strerror(err));
	else if (err)
		fprintf(stderr, "gpurec export: writing %s: %s\n", why ? why : out,
			gr_strerror(err));
	if (err) {
		return 1;
	}
	t = gr_export_tables_list(&nt);
	printf("gpurec export: wrote %s: %" PRIu64 " rows in %zu tables, %" PRIu64
	       " of them events\n ",
	       GR_TEXT(out), st.total, st.tables, st.events);
	for (size_t i = 0; i < nt; i++)
		for (size_t k = 0; k < sizeof(ftables) / sizeof(ftables[0]); k++)
			/* gpu_activity: a table only when the trace has GPU rows */
			if (!strcmp(t[i].name, ftables[k]) &&
			    (st.rows[i] || strcmp(t[i].name, "gpu_activity")))
				printf(" %s %" PRIu64, t[i].name, st.rows[i]);
	printf("\n");
	return 0;
}

static void summary(FILE *f, const char *out, const struct gr_export_stats *st, long long bytes)
{
	static const struct {
		unsigned kind;
		const char *name;
	} kinds[] = {{GR_K_LAUNCH, "launch"}, {GR_K_COPY, "copy"}, {GR_K_MEMSET, "memset"},
		     {GR_K_ALLOC, "alloc"},   {GR_K_FREE, "free"}, {GR_K_SYNC, "sync"},
		     {GR_K_GRAPH, "graph"},   {GR_K_COMM, "nccl"}};
	const char *sep = " (";

	fprintf(f, "gpurec export: wrote %s", GR_TEXT(out));
	if (bytes >= 0)
		fprintf(f, ", %.1f MB", (double)bytes / 1e6);
	fprintf(f, "\n  %" PRIu64 " API call slices", st->api_total);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!st->api_slices[kinds[i].kind])
			continue;
		fprintf(f, "%s%s %" PRIu64, sep, kinds[i].name, st->api_slices[kinds[i].kind]);
		sep = ", ";
	}
	fprintf(f, "%s\n", st->api_total ? ")" : "");
	if (st->node_slices || st->aside_slices)
		fprintf(f,
			"  %" PRIu64
			" graph node slices (captured, executed nothing then), %" PRIu64
			" failed, nested or in-flight call slices\n",
			st->node_slices, st->aside_slices);
	fprintf(f,
		"  %" PRIu64 " launch instants on stream tracks, %" PRIu64 " flows, %" PRIu64
		" scheduler state slices\n",
		st->launch_instants, st->flows, st->sched_slices);
	if (st->gpu_slices)
		fprintf(f,
			"  %" PRIu64 " GPU slices (measured on the GPU), %" PRIu64
			" flows from their calls, %" PRIu64 " tied to no recorded call\n",
			st->gpu_slices, st->gpu_flows, st->gpu_untied);
	if (st->step_slices)
		fprintf(f, "  %" PRIu64 " step slices (--step)\n", st->step_slices);
	if (st->memory_counters)
		fprintf(f, "  %" PRIu64 " device memory counter points\n", st->memory_counters);
	fprintf(f,
		"  %" PRIu64 " loss instants, %" PRIu64 " process events, %" PRIu64
		" metadata events, %" PRIu64 " events in all\n",
		st->loss_instants, st->proc_instants, st->metadata, st->events);
}

/* The advice when the output is too big: a window that would fit, and the busiest pids. */
static void too_large(const struct gr_model *m, const char *out, long long bytes, uint64_t limit,
		      const struct gr_export_opts *o, int estimate)
{
	uint64_t first, last, span, win_ns, fit_ns;
	size_t np;
	const struct gr_process *p = gr_model_processes(m, &np);
	uint64_t *per = calloc(np + 1, sizeof(*per));

	gr_model_time_span(m, &first, &last);
	span = last - first;
	win_ns = (o->has_to && o->to_ns < span ? o->to_ns : span);
	win_ns = win_ns > o->from_ns ? win_ns - o->from_ns : 0;
	fit_ns = (uint64_t)((double)win_ns * (double)(limit / 2) / (double)bytes);
	if (estimate)
		fprintf(stderr,
			"gpurec export: %s would be about %.3g MB: no browser opens a JSON trace "
			"that large; not written (--force writes it anyway)\n",
			GR_TEXT(out), (double)bytes / 1e6);
	else
		fprintf(stderr,
			"gpurec export: warning: %s is %.1f MB: browsers fail or crawl on JSON "
			"traces over a few hundred MB\n",
			GR_TEXT(out), (double)bytes / 1e6);
	fprintf(stderr,
		"  narrow it with --from/--to: the recording spans %.6g s; a window of %.3g s, "
		"e.g. --from %.6g --to %.6g, would be about %.3g MB\n",
		(double)span / 1e9, (double)fit_ns / 1e9, (double)o->from_ns / 1e9,
		(double)(o->from_ns + fit_ns) / 1e9, (double)(limit / 2) / 1e6);
	if (per && np > 1 && !gr_export_process_launches(m, o, per)) {
		fprintf(stderr, "  or with --pid: launches per process:");
		for (size_t i = 0; i < np; i++)
			if (per[i])
				fprintf(stderr, " %u (%s) %" PRIu64, p[i].pid, GR_TEXT(p[i].comm),
					per[i]);
		fprintf(stderr, "\n");
	}
	if (!o->no_flows)
		fprintf(stderr, "  --no-flows also drops two events per launch\n");
	free(per);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * --step: the steps @spec names, found by the report on @m as loaded (@window: a model loaded for
 * a window, holding the steps in it), into @o (its step_starts point into *@r, which the caller
 * frees). Prints why and returns 1 when @spec names nothing or the report fails; 0 otherwise,
 * with no steps when none is whole (or, in a window, none matches).
 */
static int find_steps(const struct gr_model *m, const char *spec, int window,
		      struct gr_export_opts *o, struct gr_report **r)
{
	struct gr_report_opts ropts = {.sections = GR_REPORT_LAUNCHES, .step = spec};
	const struct gr_report_iteration *it;
	int err = gr_report_compute(m, &ropts, r);

	/* a model loaded for a window knows only the window's calls: a SPEC that matches none of
	 * them is a window without steps, said but written */
	if (err == -ENOENT && window) {
		fprintf(stderr, "gpurec export: --step '%s': no step in the window: none drawn\n",
			GR_TEXT(spec));
		return 0;
	}
	if (err && gr_report_step_error(err)) {
		fprintf(stderr, "gpurec export: --step '%s': %s\n", GR_TEXT(spec),
			gr_report_step_error(err));
		return 1;
	}
	if (err) {
		fprintf(stderr, "gpurec export: --step '%s': %s\n", GR_TEXT(spec),
			gr_strerror(err));
		return 1;
	}
	it = &(*r)->launches.iter;
	if (!it->found || !it->starts || !it->count)
		return 0;
	o->step_starts = it->starts;
	o->nsteps = it->count;
	o->step_end = it->end_ts;
	o->step_thread = it->thread;
	o->step_spec = spec;
	return 0;
}

static int bad_value(const char *opt, const char *arg)
{
	fprintf(stderr, "gpurec export: bad value for %s: '%s'\n", opt, arg);
	usage(stderr);
	return 2;
}

int cmd_export(int argc, char **argv)
{
	struct gr_model_load_opts lopts = {.max_records = gr_load_max_events()};
	const char *path = NULL, *out = NULL;
	char *out_alloc = NULL;
	struct gr_export_opts o = {0};
	struct gr_export_stats st;
	uint32_t pids[MAX_PIDS];
	size_t npids = 0;
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	const char *step = NULL;
	FILE *f = NULL;
	long long bytes = -1;
	uint64_t warn_bytes = (uint64_t)WARN_MB << 20;
	int err, ret = 1, to_stdout, force = 0, json_only = 0, fmt = -1, timeline, quiet = 0;

	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"from", required_argument, NULL, 'F'},
	    {"to", required_argument, NULL, 'T'},
	    {"pid", required_argument, NULL, 'p'},
	    {"warn-mb", required_argument, NULL, 'W'},
	    {"force", no_argument, NULL, 'f'},
	    {"no-flows", no_argument, NULL, 'N'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"max-events", required_argument, NULL, 'M'},
	    {"help", no_argument, NULL, 'h'},
	    {"format", required_argument, NULL, 'X'},
	    {"step", required_argument, NULL, 'S'},
	    {"quiet", no_argument, NULL, 'q'},
	    {0},
	};
	int c;

	gr_opt_begin();
	while ((c = getopt_long(argc, argv, ":ho:p:i:j:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'q':
			quiet = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'i': /* perf's spelling */
			path = optarg;
			break;
		case 'X':
			if (!strcmp(optarg, "json"))
				fmt = FMT_JSON;
			else if (!strcmp(optarg, "sqlite"))
				fmt = FMT_SQLITE;
			else if (!strcmp(optarg, "csv"))
				fmt = FMT_CSV;
			else if (!strcmp(optarg, "perfetto"))
				fmt = FMT_PERFETTO;
			else
				return bad_value("--format", optarg);
			break;
		case 'F':
			json_only = 1;
			if (parse_time(optarg, &o.from_ns))
				return bad_value("--from", optarg);
			break;
		case 'T':
			json_only = 1;
			if (parse_time(optarg, &o.to_ns))
				return bad_value("--to", optarg);
			o.has_to = 1;
			break;
		case 'p':
			json_only = 1;
			if (parse_pids(optarg, pids, &npids))
				return bad_value("--pid", optarg);
			break;
		case 'W': {
			char *end;

			json_only = 1;
			double v = strtod(optarg, &end);

			if (end == optarg || *end || !(v > 0) || v > 1e9)
				return bad_value("--warn-mb", optarg);
			warn_bytes = (uint64_t)(v * 1048576);
			break;
		}
		case 'f':
			force = 1;
			break;
		case 'N':
			json_only = 1;
			o.no_flows = 1;
			break;
		case 'S':
			step = optarg;
			break;
		case 'j':
			if (gr_opt_jobs("export", optarg, &lopts.jobs))
				return 2;
			break;
		case 'M':
			if (gr_opt_max_events("export", optarg, &lopts.max_records))
				return 2;
			break;
		default:
			gr_opt_error("export", c, argv);
			usage(stderr);
			return 2;
		}
	}
	if (gr_opt_paths("export", argc, argv, &path, !!path, 1) < 0) {
		usage(stderr);
		return 2;
	}
	if (o.has_to && o.to_ns <= o.from_ns) {
		fprintf(stderr, "gpurec export: --to must be after --from\n");
		return 2;
	}
	o.pids = pids;
	o.npids = npids;
	if (!path)
		path = "gpurec.trc";
	if (fmt < 0)
		fmt = format_of(out);
	/* timelines: JSON and Perfetto; tables: sqlite and csv */
	timeline = fmt == FMT_JSON || fmt == FMT_PERFETTO;

	if (!timeline && json_only) {
		fprintf(stderr,
			"gpurec export: --from, --to, --pid, --no-flows and --warn-mb are for "
			"--format json: a %s export holds the whole trace\n",
			fmt == FMT_SQLITE ? "sqlite" : "csv");
		return 2;
	}
	if (!timeline && step) {
		fprintf(stderr,
			"gpurec export: --step is for --format json and perfetto: a %s export has "
			"no steps table\n",
			fmt == FMT_SQLITE ? "sqlite" : "csv");
		return 2;
	}
	if (fmt == FMT_CSV && !out) {
		fprintf(stderr, "gpurec export: --format csv needs -o DIR, the directory to write "
				"the tables into\n");
		return 2;
	}
	if (!out)
		out = out_alloc = default_output(path, fmt == FMT_SQLITE     ? ".sqlite"
						       : fmt == FMT_PERFETTO ? ".pftrace"
									     : ".json");
	if (!out) {
		fprintf(stderr, "gpurec export: out of memory\n");
		return 1;
	}
	to_stdout = !strcmp(out, "-");
	if (to_stdout && !timeline) {
		fprintf(stderr, "gpurec export: a %s export cannot go to standard output\n",
			fmt == FMT_SQLITE ? "sqlite" : "csv");
		goto out;
	}
	if (!to_stdout && same_file(path, out)) {
		fprintf(stderr, "gpurec export: %s is the trace being exported: not overwritten\n",
			out);
		goto out;
	}
	if (fmt == FMT_CSV) {
		struct stat sb;

		if (stat(out, &sb) || !S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "gpurec export: %s: %s\n", out,
				stat(out, &sb) ? strerror(errno) : strerror(ENOTDIR));
			goto out;
		}
	}

	if (o.from_ns || o.has_to) {
		/* only the window's chunks, and the margin's: each thread's state when it opens */
		uint64_t start;

		err = gr_load_start("export", path, &start);
		if (err)
			goto out;
		lopts.has_window = 1;
		lopts.from_ts = add_sat(start, o.from_ns);
		lopts.to_ts = o.has_to ? add_sat(start, o.to_ns) : UINT64_MAX;
		lopts.margin_ns = GR_MODEL_MARGIN_NS;
	}
	gr_progress_init("export", quiet);
	err = gr_load_trace("export", path, &lopts, &m);
	if (err)
		goto out;
	gr_progress_end();
	if (!timeline) {
		gr_progress_begin("writing", gr_export_rows_estimate(m), "events");
		ret = export_tables(m, fmt, out);
		goto out;
	}
	if (step && find_steps(m, step, lopts.has_window, &o, &r))
		goto out;
	/* the refusal's estimate is JSON's bytes per event: a Perfetto trace is far smaller */
	if (!force && fmt == FMT_JSON) {
		err = gr_export_count(m, &o, &st);
		if (err) {
			fprintf(stderr, "gpurec export: %s\n", gr_strerror(err));
			goto out;
		}
		if ((double)st.events * EVENT_BYTES > (double)REFUSE_FACTOR * (double)warn_bytes) {
			too_large(m, out, (long long)(st.events * EVENT_BYTES), warn_bytes, &o, 1);
			goto out;
		}
	}
	f = to_stdout ? stdout : fopen(out, "w");
	if (!f) {
		fprintf(stderr, "gpurec export: %s: %s\n", out, strerror(errno));
		goto out;
	}
	err = fmt == FMT_PERFETTO ? gr_export_perfetto(m, f, &o, &st)
				  : gr_export_chrome(m, f, &o, &st);
	gr_progress_end();
	if (!err && !to_stdout) {
		bytes = ftello(f);
		if (fclose(f))
			err = -EIO;
		f = NULL;
	}
	if (err) {
		fprintf(stderr, "gpurec export: writing %s: %s\n", to_stdout ? "the output" : out,
			gr_strerror(err));
		goto out;
	}
	summary(to_stdout ? stderr : stdout, to_stdout ? "standard output" : out, &st, bytes);
	if (bytes > (long long)warn_bytes)
		too_large(m, out, bytes, warn_bytes, &o, 0);
	ret = 0;
out:
	if (f && f != stdout)
		fclose(f);
	gr_report_free(r);
	gr_model_free(m);
	free(out_alloc);
	return ret;
}
