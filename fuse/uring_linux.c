/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FUSE over io_uring for dutfs (see uring.h for the life cycle and
 * uring_uapi.h for the protocol).
 *
 * Threads and queues: the kernel makes one queue per possible CPU and puts
 * a request on the queue of the CPU its caller runs on, into one of that
 * queue's free entries.  A ring thread owns one io_uring (SQE128) and
 * `entries_per_thread` entries of one queue, and serves each completion
 * itself (libfuse dispatch, the op, the reply) before it waits again.  So
 * that one queue can have as many requests in the daemon as the /dev/fuse
 * transport has workers (a QD32 reader on one CPU fills one queue), each
 * queue gets --threads ring threads: they are not pinned, as a reader and
 * the daemon on the same core would otherwise share it while the other
 * idles.  With --shape a reply can wait in the timer thread; the entry
 * stays taken until then, so a shaped mount gives each thread more entries
 * (uring.h, default 8) for the thread to serve meanwhile.
 *
 * Replies: libfuse calls the custom writev (tp_writev) from the thread
 * that replies: the ring thread that dispatched the request, or the
 * shaper's timer thread for a late reply.  The reply's unique finds the
 * entry (the calling thread's own entry first), the reply is copied into
 * the entry and COMMIT_AND_FETCH goes on the entry's ring.  An io_uring's
 * submission queue has one producer at a time: sq_lock.  Replies to
 * requests that came over /dev/fuse (INIT, interrupts) and notifications
 * (unique 0) go to /dev/fuse as before.
 *
 * Lock order: sq_lock is a leaf.
 *
 * Teardown: at unmount the kernel ends every waiting entry with ENOTCONN
 * (and /dev/fuse reads with ENODEV); on SIGTERM dutfs_transport_stop wakes
 * each thread with a NOP; on a crash the kernel aborts the connection when
 * the process's files close.  The entries' buffers stay allocated until
 * dutfs_transport_free, after the unmount.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fuse/dutfs.h"
#include "fuse/uring.h"
#include "fuse/uring_msg.h"
#include "fuse/uring_priv.h"

#define ENTRIES_DEFAULT 1u
#define ENTRIES_SHAPED 8u
#define PAGE 4096u

/* The entry whose request this thread is dispatching (the usual replier). */
static __thread struct ring_ent *tls_ent;

int dutfs_transport_new(struct dutfs *fs, enum dutfs_transport_mode mode, unsigned threads,
			unsigned entries_per_thread, struct dutfs_transport **ret)
{
	struct dutfs_transport *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->fs = fs;
	t->mode = mode;
	t->fd = -1;
	t->try_uring = mode != DUTFS_TRANSPORT_DEV;
	t->threads_per_queue = threads ? threads : 1;
	t->entries_per_thread = entries_per_thread ? entries_per_thread :
				fs->sched ? ENTRIES_SHAPED : ENTRIES_DEFAULT;
	if (mode == DUTFS_TRANSPORT_DEV)
		snprintf(t->reason, sizeof(t->reason), "--transport dev");
	else
		dutfs_transport_decide(t);
	*ret = t;
	return 0;
}

/* ---- custom I/O: libfuse's reads and writes of /dev/fuse ---- */

static ssize_t tp_read(int fd, void *buf, size_t len, void *userdata)
{
	struct dutfs_transport *t = ((struct dutfs *)userdata)->transport;
	ssize_t n = read(fd, buf, len);

	if (n > 0 && !t->init_seen && dutfs_uring_init_parse(buf, (size_t)n, &t->offer) == 1)
		t->init_seen = true;
	return n;
}

static ssize_t tp_splice_receive(int fdin, off_t *offin, int fdout, off_t *offout, size_t len,
				 unsigned int flags, void *userdata)
{
	(void)userdata;
	return splice(fdin, offin, fdout, offout, len, flags);
}

static ssize_t tp_splice_send(int fdin, off_t *offin, int fdout, off_t *offout, size_t len,
			      unsigned int flags, void *userdata)
{
	(void)userdata;
	return splice(fdin, offin, fdout, offout, len, flags);
}

static struct ring_ent *find_ent(struct dutfs_transport *t, uint64_t unique)
{
	if (tls_ent && atomic_load_explicit(&tls_ent->unique, memory_order_acquire) == unique)
		return tls_ent;
	for (unsigned i = 0; i < t->nrts; i++)
		for (unsigned k = 0; k < t->rts[i].nents; k++)
			if (atomic_load_explicit(&t->rts[i].ents[k].unique, memory_order_acquire) == unique)
				return &t->rts[i].ents[k];
	return NULL;
}

static void prep_cmd(struct io_uring_sqe *sqe, int fd, uint32_t cmd_op, struct ring_ent *e,
		     uint64_t commit_id)
{
	struct dutfs_fuse_uring_cmd_req *cr = (void *)sqe->cmd;

	memset(sqe, 0, 2 * sizeof(*sqe));   /* SQE128: the command area is the second half */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	if (cmd_op == DUTFS_FUSE_URING_CMD_REGISTER) {
		sqe->addr = (uint64_t)(uintptr_t)e->iov;
		sqe->len = 2;
	}
	cr->qid = e->rt->qid;
	cr->commit_id = commit_id;
	io_uring_sqe_set_data(sqe, e);
}

/*
 * Make the queued SQEs visible to the kernel (sq_lock held): our own
 * version of liburing's flush, so that the enter can run without the lock.
 * Returns an upper bound of the SQEs not yet submitted (another thread may
 * submit them first; the kernel takes what is there).
 */
static unsigned sq_publish_locked(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned tail = sq->sqe_tail;

	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		__atomic_store_n(sq->ktail, tail, __ATOMIC_RELEASE);
	}
	return tail - __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);
}

/*
 * Queue one command on the entry's ring (sq_lock taken here) and submit it,
 * or, when defer (the ring thread answering its own request), leave the
 * submit to the thread's next wait: commit and wait in one io_uring_enter.
 */
static int ring_submit_cmd(struct ring_ent *e, uint32_t cmd_op, uint64_t commit_id, bool defer)
{
	struct ring_thread *rt = e->rt;
	struct io_uring_sqe *sqe;
	unsigned n;
	int r;

	pthread_mutex_lock(&rt->sq_lock);
	sqe = io_uring_get_sqe(&rt->ring);
	if (!sqe) {
		pthread_mutex_unlock(&rt->sq_lock);
		return -EBUSY;
	}
	prep_cmd(sqe, rt->tp->fd, cmd_op, e, commit_id);
	if (defer) {
		rt->deferred = true;
		pthread_mutex_unlock(&rt->sq_lock);
		return 0;
	}
	n = sq_publish_locked(&rt->ring);
	pthread_mutex_unlock(&rt->sq_lock);
	r = io_uring_enter((unsigned)rt->ring.ring_fd, n, 0, 0, NULL);
	return r < 0 ? r : 0;
}

/* Copy a reply into its entry and commit it (fetching the entry's next request). */
static ssize_t ring_commit(struct ring_ent *e, uint64_t unique, const struct iovec *iov, int count)
{
	uint64_t expect = unique;
	long len;
	int r;

	/* claim the entry: one reply per request */
	if (!atomic_compare_exchange_strong(&e->unique, &expect, 0)) {
		errno = ENOENT;
		return -1;
	}
	len = dutfs_uring_reply_pack(iov, count, e->hdr, e->iov[1].iov_base, e->iov[1].iov_len);
	if (len < 0) {
		struct dutfs_uring_out_header oh = { .len = sizeof(oh), .error = -EIO, .unique = unique };
		struct iovec eiov = { .iov_base = &oh, .iov_len = sizeof(oh) };

		atomic_fetch_add_explicit(&e->rt->nerr, 1, memory_order_relaxed);
		dutfs_uring_reply_pack(&eiov, 1, e->hdr, e->iov[1].iov_base, e->iov[1].iov_len);
	}
	r = ring_submit_cmd(e, DUTFS_FUSE_URING_CMD_COMMIT_AND_FETCH, e->commit_id, e == tls_ent);
	if (r < 0) {
		atomic_fetch_add_explicit(&e->rt->nerr, 1, memory_order_relaxed);
		errno = -r;
		return -1;
	}
	if (len < 0) {
		errno = (int)-len;
		return -1;
	}
	return (ssize_t)len;
}

static ssize_t tp_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	struct dutfs_transport *t = ((struct dutfs *)userdata)->transport;
	uint64_t unique = dutfs_uring_reply_unique(iov, count);

	if (t->init_seen && !t->init_replied && unique == t->offer.unique) {
		t->init_replied = true;
		if (t->try_uring) {
			int r = dutfs_uring_init_check(&t->offer);

			if (r == -EPROTONOSUPPORT)
				dutfs_transport_fall_back(t, "the kernel speaks FUSE %u.%u; the ring needs 7.%u",
					  t->offer.major, t->offer.minor, DUTFS_FUSE_URING_MINOR);
			else if (r < 0)
				dutfs_transport_fall_back(t, "the kernel did not offer FUSE_OVER_IO_URING in INIT "
					  "(enable_uring was off when the kernel mounted)");
			else if (dutfs_uring_init_reply_ask(iov, count) < 0)
				dutfs_transport_fall_back(t, "libfuse's INIT reply has an unexpected shape");
		}
	}
	if (unique && t->uring_on) {
		struct ring_ent *e = find_ent(t, unique);

		if (e)
			return ring_commit(e, unique, iov, count);
	}
	return writev(fd, iov, count);
}

static const struct fuse_custom_io tp_io = {
	.writev = tp_writev,
	.read = tp_read,
	.splice_receive = tp_splice_receive,
	.splice_send = tp_splice_send,
};

void *dutfs_transport_reply_buf(size_t size)
{
	struct ring_ent *e = tls_ent;

	/* a READ's payload is empty: the whole buffer is free for its reply */
	if (!e || size > e->iov[1].iov_len)
		return NULL;
	return e->iov[1].iov_base;
}

/* ---- ring set-up ---- */

static int ent_alloc(struct dutfs_transport *t, struct ring_ent *e)
{
	size_t size = (PAGE + t->payload_len + DUTFS_URING_REQ_SLACK + PAGE - 1) / PAGE * PAGE;

	e->hdr = aligned_alloc(64, (sizeof(*e->hdr) + 63) / 64 * 64);
	e->block = aligned_alloc(PAGE, size);
	if (!e->hdr || !e->block)
		return -ENOMEM;
	memset(e->hdr, 0, sizeof(*e->hdr));
	/* the payload (a WRITE's data) page aligned, the rebuilt headers in front of it */
	e->req = e->block + PAGE - DUTFS_URING_REQ_PREFIX;
	e->iov[0] = (struct iovec){ .iov_base = e->hdr, .iov_len = sizeof(*e->hdr) };
	e->iov[1] = (struct iovec){ .iov_base = e->req + DUTFS_URING_REQ_PREFIX, .iov_len = t->payload_len };
	return 0;
}

/* The ring of one thread, with its entries registered.  A failure is the fallback's reason. */
static int rt_setup(struct dutfs_transport *t, struct ring_thread *rt, uint16_t qid)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 };
	struct io_uring_cqe *cqe;
	int r;

	rt->tp = t;
	rt->qid = qid;
	pthread_mutex_init(&rt->sq_lock, NULL);
	rt->nents = t->entries_per_thread;
	rt->ents = calloc(rt->nents, sizeof(*rt->ents));
	if (!rt->ents)
		return -ENOMEM;
	for (unsigned k = 0; k < rt->nents; k++) {
		rt->ents[k].rt = rt;
		r = ent_alloc(t, &rt->ents[k]);
		if (r < 0)
			return r;
	}
	r = io_uring_queue_init_params(2 * rt->nents + 4, &rt->ring, &p);
	if (r < 0) {
		dutfs_transport_fall_back(t, "io_uring_setup(SQE128): %s", strerror(-r));
		return r;
	}
	rt->ring_ok = true;
	for (unsigned k = 0; k < rt->nents; k++) {
		r = ring_submit_cmd(&rt->ents[k], DUTFS_FUSE_URING_CMD_REGISTER, 0, false);
		if (r < 0) {
			dutfs_transport_fall_back(t, "submitting FUSE_IO_URING_CMD_REGISTER: %s", strerror(-r));
			return r;
		}
	}
	/*
	 * A refused REGISTER completes at once (during the submit); a good one
	 * completes only with a request, which must stay for the thread.
	 */
	while (io_uring_peek_cqe(&rt->ring, &cqe) == 0 && cqe->res < 0) {
		r = cqe->res;
		io_uring_cqe_seen(&rt->ring, cqe);
		dutfs_transport_fall_back(t, "the kernel refused FUSE_IO_URING_CMD_REGISTER on queue %u: %s", qid,
			  strerror(-r));
		return r;
	}
	return 0;
}

static void rt_close(struct ring_thread *rt)
{
	if (rt->ring_ok)
		io_uring_queue_exit(&rt->ring);
	rt->ring_ok = false;
}

static int register_rings(struct dutfs_transport *t)
{
	struct fuse_conn_info *conn = t->fs->conn;
	size_t max = DUTFS_BUF_MAX;
	int r;

	t->queues = dutfs_transport_possible_cpus();
	/* the kernel wants room for its largest request or reply: max_write, max_pages */
	if (conn && conn->max_write > max)
		max = conn->max_write;
	t->payload_len = (max + PAGE) / PAGE * PAGE;
	t->nrts = t->queues * t->threads_per_queue;
	t->rts = calloc(t->nrts, sizeof(*t->rts));
	if (!t->rts) {
		t->nrts = 0;
		dutfs_transport_fall_back(t, "out of memory for the ring entries");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < t->nrts; i++) {
		r = rt_setup(t, &t->rts[i], (uint16_t)(i % t->queues));
		if (r < 0) {
			if (r == -ENOMEM)
				dutfs_transport_fall_back(t, "out of memory for the ring entries");
			/* the entries already registered are cancelled with their rings */
			for (unsigned k = 0; k <= i; k++)
				rt_close(&t->rts[k]);
			return r;
		}
	}
	return 0;
}

int dutfs_transport_start(struct dutfs_transport *t)
{
	struct fuse_session *se = t->fs->se;
	struct fuse_buf fbuf = { 0 };
	int r;

	t->fd = fuse_session_fd(se);
	if (!t->try_uring)
		return 0;   /* /dev/fuse as before: the session loop serves INIT */
	r = fuse_session_custom_io(se, &tp_io, t->fd);
	if (r < 0) {
		dutfs_transport_fall_back(t, "libfuse refused the custom I/O: %s", strerror(-r));
		return 0;
	}
	/* INIT is the first request (the kernel sends no other before its reply) */
	do {
		fbuf.flags = 0;
		r = fuse_session_receive_buf(se, &fbuf);
	} while (r == -EINTR && !fuse_session_exited(se));
	if (r <= 0) {
		free(fbuf.mem);
		return r < 0 ? r : -ENODEV;
	}
	fuse_session_process_buf(se, &fbuf);
	free(fbuf.mem);
	if (!t->init_replied && t->try_uring)
		dutfs_transport_fall_back(t, "the first request was not INIT");
	if (!t->try_uring)
		return 0;
	if (register_rings(t) < 0)
		return 0;
	t->uring_on = true;
	return 0;
}

/* ---- ring threads ---- */

static void serve_cqe(struct ring_thread *rt, struct ring_ent *e)
{
	struct fuse_session *se = rt->tp->fs->se;
	uint64_t unique = dutfs_uring_req_unique(e->hdr);
	struct fuse_buf fb = { 0 };
	long len;

	e->commit_id = e->hdr->ring_ent_in_out.commit_id;
	len = dutfs_uring_req_build(e->hdr, e->req, e->iov[1].iov_len);
	atomic_store_explicit(&e->unique, unique, memory_order_release);
	if (len < 0) {
		struct dutfs_uring_out_header oh = { .len = sizeof(oh), .error = -EIO, .unique = unique };
		struct iovec iov = { .iov_base = &oh, .iov_len = sizeof(oh) };

		atomic_fetch_add_explicit(&rt->nerr, 1, memory_order_relaxed);
		ring_commit(e, unique, &iov, 1);
		return;
	}
	fb.mem = e->req;
	fb.size = (size_t)len;
	tls_ent = e;
	fuse_session_process_buf(se, &fb);
	tls_ent = NULL;
	atomic_fetch_add_explicit(&rt->nreq, 1, memory_order_relaxed);
}

/* The connection is going away (unmount, abort) or this thread's ring is. */
static bool is_teardown(int res)
{
	return res == -ENOTCONN || res == -ECANCELED || res == -ECONNABORTED || res == -ENODEV;
}

static void *rt_main(void *arg)
{
	struct ring_thread *rt = arg;
	struct dutfs_transport *t = rt->tp;
	char name[16];

	/* so that perf and /proc/PID/task tell the queues apart */
	snprintf(name, sizeof(name), "dutfs-q%u-%u", rt->qid, (unsigned)(rt - t->rts) / t->queues);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		struct io_uring_cqe *cqe;
		struct ring_ent *e;
		int r, res;

		if (rt->deferred) {
			unsigned n;

			pthread_mutex_lock(&rt->sq_lock);
			rt->deferred = false;
			n = sq_publish_locked(&rt->ring);
			pthread_mutex_unlock(&rt->sq_lock);
			/* the commit and the wait for the next request: one syscall */
			r = io_uring_enter((unsigned)rt->ring.ring_fd, n, 1, IORING_ENTER_GETEVENTS, NULL);
			if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
				rt->error = r;
				break;
			}
		}
		r = io_uring_wait_cqe(&rt->ring, &cqe);

		if (r == -EINTR)
			continue;
		if (r < 0) {
			rt->error = r;
			break;
		}
		e = io_uring_cqe_get_data(cqe);
		res = cqe->res;
		io_uring_cqe_seen(&rt->ring, cqe);
		if (!e) {               /* the wake-up NOP of dutfs_transport_stop */
			if (atomic_load(&t->stopping))
				break;
			continue;
		}
		if (res < 0) {
			if (is_teardown(res) || atomic_load(&t->stopping))
				break;
			/* a commit the kernel refused loses the entry: give it back once */
			atomic_fetch_add_explicit(&rt->nerr, 1, memory_order_relaxed);
			if (ring_submit_cmd(e, DUTFS_FUSE_URING_CMD_REGISTER, 0, false) < 0) {
				rt->error = res;
				break;
			}
			continue;
		}
		serve_cqe(rt, e);
	}
	/* a ring thread that ends (unmount, an error) ends the session */
	fuse_session_exit(t->fs->se);
	sem_post(t->finish);
	return NULL;
}

int dutfs_transport_run(struct dutfs_transport *t, sem_t *finish)
{
	sigset_t block, old;
	int r = 0;

	if (!t->uring_on)
		return 0;
	t->finish = finish;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (unsigned i = 0; i < t->nrts && !r; i++) {
		r = -pthread_create(&t->rts[i].thread, NULL, rt_main, &t->rts[i]);
		t->rts[i].started = r == 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

int dutfs_transport_stop(struct dutfs_transport *t)
{
	int r = 0;

	if (!t->uring_on)
		return 0;
	atomic_store(&t->stopping, true);
	for (unsigned i = 0; i < t->nrts; i++) {
		struct ring_thread *rt = &t->rts[i];
		struct io_uring_sqe *sqe;

		if (!rt->started)
			continue;
		pthread_mutex_lock(&rt->sq_lock);
		sqe = io_uring_get_sqe(&rt->ring);
		if (sqe) {
			memset(sqe, 0, 2 * sizeof(*sqe));
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data(sqe, NULL);
			io_uring_enter((unsigned)rt->ring.ring_fd, sq_publish_locked(&rt->ring), 0, 0, NULL);
		}
		pthread_mutex_unlock(&rt->sq_lock);
	}
	for (unsigned i = 0; i < t->nrts; i++) {
		if (!t->rts[i].started)
			continue;
		pthread_join(t->rts[i].thread, NULL);
		t->rts[i].started = false;
		if (!r && t->rts[i].error < 0)
			r = t->rts[i].error;
	}
	return r;
}

void dutfs_transport_free(struct dutfs_transport *t)
{
	if (!t)
		return;
	dutfs_transport_stop(t);
	for (unsigned i = 0; i < t->nrts; i++) {
		struct ring_thread *rt = &t->rts[i];

		rt_close(rt);
		for (unsigned k = 0; rt->ents && k < rt->nents; k++) {
			free(rt->ents[k].hdr);
			free(rt->ents[k].block);
		}
		free(rt->ents);
		pthread_mutex_destroy(&rt->sq_lock);
	}
	free(t->rts);
	free(t);
}

