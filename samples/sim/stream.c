/* SPDX-License-Identifier: MIT */
/*
 * gpusim streams and events: the per-stream FIFO queues of the time model (see gpusim.c), the
 * legacy and per-thread default streams, every call that records, waits or synchronises, and
 * stream capture (which streams feed which graph; graph.c holds the graphs).
 */
#include <stdlib.h>

#include "gpusim.h"

struct sim_stream {
	struct sim_stream *next; /* registry: every stream but the legacy one */
	unsigned int flags;
	int blocking; /* synchronises with the legacy default stream */
	int user;     /* created by cudaStreamCreate*, so cudaStreamDestroy may free it */
	int priority;
	unsigned long long id;
	struct sim_graph *capture;	/* the graph this stream's work goes to, or NULL */
	int capture_origin;		/* capture began here (others joined through events) */
	uint64_t tail;			/* end of the last operation queued */
	uint64_t ring[SIM_QUEUE_DEPTH]; /* ends of queued operations, oldest at head */
	unsigned int head, count;
};

struct sim_event {
	struct sim_event *next;
	unsigned int flags;
	int recorded;
	uint64_t t; /* when the device reaches the event: end of the work queued before it */
	/* recorded on a capturing stream: a point in that graph, which a wait joins */
	struct sim_graph *capture;
};

static struct sim_stream legacy = {.id = 1};
static struct sim_stream *streams;
static struct sim_event *events;
static unsigned long long next_stream_id = 3;
/* Work of destroyed streams still completes, and the device still waits for it. */
static uint64_t orphan_tail, orphan_blocking_tail;
static __thread struct sim_stream *thread_stream;

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Called with the lock held. NULL for a handle the simulator never handed out. */
static struct sim_stream *stream_get(cudaStream_t h, int per_thread)
{
	struct sim_stream *s;

	if (!h)
		h = per_thread ? cudaStreamPerThread : cudaStreamLegacy;
	if (h == cudaStreamLegacy)
		return &legacy;
	if (h == cudaStreamPerThread) {
		if (!thread_stream) {
			thread_stream = calloc(1, sizeof(*thread_stream));
			if (!thread_stream)
				return NULL;
			/* a per-thread default stream is blocking: it syncs with the legacy one */
			thread_stream->blocking = 1;
			thread_stream->id = 2;
			thread_stream->next = streams;
			streams = thread_stream;
		}
		return thread_stream;
	}
	for (s = streams; s; s = s->next)
		if ((void *)s == (void *)h)
			return s;
	return NULL;
}

static struct sim_event *event_get(cudaEvent_t h)
{
	for (struct sim_event *e = events; e; e = e->next)
		if ((void *)e == (void *)h)
			return e;
	return NULL;
}

/* Earliest start of the next operation on s: FIFO order plus legacy-stream semantics. */
static uint64_t stream_deps(const struct sim_stream *s)
{
	uint64_t t = s->tail;

	if (s == &legacy) {
		for (struct sim_stream *o = streams; o; o = o->next)
			if (o->blocking)
				t = max_u64(t, o->tail);
		t = max_u64(t, orphan_blocking_tail);
	} else if (s->blocking) {
		t = max_u64(t, legacy.tail);
	}
	return t;
}

cudaError_t sim_submit(cudaStream_t h, int per_thread, uint64_t ready, uint64_t dur, uint64_t *end)
{
	struct sim_stream *s;
	uint64_t start, now, oldest;

	for (;;) {
		sim_lock();
		s = stream_get(h, per_thread);
		if (!s) {
			sim_unlock();
			return cudaErrorInvalidResourceHandle;
		}
		now = sim_now();
		while (s->count && s->ring[s->head] <= now) {
			s->head = (s->head + 1) % SIM_QUEUE_DEPTH;
			s->count--;
		}
		if (s->count < SIM_QUEUE_DEPTH)
			break;
		oldest = s->ring[s->head];
		sim_unlock();
		sim_wait_until(oldest);
	}
	start = max_u64(ready, stream_deps(s));
	s->tail = start + dur;
	s->ring[(s->head + s->count) % SIM_QUEUE_DEPTH] = s->tail;
	s->count++;
	*end = s->tail;
	sim_unlock();
	return cudaSuccess;
}

uint64_t sim_device_tail(void)
{
	uint64_t t;

	sim_lock();
	t = max_u64(legacy.tail, orphan_tail);
	for (struct sim_stream *s = streams; s; s = s->next)
		t = max_u64(t, s->tail);
	sim_unlock();
	return t;
}

/* --- streams --- */

static cudaError_t stream_create(cudaStream_t *out, unsigned int flags, int priority)
{
	uint64_t t0 = sim_now();
	struct sim_stream *s;

	if (!out)
		return sim_fail(cudaErrorInvalidValue);
	s = calloc(1, sizeof(*s));
	if (!s)
		return sim_fail(cudaErrorMemoryAllocation);
	s->flags = flags;
	s->blocking = !(flags & cudaStreamNonBlocking);
	s->user = 1;
	s->priority = priority;
	sim_lock();
	s->id = next_stream_id++;
	s->next = streams;
	streams = s;
	sim_unlock();
	*out = (cudaStream_t)(void *)s;
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
	return stream_create(pStream, cudaStreamDefault, 0);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
	return stream_create(pStream, flags, 0);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
	return stream_create(pStream, flags, priority);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	uint64_t t0 = sim_now();
	struct sim_stream **p;

	sim_lock();
	for (p = &streams; *p; p = &(*p)->next)
		if ((void *)*p == (void *)stream && (*p)->user)
			break;
	if (!*p) {
		sim_unlock();
		return sim_fail(cudaErrorInvalidResourceHandle);
	}
	struct sim_stream *s = *p;

	*p = s->next;
	orphan_tail = max_u64(orphan_tail, s->tail);
	if (s->blocking)
		orphan_blocking_tail = max_u64(orphan_blocking_tail, s->tail);
	sim_unlock();
	free(s);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

static cudaError_t stream_sync(cudaStream_t h, int per_thread)
{
	uint64_t t0 = sim_now(), t;
	struct sim_stream *s;

	int capturing;

	sim_lock();
	s = stream_get(h, per_thread);
	t = s ? s->tail : 0;
	capturing = s && s->capture;
	sim_unlock();
	if (!s)
		return sim_fail(cudaErrorInvalidResourceHandle);
	if (capturing)
		return sim_fail(cudaErrorStreamCaptureUnsupported);
	sim_wait_until(max_u64(t, t0 + sim_sync_ns));
	return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	return stream_sync(stream, 0);
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
	return stream_sync(stream, 1);
}

cudaError_t cudaDeviceSynchronize(void)
{
	uint64_t t0 = sim_now();

	sim_wait_until(max_u64(sim_device_tail(), t0 + sim_sync_ns));
	return cudaSuccess;
}

static cudaError_t stream_query(cudaStream_t h, int per_thread)
{
	struct sim_stream *s;
	uint64_t t;

	sim_lock();
	s = stream_get(h, per_thread);
	t = s ? s->tail : 0;
	sim_unlock();
	if (!s)
		return sim_fail(cudaErrorInvalidResourceHandle);
	return sim_now() >= t ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	return stream_query(stream, 0);
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
	return stream_query(stream, 1);
}

/* Reads one property of a stream; which: 0 flags, 1 id, 2 priority. */
static cudaError_t stream_info(cudaStream_t h, int per_thread, int which, void *out)
{
	struct sim_stream *s;

	if (!out)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	s = stream_get(h, per_thread);
	if (s && which == 0)
		*(unsigned int *)out = s->flags;
	else if (s && which == 1)
		*(unsigned long long *)out = s->id;
	else if (s)
		*(int *)out = s->priority;
	sim_unlock();
	return s ? cudaSuccess : sim_fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
	return stream_info(hStream, 0, 0, flags);
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
	return stream_info(hStream, 1, 0, flags);
}

cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
	return stream_info(hStream, 0, 1, streamId);
}

cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId)
{
	return stream_info(hStream, 1, 1, streamId);
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
	return stream_info(hStream, 0, 2, priority);
}

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
	return stream_info(hStream, 1, 2, priority);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
	if (leastPriority)
		*leastPriority = 0;
	if (greatestPriority)
		*greatestPriority = -5;
	return cudaSuccess;
}

/* --- events --- */

static cudaError_t event_create(cudaEvent_t *out, unsigned int flags)
{
	uint64_t t0 = sim_now();
	struct sim_event *e;

	if (!out)
		return sim_fail(cudaErrorInvalidValue);
	e = calloc(1, sizeof(*e));
	if (!e)
		return sim_fail(cudaErrorMemoryAllocation);
	e->flags = flags;
	sim_lock();
	e->next = events;
	events = e;
	sim_unlock();
	*out = (cudaEvent_t)(void *)e;
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return event_create(event, cudaEventDefault);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	return event_create(event, flags);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	uint64_t t0 = sim_now();
	struct sim_event **p, *e = NULL;

	sim_lock();
	for (p = &events; *p; p = &(*p)->next)
		if ((void *)*p == (void *)event) {
			e = *p;
			*p = e->next;
			break;
		}
	sim_unlock();
	if (!e)
		return sim_fail(cudaErrorInvalidResourceHandle);
	free(e);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

static cudaError_t event_record(cudaEvent_t event, cudaStream_t stream, int per_thread)
{
	uint64_t t0 = sim_now(), end;
	struct sim_event *e;
	cudaError_t err;

	struct sim_stream *s;

	sim_lock();
	e = event_get(event);
	s = stream_get(stream, per_thread);
	if (e && s && s->capture) {
		/* in a capture the event marks a point of the graph: a stream waiting on it joins
		 */
		e->capture = s->capture;
		sim_unlock();
		sim_spin_until(t0 + sim_api_ns);
		return cudaSuccess;
	}
	sim_unlock();
	if (!e)
		return sim_fail(cudaErrorInvalidResourceHandle);
	/* an event is a zero-length operation: it completes when the work before it does */
	err = sim_submit(stream, per_thread, t0 + sim_api_ns, 0, &end);
	if (err)
		return sim_fail(err);
	sim_lock();
	e = event_get(event);
	if (e) {
		e->t = end;
		e->recorded = 1;
	}
	sim_unlock();
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	return event_record(event, stream, 0);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
	return event_record(event, stream, 1);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
	return event_record(event, stream, 0);
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
					  unsigned int flags)
{
	return event_record(event, stream, 1);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	uint64_t t0 = sim_now(), t = 0;
	struct sim_event *e;

	sim_lock();
	e = event_get(event);
	if (e && e->recorded)
		t = e->t;
	sim_unlock();
	if (!e)
		return sim_fail(cudaErrorInvalidResourceHandle);
	sim_wait_until(max_u64(t, t0 + sim_sync_ns));
	return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
	uint64_t t = 0;
	struct sim_event *e;

	sim_lock();
	e = event_get(event);
	if (e && e->recorded)
		t = e->t;
	sim_unlock();
	if (!e)
		return sim_fail(cudaErrorInvalidResourceHandle);
	return sim_now() >= t ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	struct sim_event *a, *b;
	cudaError_t err = cudaSuccess;
	uint64_t ta = 0, tb = 0;

	if (!ms)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	a = event_get(start);
	b = event_get(end);
	if (!a || !b || !a->recorded || !b->recorded ||
	    ((a->flags | b->flags) & cudaEventDisableTiming))
		err = cudaErrorInvalidResourceHandle;
	else {
		ta = a->t;
		tb = b->t;
	}
	sim_unlock();
	if (err)
		return sim_fail(err);
	if (sim_now() < max_u64(ta, tb))
		return sim_fail(cudaErrorNotReady);
	*ms = (float)(((double)tb - (double)ta) / 1e6);
	return cudaSuccess;
}

static cudaError_t stream_wait_event(cudaStream_t stream, cudaEvent_t event, int per_thread)
{
	uint64_t t0 = sim_now();
	struct sim_stream *s;
	struct sim_event *e;

	sim_lock();
	s = stream_get(stream, per_thread);
	e = event_get(event);
	/* later work on s starts after the event; an unrecorded event is already complete */
	if (s && e && e->capture)
		s->capture = e->capture; /* s joins the capture: its work goes to the graph */
	else if (s && e && e->recorded)
		s->tail = max_u64(s->tail, e->t);
	sim_unlock();
	if (!s || !e)
		return sim_fail(cudaErrorInvalidResourceHandle);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	return stream_wait_event(stream, event, 0);
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	return stream_wait_event(stream, event, 1);
}

/* --- stream capture --- */

cudaError_t sim_capture(cudaStream_t h, int per_thread, const struct sim_node *node, int *captured)
{
	struct sim_stream *s;
	cudaError_t err = cudaSuccess;

	*captured = 0;
	sim_lock();
	s = stream_get(h, per_thread);
	if (!s)
		err = cudaErrorInvalidResourceHandle;
	else if (s->capture && !node)
		err = cudaErrorStreamCaptureUnsupported;
	else if (s->capture) {
		err = sim_graph_append_locked(s->capture, node, NULL);
		*captured = !err;
	}
	sim_unlock();
	return err;
}

static cudaError_t begin_capture(cudaStream_t h, int per_thread)
{
	uint64_t t0 = sim_now();
	struct sim_stream *s;
	cudaError_t err = cudaSuccess;

	sim_lock();
	s = stream_get(h, per_thread);
	if (!s)
		err = cudaErrorInvalidResourceHandle;
	else if (s == &legacy) /* the legacy stream cannot be captured */
		err = cudaErrorStreamCaptureUnsupported;
	else if (s->capture)
		err = cudaErrorIllegalState;
	else if (!(s->capture = sim_graph_new_locked()))
		err = cudaErrorMemoryAllocation;
	else
		s->capture_origin = 1;
	sim_unlock();
	if (err)
		return sim_fail(err);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
	return begin_capture(stream, 0);
}

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
	return begin_capture(stream, 1);
}

/* Ends the capture begun on h: every stream that joined it stops capturing too. */
static cudaError_t end_capture(cudaStream_t h, int per_thread, cudaGraph_t *out)
{
	uint64_t t0 = sim_now();
	struct sim_stream *s;
	struct sim_graph *g = NULL;
	cudaError_t err = cudaSuccess;

	if (!out)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	s = stream_get(h, per_thread);
	if (!s)
		err = cudaErrorInvalidResourceHandle;
	else if (!s->capture)
		err = cudaErrorIllegalState;
	else if (!s->capture_origin)
		err = cudaErrorStreamCaptureUnmatched;
	if (!err) {
		g = s->capture;
		for (struct sim_stream *o = streams; o; o = o->next)
			if (o->capture == g) {
				o->capture = NULL;
				o->capture_origin = 0;
			}
		for (struct sim_event *e = events; e; e = e->next)
			if (e->capture == g)
				e->capture = NULL;
	}
	sim_unlock();
	if (err)
		return sim_fail(err);
	*out = (cudaGraph_t)(void *)g;
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
	return end_capture(stream, 0, pGraph);
}

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
	return end_capture(stream, 1, pGraph);
}

static cudaError_t is_capturing(cudaStream_t h, int per_thread,
				enum cudaStreamCaptureStatus *status)
{
	struct sim_stream *s;

	if (!status)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	s = stream_get(h, per_thread);
	if (s)
		*status = s->capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
	sim_unlock();
	return s ? cudaSuccess : sim_fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
	return is_capturing(stream, 0, pCaptureStatus);
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
				       enum cudaStreamCaptureStatus *pCaptureStatus)
{
	return is_capturing(stream, 1, pCaptureStatus);
}
