/* SPDX-License-Identifier: MIT */
/*
 * The BPF ring buffer's consumer side, read straight from its mmap. libbpf's consumer
 * publishes its position after every record; the producer (a traced thread, inside a uprobe)
 * reads that position on every reserve, so a per-record store bounces a cache line between the
 * CPUs for every event drained. Publishing once per batch, as perf does with its tail, keeps
 * the drain off the traced program's hot path.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "ringbuf.h"

#define HDR_SIZE      8 /* u32 len (+ busy/discard bits), u32 page offset */
#define PUBLISH_EVERY (256u << 10)

struct gr_ringbuf {
	int map_fd, epoll_fd;
	size_t page, size;
	unsigned long *consumer_pos; /* rw page */
	unsigned long *producer_pos; /* first ro page */
	uint8_t *data;		     /* 2 x size, so a record never wraps */
	void *ro_base;
};

int gr_ringbuf_open(struct gr_ringbuf **out, int map_fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct epoll_event ev = {.events = EPOLLIN};
	struct gr_ringbuf *rb;
	int err;

	*out = NULL;
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	rb = calloc(1, sizeof(*rb));
	if (!rb)
		return -ENOMEM;
	rb->map_fd = map_fd;
	rb->epoll_fd = -1;
	rb->page = sysconf(_SC_PAGESIZE);
	rb->size = info.max_entries;
	rb->consumer_pos = mmap(NULL, rb->page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (rb->consumer_pos == MAP_FAILED) {
		rb->consumer_pos = NULL;
		err = -errno;
		goto err;
	}
	rb->ro_base = mmap(NULL, rb->page + 2 * rb->size, PROT_READ, MAP_SHARED, map_fd, rb->page);
	if (rb->ro_base == MAP_FAILED) {
		rb->ro_base = NULL;
		err = -errno;
		goto err;
	}
	rb->producer_pos = rb->ro_base;
	rb->data = (uint8_t *)rb->ro_base + rb->page;
	rb->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (rb->epoll_fd < 0 || epoll_ctl(rb->epoll_fd, EPOLL_CTL_ADD, map_fd, &ev)) {
		err = -errno;
		goto err;
	}
	*out = rb;
	return 0;
err:
	gr_ringbuf_free(rb);
	return err;
}

void gr_ringbuf_free(struct gr_ringbuf *rb)
{
	if (!rb)
		return;
	if (rb->epoll_fd >= 0)
		close(rb->epoll_fd);
	if (rb->ro_base)
		munmap(rb->ro_base, rb->page + 2 * rb->size);
	if (rb->consumer_pos)
		munmap(rb->consumer_pos, rb->page);
	free(rb);
}

int gr_ringbuf_watch(struct gr_ringbuf *rb, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(rb->epoll_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int gr_ringbuf_wait(struct gr_ringbuf *rb, int timeout_ms)
{
	struct epoll_event ev;
	int n = epoll_wait(rb->epoll_fd, &ev, 1, timeout_ms);

	return n < 0 && errno != EINTR ? -errno : 0;
}

int64_t gr_ringbuf_consume(struct gr_ringbuf *rb, gr_ringbuf_fn fn, void *ctx)
{
	unsigned long cons = __atomic_load_n(rb->consumer_pos, __ATOMIC_ACQUIRE);
	unsigned long published = cons, prod;
	int64_t n = 0;

	for (;;) {
		prod = __atomic_load_n(rb->producer_pos, __ATOMIC_ACQUIRE);
		if (cons >= prod)
			break;
		while (cons < prod) {
			uint32_t *hdr = (uint32_t *)(rb->data + (cons & (rb->size - 1)));
			uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

			/* reserved, not yet submitted: everything after it waits too */
			if (len & BPF_RINGBUF_BUSY_BIT)
				goto out;
			cons += (HDR_SIZE + (len & ~BPF_RINGBUF_DISCARD_BIT) + 7) & ~7ul;
			if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
				fn(ctx, hdr + 2, len);
				n++;
			}
			if (cons - published >= PUBLISH_EVERY) {
				__atomic_store_n(rb->consumer_pos, cons, __ATOMIC_RELEASE);
				published = cons;
			}
		}
	}
out:
	if (cons != published)
		__atomic_store_n(rb->consumer_pos, cons, __ATOMIC_RELEASE);
	return n;
}

uint64_t gr_ringbuf_backlog(const struct gr_ringbuf *rb)
{
	unsigned long prod = __atomic_load_n(rb->producer_pos, __ATOMIC_ACQUIRE);
	unsigned long cons = __atomic_load_n(rb->consumer_pos, __ATOMIC_RELAXED);

	return prod > cons ? prod - cons : 0;
}

uint64_t gr_ringbuf_size(const struct gr_ringbuf *rb)
{
	return rb->size;
}
