/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs's request transport: /dev/fuse, or FUSE over io_uring
 * (fuse/uring_linux.c; the protocol in fuse/uring_uapi.h, the pure
 * message handling in fuse/uring_msg.c).  libfuse still dispatches every
 * op: a ring request is rebuilt as /dev/fuse would have delivered it and
 * handed to fuse_session_process_buf; the reply libfuse writes comes back
 * through fuse_session_custom_io()'s writev and is committed on the ring.
 *
 * Life cycle (main.c, loop.c):
 *   dutfs_transport_new      before the mount (enable_uring must be on when
 *                            the kernel sends INIT)
 *   dutfs_transport_start    after the mount: INIT on the calling thread,
 *                            then the ring registered, or the fallback
 *   dutfs_transport_run/stop the ring threads (loop.c)
 *   dutfs_transport_free     after the unmount (the kernel holds the
 *                            entries' buffers until then)
 */
#ifndef DUTFS_URING_H
#define DUTFS_URING_H

#include <stdbool.h>
#include <semaphore.h>

#include "fuse/cli.h"

struct dutfs;
struct dutfs_transport;
struct json_object;

/* What was chosen, and why (the start-up line, stats.json, the trace header). */
struct dutfs_transport_info {
	const char *name;        /* "dev" | "uring" */
	const char *requested;   /* "dev" | "uring" | "auto" */
	const char *reason;      /* why not uring, or "" */
	const char *param_note;  /* what dutfs did to enable_uring, or "" */
	unsigned queues, threads_per_queue, entries_per_thread;
};

/*
 * Decide what to try and, for --transport uring as root, turn enable_uring
 * on.  The sysfs directory of the fuse module's parameters is
 * $DUTFS_FUSE_PARAMS_DIR when set (a test seam), else
 * /sys/module/fuse/parameters.  0 or -ENOMEM.
 */
int dutfs_transport_new(struct dutfs *fs, enum dutfs_transport_mode mode, unsigned threads,
			unsigned entries_per_thread, struct dutfs_transport **ret);
/*
 * After the mount: take the custom I/O, serve INIT here, then register the
 * ring (or fall back, with the reason).  0, or -errno when the session
 * cannot go on at all (INIT not received).
 */
int dutfs_transport_start(struct dutfs_transport *t);
void dutfs_transport_get_info(const struct dutfs_transport *t, struct dutfs_transport_info *ret);
bool dutfs_transport_is_uring(const struct dutfs_transport *t);
/* Start the ring threads (none on /dev/fuse); each posts finish when it ends. */
int dutfs_transport_run(struct dutfs_transport *t, sem_t *finish);
/* Wake and join the ring threads; the rings stay open for late replies. 0 or the first error. */
int dutfs_transport_stop(struct dutfs_transport *t);
void dutfs_transport_free(struct dutfs_transport *t);
/*
 * Where a READ reply's data can be read (by pread) so that the reply needs
 * no copy: the payload buffer of the ring entry the calling thread is
 * serving (page aligned), or NULL (not a ring thread, or size larger than
 * the payload).  Valid until the thread's op returns.
 */
void *dutfs_transport_reply_buf(size_t size);
/* stats.json "transport" */
struct json_object *dutfs_transport_stats_json(const struct dutfs_transport *t);

#endif
