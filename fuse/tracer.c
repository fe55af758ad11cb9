/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracer layer: file ids, trace records and live statistics.
 *
 * Per request it costs three clock_gettime (arrival in dutfs_io_begin, end of
 * the backing call, the reply in dutfs_io_reply; layer.h), one copy
 * into the writer's per-thread ring (dut_trace_emit never waits on disk)
 * and a few additions into this thread's statistics block.  Nothing on the
 * read/write path allocates after a thread's first request.
 *
 * Lock order: tracer->id_lock, then fs->itab_lock.
 */
#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/dutfs.h"
#include "fuse/uring.h"
#include "fuse/shaper.h"
#include "fuse/stats.h"
#include "lib/pgpath.h"
#include "lib/trace.h"

/*
 * Each emitting worker's trace ring starts at DUTFS_TRACE_RING_RECS records
 * (16 Ki x 48 bytes = 768 KiB) and, only when it fills because the writer
 * thread came late, doubles up to DUTFS_TRACE_RING_MAX_RECS (128 Ki, 6 MiB)
 * instead of dropping (lib/trace_writer_ring.c).  Typical: 768 KiB a
 * thread; dutfs emits at most ~50k records/s here, at which 16 Ki records
 * last ~330 ms and never fill.  Worst case, a worker emitting 1.35M
 * records/s while the writer waits for a CPU: 16 + 32 + 64 + 128 Ki records
 * = 11.25 MiB while the smaller buffers wait to be drained, then 6 MiB, which
 * the worker keeps until it exits (the rings do not shrink; dutfs's workers
 * live until unmount).  At 2.7M records/s offered on the 2 loaded CPUs,
 * fixed 16 Ki rings dropped; these held 0 drops up to load ~11, not at
 * 13-15 (docs/soak.md, 2026-12-07 s19).
 */
#define DUTFS_TRACE_RING_RECS 16384u
#define DUTFS_TRACE_RING_MAX_RECS 131072u

struct dutfs_tracer {
	struct dut_trace_writer *w;    /* NULL without --trace */
	atomic_bool enabled;
	enum dutfs_view view;
	uint64_t trace_max_bytes;      /* --trace-max, for stats.json */
	struct dutfs_stats *stats;
	pthread_mutex_t id_lock;       /* serialises id assignment */
	uint32_t next_id;              /* protected by id_lock */
	uint64_t ids_exhausted;        /* protected by id_lock */
	pthread_mutex_t mark_lock;
	char last_mark[DUTFS_LAST_MARK_MAX]; /* protected by mark_lock; "" = none */
	pthread_key_t tls_key;
};

/*
 * Per worker thread: statistics block, the aligned I/O buffer, and the
 * record of an open or create waiting for its raw reply (reply_raw.c, in
 * the same thread, right after the op's dutfs_io_end).  A pending record
 * that never gets its reply (the op failed after dutfs_io_end and replied
 * an error) is emitted with dutfs_ns 0 when the thread stages the next one,
 * exits, or closes the trace: every record is emitted exactly once.
 */
struct dutfs_tls {
	struct dutfs_stats_thread *st;
	void *buf;
	size_t bufsize;
	bool has_pending;
	struct dutfs_tracer *pending_t;
	const void *pending_req;       /* only this request's raw reply finishes it */
	uint64_t pending_arrival_ns;
	struct dut_trace_rec pending;
};

static __thread struct dutfs_tls *tls;

static void pending_emit(struct dutfs_tls *t, uint32_t dutfs_ns)
{
	if (!t->has_pending)
		return;
	t->has_pending = false;
	t->pending.dutfs_ns = dutfs_ns;
	if (t->pending_t->w)
		dut_trace_emit(t->pending_t->w, &t->pending);
}

void dutfs_tracer_raw_replied(const void *req, uint64_t replied_ns)
{
	struct dutfs_tls *t = tls;

	if (t && t->has_pending && t->pending_req == req)
		pending_emit(t, dut_trace_dutfs_ns(t->pending_arrival_ns, replied_ns, t->pending.lat_ns));
}

static void tls_destroy(void *p)
{
	struct dutfs_tls *t = p;

	pending_emit(t, 0);
	dutfs_stats_thread_put(t->st);
	free(t->buf);
	free(t);
	tls = NULL;
}

static struct dutfs_tls *tls_get(struct dutfs *fs)
{
	struct dutfs_tls *t = tls;

	if (__builtin_expect(t != NULL, 1))
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (dutfs_stats_thread_get(fs->tracer->stats, &t->st) < 0) {
		free(t);
		return NULL;
	}
	pthread_setspecific(fs->tracer->tls_key, t);
	tls = t;
	return t;
}

void *dutfs_thread_buf(struct dutfs *fs, size_t size)
{
	struct dutfs_tls *t = tls_get(fs);
	size_t want;
	void *b;

	if (!t)
		return NULL;
	if (t->bufsize >= size && t->buf)
		return t->buf;
	want = size < 128 * 1024 ? 128 * 1024 : (size + 4095) & ~(size_t)4095;
	if (want < DUTFS_BUF_MAX && size > 128 * 1024)
		want = DUTFS_BUF_MAX; /* grow once to the largest request the kernel sends */
	if (posix_memalign(&b, 4096, want))
		return NULL;
	free(t->buf);
	t->buf = b;
	t->bufsize = want;
	return b;
}

int dutfs_tracer_new(const struct dutfs_tracer_opts *o, struct dutfs_tracer **ret)
{
	struct dutfs_tracer *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	t->view = o->view;
	t->trace_max_bytes = o->trace_path ? o->trace_max_bytes : 0;
	r = dutfs_stats_new(dutfs_now_ns(), &t->stats);
	if (r < 0) {
		free(t);
		return r;
	}
	if (o->trace_path) {
		struct dut_trace_writer_opts wo = {
			.flags = o->view == DUTFS_VIEW_SYSCALL ? DUT_TRACE_HDR_SYSCALL_VIEW : 0,
			.max_bytes = o->trace_max_bytes,
			.max_segments = o->trace_segments,
			/* small rings that grow when the writer is late: DUTFS_TRACE_RING_RECS */
			.thread_buf_recs = DUTFS_TRACE_RING_RECS,
			.thread_buf_max_recs = DUTFS_TRACE_RING_MAX_RECS,
		};

		r = dut_trace_writer_open(o->trace_path, &wo, &t->w);
		if (r < 0) {
			dutfs_stats_free(t->stats);
			free(t);
			return r;
		}
		atomic_store(&t->enabled, true);
	}
	pthread_mutex_init(&t->id_lock, NULL);
	pthread_mutex_init(&t->mark_lock, NULL);
	pthread_key_create(&t->tls_key, tls_destroy);
	*ret = t;
	return 0;
}

int dutfs_tracer_close(struct dutfs_tracer *t, uint64_t *ret_written, uint64_t *ret_dropped)
{
	int r;

	*ret_written = *ret_dropped = 0;
	if (!t->w)
		return 0;
	if (tls)
		pending_emit(tls, 0); /* the workers have exited: only this thread can hold one */
	r = dut_trace_writer_close_counts(t->w, ret_written, ret_dropped);
	t->w = NULL;
	return r;
}

void dutfs_tracer_free(struct dutfs_tracer *t)
{
	uint64_t w, d;

	if (!t)
		return;
	if (t->w)
		dutfs_tracer_close(t, &w, &d);
	if (tls) {
		tls_destroy(tls);
		pthread_setspecific(t->tls_key, NULL);
	}
	pthread_key_delete(t->tls_key);
	dutfs_stats_free(t->stats);
	pthread_mutex_destroy(&t->id_lock);
	pthread_mutex_destroy(&t->mark_lock);
	free(t);
}

int dutfs_tracer_info(struct dutfs_tracer *t, const char *key, const char *value)
{
	return t->w ? dut_trace_writer_info(t->w, key, value) : 0;
}

static void register_file(struct dutfs_tracer *t, uint32_t id, const char *path)
{
	struct dut_pg_file pg;

	if (dut_pg_classify(path, DUT_PG_ROOT_AUTO, 0, &pg) < 0)
		memset(&pg, 0, sizeof(pg));
	(void)dutfs_stats_add_file(t->stats, id, path, &pg);
	/* files are registered even while tracing is paused: later records name them */
	if (t->w)
		(void)dut_trace_writer_add_file(t->w, id, path, &pg);
}

/* A new id (id_lock held); 0 when the id space is used up. */
static uint32_t new_id_locked(struct dutfs_tracer *t)
{
	if (t->next_id >= DUTFS_STATS_MAX_ID) {
		t->ids_exhausted++;
		return 0;
	}
	return ++t->next_id;
}

uint32_t dutfs_tracer_file_id(struct dutfs *fs, struct dutfs_inode *in)
{
	struct dutfs_tracer *t = fs->tracer;
	char path[PATH_MAX];
	uint32_t id = atomic_load_explicit(&in->file_id, memory_order_acquire);

	if (id)
		return id;
	pthread_mutex_lock(&t->id_lock);
	id = atomic_load_explicit(&in->file_id, memory_order_relaxed);
	if (!id && dutfs_inode_path(fs, in, path, sizeof(path)) == 0) {
		id = new_id_locked(t);
		if (id) {
			register_file(t, id, path);
			atomic_store_explicit(&in->file_id, id, memory_order_release);
		}
	}
	pthread_mutex_unlock(&t->id_lock);
	return id;
}

void dutfs_tracer_renamed(struct dutfs *fs, struct dutfs_inode *in, uint32_t pid)
{
	struct dutfs_tracer *t = fs->tracer;
	char path[PATH_MAX];
	uint32_t old, id = 0;

	pthread_mutex_lock(&t->id_lock);
	old = atomic_load_explicit(&in->file_id, memory_order_relaxed);
	/* a file never opened gets its id (with the new path) at its first open */
	if (old && dutfs_inode_path(fs, in, path, sizeof(path)) == 0) {
		id = new_id_locked(t);
		if (id) {
			register_file(t, id, path);
			atomic_store_explicit(&in->file_id, id, memory_order_release);
		}
	}
	pthread_mutex_unlock(&t->id_lock);
	if (id && t->w && atomic_load_explicit(&t->enabled, memory_order_relaxed)) {
		struct dut_trace_rec rec = {
			.ts_ns = dutfs_now_ns(),
			.offset = id,
			.file_id = old,
			.pid = pid,
			.op = DUT_OP_RENAME,
		};

		dut_trace_emit(t->w, &rec);
	}
}

int dutfs_tracer_set_enabled(struct dutfs_tracer *t, bool on)
{
	if (!t->w)
		return -ENOENT;
	atomic_store(&t->enabled, on);
	return 0;
}

int dutfs_tracer_mark(struct dutfs_tracer *t, const char *label)
{
	pthread_mutex_lock(&t->mark_lock);
	snprintf(t->last_mark, sizeof(t->last_mark), "%s", label);
	pthread_mutex_unlock(&t->mark_lock);
	return t->w ? dut_trace_writer_mark(t->w, dutfs_now_ns(), label) : 0;
}

int dutfs_tracer_render_stats(struct dutfs *fs, char **ret_json, size_t *ret_len)
{
	struct dutfs_tracer *t = fs->tracer;
	struct dutfs_stats_info info = {
		.now_ns = dutfs_now_ns(),
		.view = dutfs_view_name(t->view),
		.trace_file = t->w != NULL,
		.tracing = t->w && atomic_load(&t->enabled),
	};
	char mark[DUTFS_LAST_MARK_MAX];
	uint64_t nreq[DUTFS_REQ_KINDS];

	for (size_t i = 0; i < DUTFS_REQ_KINDS; i++)
		nreq[i] = atomic_load_explicit(&fs->nreq[i], memory_order_relaxed);
	info.req_names = dutfs_req_names;
	info.req_counts = nreq;
	info.nreq = DUTFS_REQ_KINDS;
	if (t->w) {
		dut_trace_writer_counts(t->w, &info.trace_written, &info.trace_dropped);
		info.trace_max_bytes = t->trace_max_bytes;
		info.trace_rotations = dut_trace_writer_rotations(t->w);
	}
	pthread_mutex_lock(&t->mark_lock);
	memcpy(mark, t->last_mark, sizeof(mark));
	pthread_mutex_unlock(&t->mark_lock);
	info.last_mark = mark[0] ? mark : NULL;
	info.shape = fs->shaper ? dutfs_shaper_stats_json(fs->shaper) : NULL;
	info.control = fs->ctl ? dutfs_ctl_stats_json(fs->ctl) : NULL;
	info.transport = fs->transport ? dutfs_transport_stats_json(fs->transport) : NULL;
	return dutfs_stats_render(t->stats, &info, ret_json, ret_len);
}

/* ---- layer plumbing ---- */

int dutfs_io_begin(struct dutfs *fs, fuse_req_t req, struct dutfs_io *io, uint16_t op,
		   struct dutfs_inode *in, uint64_t offset, uint32_t len, uint16_t flags)
{
	bool decided = false;

	io->arrival_ns = dutfs_now_ns();
	io->req = req;
	io->op = op;
	io->inode = in;
	io->offset = offset;
	io->len = len;
	io->flags = flags;
	io->result = 0;
	io->lat_ns = 0;
	io->xfer_len = len;
	io->skip_call = false;
	io->backing_done = false;
	io->reply_ns = 0;
	io->reply_pending = false;
	io->trace_pending = false;
	memset(&io->shape, 0, sizeof(io->shape));
	io->file_id = atomic_load_explicit(&in->file_id, memory_order_relaxed);
	/* a writeback-cache write is the kernel's, not the process's it carries */
	io->pid = (flags & DUT_TRACE_F_WRITEBACK) ? 0 : (uint32_t)fuse_req_ctx(req)->pid;
	for (unsigned i = 0; i < fs->nlayers; i++) {
		int r;

		if (!fs->layers[i].ops->submit)
			continue;
		decided = true;
		r = fs->layers[i].ops->submit(fs->layers[i].ctx, io);
		if (r < 0) {
			io->ts_ns = dutfs_now_ns();
			return r;
		}
	}
	/* without a deciding layer the backing call starts now: no second clock read */
	io->ts_ns = decided ? dutfs_now_ns() : io->arrival_ns;
	return 0;
}

void dutfs_io_replied(struct dutfs *fs, struct dutfs_io *io, uint64_t replied_ns)
{
	for (unsigned i = fs->nlayers; i-- > 0;)
		if (fs->layers[i].ops->replied)
			fs->layers[i].ops->replied(fs->layers[i].ctx, io, replied_ns);
}

void dutfs_io_backing_done(struct dutfs *fs, struct dutfs_io *io)
{
	if (io->backing_done)
		return;
	io->backing_done = true;
	for (unsigned i = fs->nlayers; i-- > 0;)
		if (fs->layers[i].ops->backing_done)
			fs->layers[i].ops->backing_done(fs->layers[i].ctx, io);
}

void dutfs_io_end_at(struct dutfs *fs, struct dutfs_io *io, int32_t result, uint64_t end_ns)
{
	dutfs_io_backing_done(fs, io);
	io->result = result;
	io->lat_ns = end_ns - io->ts_ns;
	for (unsigned i = fs->nlayers; i-- > 0;)
		if (fs->layers[i].ops->complete)
			fs->layers[i].ops->complete(fs->layers[i].ctx, io);
}

void dutfs_io_end(struct dutfs *fs, struct dutfs_io *io, int32_t result)
{
	dutfs_io_end_at(fs, io, result, dutfs_now_ns());
}

static void rec_of(const struct dutfs_io *io, uint32_t dutfs_ns, struct dut_trace_rec *ret)
{
	*ret = (struct dut_trace_rec){
		.ts_ns = io->ts_ns,
		.offset = io->offset,
		.lat_ns = io->lat_ns,
		.len = io->len,
		.result = io->result,
		.file_id = io->file_id,
		.pid = io->pid,
		.op = io->op,
		.flags = io->flags,
		.dutfs_ns = dutfs_ns,
	};
}

/* dutfs_ns 0: not recorded (the op replies by itself, after the record) */
static void trace_emit(struct dutfs_tracer *t, const struct dutfs_io *io, uint32_t dutfs_ns)
{
	struct dut_trace_rec rec;

	rec_of(io, dutfs_ns, &rec);
	dut_trace_emit(t->w, &rec);
}

/*
 * A successful open or create replies through reply_raw.c after its
 * dutfs_io_end: keep its record until then (dutfs_tracer_raw_replied).
 * Its arrival is the earlier of arrival_ns and ts_ns (a create's record is
 * made after the backing call, with the call's own start as ts_ns).
 */
static bool trace_stage(struct dutfs *fs, const struct dutfs_io *io)
{
	struct dutfs_tls *tl;

	if ((io->op != DUT_OP_OPEN && io->op != DUT_OP_CREATE) || io->result < 0 ||
	    !(tl = tls_get(fs)))
		return false;
	pending_emit(tl, 0); /* an earlier one never got its reply */
	rec_of(io, 0, &tl->pending);
	tl->pending_t = fs->tracer;
	tl->pending_req = io->req;
	tl->pending_arrival_ns = io->arrival_ns < io->ts_ns ? io->arrival_ns : io->ts_ns;
	tl->has_pending = true;
	return true;
}

static void tracer_complete(void *ctx, struct dutfs_io *io)
{
	struct dutfs *fs = ctx;
	struct dutfs_tracer *t = fs->tracer;
	enum dutfs_stat_kind kind;
	struct dutfs_tls *tl;

	if (!io->file_id)
		return; /* not a regular file dutfs has opened */
	switch (io->op) {
	case DUT_OP_READ:
		kind = DUTFS_STAT_READ;
		break;
	case DUT_OP_WRITE:
		kind = DUTFS_STAT_WRITE;
		break;
	case DUT_OP_FSYNC:
	case DUT_OP_FDATASYNC:
		kind = DUTFS_STAT_SYNC;
		break;
	default:
		kind = DUTFS_STAT_KINDS;
		break;
	}
	if (kind != DUTFS_STAT_KINDS && (tl = tls_get(fs)) != NULL)
		dutfs_stats_record(t->stats, tl->st, io->file_id, kind,
				   io->result > 0 ? (uint64_t)io->result : 0, io->lat_ns, io->result < 0);
	if (t->w && atomic_load_explicit(&t->enabled, memory_order_relaxed)) {
		/* the record waits for the reply time (tracer_replied) when there will be one */
		if (io->reply_pending)
			io->trace_pending = true;
		else if (!trace_stage(fs, io))
			trace_emit(t, io, 0);
	}
}

static void tracer_replied(void *ctx, struct dutfs_io *io, uint64_t replied_ns)
{
	struct dutfs *fs = ctx;

	if (!io->trace_pending)
		return;
	io->trace_pending = false;
	trace_emit(fs->tracer, io, dut_trace_dutfs_ns(io->arrival_ns, replied_ns, io->lat_ns));
}

const struct dutfs_layer_ops dutfs_tracer_layer = {
	.name = "tracer",
	.complete = tracer_complete,
	.replied = tracer_replied,
};
