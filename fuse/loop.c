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
 * The workers receive requests themselves (receive, not libfuse's
 * fuse_session_receive_buf) and hand them to fuse_session_process_buf, for
 * two reasons: the choice above is made per receive, and libfuse 3.14 sizes
 * its buffers and pipes for at most 1 MiB requests (FUSE_MAX_MAX_PAGES)
 * while dutfs may ask the kernel for larger writes (fs->max_write, main.c).
 * Each worker has its own buffer of dutfs_recv_size bytes and its own pipe
 * of that size; what the receive does is what libfuse's does: splice into
 * the pipe, or read into the buffer; a spliced request too small to carry
 * a page of write data is read back from the pipe into the buffer; a pipe
 * a request did not drain (a failed write) is replaced.
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
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fuse/dutfs.h"
#include "fuse/uring.h"

#define DUTFS_URING_DEV_WORKERS 2u

/* fuse_in_header + fuse_write_in (fuse_kernel.h, which libfuse does not install) */
#define WRITE_HEADER_BYTES 80u
#define PAGE_BYTES 4096u

struct worker {
	struct dutfs *fs;
	pthread_t thread;
	bool started;
	struct fuse_buf fbuf;  /* the request being processed */
	void *mem;             /* dutfs_recv_size bytes from mem_base (see recv_buf) */
	void *mem_base;
	int pipe[2];           /* -1 until the first spliced receive */
	bool no_pipe;          /* this worker could not get a pipe of that size: no splice */
	sem_t *finish;
	int error;             /* -errno from receive, 0 */
};

/* Whether the next receive splices, per the recent large writes (see the top). */
static bool splice_policy(struct dutfs *fs)
{
	bool want;

	if (!fs->splice_capable)
		return false;
	/*
	 * On from the start and after idle time, so that a write burst after
	 * a pause is spliced from its first request (the workers already
	 * waiting in a read() receive would take a burst's first requests in
	 * memory, with two copies each); off once DUTFS_SPLICE_OFF_AFTER
	 * requests came with no large write in the last DUTFS_SPLICE_HOLD_NS.
	 */
	want = atomic_fetch_add_explicit(&fs->splice_reqs, 1, memory_order_relaxed) < DUTFS_SPLICE_OFF_AFTER ||
	       dutfs_now_ns() < atomic_load_explicit(&fs->splice_until_ns, memory_order_relaxed);
	if (want != atomic_load_explicit(&fs->splice_on, memory_order_relaxed))
		atomic_store_explicit(&fs->splice_on, want, memory_order_relaxed);
	return want;
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

static void pipe_drop(struct worker *w)
{
	if (w->pipe[0] < 0)
		return;
	close(w->pipe[0]);
	close(w->pipe[1]);
	w->pipe[0] = w->pipe[1] = -1;
}

/*
 * The worker's pipe, able to hold size bytes (one request): 0, or -1 when
 * it cannot have one (no pipes left; a pipe above pipe-max-size without
 * CAP_SYS_RESOURCE), and then it never splices.
 */
static int worker_pipe(struct worker *w, size_t size)
{
	if (w->pipe[0] >= 0)
		return 0;
	if (w->no_pipe)
		return -1;
	if (pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		w->pipe[0] = w->pipe[1] = -1;
		w->no_pipe = true;
		return -1;
	}
	if (fcntl(w->pipe[0], F_SETPIPE_SZ, (int)size) < 0) {
		pipe_drop(w);
		w->no_pipe = true;
		return -1;
	}
	return 0;
}

/*
 * After a receive that failed with err: -EINTR to receive again (a signal;
 * the kernel dropped an interrupted request: ENOENT), 0 when the session is
 * over (unmounted or aborted: ENODEV), else -err.
 */
static int receive_error(struct fuse_session *se, int err)
{
	if (err == ENODEV) {
		fuse_session_exit(se);
		return 0;
	}
	return err == EINTR || err == EAGAIN || err == ENOENT ? -EINTR : -err;
}

/*
 * The worker's receive buffer, placed so that a WRITE's data (after its
 * WRITE_HEADER_BYTES of headers) starts on a page: an O_DIRECT backing fd
 * takes it from there, with no copy into an aligned buffer (ops_file.c).
 */
static int recv_buf(struct worker *w, size_t size)
{
	if (w->mem)
		return 0;
	if (posix_memalign(&w->mem_base, PAGE_BYTES, size + PAGE_BYTES))
		return -ENOMEM;
	w->mem = (char *)w->mem_base + PAGE_BYTES - WRITE_HEADER_BYTES;
	return 0;
}

/* The next request into w->fbuf: > 0, 0 at the session's end, or -errno (-EINTR: again). */
static int receive(struct worker *w)
{
	struct fuse_session *se = w->fs->se;
	size_t size = dutfs_recv_size(w->fs);
	int fd = fuse_session_fd(se);
	ssize_t n;

	if (recv_buf(w, size) < 0)
		return -ENOMEM;
	if (splice_policy(w->fs) && worker_pipe(w, size) == 0) {
		n = splice(fd, NULL, w->pipe[1], NULL, size, 0);
		if (fuse_session_exited(se))
			return 0;
		if (n < 0)
			return receive_error(se, errno);
		if ((size_t)n >= WRITE_HEADER_BYTES + PAGE_BYTES) {
			w->fbuf = (struct fuse_buf){ .size = (size_t)n, .flags = FUSE_BUF_IS_FD, .fd = w->pipe[0] };
			return 1;
		}
		/* no page of write data to pass on: into memory, as a read would have put it */
		if (read(w->pipe[0], w->mem, (size_t)n) != n) {
			pipe_drop(w);
			return -EIO;
		}
	} else {
		n = read(fd, w->mem, size);
		if (fuse_session_exited(se))
			return 0;
		if (n < 0)
			return receive_error(se, errno);
	}
	w->fbuf = (struct fuse_buf){ .size = (size_t)n, .mem = w->mem };
	return 1;
}

/* After a spliced request: a pipe with data left (a failed write) is replaced. */
static void pipe_check(struct worker *w)
{
	int left = 0;

	if (ioctl(w->pipe[0], FIONREAD, &left) < 0 || left > 0)
		pipe_drop(w);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct fuse_session *se = w->fs->se;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	while (!fuse_session_exited(se)) {
		int r;

		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		r = receive(w);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (r == -EINTR)
			continue;
		if (r <= 0) {
			w->error = r;
			fuse_session_exit(se);
			break;
		}
		fuse_session_process_buf(se, &w->fbuf);
		if (w->fbuf.flags & FUSE_BUF_IS_FD)
			pipe_check(w);
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
		ws[i] = (struct worker){ .fs = fs, .finish = &finish, .pipe = { -1, -1 } };
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
		free(ws[i].mem_base);
		pipe_drop(&ws[i]);
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
