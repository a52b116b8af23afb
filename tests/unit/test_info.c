/* SPDX-License-Identifier: MIT */
/* gpurec info: text and --json output of synthetic traces with exactly known content. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "record/call_status.h"
#include "test.h"
#include "synth.h"

static char dir[] = "/tmp/gr_test_info.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int n;
	char *p = buf[n++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	long size;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	buf = calloc(1, size + 1);
	if (buf)
		len = fread(buf, 1, size, f);
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* Run cmd_info with @args (NULL-terminated), capturing stdout and stderr. Returns its status. */
static int run_info(const char *const *args, char **out, char **err)
{
	char *argv[16], out_path[300], err_path[300];
	int argc = 0, so, se, fo, fe, rc;

	argv[argc++] = "info";
	for (; *args && argc < 15; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	snprintf(out_path, sizeof(out_path), "%s/out.txt", dir);
	snprintf(err_path, sizeof(err_path), "%s/err.txt", dir);
	fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fo, 1);
	dup2(fe, 2);
	rc = cmd_info(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(fo);
	close(fe);
	*out = slurp(out_path);
	*err = slurp(err_path);
	return rc;
}

/* ---- a JSON syntax checker: returns the end of the value at s, or NULL ---- */

static const char *ws(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

static const char *jvalue(const char *s, int depth);

static const char *jstring(const char *s)
{
	if (*s++ != '"')
		return NULL;
	while (*s && *s != '"') {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s == '\\') {
			s++;
			if (*s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
						return NULL;
				s += 4;
			} else if (!*s || !strchr("\"\\/bfnrt", *s)) {
				return NULL;
			}
		}
		s++;
	}
	return *s == '"' ? s + 1 : NULL;
}

static const char *jnumber(const char *s)
{
	char *end;

	if (*s != '-' && (*s < '0' || *s > '9'))
		return NULL;
	strtod(s, &end);
	return end > s ? end : NULL;
}

static const char *jvalue(const char *s, int depth)
{
	s = ws(s);
	if (depth > 64)
		return NULL;
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';
		int obj = *s == '{';

		s = ws(s + 1);
		if (*s == close)
			return s + 1;
		for (;;) {
			if (obj) {
				s = jstring(ws(s));
				if (!s)
					return NULL;
				s = ws(s);
				if (*s++ != ':')
					return NULL;
			}
			s = jvalue(s, depth + 1);
			if (!s)
				return NULL;
			s = ws(s);
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	if (*s == '"')
		return jstring(s);
	if (!strncmp(s, "true", 4))
		return s + 4;
	if (!strncmp(s, "false", 5))
		return s + 5;
	if (!strncmp(s, "null", 4))
		return s + 4;
	return jnumber(s);
}

static int json_valid(const char *s)
{
	s = s ? jvalue(s, 0) : NULL;
	return s && *ws(s) == 0;
}

#define CHECK_HAS(hay, needle)                                                                     \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (!h_ || !strstr(h_, n_)) {                                                      \
			printf("#   %s:%d: output lacks: %s\n", __FILE__, __LINE__, n_);           \
			test_failed_checks++;                                                      \
			test_case_failed = 1;                                                      \
		}                                                                                  \
	} while (0)

static const char *std_path;

static void test_json(void)
{
	const char *args[] = {std_path, "--json", NULL};
	char *out = NULL, *err = NULL, expect[300];
	const char *a, *b, *c, *d, *e;
	uint64_t sb_dur = 1;

	CHECK_EQ_U64(run_info(args, &out, &err), 0);
	CHECK(json_valid(out));
	CHECK_STR(err, "");
	CHECK_HAS(out, "\"complete\": true,\n");
	CHECK_HAS(out, "\"lost_events\": 17,\n");
	CHECK_HAS(out, "\"launches\": 1024,\n");
	CHECK_HAS(out, "\"events_by_kind\": {\"launch\": 1024, \"copy\": 19, \"memset\": 2, "
		       "\"alloc\": 2, \"free\": 1, \"sync\": 4, \"sched\": 5, \"stack\": 110, "
		       "\"graph\": 0},\n");
	for (uint64_t i = 0; i < 1000; i++)
		sb_dur += i % 5 < 3 ? 2000 + i : 0;
	snprintf(expect, sizeof(expect),
		 "{\n      \"name\": \"scale_bias(float*, float, int)\",\n      \"count\": 601,\n"
		 "      \"executed\": 601,\n"
		 "      \"api_ns\": %" PRIu64 ",\n      \"configs\": [\n        {\"grid\": [70000, "
		 "3, 2], \"block\": [32, 4, 2], \"cluster\": null, \"shared_mem\": 128, \"count\": "
		 "601, \"executed\": "
		 "601}\n      ]\n    }",
		 sb_dur);
	CHECK_HAS(out, expect);
	CHECK_HAS(out, "\"name\": \"gemm(float const*, float const*, float*, int, int, int)\",\n"
		       "      \"count\": 401,");
	CHECK_HAS(out, "{\"grid\": [1, 1, 1], \"block\": [64, 1, 1], \"cluster\": null, "
		       "\"shared_mem\": 0, "
		       "\"count\": 10, \"executed\": 10}");
	CHECK_HAS(out, "{\"grid\": [4, 1, 1], \"block\": [32, 1, 1], \"cluster\": null, "
		       "\"shared_mem\": 0, "
		       "\"count\": 7, \"executed\": 7}");
	/* kernels by count, descending */
	a = strstr(out, "\"name\": \"scale_bias");
	b = strstr(out, "\"name\": \"gemm");
	c = strstr(out, "\"name\": \"func 0xccc0\"");
	d = strstr(out, "\"name\": \"softmax(float*)\"");
	e = strstr(out, "\"name\": \"vecAdd(float*, float*, float*, int)\"");
	CHECK(a && b && c && d && e && a < b && b < c && c < d && d < e);
	/* the default copy resolves to H2H: its addresses are in no recorded allocation */
	CHECK_HAS(out, "{\"kind\": \"H2H\", \"count\": 2, \"bytes\": 107, \"dur_ns\": 20000}");
	CHECK_HAS(out,
		  "{\"kind\": \"H2D\", \"count\": 12, \"bytes\": 50331648, \"dur_ns\": 120000}");
	CHECK_HAS(out, "{\"kind\": \"D2H\", \"count\": 3, \"bytes\": 3000, \"dur_ns\": 30000}");
	CHECK_HAS(out, "{\"kind\": \"D2D\", \"count\": 2, \"bytes\": 128, \"dur_ns\": 20000}");
	CHECK(!strstr(out, "{\"kind\": \"default\""));
	CHECK_HAS(out, "{\"kind\": \"device\", \"count\": 3, \"dur_ns\": 3000}");
	CHECK_HAS(out, "{\"kind\": \"stream\", \"count\": 1, \"dur_ns\": 500}");
	CHECK_HAS(out, "{\"kind\": \"host-pinned\", \"count\": 1, \"bytes\": 4096, \"dur_ns\": 0}");
	CHECK_HAS(out, "\"processes\": [\n    {\"pid\": 100, \"comm\": \"train\", \"launches\": "
		       "1017, \"ppid\": 1, \"exe\": \"/usr/bin/train\", \"exit_status\": 1},\n"
		       "    {\"pid\": 200, \"comm\": \"worker\", \"launches\": 7, \"ppid\": 100, "
		       "\"exe\": \"/usr/bin/train\", \"exit_status\": 0}\n  ]");
	CHECK_HAS(out,
		  "\"threads\": [\n"
		  "    {\"pid\": 100, \"tid\": 100, \"comm\": \"train\", \"launches\": 0},\n"
		  "    {\"pid\": 100, \"tid\": 101, \"comm\": \"train\", \"launches\": 512},\n"
		  "    {\"pid\": 100, \"tid\": 102, \"comm\": \"loader\", \"launches\": 505},\n"
		  "    {\"pid\": 200, \"tid\": 200, \"comm\": \"worker\", \"launches\": 7}\n  ]");
	CHECK_HAS(
	    out,
	    "\"streams\": [\n    {\"pid\": 100, \"stream\": \"0x1234\", \"launches\": 1012},\n");
	CHECK_HAS(out, "{\"pid\": 100, \"stream\": \"0x0\", \"launches\": 5}");
	CHECK_HAS(out, "{\"pid\": 200, \"stream\": \"0x9999\", \"launches\": 7}");
	CHECK_HAS(out, "\"losses\": [\n    {\"source\": \"ringbuf\", \"count\": 17, \"ts_ns\": "
		       "1000000300000, \"ts_end_ns\": 1000000400000}\n  ]");
	CHECK_HAS(out, "\"command\": \"./train --steps 10\",");
	CHECK_HAS(out, "\"host\": \"testhost\",");
	CHECK_HAS(out, "\"start_time\": \"2023-11-14T22:13:20.123Z\",");
	CHECK_HAS(out, "\"session_id\": \"deadbeef000000000000000000000000\",");
	CHECK_HAS(out, "\"duration_ns\": 2000000,\n");
	CHECK_HAS(out, "\"exit_status\": 1,\n  \"stop_reason\": \"exit\",\n  \"call_graph\": "
		       "\"fp\",\n  \"mmap_hook\": null,\n  \"attached\": false,\n");
	CHECK_HAS(out, "\"cuda_libraries\": [\n    \"/usr/local/cuda/lib64/libcudart.so.13\"\n  ]");
	CHECK_HAS(out, "\"integrity\": {\n    \"complete\": true,\n    \"footer_present\": true,");
	CHECK_HAS(out,
		  "\"first_problem\": null,\n    \"damaged\": false,\n    \"truncated\": false,\n"
		  "    \"session_end\": true,\n    \"partial_chunk_offset\": null,\n"
		  "    \"unnamed_kernels\": 0,\n    \"libraries_lost\": false,\n"
		  "    \"lower_bounds\": true\n  }\n}\n");
	free(out);
	free(err);
}

static void test_text(void)
{
	const char *args[] = {std_path, NULL};
	char *out = NULL, *err = NULL;

	CHECK_EQ_U64(run_info(args, &out, &err), 0);
	CHECK_STR(err, "");
	CHECK_HAS(out, "  command      ./train --steps 10\n");
	CHECK_HAS(out, "  host         testhost, kernel 6.18.0-test\n");
	CHECK_HAS(out, "  duration     0.002 s\n");
	CHECK_HAS(out, "  exit status  1\n");
	CHECK_HAS(out, "       100        1 train                  1017  exit 1\n");
	CHECK_HAS(out, "  CUDA libs    /usr/local/cuda/lib64/libcudart.so.13\n");
	CHECK_HAS(out, "  launch           1024\n");
	CHECK_HAS(out, "  stack             110  (events with a stack)\n");
	CHECK_HAS(out, "kernels: 5 distinct\n");
	CHECK_HAS(out, "         601   58.7%  scale_bias(float*, float, int)\n");
	CHECK_HAS(out, "(70000,3,2) (32,4,2) 128: 601\n");
	CHECK_HAS(out,
		  "  H2D                        12 calls     48.0 MiB     120.0 us in the API\n");
	CHECK_HAS(out, "losses: 17 events lost\n  ringbuf                17 events  0.000300 s .. "
		       "0.000400 s\n");
	CHECK_HAS(out, "\nintegrity: complete\n");
	free(out);
	free(err);
}

static void test_truncated(void)
{
	const char *path = tmp_path("trunc.trc");
	const char *targs[] = {path, NULL}, *jargs[] = {path, "--json", NULL};
	char *out = NULL, *err = NULL;
	struct stat sb;

	CHECK(synth_write(path, 4096) == 0);
	CHECK(stat(path, &sb) == 0);
	CHECK(truncate(path, sb.st_size * 2 / 3) == 0);
	CHECK_EQ_U64(run_info(targs, &out, &err), 0);
	CHECK_HAS(out, "\nintegrity: recovered ");
	CHECK_HAS(out, "  launch ");
	free(out);
	free(err);
	CHECK_EQ_U64(run_info(jargs, &out, &err), 0);
	CHECK(json_valid(out));
	CHECK_HAS(out, "\"complete\": false,\n");
	CHECK_HAS(out, "\"footer_present\": false,");
	free(out);
	free(err);
}

static void test_errors(void)
{
	const char *junk = tmp_path("junk.trc"), *missing = tmp_path("missing.trc");
	const char *a1[] = {junk, NULL}, *a2[] = {missing, "--json", NULL};
	const char *a3[] = {"--bogus", NULL}, *a4[] = {junk, junk, NULL};
	char *out = NULL, *err = NULL, prefix[300];
	FILE *f = fopen(junk, "w");

	CHECK(f != NULL);
	if (f) {
		fputs("not a trace at all, just text that is long enough to hold a header\n", f);
		fclose(f);
	}
	CHECK_EQ_U64(run_info(a1, &out, &err), 1);
	CHECK_STR(out, "");
	snprintf(prefix, sizeof(prefix), "gpurec info: %s: ", junk);
	CHECK(err && !strncmp(err, prefix, strlen(prefix)));
	CHECK_HAS(err, " (offset ");
	CHECK(err && strchr(err, '\n') == err + strlen(err) - 1); /* one line */
	free(out);
	free(err);

	CHECK_EQ_U64(run_info(a2, &out, &err), 1);
	CHECK_STR(out, "");
	snprintf(prefix, sizeof(prefix), "gpurec info: %s: ", missing);
	CHECK(err && !strncmp(err, prefix, strlen(prefix)));
	CHECK_HAS(err, "No such file or directory (record one with: sudo gpurec record -- CMD)\n");
	free(out);
	free(err);

	CHECK_EQ_U64(run_info(a3, &out, &err), 2);
	free(out);
	free(err);
	/* two files are one job: the first that is no trace is named, exit 1 */
	CHECK_EQ_U64(run_info(a4, &out, &err), 1);
	snprintf(prefix, sizeof(prefix), "gpurec info: %s: ", junk);
	CHECK(err && !strncmp(err, prefix, strlen(prefix)));
	free(out);
	free(err);
}

/*
 * One definition of a failed call (gr_call_failed) in record and info: NCCL calls that returned
 * ncclSuccess or ncclInProgress (7, a non-blocking communicator's queued call) are done, one that
 * returned ncclInvalidArgument failed, and so did a launch that returned cudaErrorNoDevice (100);
 * an NCCL call nested in another and one in flight are neither. record's counter, fed the rows
 * written, counts what info counts: 4 returned, 2 failed.
 */
static void test_failed_calls(void)
{
	static const struct {
		uint64_t api, status, call;
	} rows[] = {
	    {GR_API_ncclAllReduce, 0, GR_CALL_RETURNED},
	    {GR_API_ncclAllReduce, GR_NCCL_IN_PROGRESS, GR_CALL_RETURNED},
	    {GR_API_ncclAllReduce, 4, GR_CALL_RETURNED},
	    {GR_API_ncclSend, 4, GR_CALL_RETURNED | 1u << GR_CALL_DEPTH_SHIFT},
	    {GR_API_ncclRecv, 0, GR_CALL_IN_FLIGHT},
	};
	const char *path = tmp_path("failed.trc"), *args[] = {path, "--json", NULL};
	struct gr_call_status cs = {0};
	struct gr_trace_writer *w = NULL;
	char *out = NULL, *err = NULL;
	int e;

	CHECK(gr_call_failed(GR_API_ncclAllReduce, GR_CALL_RETURNED, 4));
	CHECK(!gr_call_failed(GR_API_ncclAllReduce, GR_CALL_RETURNED, GR_NCCL_IN_PROGRESS));
	CHECK(gr_call_failed(GR_API_cudaLaunchKernel, GR_CALL_RETURNED, GR_NCCL_IN_PROGRESS));
	CHECK(!gr_call_failed(GR_API_cudaLaunchKernel, 0, 100)); /* no status seen */
	e = synth_open(&w, path, 4096);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && !e; i++) {
		uint64_t v[GR_COMM_NCOLS] = {
		    [GR_COMM_TS] = SYNTH_T0 + 1000 * (i + 1),
		    [GR_COMM_DUR] = 100,
		    [GR_COMM_PID] = 100,
		    [GR_COMM_TID] = 101,
		    [GR_COMM_API] = rows[i].api,
		    [GR_COMM_KIND] = GR_COMM_ALL_REDUCE,
		    [GR_COMM_PEER] = GR_COMM_NO_PEER,
		    [GR_COMM_STATUS] = rows[i].status,
		    [GR_COMM_CALL] = rows[i].call,
		};

		e = gr_trace_writer_append(w, GR_K_COMM, v, NULL);
		gr_call_status_note(&cs, (unsigned)rows[i].api, (uint32_t)rows[i].status,
				    rows[i].call);
	}
	if (!e) {
		uint64_t v[GR_LAUNCH_NCOLS] = {
		    [GR_LAUNCH_TS] = SYNTH_T0 + 9000,
		    [GR_LAUNCH_PID] = 100,
		    [GR_LAUNCH_TID] = 101,
		    [GR_LAUNCH_API] = GR_API_cudaLaunchKernel,
		    [GR_LAUNCH_FUNC] = 0xAAA0,
		    [GR_LAUNCH_GX] = 1,
		    [GR_LAUNCH_GY] = 1,
		    [GR_LAUNCH_GZ] = 1,
		    [GR_LAUNCH_BX] = 1,
		    [GR_LAUNCH_BY] = 1,
		    [GR_LAUNCH_BZ] = 1,
		    [GR_LAUNCH_STATUS] = 100,
		    [GR_LAUNCH_CALL] = GR_CALL_RETURNED,
		};

		e = gr_trace_writer_append(w, GR_K_LAUNCH, v, NULL);
		gr_call_status_note(&cs, GR_API_cudaLaunchKernel, 100, GR_CALL_RETURNED);
	}
	CHECK(e == 0);
	CHECK(gr_trace_writer_close(w) == 0);
	CHECK_EQ_U64(cs.returned, 4);
	CHECK_EQ_U64(cs.failed, 2);
	gr_call_status_free(&cs);

	CHECK_EQ_U64(run_info(args, &out, &err), 0);
	CHECK_HAS(out, "\"calls\": {\"ok\": 2, \"failed\": 2, \"status_unknown\": 0");
	free(out);
	free(err);
}

/* A switch record of @tid (pid 100) at T0 + @us us: out (prev_state 1, asleep) or in. */
static int sched_rec(struct gr_trace_writer *w, uint64_t us, int out)
{
	uint64_t v[GR_SCHED_NCOLS] = {
	    [GR_SCHED_TS] = SYNTH_T0 + us * 1000, [GR_SCHED_CPU] = 1,
	    [GR_SCHED_TYPE] = GR_SCHED_SWITCH,	  [GR_SCHED_PREV_PID] = out ? 100 : 0,
	    [GR_SCHED_PREV_TID] = out ? 101 : 0,  [GR_SCHED_PREV_STATE] = out ? 1 : 0,
	    [GR_SCHED_NEXT_PID] = out ? 0 : 100,  [GR_SCHED_NEXT_TID] = out ? 0 : 101};

	return gr_trace_writer_append(w, GR_K_SCHED, v, NULL);
}

/*
 * A recording that lost switches no counter saw: thread 101 goes to sleep at 10 us and again at
 * 30 us (its switch-in between is missing), then on its CPU at 40 us and again at 50 us (its
 * switch-out is). info says 2 switches missing, and "losses" is not "none".
 */
static void test_switches_missing(void)
{
	const uint32_t one[3] = {1, 1, 1};
	const char *path = tmp_path("missing.trc");
	const char *text[] = {path, NULL}, *json[] = {path, "--json", NULL};
	struct gr_trace_writer *w;
	char *out = NULL, *err = NULL;
	int e;

	CHECK(synth_open(&w, path, 4096) == 0);
	e = synth_launch(w, SYNTH_T0, 100, 101, 0x1000, one, one, 0, 0, 0, 0);
	e |= sched_rec(w, 10, 1);
	e |= sched_rec(w, 30, 1);
	e |= sched_rec(w, 40, 0);
	e |= sched_rec(w, 50, 0);
	e |= sched_rec(w, 60, 1);
	CHECK(!e && !gr_trace_writer_close(w));
	CHECK_EQ_U64(run_info(json, &out, &err), 0);
	CHECK_HAS(out, "\"switches_missing\": 2,");
	free(out);
	free(err);
	CHECK_EQ_U64(run_info(text, &out, &err), 0);
	CHECK_HAS(out, "losses: 0 events lost\n  sched                   2 switches  not recorded, "
		       "by the threads' "
		       "own sequences (the states before them: unknown)\n");
	free(out);
	free(err);
}

/*
 * The gpurec binary gives the same output as cmd_info() here: it links record/ too, where a
 * clashing global symbol once replaced one of analyze/'s.
 */
static void test_binary(void)
{
	const char *bin = getenv("GPUREC") ? getenv("GPUREC") : "./gpurec";
	const char *args[] = {std_path, "--json", NULL};
	char cmd[600], *out = NULL, *err = NULL, *bout;

	if (access(bin, X_OK)) {
		printf("# %s not built: skipped\n", bin);
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' info '%s' --json > '%s/bin.txt' 2>&1", bin, std_path, dir);
	CHECK_EQ_U64(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/bin.txt", dir);
	bout = slurp(cmd);
	CHECK_EQ_U64(run_info(args, &out, &err), 0);
	CHECK_STR(bout, out);
	free(bout);
	free(out);
	free(err);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	std_path = strdup(tmp_path("std.trc"));
	if (synth_write(std_path, 4096)) {
		printf("not ok - writing the synthetic trace\n");
		return 1;
	}
	RUN_TEST(test_json);
	RUN_TEST(test_text);
	RUN_TEST(test_truncated);
	RUN_TEST(test_errors);
	RUN_TEST(test_failed_calls);
	RUN_TEST(test_switches_missing);
	RUN_TEST(test_binary);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	free((char *)std_path);
	TEST_EXIT();
}
