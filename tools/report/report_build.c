/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Report building: records in timestamp order -> struct report, in one
 * pass (pure: no I/O).  The builder holds per-file, per-relation,
 * per-process and per-phase statistics, never the records, so it can take
 * them from a whole loaded trace (report_build) or from the streaming
 * reader (report_build_stream) with the same result.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/report/report.h"
#include "tools/report/report_build_priv.h"
#include "tools/report/report_priv.h"
#include "tools/report/report_seconds.h"

static int fstate_init(struct report_builder *b, struct fstate *fs, uint32_t id,
		       const struct dut_trace_file *f)
{
	enum rep_class c = f ? rep_classify(&f->pg, b->m, 0, NULL) : RC_OTHER;
	char name[64];

	snprintf(name, sizeof(name), "file #%u (no FILE entry)", id);
	memset(fs, 0, sizeof(*fs));
	fs->id = id;
	fs->f = f;
	/* rep_classify() looks the relation up only then; else its class is c at any time */
	fs->cls_fixed = !(f && f->pg.cls == DUT_PG_REL && b->m);
	fs->cls = c;
	fs->wal = f && f->pg.cls == DUT_PG_WAL;
	fs->row.name = strdup(f ? f->path : name);
	fs->row.detail = strdup(rep_class_name(c));
	if (!fs->row.name || !fs->row.detail) {
		free(fs->row.name);
		free(fs->row.detail);
		return -ENOMEM;
	}
	return 0;
}

static void by_id_rebuild(struct report_builder *b)
{
	memset(b->by_id, 0, b->nby_id * sizeof(*b->by_id));
	for (size_t i = 0; i < b->nfs; i++)
		if (b->fs[i].id < b->nby_id)
			b->by_id[b->fs[i].id] = (uint32_t)(i + 1);
}

/* A record names an id without a FILE entry: give it a row, in id order. */
static int fstate_insert(struct report_builder *b, uint32_t id, size_t at)
{
	int r;

	if (b->nfs == b->cap_fs) {
		size_t ncap = b->cap_fs ? 2 * b->cap_fs : 16;
		struct fstate *p = realloc(b->fs, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		b->fs = p;
		b->cap_fs = ncap;
	}
	memmove(&b->fs[at + 1], &b->fs[at], (b->nfs - at) * sizeof(*b->fs));
	r = fstate_init(b, &b->fs[at], id, NULL);
	if (r < 0) {
		memmove(&b->fs[at], &b->fs[at + 1], (b->nfs - at) * sizeof(*b->fs));
		return r;
	}
	b->nfs++;
	by_id_rebuild(b);
	return 0;
}

int rep_fstate_of(struct report_builder *b, uint32_t id, struct fstate **ret)
{
	size_t lo = 0, hi = b->nfs;
	int r;

	if (id < b->nby_id && b->by_id[id]) {
		*ret = &b->fs[b->by_id[id] - 1];
		return 0;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->fs[mid].id == id) {
			*ret = &b->fs[mid];
			return 0;
		}
		if (b->fs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	r = fstate_insert(b, id, lo);
	if (r < 0)
		return r;
	*ret = &b->fs[lo];
	return 0;
}

static int relation_row(struct rep_rows *rels, struct fstate *fs, const struct relmap_rel *rel,
			enum rep_class c, size_t *ret)
{
	char name[600];
	const char *detail;
	const struct dut_pg_file *pg = fs->f ? &fs->f->pg : NULL;
	int r;

	if (fs->rel_valid && fs->rel_cached == rel) {
		*ret = fs->rel_row;
		return 0;
	}
	if (rel) {
		bool pub = !rel->schema[0] || strcmp(rel->schema, "public") == 0;

		snprintf(name, sizeof(name), "%s%s%s%s%s", rel->database, rel->database[0] ? ":" : "",
			 pub ? "" : rel->schema, pub ? "" : ".", rel->name);
		detail = relmap_kind_name(rel->kind);
	} else if (pg && (pg->cls == DUT_PG_REL || pg->cls == DUT_PG_TEMP_REL)) {
		snprintf(name, sizeof(name), "%srelfilenode %u/%u/%u",
			 pg->cls == DUT_PG_TEMP_REL ? "temp " : "", pg->tablespace_oid, pg->db_oid,
			 pg->relfilenode);
		detail = "unknown kind";
	} else {
		/* not a relation: one row per class, so the rows add up to the total */
		snprintf(name, sizeof(name), "(%s files)", rep_class_name(c));
		detail = "";
	}
	r = rep_rows_get(rels, name, detail, ret);
	if (r < 0)
		return r;
	fs->rel_cached = rel;
	fs->rel_valid = true;
	fs->rel_row = *ret;
	return 0;
}

static inline uint32_t rec_pid(const struct dut_trace_rec *r)
{
	return r->flags & DUT_TRACE_F_WRITEBACK ? 0 : r->pid;
}

static inline struct pid_slot *pid_slot_of(struct report_builder *b, uint32_t pid)
{
	return &b->pids[(pid * 2654435761u) >> 22 & (PID_SLOTS - 1)];
}

static int process_row(struct report_builder *b, const struct dut_trace_rec *r, size_t *ret)
{
	uint32_t pid = rec_pid(r);
	struct pid_slot *slot = pid_slot_of(b, pid);
	const char *role;
	char name[64];
	int err;

	if (slot->row_plus1 && slot->pid == pid) {
		*ret = slot->row_plus1 - 1;
		return 0;
	}
	if (pid == 0) {
		snprintf(name, sizeof(name), "(kernel writeback)");
		role = "";
	} else {
		snprintf(name, sizeof(name), "pid %u", pid);
		role = relmap_role(b->m, pid);
	}
	err = rep_rows_get(&b->procs, name, role ? role : "", ret);
	if (err < 0)
		return err;
	slot->pid = pid;
	slot->row_plus1 = (uint32_t)(*ret + 1);
	return 0;
}

/* A write to a table's or an index's file, into its phase's series of REP_TICK_NS. */
static int data_tick_add(struct rep_phase *ph, const struct dut_trace_rec *r, enum rep_class c)
{
	uint64_t tick;

	if (r->result <= 0 || r->ts_ns < ph->start_ns || (c != RC_HEAP && c != RC_INDEX && c != RC_TOAST))
		return 0;
	tick = (r->ts_ns - ph->start_ns) / REP_TICK_NS;
	if (tick >= ph->ndata_ticks) {
		size_t n = ph->ndata_ticks ? ph->ndata_ticks : 64;
		uint64_t *v;

		while (n <= tick)
			n *= 2;
		if (!(v = realloc(ph->data_write_ticks, n * sizeof(*v))))
			return -ENOMEM;
		memset(v + ph->ndata_ticks, 0, (n - ph->ndata_ticks) * sizeof(*v));
		ph->data_write_ticks = v;
		ph->ndata_ticks = n;
	}
	ph->data_write_ticks[tick] += (uint64_t)r->result;
	return 0;
}

static int dutfs_lat_add(struct report_builder *b, const struct dut_trace_rec *r, enum rep_class c)
{
	if (!b->dutfs_lat[c] && !(b->dutfs_lat[c] = dut_shist_new()))
		return -ENOMEM;
	return dut_shist_add(b->dutfs_lat[c], r->lat_ns);
}

/* A histogram exists once it has a value (as when added to one by one). */
static int dutfs_lat_merge(struct report_builder *b, enum rep_class c, const struct dut_shist *h)
{
	if (!h || !h->count)
		return 0;
	if (!b->dutfs_lat[c] && !(b->dutfs_lat[c] = dut_shist_new()))
		return -ENOMEM;
	return dut_shist_merge(b->dutfs_lat[c], h);
}

/* The part's records so far all had dutfs_ns: their latencies into the class's dutfs_lat. */
static int part_dutfs_lat_merge(struct report_builder *b, struct fstate *fs)
{
	const struct rep_stats *p = &fs->part;
	int r;

	if ((r = dutfs_lat_merge(b, fs->part_cls, p->dir[REP_READ].lat)) < 0 ||
	    (r = dutfs_lat_merge(b, fs->part_cls, p->dir[REP_WRITE].lat)) < 0 ||
	    (r = dutfs_lat_merge(b, fs->part_cls, p->fsync_lat)) < 0)
		return r;
	return 0;
}

int rep_part_flush(struct report_builder *b, struct fstate *fs)
{
	int r;

	if (!fs->part_used)
		return 0;
	if ((!fs->part_dutfs_direct && (r = part_dutfs_lat_merge(b, fs)) < 0) ||
	    (r = rep_stats_merge(&fs->row.st, &fs->part)) < 0 ||
	    (r = rep_stats_merge(&b->rels.v[fs->part_rel_row].st, &fs->part)) < 0 ||
	    (r = rep_stats_merge(&b->rep->phases[fs->part_phase].cls[fs->part_cls], &fs->part)) < 0)
		return r;
	rep_stats_reset(&fs->part);
	fs->part_used = false;
	fs->part_dutfs_direct = false;
	return 0;
}

/* A later window's first read or write of fs, counted as random: where it went (report_build_priv.h). */
static void first_rw_note(struct fstate *fs, const struct dut_trace_rec *r, enum rep_rec_kind k,
			  size_t phase, enum rep_class c, size_t rrow, size_t prow)
{
	fs->first = (struct rep_first_rw){
		.set = true,
		.d = k == REP_RK_READ ? REP_READ : REP_WRITE,
		.offset = r->offset,
		.done = r->result > 0 ? (uint64_t)r->result : 0,
		.phase = phase,
		.rel_row = rrow,
		.proc_row = prow,
		.cls = c,
	};
}

uint32_t rep_fstate_page(const struct report_builder *b, const struct fstate *fs)
{
	bool wal = fs->f && (fs->f->pg.cls == DUT_PG_WAL || fs->f->pg.cls == DUT_PG_WAL_OTHER);

	return wal ? b->rep->pages.wal_block_bytes : b->rep->pages.block_bytes;
}

static int walk_rec(struct report_builder *b, const struct dut_trace_rec *r, size_t phase)
{
	static const struct dut_pg_file no_pg = { .cls = DUT_PG_OTHER };
	const struct relmap_rel *rel = NULL;
	enum rep_rec_kind k = rep_rec_kind(r);
	struct rep_phase *ph = b->rep->phases;
	enum rep_access seq = REP_ACCESS_RANDOM;
	bool first = false;
	const struct dut_pg_file *pg;
	struct fstate *fs;
	enum rep_class c;
	size_t rrow, prow;
	int err;

	if ((err = rep_fstate_of(b, r->file_id, &fs)) < 0)
		return err;
	pg = fs->f ? &fs->f->pg : &no_pg;
	if (fs->cls_fixed)
		c = fs->cls;
	else
		c = rep_classify(pg, b->m, r->ts_ns, &rel);
	if (k == REP_RK_READ || k == REP_RK_WRITE) {
		bool wal = pg->cls == DUT_PG_WAL || pg->cls == DUT_PG_WAL_OTHER;

		seq = rep_access_of(fs->has_last, fs->last_end, r->offset,
				    wal ? b->rep->pages.wal_block_bytes : b->rep->pages.block_bytes);
		first = !fs->has_last && b->later;
		fs->has_last = true;
		fs->last_end = r->offset + r->len;
		if (fs->wal && r->op == DUT_OP_WRITE && b->wal_guess)
			rep_wal_guess_add(b->wal_guess, r);
	}
	if (!fs->f)
		b->rep->unknown_file_recs++;
	else if (pg->cls == DUT_PG_REL && b->m && !rel)
		b->rep->unmapped_rel_recs++;
	if (fs->rel_valid && fs->rel_cached == rel)
		rrow = fs->rel_row;
	else if ((err = relation_row(&b->rels, fs, rel, c, &rrow)) < 0)
		return err;
	if ((err = process_row(b, r, &prow)) < 0)
		return err;
	if (fs->part_used && (fs->part_rel_row != rrow || fs->part_phase != phase || fs->part_cls != c) &&
	    (err = rep_part_flush(b, fs)) < 0)
		return err;
	if (k != REP_RK_OTHER && !r->dutfs_ns && !fs->part_dutfs_direct) {
		/* the first of the part without dutfs time: the ones before it had it */
		if (fs->part_used && (err = part_dutfs_lat_merge(b, fs)) < 0)
			return err;
		fs->part_dutfs_direct = true;
	}
	fs->part_used = true;
	fs->part_rel_row = rrow;
	fs->part_phase = phase;
	fs->part_cls = c;
	if (first)
		first_rw_note(fs, r, k, phase, c, rrow, prow);
	/* the totals of the phase and of the whole trace are sums of the classes (rep_phases_total) */
	if ((err = rep_stats_add(&fs->part, r, k, seq)) < 0 ||
	    (phase && k == REP_RK_WRITE && (err = data_tick_add(&ph[phase], r, c)) < 0) ||
	    (err = rep_stats_add(&b->procs.v[prow].st, r, k, seq)) < 0 ||
	    (fs->part_dutfs_direct && r->dutfs_ns && k != REP_RK_OTHER &&
	     (err = dutfs_lat_add(b, r, c)) < 0))
		return err;
	if (fs->cls_fixed) {
		bool wal = pg->cls == DUT_PG_WAL || pg->cls == DUT_PG_WAL_OTHER;

		fs->fast_phase_plus1 = phase + 1;
		fs->page_bytes = wal ? b->rep->pages.wal_block_bytes : b->rep->pages.block_bytes;
		fs->is_data = c == RC_HEAP || c == RC_INDEX || c == RC_TOAST;
	}
	return 0;
}

/* The histograms a record of kind k adds to, made when missing (as rep_stats_add does). */
static int hist_ensure(struct dut_shist **h)
{
	if (!*h && !(*h = dut_shist_new()))
		return -ENOMEM;
	return 0;
}

/*
 * A record of a file on the fast path (fs->fast_phase_plus1 == phase + 1)
 * whose process has row prow: what walk_rec does for it, with the checks
 * that cannot fail there left out, and each value's bucket worked out once
 * for the two to three histograms it goes to.
 */
static inline int rec_fast(struct report_builder *b, struct fstate *fs, const struct dut_trace_rec *r,
			   size_t phase, size_t prow)
{
	struct rep_stats *a = &fs->part, *p = &b->procs.v[prow].st;
	enum rep_rec_kind k = rep_rec_kind(r);
	struct dut_shist **ha, **hp;
	unsigned idx;
	int err;

	b->rep->unknown_file_recs += !fs->f;
	if (k == REP_RK_OTHER) {
		a->other_ops++;
		p->other_ops++;
		return 0;
	}
	if (__builtin_expect(!r->dutfs_ns && !fs->part_dutfs_direct, 0)) {
		/* the first of the part without dutfs time (as in walk_rec) */
		if ((err = part_dutfs_lat_merge(b, fs)) < 0)
			return err;
		fs->part_dutfs_direct = true;
	}
	if (k == REP_RK_FSYNC) {
		a->fsyncs++;
		p->fsyncs++;
		ha = &a->fsync_lat;
		hp = &p->fsync_lat;
	} else {
		enum rep_dir d = k == REP_RK_READ ? REP_READ : REP_WRITE;
		enum rep_access acc = rep_access_of(fs->has_last, fs->last_end, r->offset, fs->page_bytes);

		if (__builtin_expect(!fs->has_last && b->later, 0))
			first_rw_note(fs, r, k, phase, fs->part_cls, fs->part_rel_row, prow);
		fs->has_last = true;
		fs->last_end = r->offset + r->len;
		if (__builtin_expect(fs->wal, 0) && r->op == DUT_OP_WRITE && b->wal_guess)
			rep_wal_guess_add(b->wal_guess, r);
		rep_dir_add(&a->dir[d], r, acc);
		rep_dir_add(&p->dir[d], r, acc);
		ha = &a->dir[d].lat;
		hp = &p->dir[d].lat;
		if (d == REP_WRITE && phase && fs->is_data &&
		    (err = data_tick_add(&b->rep->phases[phase], r, fs->cls)) < 0)
			return err;
	}
	if (__builtin_expect(!*ha || !*hp, 0) && ((err = hist_ensure(ha)) < 0 || (err = hist_ensure(hp)) < 0))
		return err;
	idx = dut_hist_bucket(r->lat_ns);
	if ((err = dut_shist_add_at(*ha, r->lat_ns, idx)) < 0 ||
	    (err = dut_shist_add_at(*hp, r->lat_ns, idx)) < 0)
		return err;
	if (r->dutfs_ns) {
		unsigned didx = dut_hist_bucket(r->dutfs_ns);

		if (__builtin_expect(!a->dutfs.hist || !p->dutfs.hist, 0) &&
		    ((err = hist_ensure(&a->dutfs.hist)) < 0 || (err = hist_ensure(&p->dutfs.hist)) < 0))
			return err;
		if ((err = rep_dutfs_add(&a->dutfs, r, didx)) < 0 ||
		    (err = rep_dutfs_add(&p->dutfs, r, didx)) < 0)
			return err;
		if (fs->part_dutfs_direct) {
			if (__builtin_expect(!b->dutfs_lat[fs->cls], 0) && (err = hist_ensure(&b->dutfs_lat[fs->cls])) < 0)
				return err;
			if ((err = dut_shist_add_at(b->dutfs_lat[fs->cls], r->lat_ns, idx)) < 0)
				return err;
		}
	}
	return 0;
}

void report_builder_free(struct report_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nfs; i++) {
		free(b->fs[i].row.name);
		free(b->fs[i].row.detail);
		rep_stats_free(&b->fs[i].row.st);
		rep_stats_free(&b->fs[i].part);
	}
	free(b->fs);
	free(b->by_id);
	rep_rows_free(b->rels.v, b->rels.n);
	rep_rows_free(b->procs.v, b->procs.n);
	for (unsigned c = 0; c < RC_COUNT; c++)
		dut_shist_free(b->dutfs_lat[c]);
	report_free(b->rep);
	free(b);
}
DUT_DEFINE_FREEP(struct report_builder *, report_builder_free)

int report_builder_new(const struct dut_trace *meta, uint64_t first_ns, uint64_t last_ns,
		       const struct relmap *m, struct report_builder **ret)
{
	_cleanup_(report_builder_freep) struct report_builder *b = calloc(1, sizeof(*b));
	struct report *rep;
	uint32_t max_id = 0;
	int r;

	if (!b || !(b->rep = rep = calloc(1, sizeof(*rep))))
		return -ENOMEM;
	b->meta = meta;
	b->m = m;
	rep->syscall_view = meta->hdr.flags & DUT_TRACE_HDR_SYSCALL_VIEW;
	rep->nrecs = meta->nrecs;
	rep->has_footer = meta->has_footer;
	rep->footer = meta->footer;
	rep->truncated = meta->truncated;
	rep->valid_bytes = meta->valid_bytes;
	rep->have_relmap = m != NULL;
	rep->trace_version_major = meta->hdr.version_major;
	rep->trace_version_minor = meta->hdr.version_minor;
	/* the relation map says the server's block size; the WAL page only the run's manifest does */
	rep->pages.block_bytes = m && m->block_size ? m->block_size : REP_TAIL_PAGE_BYTES;
	rep->pages.wal_block_bytes = REP_TAIL_PAGE_BYTES;
	r = rep_phases_init(rep, meta, first_ns, last_ns);
	if (r < 0)
		return r;
	b->cap_fs = meta->nfiles + 16;
	b->fs = calloc(b->cap_fs, sizeof(*b->fs));
	if (!b->fs)
		return -ENOMEM;
	for (size_t i = 0; i < meta->nfiles; i++) {
		r = fstate_init(b, &b->fs[i], meta->files[i].id, &meta->files[i]);
		if (r < 0)
			return r;
		b->nfs++;
		if (meta->files[i].id > max_id)
			max_id = meta->files[i].id;
	}
	b->nby_id = (max_id < DIRECT_IDS ? max_id : DIRECT_IDS) + 1;
	b->by_id = calloc(b->nby_id, sizeof(*b->by_id));
	if (!b->by_id)
		return -ENOMEM;
	by_id_rebuild(b);
	*ret = TAKE_PTR(b);
	return 0;
}

int report_builder_add(struct report_builder *b, const struct dut_trace_rec *recs, size_t n)
{
	const struct rep_phase *ph = b->rep->phases;

	b->added |= n > 0;
	for (size_t i = 0; i < n; i++) {
		const struct dut_trace_rec *rec = &recs[i];
		int r;

		struct fstate *fs;
		struct pid_slot *slot;
		uint32_t pid;

		/* records come in ts order; phases are consecutive after phases[0] */
		while (b->phase + 1 < b->rep->nphases && rec->ts_ns >= ph[b->phase + 1].start_ns)
			b->phase++;
		if (rec->file_id < b->nby_id && b->by_id[rec->file_id] &&
		    (fs = &b->fs[b->by_id[rec->file_id] - 1])->fast_phase_plus1 == b->phase + 1 && !b->general_only &&
		    (slot = pid_slot_of(b, pid = rec_pid(rec)))->row_plus1 && slot->pid == pid)
			r = rec_fast(b, fs, rec, b->phase, slot->row_plus1 - 1);
		else
			r = walk_rec(b, rec, b->phase);
		if (r < 0)
			return r;
	}
	b->nrecs += n;
	return 0;
}

int report_builder_finish(struct report_builder *b, struct report **ret)
{
	_cleanup_(report_builder_freep) struct report_builder *bb = b;
	struct report *rep = b->rep;
	struct rep_rows files = { 0 };

	int r;

	if (b->nrecs != b->meta->nrecs)
		return -EINVAL; /* the meta trace's count is what the report says it read */
	for (size_t i = 0; i < b->nfs; i++) {
		if ((r = rep_part_flush(b, &b->fs[i])) < 0)
			return r;
		rep_stats_free(&b->fs[i].part);
		memset(&b->fs[i].part, 0, sizeof(b->fs[i].part));
	}
	r = rep_phases_total(rep);
	if (r < 0)
		return r;
	rep->dutfs_recorded = rep->phases[0].total.dutfs.reqs > 0;
	rep_dutfs_findings(rep, b->dutfs_lat);
	/* the file rows, in id order as they were made, then as every breakdown */
	files.v = malloc((b->nfs ? b->nfs : 1) * sizeof(*files.v));
	if (!files.v)
		return -ENOMEM;
	for (size_t i = 0; i < b->nfs; i++)
		files.v[i] = b->fs[i].row;
	files.n = files.cap = b->nfs;
	b->nfs = 0;
	rep_rows_finish(&files);
	rep_rows_finish(&b->rels);
	rep_rows_finish(&b->procs);
	rep->nfiles = files.n;
	rep->files = files.v;
	rep->nrelations = b->rels.n;
	rep->relations = TAKE_PTR(b->rels.v);
	rep->nprocesses = b->procs.n;
	rep->processes = TAKE_PTR(b->procs.v);
	b->rels.n = b->procs.n = 0;
	*ret = TAKE_PTR(b->rep);
	return 0;
}

void report_builder_set_general_only(struct report_builder *b)
{
	b->general_only = true;
}

void report_builder_set_pages(struct report_builder *b, const struct rep_pages *pages)
{
	if (!pages || b->added)
		return;
	if (pages->block_bytes)
		b->rep->pages.block_bytes = pages->block_bytes;
	if (pages->wal_block_bytes)
		b->rep->pages.wal_block_bytes = pages->wal_block_bytes;
}

int report_build(const struct dut_trace *t, const struct relmap *m, struct report **ret)
{
	return report_build_pages(t, m, NULL, ret);
}

int report_build_pages(const struct dut_trace *t, const struct relmap *m, const struct rep_pages *pages,
		       struct report **ret)
{
	struct report_builder *b;
	uint64_t first = t->nrecs ? t->recs[0].ts_ns : 0;
	uint64_t last = t->nrecs ? t->recs[t->nrecs - 1].ts_ns : 0;
	int r = report_builder_new(t, first, last, m, &b);

	if (r < 0)
		return r;
	report_builder_set_pages(b, pages);
	r = report_builder_add(b, t->recs, t->nrecs);
	if (r < 0) {
		report_builder_free(b);
		return r;
	}
	return report_builder_finish(b, ret);
}
