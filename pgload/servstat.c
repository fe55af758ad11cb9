/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Server counters by version, their deltas, and the wait-event histogram (pure). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/servstat.h"

const struct pgl_ctr_info pgl_ctr_info[PGL_CTR_COUNT] = {
	[PGL_CTR_XACT_COMMIT] = { "xact_commit", "count", PGL_TIMING_NONE },
	[PGL_CTR_XACT_ROLLBACK] = { "xact_rollback", "count", PGL_TIMING_NONE },
	[PGL_CTR_BLKS_READ] = { "blks_read", "blocks", PGL_TIMING_NONE },
	[PGL_CTR_BLKS_HIT] = { "blks_hit", "blocks", PGL_TIMING_NONE },
	[PGL_CTR_BLK_READ_TIME] = { "blk_read_time", "ms", PGL_TIMING_IO },
	[PGL_CTR_BLK_WRITE_TIME] = { "blk_write_time", "ms", PGL_TIMING_IO },
	[PGL_CTR_TEMP_FILES] = { "temp_files", "count", PGL_TIMING_NONE },
	[PGL_CTR_TEMP_BYTES] = { "temp_bytes", "bytes", PGL_TIMING_NONE },
	[PGL_CTR_CKPT_TIMED] = { "checkpoints_timed", "count", PGL_TIMING_NONE },
	[PGL_CTR_CKPT_REQ] = { "checkpoints_req", "count", PGL_TIMING_NONE },
	[PGL_CTR_BUF_CHECKPOINT] = { "buffers_checkpoint", "blocks", PGL_TIMING_NONE },
	[PGL_CTR_BUF_CLEAN] = { "buffers_clean", "blocks", PGL_TIMING_NONE },
	[PGL_CTR_BUF_BACKEND] = { "buffers_backend", "blocks", PGL_TIMING_NONE },
	[PGL_CTR_BUF_BACKEND_FSYNC] = { "buffers_backend_fsync", "count", PGL_TIMING_NONE },
	[PGL_CTR_CKPT_WRITE_TIME] = { "checkpoint_write_time", "ms", PGL_TIMING_NONE },
	[PGL_CTR_CKPT_SYNC_TIME] = { "checkpoint_sync_time", "ms", PGL_TIMING_NONE },
	[PGL_CTR_WAL_RECORDS] = { "wal_records", "count", PGL_TIMING_NONE },
	[PGL_CTR_WAL_FPI] = { "wal_fpi", "count", PGL_TIMING_NONE },
	[PGL_CTR_WAL_BYTES] = { "wal_bytes", "bytes", PGL_TIMING_NONE },
	[PGL_CTR_WAL_BUFFERS_FULL] = { "wal_buffers_full", "count", PGL_TIMING_NONE },
	[PGL_CTR_WAL_WRITE] = { "wal_write", "count", PGL_TIMING_NONE },
	[PGL_CTR_WAL_SYNC] = { "wal_sync", "count", PGL_TIMING_NONE },
	[PGL_CTR_WAL_WRITE_TIME] = { "wal_write_time", "ms", PGL_TIMING_WAL_IO },
	[PGL_CTR_WAL_SYNC_TIME] = { "wal_sync_time", "ms", PGL_TIMING_WAL_IO },
};

#define Q(v, s, db, ...) (struct pgl_ctr_query){ .view = v, .sql = s, .needs_dbname = db,        \
	.ncols = sizeof((enum pgl_ctr[]){ __VA_ARGS__ }) / sizeof(enum pgl_ctr), .cols = { __VA_ARGS__ } }

size_t pgl_ctr_queries(int version_num, struct pgl_ctr_query q[PGL_CTR_MAX_QUERIES])
{
	size_t n = 0;

	q[n++] = Q("pg_stat_database",
		   "SELECT xact_commit, xact_rollback, blks_read, blks_hit, blk_read_time, blk_write_time, "
		   "temp_files, temp_bytes FROM pg_stat_database WHERE datname = $1", true,
		   PGL_CTR_XACT_COMMIT, PGL_CTR_XACT_ROLLBACK, PGL_CTR_BLKS_READ, PGL_CTR_BLKS_HIT,
		   PGL_CTR_BLK_READ_TIME, PGL_CTR_BLK_WRITE_TIME, PGL_CTR_TEMP_FILES, PGL_CTR_TEMP_BYTES);
	if (version_num < 170000)
		q[n++] = Q("pg_stat_bgwriter",
			   "SELECT checkpoints_timed, checkpoints_req, buffers_checkpoint, buffers_clean, "
			   "buffers_backend, buffers_backend_fsync, checkpoint_write_time, checkpoint_sync_time "
			   "FROM pg_stat_bgwriter", false,
			   PGL_CTR_CKPT_TIMED, PGL_CTR_CKPT_REQ, PGL_CTR_BUF_CHECKPOINT, PGL_CTR_BUF_CLEAN,
			   PGL_CTR_BUF_BACKEND, PGL_CTR_BUF_BACKEND_FSYNC, PGL_CTR_CKPT_WRITE_TIME,
			   PGL_CTR_CKPT_SYNC_TIME);
	else
		q[n++] = Q("pg_stat_checkpointer",
			   "SELECT c.num_timed, c.num_requested, c.buffers_written, b.buffers_clean, "
			   "c.write_time, c.sync_time FROM pg_stat_checkpointer c, pg_stat_bgwriter b", false,
			   PGL_CTR_CKPT_TIMED, PGL_CTR_CKPT_REQ, PGL_CTR_BUF_CHECKPOINT, PGL_CTR_BUF_CLEAN,
			   PGL_CTR_CKPT_WRITE_TIME, PGL_CTR_CKPT_SYNC_TIME);
	if (version_num >= 140000 && version_num < 180000)
		q[n++] = Q("pg_stat_wal",
			   "SELECT wal_records, wal_fpi, wal_bytes, wal_buffers_full, wal_write, wal_sync, "
			   "wal_write_time, wal_sync_time FROM pg_stat_wal", false,
			   PGL_CTR_WAL_RECORDS, PGL_CTR_WAL_FPI, PGL_CTR_WAL_BYTES, PGL_CTR_WAL_BUFFERS_FULL,
			   PGL_CTR_WAL_WRITE, PGL_CTR_WAL_SYNC, PGL_CTR_WAL_WRITE_TIME, PGL_CTR_WAL_SYNC_TIME);
	else if (version_num >= 180000)
		/* 18 moved the write/sync counts and times to pg_stat_io, object wal; context
		 * normal is what XLogWrite and issue_xlog_fsync do (init is segment creation) */
		q[n++] = Q("pg_stat_wal and pg_stat_io",
			   "SELECT w.wal_records, w.wal_fpi, w.wal_bytes, w.wal_buffers_full, i.writes, "
			   "i.fsyncs, i.write_time, i.fsync_time FROM pg_stat_wal w, (SELECT sum(writes) AS "
			   "writes, sum(fsyncs) AS fsyncs, sum(write_time) AS write_time, sum(fsync_time) AS "
			   "fsync_time FROM pg_stat_io WHERE object = 'wal' AND context = 'normal') i", false,
			   PGL_CTR_WAL_RECORDS, PGL_CTR_WAL_FPI, PGL_CTR_WAL_BYTES, PGL_CTR_WAL_BUFFERS_FULL,
			   PGL_CTR_WAL_WRITE, PGL_CTR_WAL_SYNC, PGL_CTR_WAL_WRITE_TIME, PGL_CTR_WAL_SYNC_TIME);
	return n;
}

const char *pgl_ctr_absent_why(int version_num, enum pgl_ctr c)
{
	if (c >= PGL_CTR_WAL_RECORDS && version_num < 140000)
		return "PostgreSQL 13 has no pg_stat_wal (it is new in 14)";
	if ((c == PGL_CTR_BUF_BACKEND || c == PGL_CTR_BUF_BACKEND_FSYNC) && version_num >= 170000)
		return "PostgreSQL 17 removed buffers_backend and buffers_backend_fsync (backend writes "
		       "are in pg_stat_io)";
	return NULL;
}

int pgl_ctr_store_row(const struct pgl_ctr_query *q, const char *const *vals, struct pgl_ctr_set *s)
{
	for (unsigned i = 0; i < q->ncols; i++) {
		enum pgl_ctr c = q->cols[i];
		char *end;
		double v;

		s->have[c] = false;
		if (!vals[i])
			continue;          /* NULL: e.g. sum() over no pg_stat_io row */
		v = strtod(vals[i], &end);
		if (end == vals[i] || *end)
			return -EINVAL;
		s->v[c] = v;
		s->have[c] = true;
	}
	return 0;
}

void pgl_ctr_delta(const struct pgl_ctr_set *before, const struct pgl_ctr_set *after,
		   struct pgl_ctr_set *d, bool *ret_reset)
{
	bool reset = false;

	memset(d, 0, sizeof(*d));
	for (int c = 0; c < PGL_CTR_COUNT; c++) {
		if (!before->have[c] || !after->have[c])
			continue;
		if (after->v[c] < before->v[c]) {
			reset = true;
			continue;
		}
		d->v[c] = after->v[c] - before->v[c];
		d->have[c] = true;
	}
	*ret_reset = reset;
}

static bool setting_on(const char *v)
{
	return strcmp(v, "on") == 0;
}

void pgl_servstat_finish_counters(struct pgl_servstat *s)
{
	for (int c = 0; c < PGL_CTR_COUNT; c++) {
		enum pgl_ctr_timing t = pgl_ctr_info[c].timing;

		s->absent_why[c] = NULL;
		if (!s->have_counters) {
			s->delta.have[c] = false;
			s->absent_why[c] = "the counters were not read";
			continue;
		}
		if ((s->absent_why[c] = pgl_ctr_absent_why(s->version_num, c)))
			s->delta.have[c] = false;
		else if (t == PGL_TIMING_IO && !setting_on(s->track_io_timing))
			s->absent_why[c] = "track_io_timing was off (pgload cluster init turns it on)";
		else if (t == PGL_TIMING_WAL_IO && !setting_on(s->track_wal_io_timing))
			s->absent_why[c] = "track_wal_io_timing was off (pgload cluster init turns it on)";
		else if (!s->delta.have[c])
			s->absent_why[c] = s->stats_reset ? "the statistics were reset during the run"
							  : "the server returned no value";
		if (s->absent_why[c])
			s->delta.have[c] = false;
	}
}

/* ---- wait events ---- */

const char *pgl_wait_proc(const char *backend_type)
{
	static const struct { const char *bt, *name; } map[] = {
		{ "client backend", "backend" }, { "checkpointer", "checkpointer" },
		{ "walwriter", "walwriter" }, { "background writer", "bgwriter" },
	};

	for (size_t i = 0; backend_type && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(backend_type, map[i].bt) == 0)
			return map[i].name;
	return NULL;
}

static int note_second(struct pgl_waits *w, uint64_t sec, bool first_row, bool ckpt_busy)
{
	if (sec >= w->secs_cap) {
		size_t cap = w->secs_cap ? w->secs_cap : 64;
		uint32_t *a, *b;

		while (cap <= sec)
			cap *= 2;
		if (!(a = realloc(w->sec_samples, cap * sizeof(*a))))
			return -ENOMEM;
		w->sec_samples = a;
		if (!(b = realloc(w->sec_ckpt_busy, cap * sizeof(*b))))
			return -ENOMEM;
		w->sec_ckpt_busy = b;
		memset(a + w->secs_cap, 0, (cap - w->secs_cap) * sizeof(*a));
		memset(b + w->secs_cap, 0, (cap - w->secs_cap) * sizeof(*b));
		w->secs_cap = cap;
	}
	if (sec >= w->nsecs)
		w->nsecs = sec + 1;
	w->sec_samples[sec] += first_row;
	w->sec_ckpt_busy[sec] += ckpt_busy;
	return 0;
}

int pgl_waits_add(struct pgl_waits *w, const char *backend_type, const char *type,
		  const char *event, uint64_t sec)
{
	const char *proc = pgl_wait_proc(backend_type);
	struct pgl_wait_entry *e = NULL;
	bool busy;

	if (!proc)
		return 0;
	if (!type || !*type) {
		/* PostgreSQL shows no wait: the process is on a CPU or waiting for one */
		type = "CPU";
		event = "running";
	}
	if (!event)
		event = "";
	if (strcmp(proc, "backend") == 0)
		w->backend_samples++;
	/* the checkpointer's idle wait is Activity:CheckpointerMain; anything else is work */
	busy = strcmp(proc, "checkpointer") == 0 && strcmp(event, "CheckpointerMain") != 0;
	if (strcmp(proc, "checkpointer") == 0 && note_second(w, sec, false, busy) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->e[i].proc, proc) && !strcmp(w->e[i].type, type) &&
		    !strcmp(w->e[i].event, event)) {
			e = &w->e[i];
			break;
		}
	if (!e) {
		if (w->n == PGL_WAITS_MAX) {
			w->dropped++;
			return 0;
		}
		e = &w->e[w->n++];
		snprintf(e->proc, sizeof(e->proc), "%s", proc);
		snprintf(e->type, sizeof(e->type), "%s", type);
		snprintf(e->event, sizeof(e->event), "%s", event);
		e->count = 0;
	}
	e->count++;
	return 0;
}

int pgl_waits_sample(struct pgl_waits *w, uint64_t sec)
{
	w->samples++;
	return note_second(w, sec, true, false);
}

static int proc_rank(const char *p)
{
	return !strcmp(p, "backend") ? 0 : !strcmp(p, "walwriter") ? 1 : !strcmp(p, "checkpointer") ? 2 : 3;
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct pgl_wait_entry *a = pa, *b = pb;
	int ra = proc_rank(a->proc), rb = proc_rank(b->proc);

	if (ra != rb)
		return ra - rb;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->event, b->event);
}

void pgl_waits_sort(struct pgl_waits *w)
{
	qsort(w->e, w->n, sizeof(w->e[0]), cmp_entry);
}

double pgl_wait_share(const struct pgl_waits *w, const struct pgl_wait_entry *e)
{
	uint64_t base = 0;

	if (strcmp(e->proc, "backend") == 0) {
		base = w->backend_samples;
	} else {
		for (size_t i = 0; i < w->n; i++)
			if (strcmp(w->e[i].proc, e->proc) == 0)
				base += w->e[i].count;
	}
	return base ? (double)e->count / (double)base : 0.0;
}

void pgl_waits_free(struct pgl_waits *w)
{
	free(w->sec_samples);
	free(w->sec_ckpt_busy);
	w->sec_samples = w->sec_ckpt_busy = NULL;
	w->nsecs = w->secs_cap = 0;
}

void pgl_servstat_free(struct pgl_servstat *s)
{
	pgl_waits_free(&s->waits);
}
