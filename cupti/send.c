/* SPDX-License-Identifier: MIT */
/* Writing records to the recorder's pipe; see send.h. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "send.h"

void gr_cupti_send_flush(struct gr_cupti_sender *s)
{
	size_t len = (size_t)s->n * sizeof(s->batch[0]);
	ssize_t w;

	if (!s->n)
		return;
	do
		w = write(s->fd, s->batch, len);
	while (w < 0 && errno == EINTR);
	/* at most PIPE_BUF bytes: all of it was written, or none */
	if (w == (ssize_t)len)
		s->sent += s->n;
	else
		s->unwritten += s->n;
	s->n = 0;
}

void gr_cupti_send(struct gr_cupti_sender *s, const struct gr_cupti_rec *rec)
{
	memcpy(&s->batch[s->n++], rec, sizeof(*rec));
	if (s->n == GR_CUPTI_BATCH)
		gr_cupti_send_flush(s);
}

int gr_cupti_send_now(struct gr_cupti_sender *s, const struct gr_cupti_rec *rec, int wait_ms)
{
	struct pollfd p = {.fd = s->fd, .events = POLLOUT};
	ssize_t w;

	gr_cupti_send_flush(s);
	for (;;) {
		w = write(s->fd, rec, sizeof(*rec));
		if (w == (ssize_t)sizeof(*rec)) {
			s->sent++;
			return 0;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w >= 0 || errno != EAGAIN || wait_ms <= 0 || poll(&p, 1, wait_ms) <= 0)
			break;
		wait_ms = 0;
	}
	s->unwritten++;
	return -1;
}
