/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs's own multi-threaded session loop, so that it can choose, before
 * each receive, whether libfuse takes the next request by splice.
 *
 * Why: in the device view splice read lets writeback go from the mount's
 * page cache to the O_DIRECT backing file with no copy (ops_file.c,
 * splice_write), but libfuse splices *every* request when it is on, and a
 * small one (a READ, an fsync) is then read back from the pipe: splice plus
 * read instead of one read, per request.  A page-cache miss of select-only
 * pgbench is such a READ.  So splice is off while small requests arrive
 * with no large write among them (splice_policy), and on otherwise
 * (dutfs_splice_note_write: a WRITE of at least DUTFS_SPLICE_MIN_WRITE
 * bytes).  A large write that arrives while it is off is copied, as small
 * writes always are; nothing else changes (the same ops serve both kinds
 * of buffer).
 *
 * libfuse 3.14 reads conn->want at every receive (fuse_session_receive_buf),
 * so toggling FUSE_CAP_SPLICE_READ there takes effect at the next receive
 * of any thread.  Its own loop (fuse_session_loop_mt) cannot be used for
 * that: a worker's buffer keeps FUSE_BUF_IS_FD from a spliced request, and
 * a later receive without splice does not clear it.  This loop clears the
 * flags before every receive.
 *
 * Shape of the loop (as libfuse's): a fixed pool of workers, each blocking
 * in receive (a cancellation point) and processing with cancellation off;
 * SIGTERM/SIGINT/SIGHUP reach the main thread only (the workers block
 * them), whose handler (fuse_set_signal_handlers) ends the session; then
 * the main thread cancels and joins the workers.  Unmounting ends the
 * session from a worker (ENODEV).  No clone_fd: the workers share the
 * session's fd (the kernel wakes one reader per request).
 *
 * With the io_uring transport (uring.h) the ring threads serve the
 * requests; /dev/fuse then carries only forgets, interrupts and the
 * replies to them, so DUTFS_URING_DEV_WORKERS workers read it.  A ring
 * thread that ends (unmount: ENOTCONN) ends the session like a worker's
 * ENODEV; the ring threads are woken and joined after the workers.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>

#include "fuse/dutfs.h"
#include "fuse/uring.h"

#define DUTFS_URING_DEV_WORKERS 2u

struct worker {
	struct dutfs *fs;
	pthread_t thread;
	bool started;
	struct fuse_buf fbuf;  /* libfuse allocates mem at the first receive; freed after join */
	sem_t *finish;
	int error;             /* -errno from receive, 0 */
};

/* FUSE_CAP_SPLICE_READ in conn->want per the recent large writes (see the top). */
static void splice_policy(struct dutfs *fs)
{
	bool want;

	if (!fs->splice_capable)
		return;
	/*
	 * On from the start and after idle time, so that a write burst after
	 * a pause is spliced from its first request (the workers already
	 * waiting in a read() receive would take a burst's first requests in
	 * memory, with two copies each); off once DUTFS_SPLICE_OFF_AFTER
	 * requests came with no large write in the last DUTFS_SPLICE_HOLD_NS.
	 */
	want = atomic_fetch_add_explicit(&fs->splice_reqs, 1, memory_order_relaxed) < DUTFS_SPLICE_OFF_AFTER ||
	       dutfs_now_ns() < atomic_load_explicit(&fs->splice_until_ns, memory_order_relaxed);
	if (want == atomic_load_explicit(&fs->splice_on, memory_order_relaxed))
		return;
	atomic_store_explicit(&fs->splice_on, want, memory_order_relaxed);
	/* libfuse reads this word unlocked at each receive; a stale view costs one copy or one splice */
	if (want)
		__atomic_fetch_or(&fs->conn->want, FUSE_CAP_SPLICE_READ, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&fs->conn->want, ~(unsigned)FUSE_CAP_SPLICE_READ, __ATOMIC_RELAXED);
}

void dutfs_splice_note_write(struct dutfs *fs, size_t size)
{
	uint64_t until;

	if (!fs->splice_capable || size < DUTFS_SPLICE_MIN_WRITE)
		return;
	until = dutfs_now_ns() + DUTFS_SPLICE_HOLD_NS;
	atomic_store_explicit(&fs->splice_until_ns, until, memory_order_relaxed);
	atomic_store_explicit(&fs->splice_reqs, 0, memory_order_relaxed);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct fuse_session *se = w->fs->se;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	while (!fuse_session_exited(se)) {
		int r;

		splice_policy(w->fs);
		/* a spliced request left FUSE_BUF_IS_FD; a read() receive would not clear it */
		w->fbuf.flags = 0;
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		r = fuse_session_receive_buf(se, &w->fbuf);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (r == -EINTR)
			continue;
		if (r <= 0) {
			w->error = r;
			fuse_session_exit(se);
			break;
		}
		fuse_session_process_buf(se, &w->fbuf);
	}
	sem_post(w->finish);
	return NULL;
}

/* Start a worker with the signals the main thread handles blocked. */
static int worker_start(struct worker *w)
{
	sigset_t block, old;
	int r;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	r = pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -r;
	w->started = true;
	return 0;
}

int dutfs_session_loop(struct dutfs *fs, unsigned nthreads)
{
	struct worker *ws = calloc(nthreads, sizeof(*ws));
	sem_t finish;
	int r = 0;

	if (!ws)
		return -ENOMEM;
	if (dutfs_transport_is_uring(fs->transport) && nthreads > DUTFS_URING_DEV_WORKERS)
		nthreads = DUTFS_URING_DEV_WORKERS;
	sem_init(&finish, 0, 0);
	for (unsigned i = 0; i < nthreads && !r; i++) {
		ws[i] = (struct worker){ .fs = fs, .finish = &finish };
		r = worker_start(&ws[i]);
	}
	if (!r && fs->transport)
		r = dutfs_transport_run(fs->transport, &finish);
	/* sem_wait returns on a worker's end and on a signal (EINTR) */
	while (!r && !fuse_session_exited(fs->se))
		sem_wait(&finish);
	fuse_session_exit(fs->se);
	for (unsigned i = 0; i < nthreads; i++)
		if (ws[i].started)
			pthread_cancel(ws[i].thread);
	for (unsigned i = 0; i < nthreads; i++) {
		if (!ws[i].started)
			continue;
		pthread_join(ws[i].thread, NULL);
		if (!r && ws[i].error < 0)
			r = ws[i].error;
		free(ws[i].fbuf.mem);
	}
	if (fs->transport) {
		int tr = dutfs_transport_stop(fs->transport);

		if (!r)
			r = tr;
	}
	sem_destroy(&finish);
	free(ws);
	return r;
}
