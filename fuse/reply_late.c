/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replies that a device model holds back.  A worker never sleeps for a
 * delay: after the backing call it hands the request, its result and (for
 * a read) a private copy of the data to the timer thread (shape_sched) and
 * returns to the session loop.  The timer thread runs the layers' ->complete
 * at the real reply time, so the tracer records the latency the
 * application saw, then sends the reply (the low-level API allows a reply
 * from any thread, at any time before the request is forgotten).
 *
 * When the timer queue refuses (out of memory, or stopping at unmount) the
 * reply goes out at once: a late reply is never lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/dutfs.h"
#include "fuse/shape/timerq.h"

struct late_reply {
	struct dutfs *fs;
	fuse_req_t req;
	struct dutfs_io io;
	int32_t result;
	enum dutfs_reply_kind kind;
	size_t len;            /* bytes of data (successful reads) */
	unsigned char data[];  /* the read data: the worker's buffer is reused at once */
};

static void send_reply(fuse_req_t req, enum dutfs_reply_kind kind, int32_t result,
		       const void *data)
{
	if (result < 0 || kind == DUTFS_REPLY_ERR)
		fuse_reply_err(req, result < 0 ? -result : 0);
	else if (kind == DUTFS_REPLY_BUF)
		fuse_reply_buf(req, data, (size_t)result);
	else
		fuse_reply_write(req, (size_t)result);
}

/*
 * Reply, timed: the clock is read right before the fuse_reply_* call (the
 * write to /dev/fuse is the kernel's part of the round trip, not counted),
 * and the layers' ->replied (the tracer emits the record) run after it.
 */
static void reply_timed(struct dutfs *fs, fuse_req_t req, struct dutfs_io *io,
			enum dutfs_reply_kind kind, const void *data)
{
	uint64_t replied_ns = dutfs_now_ns();

	send_reply(req, kind, io->result, data);
	dutfs_io_replied(fs, io, replied_ns);
}

/*
 * The model's delay ends here: lat_ns runs to now (the timer thread's
 * wake-up included, as before), and dutfs's own time of the request is its
 * work before the backing call plus this thread's work from now to the reply.
 */
static void late_fire(void *arg)
{
	struct late_reply *l = arg;

	dutfs_io_end_at(l->fs, &l->io, l->result, dutfs_now_ns());
	/* a layer may have turned a read into an error (a crash in between) */
	if (l->io.result > 0 && (size_t)l->io.result > l->len && l->kind == DUTFS_REPLY_BUF)
		l->io.result = (int32_t)l->len;
	reply_timed(l->fs, l->req, &l->io, l->kind, l->data);
	free(l);
}

void dutfs_io_reply(struct dutfs *fs, fuse_req_t req, struct dutfs_io *io, int32_t result,
		    enum dutfs_reply_kind kind, const void *data)
{
	uint64_t end_ns = dutfs_now_ns();

	io->reply_pending = true;
	dutfs_io_backing_done(fs, io);
	if (fs->sched && io->reply_ns > end_ns) {
		size_t len = kind == DUTFS_REPLY_BUF && result > 0 ? (size_t)result : 0;
		struct late_reply *l = malloc(sizeof(*l) + len);

		if (l) {
			*l = (struct late_reply){ .fs = fs, .req = req, .io = *io, .result = result,
						  .kind = kind, .len = len };
			if (len)
				memcpy(l->data, data, len);
			if (shape_sched_add(fs->sched, io->reply_ns, late_fire, l) == 0)
				return;
			free(l);
		}
	}
	dutfs_io_end_at(fs, io, result, end_ns);
	reply_timed(fs, req, io, kind, data);
}
