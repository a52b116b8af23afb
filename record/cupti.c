/* SPDX-License-Identifier: MIT */
/* `record --cupti`: the recorder's end of the channel to the injection library; see cupti.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/trace.h"
#include "cupti.h"
#include "driver.h"
#include "own_library.h"

/*
 * The pipe's size: as large as the kernel lets root make it, so the records of a burst wait
 * there while the drain sleeps. 16 MiB holds 16k records; less is taken when refused.
 */
#define PIPE_BYTES_MAX (16u << 20)
#define PIPE_BYTES_MIN (64u << 10)

int gr_cupti_find_library(char *out, size_t size)
{
	return gr_own_library(GR_CUPTI_LIBRARY, out, size);
}

/* GPUREC_TEST_CUPTI_DRIVER=1 (cupti.h): tests feed the pipe without a driver. */
static int driver_present(const struct gr_identity *id, char *why, size_t size)
{
	char detail[640];
	const char *hook = getenv("GPUREC_TEST_CUPTI_DRIVER");

	if (hook && !strcmp(hook, "1"))
		return 1;
	if (gr_driver_probe(id, detail, sizeof(detail)))
		return 1;
	snprintf(why, size, "no CUDA driver");
	return 0;
}

static void size_pipe(int fd)
{
	for (unsigned bytes = PIPE_BYTES_MAX; bytes >= PIPE_BYTES_MIN; bytes /= 2)
		if (fcntl(fd, F_SETPIPE_SZ, bytes) >= 0)
			return;
}

int gr_cupti_open(struct gr_cupti *c, const struct gr_identity *id, char *msg, size_t size)
{
	char lib[PATH_MAX * 2 + 16];
	int fds[2];

	c->rd = c->wr = -1;
	if (gr_cupti_find_library(lib, sizeof(lib))) {
		snprintf(msg, size,
			 "--cupti needs " GR_CUPTI_LIBRARY ", found neither %s (make builds it "
			 "next to gpurec)",
			 lib);
		return -ENOENT;
	}
	if (!driver_present(id, c->why, sizeof(c->why)))
		return 0;
	/* both ends non-blocking: neither the program's writes nor our drain ever wait */
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC)) {
		snprintf(msg, size, "--cupti: cannot make a pipe: %s", strerror(errno));
		return -errno;
	}
	size_pipe(fds[0]);
	/* the command inherits the write end: it stays open across exec */
	if (fcntl(fds[1], F_SETFD, 0) || asprintf(&c->env[0], GR_CUPTI_FD_ENV "=%d", fds[1]) < 0 ||
	    asprintf(&c->env[1], "CUDA_INJECTION64_PATH=%s", lib) < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		snprintf(msg, size, "--cupti: %s", strerror(-err));
		return err;
	}
	c->rd = fds[0];
	c->wr = fds[1];
	c->active = 1;
	return 0;
}

void gr_cupti_started(struct gr_cupti *c)
{
	if (c->wr >= 0)
		close(c->wr);
	c->wr = -1;
}

int gr_cupti_row(const struct gr_cupti_rec *r, uint64_t v[GR_GPU_NCOLS], struct gr_bytes *name)
{
	if (r->magic != GR_CUPTI_MAGIC || r->type != GR_CUPTI_GPU || r->kind > GR_GPU_MEMSET ||
	    r->name_len > GR_CUPTI_NAME_MAX || r->end < r->start)
		return -EINVAL;
	memset(v, 0, sizeof(uint64_t) * GR_GPU_NCOLS);
	v[GR_GPU_TS] = r->start;
	v[GR_GPU_DUR] = r->end - r->start;
	v[GR_GPU_PID] = r->pid;
	v[GR_GPU_HOST_TID] = r->host_tid;
	v[GR_GPU_HOST_TS] = r->host_ts;
	v[GR_GPU_KIND] = r->kind;
	v[GR_GPU_DEVICE] = r->device;
	v[GR_GPU_CONTEXT] = r->context;
	v[GR_GPU_STREAM] = r->stream;
	v[GR_GPU_CORRELATION] = r->correlation;
	v[GR_GPU_GRID_X] = r->grid[0];
	v[GR_GPU_GRID_Y] = r->grid[1];
	v[GR_GPU_GRID_Z] = r->grid[2];
	v[GR_GPU_BLOCK_X] = r->block[0];
	v[GR_GPU_BLOCK_Y] = r->block[1];
	v[GR_GPU_BLOCK_Z] = r->block[2];
	v[GR_GPU_SHARED] = r->shared;
	v[GR_GPU_BYTES] = r->bytes;
	v[GR_GPU_COPY_KIND] = r->copy_kind;
	v[GR_GPU_GRAPH] = r->graph;
	v[GR_GPU_GRAPH_NODE] = r->graph_node;
	name->data = (const uint8_t *)r->name;
	name->len = r->name_len;
	return 0;
}

/* A HELLO or TOTALS record: counted. */
static void control(struct gr_cupti *c, const struct gr_cupti_rec *r)
{
	if (r->type == GR_CUPTI_HELLO) {
		c->processes++;
		if (r->status && !c->refused++)
			snprintf(c->refused_text, sizeof(c->refused_text), "%.*s",
				 (int)(r->name_len < GR_CUPTI_NAME_MAX ? r->name_len : 0), r->name);
	} else {
		c->cupti_dropped += r->cupti_dropped;
		c->unwritten += r->unwritten;
	}
}

static int take(struct gr_cupti *c, struct gr_trace_writer *w, const struct gr_cupti_rec *r)
{
	uint64_t v[GR_GPU_NCOLS];
	struct gr_bytes name;
	int err;

	if (r->magic == GR_CUPTI_MAGIC &&
	    (r->type == GR_CUPTI_HELLO || r->type == GR_CUPTI_TOTALS)) {
		control(c, r);
		return 0;
	}
	if (gr_cupti_row(r, v, &name)) {
		c->bad++;
		return 0;
	}
	err = gr_trace_writer_append(w, GR_K_GPU, v, &name);
	if (!err)
		c->rows++;
	return err;
}

int gr_cupti_drain(struct gr_cupti *c, struct gr_trace_writer *w)
{
	ssize_t n;
	int err = 0;

	if (c->rd < 0)
		return 0;
	while ((n = read(c->rd, c->buf + c->have, sizeof(c->buf) - c->have)) > 0 ||
	       (n < 0 && errno == EINTR)) {
		size_t off = 0;

		c->have += n > 0 ? (size_t)n : 0;
		for (; c->have - off >= GR_CUPTI_REC_SIZE && !err; off += GR_CUPTI_REC_SIZE) {
			struct gr_cupti_rec r;

			/* the buffer holds bytes; a record is copied out before it is read */
			memcpy(&r, c->buf + off, sizeof(r));
			err = take(c, w, &r);
		}
		memmove(c->buf, c->buf + off, c->have - off);
		c->have -= off;
		if (err)
			break;
	}
	return err;
}

void gr_cupti_facts(const struct gr_cupti *c, uint64_t *recorded, char *why, size_t why_size,
		    uint64_t *dropped, char *dropped_text, size_t dropped_size)
{
	*recorded = 0;
	if (!c->active)
		snprintf(why, why_size, "%s", c->why);
	else if (!c->processes)
		snprintf(why, why_size, "no traced process initialised CUDA");
	else if (c->refused == c->processes)
		snprintf(why, why_size, "CUPTI refused: %s", c->refused_text);
	else {
		*recorded = 1;
		snprintf(why, why_size, "%" PRIu64 " processes", c->processes - c->refused);
	}
	*dropped = c->cupti_dropped + c->unwritten + c->bad;
	snprintf(dropped_text, dropped_size,
		 "%" PRIu64 " dropped by CUPTI, %" PRIu64
		 " not written (the pipe was full), %" PRIu64 " not valid",
		 c->cupti_dropped, c->unwritten, c->bad);
}

void gr_cupti_close(struct gr_cupti *c)
{
	if (c->rd >= 0)
		close(c->rd);
	if (c->wr >= 0)
		close(c->wr);
	c->rd = c->wr = -1;
	free(c->env[0]);
	free(c->env[1]);
	c->env[0] = c->env[1] = NULL;
}
