/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shaper layer (shaper.h).
 *
 * Lock order: sh->crash_lock, then sh->gen_lock or the pre-image store's
 * lock, then fs->itab_lock.  The per-request path takes only gen_lock (to
 * pin a generation) and path_lock (read), never crash_lock.
 *
 * Crash protocol: a request counts itself in sh->inflight before it looks
 * at sh->down (both seq_cst), and leaves the count when its backing call
 * is over (->backing_done).  A crash sets down, then waits for inflight to
 * reach 0: every request either saw down (and fails with EIO) or finishes
 * its backing call before the discard plan is taken and applied, so no
 * write can land after the pre-images were put back.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fuse/dutfs.h"
#include "fuse/preimage.h"
#include "fuse/relmap_class.h"
#include "fuse/shaper.h"
#include "fuse/shape/engine.h"
#include "fuse/shape/keymap.h"
#include "lib/trace.h"

/* dutfs_shape_req.state bits */
#define SH_INFLIGHT 1u   /* counted in sh->inflight */
#define SH_DECIDED  2u   /* the engine gave a verdict: complete must follow */

/* How long a crash waits for backing calls in flight (they are local syscalls). */
#define CRASH_DRAIN_MAX_MS 30000

struct dutfs_shaper_gen {
	struct shape_engine *engine;
	struct shape_classifier cls;   /* owns its relation map */
	atomic_uint refs;
};

struct path_entry {
	enum shape_class cls;
	char path[];
};

struct dutfs_shaper {
	struct dutfs *fs;
	char *rules_path;
	char *relmap_path;                 /* NULL: none */

	pthread_mutex_t gen_lock;
	struct dutfs_shaper_gen *gen;      /* gen_lock; swapped by reload */

	pthread_mutex_t crash_lock;        /* serialises crash, recover, reload */
	atomic_bool down;                  /* crashed: requests fail with EIO */
	atomic_uint_fast64_t inflight;     /* requests between submit and backing_done */
	atomic_uint_fast64_t epoch;        /* +1 at every crash */
	bool finish_pending;               /* crash_lock: a fault crash still to apply */
	bool fault_thread;                 /* crash_lock: fault_tid to be joined */
	pthread_t fault_tid;               /* crash_lock */
	uint64_t crashes;                  /* crash_lock */
	uint64_t last_plan_ranges;         /* crash_lock */
	uint64_t last_plan_bytes;          /* crash_lock */
	uint64_t last_invalidated;         /* crash_lock */
	int last_restore_err;              /* crash_lock */
	uint64_t reloads;                  /* crash_lock */
	char reload_error[512];            /* crash_lock; "" = last reload fine */

	struct dutfs_preimages *pre;

	pthread_rwlock_t path_lock;
	struct shape_keymap paths;         /* file id -> struct path_entry; path_lock */

	atomic_uint_fast64_t injected_errors;   /* error and crash faults */
	atomic_uint_fast64_t fsync_drops;       /* injected fsync errors that dropped data */
	atomic_uint_fast64_t fsync_dropped_bytes;
	atomic_uint_fast64_t short_transfers;
	atomic_uint_fast64_t crashed_eio;       /* refused while crashed */
	atomic_uint_fast64_t crossed_crash_eio; /* in flight across a crash */
	atomic_uint_fast64_t skipped_syncs;     /* barriers off */
	atomic_uint_fast64_t delayed;           /* replies given a delay */
	atomic_uint_fast64_t refused_writes;    /* pre-image bound or read error */
	atomic_bool refusal_logged;
};

/* Takes rules and cls, also on failure (NULL: ENOMEM). */
static struct dutfs_shaper_gen *gen_new(struct shape_rules *rules, struct shape_classifier *cls)
{
	struct dutfs_shaper_gen *g = calloc(1, sizeof(*g));

	if (!g || shape_engine_new(rules, &g->engine) < 0) {
		shape_rules_free(rules);
		dutfs_relmap_class_free(cls);
		free(g);
		return NULL;
	}
	g->cls = *cls;
	atomic_init(&g->refs, 1);
	return g;
}

static void gen_put(struct dutfs_shaper_gen *g)
{
	if (g && atomic_fetch_sub(&g->refs, 1) == 1) {
		shape_engine_free(g->engine);
		dutfs_relmap_class_free(&g->cls);
		free(g);
	}
}

static struct dutfs_shaper_gen *gen_get(struct dutfs_shaper *sh)
{
	struct dutfs_shaper_gen *g;

	pthread_mutex_lock(&sh->gen_lock);
	g = sh->gen;
	atomic_fetch_add(&g->refs, 1);
	pthread_mutex_unlock(&sh->gen_lock);
	return g;
}

int dutfs_shaper_new(struct dutfs *fs, const struct dutfs_shaper_opts *o, struct shape_rules *rules,
		     struct shape_classifier *cls, struct dutfs_shaper **ret)
{
	struct dutfs_shaper *sh = calloc(1, sizeof(*sh));
	int r = -ENOMEM;

	if (!sh)
		goto out_rules;
	sh->fs = fs;
	sh->rules_path = strdup(o->rules_path);
	sh->relmap_path = o->relmap_path ? strdup(o->relmap_path) : NULL;
	if (!sh->rules_path || (o->relmap_path && !sh->relmap_path))
		goto out_free;
	r = dutfs_preimages_new(fs, o->preimage_max_bytes ? o->preimage_max_bytes
					: DUTFS_PREIMAGE_MAX_DEFAULT, &sh->pre);
	if (r < 0)
		goto out_free;
	sh->gen = gen_new(rules, cls);
	if (!sh->gen) {
		dutfs_preimages_free(sh->pre);
		free(sh->relmap_path);
		free(sh->rules_path);
		free(sh);
		return -ENOMEM;
	}
	pthread_mutex_init(&sh->gen_lock, NULL);
	pthread_mutex_init(&sh->crash_lock, NULL);
	pthread_rwlock_init(&sh->path_lock, NULL);
	*ret = sh;
	return 0;

out_free:
	free(sh->relmap_path);
	free(sh->rules_path);
	free(sh);
out_rules:
	shape_rules_free(rules);
	dutfs_relmap_class_free(cls);
	return r;
}

static void free_path(uint64_t key, void *val, void *arg)
{
	(void)key;
	(void)arg;
	free(val);
}

void dutfs_shaper_free(struct dutfs_shaper *sh)
{
	if (!sh)
		return;
	/* a fault crash's helper thread must be gone before its shaper is */
	pthread_mutex_lock(&sh->crash_lock);
	if (sh->fault_thread) {
		pthread_t t = sh->fault_tid;

		sh->fault_thread = false;
		pthread_mutex_unlock(&sh->crash_lock);
		pthread_join(t, NULL);
	} else {
		pthread_mutex_unlock(&sh->crash_lock);
	}
	dutfs_preimages_free(sh->pre);
	gen_put(sh->gen);
	shape_keymap_each(&sh->paths, free_path, NULL);
	shape_keymap_clear(&sh->paths);
	pthread_rwlock_destroy(&sh->path_lock);
	pthread_mutex_destroy(&sh->gen_lock);
	pthread_mutex_destroy(&sh->crash_lock);
	free(sh->relmap_path);
	free(sh->rules_path);
	free(sh);
}

/* The journal and model key of a file: its backing inode, stable across renames. */
static uint64_t file_key(const struct dutfs_inode *in)
{
	return (uint64_t)in->ino ^ ((uint64_t)in->dev * 0x9e3779b97f4a7c15ull);
}

/*
 * Path and class of a file.  A file id names one path for good (a rename
 * gives a new id), so entries are cached by id and never change.  Files
 * without an id (truncate of a file never opened) are looked up each time.
 */
static int file_class(struct dutfs_shaper *sh, struct dutfs_shaper_gen *g, struct dutfs_io *io,
		      char *buf, size_t size, const char **ret_path, enum shape_class *ret_cls)
{
	struct path_entry *e = NULL;
	size_t len;

	if (io->file_id) {
		bool hit = false;

		/* copied under the lock: a reload frees the entries */
		pthread_rwlock_rdlock(&sh->path_lock);
		e = shape_keymap_get(&sh->paths, io->file_id);
		if (e && strlen(e->path) < size) {
			strcpy(buf, e->path);
			*ret_cls = e->cls;
			hit = true;
		}
		pthread_rwlock_unlock(&sh->path_lock);
		if (hit) {
			*ret_path = buf;
			return 0;
		}
	}
	if (dutfs_inode_path(sh->fs, io->inode, buf, size) < 0)
		return -ENAMETOOLONG;
	*ret_path = buf;
	*ret_cls = shape_classify(&g->cls, buf);
	if (!io->file_id)
		return 0;
	len = strlen(buf);
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return 0;
	e->cls = *ret_cls;
	memcpy(e->path, buf, len + 1);
	pthread_rwlock_wrlock(&sh->path_lock);
	if (shape_keymap_get(&sh->paths, io->file_id) || shape_keymap_put(&sh->paths, io->file_id, e) < 0)
		free(e);
	pthread_rwlock_unlock(&sh->path_lock);
	return 0;
}

/* ---- crash ---- */

/*
 * Make the kernel forget what it cached about every file: pages and
 * attributes (notify_inval_inode).  In the device view the writeback cache
 * makes the kernel keep its own file sizes, even over fresh attributes, so
 * regular files also get a new entry generation and their dentries are
 * dropped: the next lookup builds a fresh inode whose size is the backing
 * file's.  An fd opened before the crash keeps the old inode, which the
 * kernel marks bad at that lookup (its I/O fails with EIO, like a process
 * that outlived a device reset).  Returns the number of inodes invalidated.
 */
static uint64_t invalidate_kernel(struct dutfs_shaper *sh)
{
	struct dutfs *fs = sh->fs;
	struct dutfs_file_ref *v = NULL;
	size_t n = 0;
	uint64_t done = 0;

	if (!fs->se || dutfs_inode_list_files(fs, &v, &n) < 0)
		return 0;
	if (fs->view == DUTFS_VIEW_DEVICE) {
		atomic_fetch_add(&fs->file_generation, 1);
		for (size_t i = 0; i < n; i++) {
			if (v[i].name)
				(void)fuse_lowlevel_notify_inval_entry(fs->se, v[i].parent, v[i].name,
								       strlen(v[i].name));
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* -ENOENT: the kernel has forgotten it, nothing cached */
		if (fuse_lowlevel_notify_inval_inode(fs->se, v[i].ino, 0, 0) == 0)
			done++;
	}
	dutfs_file_refs_free(v, n);
	return done;
}

/* The rest of a crash, once down is set (crash_lock held). */
static void crash_finish_locked(struct dutfs_shaper *sh)
{
	struct dutfs_shaper_gen *g = gen_get(sh);
	struct shape_discard *plan = NULL;
	size_t n = 0;
	int waited_ms = 0, r;

	sh->finish_pending = false;
	while (atomic_load(&sh->inflight) > 0 && waited_ms < CRASH_DRAIN_MAX_MS) {
		usleep(1000);
		waited_ms++;
	}
	if (atomic_load(&sh->inflight) > 0)
		fuse_log(FUSE_LOG_ERR, "dutfs: crash: %llu requests still in their backing call after %d s; "
			 "restoring anyway\n", (unsigned long long)atomic_load(&sh->inflight),
			 CRASH_DRAIN_MAX_MS / 1000);
	/* -EALREADY: a crash fault already crashed the engine (and made the plan) */
	r = shape_engine_crash(g->engine);
	(void)r;
	shape_engine_take_plan(g->engine, &plan, &n);
	sh->last_plan_ranges = n;
	sh->last_plan_bytes = 0;
	for (size_t i = 0; i < n; i++)
		sh->last_plan_bytes += plan[i].len;
	sh->last_restore_err = dutfs_preimages_restore(sh->pre, plan, n);
	if (sh->last_restore_err < 0)
		fuse_log(FUSE_LOG_ERR, "dutfs: crash: could not put back every pre-image: %s "
			 "(see stats.json shape.preimages.restore_errors)\n",
			 strerror(-sh->last_restore_err));
	free(plan);
	sh->last_invalidated = invalidate_kernel(sh);
	sh->crashes++;
	gen_put(g);
}

/* down false -> true; returns false when it was down already. */
static bool go_down(struct dutfs_shaper *sh)
{
	bool was = false;

	if (!atomic_compare_exchange_strong(&sh->down, &was, true))
		return false;
	atomic_fetch_add(&sh->epoch, 1);
	return true;
}

static void *fault_crash_thread(void *arg)
{
	struct dutfs_shaper *sh = arg;

	pthread_mutex_lock(&sh->crash_lock);
	if (sh->finish_pending)
		crash_finish_locked(sh);
	pthread_mutex_unlock(&sh->crash_lock);
	return NULL;
}

/*
 * A crash fault fired in a worker.  The worker may be serving a write
 * whose pages the kernel keeps locked, and invalidating those pages would
 * wait for that very reply: the rest of the crash runs in its own thread.
 */
static void crash_from_fault(struct dutfs_shaper *sh)
{
	pthread_t old;
	bool join_old;

	pthread_mutex_lock(&sh->crash_lock);
	if (!go_down(sh)) {
		pthread_mutex_unlock(&sh->crash_lock);
		return;
	}
	sh->finish_pending = true;
	/* the thread of an earlier crash fault has finished (or is about to: nothing pending then) */
	join_old = sh->fault_thread;
	old = sh->fault_tid;
	sh->fault_thread = pthread_create(&sh->fault_tid, NULL, fault_crash_thread, sh) == 0;
	if (!sh->fault_thread)
		fuse_log(FUSE_LOG_ERR, "dutfs: crash fault: cannot start the crash thread; the "
			 "pre-images are put back at the next \"recover\"\n");
	pthread_mutex_unlock(&sh->crash_lock);
	if (join_old)
		pthread_join(old, NULL);
}

int dutfs_shaper_crash(struct dutfs_shaper *sh, struct dut_error *err)
{
	pthread_mutex_lock(&sh->crash_lock);
	if (!go_down(sh)) {
		pthread_mutex_unlock(&sh->crash_lock);
		dut_error_set(err, "crash: already crashed (send \"recover\" first)");
		return -EALREADY;
	}
	crash_finish_locked(sh);
	pthread_mutex_unlock(&sh->crash_lock);
	return 0;
}

int dutfs_shaper_recover(struct dutfs_shaper *sh, struct dut_error *err)
{
	struct dutfs_shaper_gen *g;

	pthread_mutex_lock(&sh->crash_lock);
	if (!atomic_load(&sh->down)) {
		pthread_mutex_unlock(&sh->crash_lock);
		dut_error_set(err, "recover: not crashed (send \"crash\" first)");
		return -EINVAL;
	}
	if (sh->finish_pending)
		crash_finish_locked(sh);
	g = gen_get(sh);
	(void)shape_engine_recover(g->engine);
	gen_put(g);
	atomic_store(&sh->down, false);
	pthread_mutex_unlock(&sh->crash_lock);
	return 0;
}

int dutfs_shaper_reload(struct dutfs_shaper *sh, struct dut_error *err)
{
	struct shape_classifier cls = { 0 };
	struct shape_rules *rules;
	struct dutfs_shaper_gen *g, *old;
	int r;

	pthread_mutex_lock(&sh->crash_lock);
	if (atomic_load(&sh->down)) {
		dut_error_set(err, "reload: crashed; send \"recover\" first");
		r = -EBUSY;
		goto out_unlock;
	}
	if (sh->relmap_path && (r = dutfs_relmap_class_load(sh->relmap_path, &cls, err)) < 0) {
		snprintf(sh->reload_error, sizeof(sh->reload_error), "%s", err->msg);
		goto out_unlock;
	}
	r = shape_rules_load(sh->rules_path, &rules, err);
	if (r < 0) {
		dutfs_relmap_class_free(&cls);
		snprintf(sh->reload_error, sizeof(sh->reload_error), "%s", err->msg);
		goto out_unlock;
	}
	g = gen_new(rules, &cls);
	if (!g) {
		dut_error_set(err, "reload: out of memory; the old rules stay");
		r = -ENOMEM;
		goto out_unlock;
	}
	pthread_mutex_lock(&sh->gen_lock);
	old = sh->gen;
	sh->gen = g;
	pthread_mutex_unlock(&sh->gen_lock);
	/* classes came from the old relation map */
	pthread_rwlock_wrlock(&sh->path_lock);
	shape_keymap_each(&sh->paths, free_path, NULL);
	shape_keymap_clear(&sh->paths);
	pthread_rwlock_unlock(&sh->path_lock);
	/*
	 * The new generation starts with an empty journal: what was written
	 * before the reload counts as synced from now on (it survives a later
	 * crash), so its pre-images go too.  Old requests still in flight end
	 * on the old generation.
	 */
	dutfs_preimages_clear(sh->pre);
	gen_put(old);
	sh->reloads++;
	sh->reload_error[0] = '\0';
out_unlock:
	pthread_mutex_unlock(&sh->crash_lock);
	return r;
}

/* ---- the layer ---- */

/*
 * An injected fsync/fdatasync error: as Linux does after a writeback error,
 * what that fsync should have made durable is gone from the device (the
 * backing file gets its synced content back) while the kernel's page cache
 * of the mount may still show the new data until it is evicted; the next
 * fsync succeeds without bringing it back.  This is what makes PostgreSQL
 * PANIC on a failed fsync instead of retrying it.
 */
static void drop_at_fsync_error(struct dutfs_shaper *sh, struct dutfs_shaper_gen *g,
				uint64_t key)
{
	struct shape_discard *plan = NULL;
	uint64_t bytes = 0;
	size_t n = 0;
	int r;

	r = shape_engine_drop_unsynced(g->engine, key, &plan, &n);
	if (r == 0 && n)
		r = dutfs_preimages_restore_file(sh->pre, key, plan, n, &bytes);
	free(plan);
	if (r < 0)
		fuse_log(FUSE_LOG_ERR, "dutfs: fsync fault: could not drop the unsynced data of a file: "
			 "%s (it stays written)\n", strerror(-r));
	atomic_fetch_add_explicit(&sh->fsync_drops, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&sh->fsync_dropped_bytes, bytes, memory_order_relaxed);
}

static void shaper_backing_done(void *ctx, struct dutfs_io *io);

static int shaper_submit(void *ctx, struct dutfs_io *io)
{
	struct dutfs_shaper *sh = ctx;
	struct dutfs_shape_req *s = &io->shape;
	struct shape_verdict *v = &s->v;
	struct dutfs_shaper_gen *g;
	struct shape_io sio;
	char buf[PATH_MAX];
	enum shape_op op;
	int r;

	/* creates are recorded after the fact (docs/dutfs.md): not shaped */
	if (!io->inode || io->inode->type != S_IFREG || io->op == DUT_OP_CREATE ||
	    shape_op_from_trace(io->op, &op) < 0)
		return 0;
	atomic_fetch_add(&sh->inflight, 1);
	s->state = SH_INFLIGHT;
	if (atomic_load(&sh->down)) {
		io->flags |= DUT_TRACE_F_FAULT;
		atomic_fetch_add_explicit(&sh->crashed_eio, 1, memory_order_relaxed);
		return -EIO;
	}
	sio = (struct shape_io){ .op = op, .file_key = file_key(io->inode), .offset = io->offset,
				 .len = io->len };
	g = gen_get(sh);
	if (file_class(sh, g, io, buf, sizeof(buf), &sio.path, &sio.cls) < 0) {
		gen_put(g);
		return 0; /* no name to match rules against: passed through */
	}
	s->gen = g;
	s->state |= SH_DECIDED;
	s->key = sio.file_key;
	s->epoch = atomic_load(&sh->epoch);
	sio.now_ns = dutfs_now_ns();
	shape_engine_submit(g->engine, &sio, v);
	if (v->err) {
		io->flags |= DUT_TRACE_F_FAULT;
		atomic_fetch_add_explicit(&sh->injected_errors, 1, memory_order_relaxed);
		if (shape_engine_crashed(g->engine)) {
			/* no backing call: leave the in-flight count before waiting on crash_lock */
			shaper_backing_done(sh, io);
			crash_from_fault(sh);
		} else if (op == SHAPE_OP_FSYNC || op == SHAPE_OP_FDATASYNC) {
			drop_at_fsync_error(sh, g, s->key);
		}
		return v->err;
	}
	if (v->len < io->len && (op == SHAPE_OP_READ || op == SHAPE_OP_WRITE)) {
		io->xfer_len = (uint32_t)v->len;
		io->flags |= DUT_TRACE_F_FAULT;
		atomic_fetch_add_explicit(&sh->short_transfers, 1, memory_order_relaxed);
	}
	if (v->skip_sync) {
		io->skip_call = true;
		atomic_fetch_add_explicit(&sh->skipped_syncs, 1, memory_order_relaxed);
	}
	if (v->done_ns > sio.now_ns) {
		io->reply_ns = v->done_ns;
		io->flags |= DUT_TRACE_F_SHAPED;
		atomic_fetch_add_explicit(&sh->delayed, 1, memory_order_relaxed);
	}
	if (v->journaled && op == SHAPE_OP_WRITE) {
		r = dutfs_preimages_save(sh->pre, s->key, io->inode, io->offset, v->len);
		if (r < 0) {
			io->flags |= DUT_TRACE_F_FAULT;
			atomic_fetch_add_explicit(&sh->refused_writes, 1, memory_order_relaxed);
			if (!atomic_exchange(&sh->refusal_logged, true)) {
				struct dutfs_preimage_stats ps;

				dutfs_preimages_stats(sh->pre, &ps);
				fuse_log(FUSE_LOG_ERR, "dutfs: refusing writes to unsynced files: %s "
					 "(pre-images of unsynced data are kept up to %llu MiB; fsync "
					 "more often or raise --preimage-max); logged once\n",
					 r == -ENOSPC ? "the pre-image store is full" : strerror(-r),
					 (unsigned long long)(ps.max_bytes >> 20));
			}
			return r;
		}
	}
	return 0;
}

static void shaper_backing_done(void *ctx, struct dutfs_io *io)
{
	struct dutfs_shaper *sh = ctx;

	if (io->shape.state & SH_INFLIGHT) {
		io->shape.state &= (uint8_t)~SH_INFLIGHT;
		atomic_fetch_sub(&sh->inflight, 1);
	}
}

static void shaper_complete(void *ctx, struct dutfs_io *io)
{
	struct dutfs_shaper *sh = ctx;
	struct dutfs_shape_req *s = &io->shape;
	struct shape_io sio;
	bool crossed;

	shaper_backing_done(ctx, io);
	if (!(s->state & SH_DECIDED))
		return;
	s->state &= (uint8_t)~SH_DECIDED;
	crossed = s->epoch != atomic_load(&sh->epoch);
	if (crossed && io->result >= 0) {
		/* a crash happened before the reply: the device never acknowledged it */
		io->result = -EIO;
		io->flags |= DUT_TRACE_F_FAULT;
		atomic_fetch_add_explicit(&sh->crossed_crash_eio, 1, memory_order_relaxed);
	}
	shape_op_from_trace(io->op, &sio.op);
	sio.file_key = s->key;
	sio.offset = io->offset;
	sio.len = s->v.len;
	sio.path = NULL;
	sio.cls = SHAPE_CLASS_OTHER;
	sio.now_ns = 0;
	shape_engine_complete(s->gen->engine, &sio, &s->v, io->result);
	if (io->result >= 0 && !s->v.err) {
		switch (sio.op) {
		case SHAPE_OP_FSYNC:
		case SHAPE_OP_FDATASYNC:
			if (!s->v.skip_sync)
				dutfs_preimages_drop(sh->pre, s->key);
			break;
		case SHAPE_OP_TRUNCATE:
			dutfs_preimages_truncate(sh->pre, s->key, io->offset);
			break;
		case SHAPE_OP_UNLINK:
			dutfs_preimages_drop(sh->pre, s->key);
			break;
		default:
			break;
		}
	}
	gen_put(s->gen);
	s->gen = NULL;
}

const struct dutfs_layer_ops dutfs_shaper_layer = {
	.name = "shaper",
	.submit = shaper_submit,
	.complete = shaper_complete,
	.backing_done = shaper_backing_done,
};

bool dutfs_shaper_is_down(struct dutfs_shaper *sh)
{
	return atomic_load(&sh->down);
}

/* ---- stats ---- */

static struct json_object *u64j(uint64_t v)
{
	return json_object_new_uint64(v);
}

struct json_object *dutfs_shaper_stats_json(struct dutfs_shaper *sh)
{
	struct dutfs_shaper_gen *g = gen_get(sh);
	struct json_object *o = shape_engine_stats_json(g->engine), *d, *p, *c;
	struct dutfs_preimage_stats ps;

	gen_put(g);
	if (!o)
		return NULL;
	dutfs_preimages_stats(sh->pre, &ps);
	d = json_object_new_object();
	json_object_object_add(d, "delayed_replies", u64j(atomic_load(&sh->delayed)));
	json_object_object_add(d, "injected_errors", u64j(atomic_load(&sh->injected_errors)));
	json_object_object_add(d, "fsync_errors_dropping_data", u64j(atomic_load(&sh->fsync_drops)));
	json_object_object_add(d, "fsync_error_dropped_bytes", u64j(atomic_load(&sh->fsync_dropped_bytes)));
	json_object_object_add(d, "short_transfers", u64j(atomic_load(&sh->short_transfers)));
	json_object_object_add(d, "skipped_syncs", u64j(atomic_load(&sh->skipped_syncs)));
	json_object_object_add(d, "eio_while_crashed", u64j(atomic_load(&sh->crashed_eio)));
	json_object_object_add(d, "eio_across_crash", u64j(atomic_load(&sh->crossed_crash_eio)));
	json_object_object_add(d, "refused_writes", u64j(atomic_load(&sh->refused_writes)));
	json_object_object_add(o, "injected", d);

	p = json_object_new_object();
	json_object_object_add(p, "bytes", u64j(ps.bytes));
	json_object_object_add(p, "files", u64j(ps.files));
	json_object_object_add(p, "max_bytes", u64j(ps.max_bytes));
	json_object_object_add(p, "refused_writes", u64j(ps.refused_writes));
	json_object_object_add(p, "save_errors", u64j(ps.save_errors));
	json_object_object_add(o, "preimages", p);

	c = json_object_new_object();
	pthread_mutex_lock(&sh->crash_lock);
	json_object_object_add(o, "daemon_crashes", u64j(sh->crashes));
	json_object_object_add(o, "reloads", u64j(sh->reloads));
	json_object_object_add(o, "reload_error",
			       sh->reload_error[0] ? json_object_new_string(sh->reload_error) : NULL);
	json_object_object_add(c, "plan_ranges", u64j(sh->last_plan_ranges));
	json_object_object_add(c, "plan_bytes", u64j(sh->last_plan_bytes));
	json_object_object_add(c, "restored_bytes", u64j(ps.restored_bytes));
	json_object_object_add(c, "hole_bytes", u64j(ps.hole_bytes));
	json_object_object_add(c, "truncated_files", u64j(ps.truncated_files));
	json_object_object_add(c, "missing_bytes", u64j(ps.missing_bytes));
	json_object_object_add(c, "restore_errors", u64j(ps.restore_errors));
	json_object_object_add(c, "invalidated_inodes", u64j(sh->last_invalidated));
	pthread_mutex_unlock(&sh->crash_lock);
	json_object_object_add(o, "last_crash", c);
	return o;
}
