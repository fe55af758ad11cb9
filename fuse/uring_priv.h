/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The io_uring transport's state, shared by uring_linux.c and uring_choose.c (see uring.h). */
#ifndef DUTFS_URING_PRIV_H
#define DUTFS_URING_PRIV_H

#include <liburing.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "fuse/cli.h"
#include "fuse/uring_msg.h"

struct ring_thread;

struct ring_ent {
	struct ring_thread *rt;
	struct dutfs_fuse_uring_req_header *hdr;
	char *block;             /* allocation holding req and payload */
	char *req;               /* rebuilt request; the payload at req + DUTFS_URING_REQ_PREFIX */
	struct iovec iov[2];     /* header, payload: registered with the kernel */
	_Atomic uint64_t unique; /* request in the daemon, 0: none (the reply claims it) */
	uint64_t commit_id;
};

struct ring_thread {
	struct dutfs_transport *tp;
	struct io_uring ring;
	bool ring_ok;
	pthread_mutex_t sq_lock;   /* one producer on ring's submission queue */
	pthread_t thread;
	bool started;
	uint16_t qid;
	struct ring_ent *ents;
	unsigned nents;
	int error;                 /* -errno that ended the thread, 0 */
	bool deferred;             /* a commit queued by this thread, to submit with its wait */
	_Atomic uint64_t nreq;     /* requests served */
	_Atomic uint64_t nerr;     /* failed commits, undecodable requests */
};

struct dutfs_transport {
	struct dutfs *fs;
	enum dutfs_transport_mode mode;
	bool try_uring;            /* until a check says no */
	bool uring_on;             /* entries registered, ring threads serve */
	char reason[256];
	char param_note[128];
	int fd;
	/* INIT, seen by tp_read and answered by tp_writev (the start thread only) */
	bool init_seen, init_replied;
	struct dutfs_uring_init_offer offer;
	unsigned queues, threads_per_queue, entries_per_thread;
	size_t payload_len;
	struct ring_thread *rts;
	unsigned nrts;
	sem_t *finish;
	_Atomic bool stopping;
};

/* uring_choose.c */
/* Record why the ring is not used; no more tries. */
void dutfs_transport_fall_back(struct dutfs_transport *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Can this mount get the ring?  Turns enable_uring on for --transport uring as root. */
void dutfs_transport_decide(struct dutfs_transport *t);
/* Queues the kernel makes: possible CPUs. */
unsigned dutfs_transport_possible_cpus(void);

#endif
