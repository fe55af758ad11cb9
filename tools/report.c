/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Report building: trace + relation map -> struct report.  Pure: no I/O. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/report.h"

static const char *const class_names[RC_COUNT] = {
	[RC_HEAP] = "heap", [RC_INDEX] = "index", [RC_TOAST] = "toast", [RC_FSM] = "fsm",
	[RC_VM] = "vm", [RC_WAL] = "wal", [RC_SLRU] = "slru", [RC_TEMP] = "temp",
	[RC_OTHER] = "other",
};

static const char *const by_names[] = {
	[REP_BY_CLASS] = "class", [REP_BY_FILE] = "file", [REP_BY_RELATION] = "relation",
	[REP_BY_PHASE] = "phase", [REP_BY_PROCESS] = "process",
};

const char *rep_class_name(enum rep_class c)
{
	return (unsigned)c < RC_COUNT ? class_names[c] : "other";
}

const char *rep_by_name(enum rep_by by)
{
	return (unsigned)by < DUT_ARRAY_SIZE(by_names) ? by_names[by] : "class";
}

int rep_by_parse(const char *s, enum rep_by *ret)
{
	for (unsigned i = 0; s && i < DUT_ARRAY_SIZE(by_names); i++) {
		if (strcmp(s, by_names[i]) == 0) {
			*ret = (enum rep_by)i;
			return 0;
		}
	}
	return -EINVAL;
}

enum rep_access rep_access_of(bool has_prev, uint64_t prev_end, uint64_t offset)
{
	if (!has_prev)
		return REP_ACCESS_RANDOM;
	if (offset == prev_end)
		return REP_ACCESS_SEQUENTIAL;
	/* starts inside the last page the previous request reached: the tail again */
	if (offset < prev_end && prev_end - offset <= REP_TAIL_PAGE_BYTES)
		return REP_ACCESS_TAIL_REWRITE;
	return REP_ACCESS_RANDOM;
}

double rep_pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

double rep_dutfs_share_pct(const struct rep_dutfs *d)
{
	return rep_pct(d->sum_ns, d->req_sum_ns);
}

enum rep_class rep_classify(const struct dut_pg_file *pg, const struct relmap *m, uint64_t ts_ns,
			    const struct relmap_rel **ret_rel)
{
	const struct relmap_rel *rel = NULL;
	enum rep_class c;

	switch (pg->cls) {
	case DUT_PG_REL:
		rel = relmap_lookup(m, pg->tablespace_oid, pg->db_oid, pg->relfilenode, ts_ns);
		if (pg->fork == DUT_PG_FORK_FSM)
			c = RC_FSM;
		else if (pg->fork == DUT_PG_FORK_VM)
			c = RC_VM;
		else if (!rel)
			c = RC_HEAP; /* no relmap, or a relation it does not name */
		else if (rel->kind == RELMAP_INDEX)
			c = RC_INDEX;
		else if (rel->kind == RELMAP_TOAST || rel->kind == RELMAP_TOAST_INDEX)
			c = RC_TOAST;
		else if (rel->kind == RELMAP_OTHER)
			c = RC_OTHER;
		else
			c = RC_HEAP;
		break;
	case DUT_PG_TEMP_REL:
	case DUT_PG_TEMP_FILE:
		c = RC_TEMP;
		break;
	case DUT_PG_WAL:
	case DUT_PG_WAL_OTHER:
		c = RC_WAL;
		break;
	case DUT_PG_XACT:
	case DUT_PG_MULTIXACT:
	case DUT_PG_SLRU:
		c = RC_SLRU;
		break;
	default:
		c = RC_OTHER;
		break;
	}
	if (ret_rel)
		*ret_rel = rel;
	return c;
}

/* ---- stats ---- */

static void stats_free(struct rep_stats *st)
{
	dut_hist_free(st->dir[0].lat);
	dut_hist_free(st->dir[1].lat);
	dut_hist_free(st->fsync_lat);
	dut_hist_free(st->dutfs.hist);
}

static unsigned size_bin(uint32_t len)
{
	unsigned b = 0;

	while (len > 1 && b < REP_SIZE_BINS - 1) {
		len >>= 1;
		b++;
	}
	return b;
}

enum rec_kind { RK_READ, RK_WRITE, RK_FSYNC, RK_OTHER };

static enum rec_kind rec_kind(const struct dut_trace_rec *r)
{
	switch (r->op) {
	case DUT_OP_READ:
		return RK_READ;
	case DUT_OP_WRITE:
	case DUT_OP_MMAP_WRITE:
		return RK_WRITE;
	case DUT_OP_FSYNC:
	case DUT_OP_FDATASYNC:
		return RK_FSYNC;
	default:
		return RK_OTHER;
	}
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int stats_add(struct rep_stats *st, const struct dut_trace_rec *r, enum rec_kind k,
		     enum rep_access acc)
{
	struct dut_hist **h;

	if (k == RK_OTHER) {
		st->other_ops++;
		return 0;
	}
	if (k == RK_FSYNC) {
		st->fsyncs++;
		h = &st->fsync_lat;
	} else {
		struct rep_dirstats *d = &st->dir[k == RK_READ ? REP_READ : REP_WRITE];

		d->ops++;
		d->bytes += r->result > 0 ? (uint64_t)r->result : 0;
		d->seq_ops += acc != REP_ACCESS_RANDOM;
		d->seq_bytes += acc != REP_ACCESS_RANDOM && r->result > 0 ? (uint64_t)r->result : 0;
		d->rewrite_ops += acc == REP_ACCESS_TAIL_REWRITE;
		d->errors += r->result < 0;
		d->size_bins[size_bin(r->len)]++;
		h = &d->lat;
	}
	if (!*h && !(*h = dut_hist_new()))
		return -ENOMEM;
	dut_hist_add(*h, r->lat_ns);
	if (r->dutfs_ns) {
		struct rep_dutfs *d = &st->dutfs;

		if (!d->hist && !(d->hist = dut_hist_new()))
			return -ENOMEM;
		dut_hist_add(d->hist, r->dutfs_ns);
		d->reqs++;
		d->sum_ns = sat_add(d->sum_ns, r->dutfs_ns);
		d->req_sum_ns = sat_add(d->req_sum_ns, sat_add(r->lat_ns, r->dutfs_ns));
	}
	return 0;
}

static uint64_t stats_bytes(const struct rep_stats *st)
{
	return st->dir[0].bytes + st->dir[1].bytes;
}

static uint64_t stats_ops(const struct rep_stats *st)
{
	return st->dir[0].ops + st->dir[1].ops + st->fsyncs + st->other_ops;
}

/* ---- rows ---- */

struct rows {
	struct rep_row *v;
	size_t n, cap;
};

static int rows_add(struct rows *rs, const char *name, const char *detail, size_t *ret_idx)
{
	if (rs->n == rs->cap) {
		size_t ncap = rs->cap ? 2 * rs->cap : 64;
		struct rep_row *p = realloc(rs->v, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		rs->v = p;
		rs->cap = ncap;
	}
	memset(&rs->v[rs->n], 0, sizeof(rs->v[0]));
	rs->v[rs->n].name = strdup(name);
	rs->v[rs->n].detail = strdup(detail ? detail : "");
	if (!rs->v[rs->n].name || !rs->v[rs->n].detail) {
		free(rs->v[rs->n].name);
		free(rs->v[rs->n].detail);
		return -ENOMEM;
	}
	*ret_idx = rs->n++;
	return 0;
}

/* Linear search; callers cache their last hit, so this runs once per key change. */
static int rows_get(struct rows *rs, const char *name, const char *detail, size_t *ret_idx)
{
	for (size_t i = 0; i < rs->n; i++) {
		if (strcmp(rs->v[i].name, name) == 0) {
			*ret_idx = i;
			return 0;
		}
	}
	return rows_add(rs, name, detail, ret_idx);
}

static void rows_free(struct rep_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].detail);
		stats_free(&v[i].st);
	}
	free(v);
}

static int cmp_row(const void *a, const void *b)
{
	const struct rep_row *x = a, *y = b;
	uint64_t bx = stats_bytes(&x->st), by = stats_bytes(&y->st);

	if (bx != by)
		return bx > by ? -1 : 1;
	if (stats_ops(&x->st) != stats_ops(&y->st))
		return stats_ops(&x->st) > stats_ops(&y->st) ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Drop rows without records and sort the rest. */
static void rows_finish(struct rows *rs)
{
	size_t k = 0;

	for (size_t i = 0; i < rs->n; i++) {
		if (stats_ops(&rs->v[i].st) == 0) {
			free(rs->v[i].name);
			free(rs->v[i].detail);
			stats_free(&rs->v[i].st);
			continue;
		}
		rs->v[k++] = rs->v[i];
	}
	rs->n = k;
	qsort(rs->v, rs->n, sizeof(rs->v[0]), cmp_row);
}

void report_free(struct report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nphases; i++) {
		free(rep->phases[i].name);
		stats_free(&rep->phases[i].total);
		free(rep->phases[i].data_write_ticks);
		for (unsigned c = 0; c < RC_COUNT; c++)
			stats_free(&rep->phases[i].cls[c]);
	}
	free(rep->phases);
	rows_free(rep->files, rep->nfiles);
	rows_free(rep->relations, rep->nrelations);
	rows_free(rep->processes, rep->nprocesses);
	free(rep);
}
DUT_DEFINE_FREEP(struct report *, report_free)

/* ---- building ---- */

static int phases_init(struct report *rep, const struct dut_trace *t)
{
	uint64_t first = t->nrecs ? t->recs[0].ts_ns : t->hdr.start_monotonic_ns;
	uint64_t last = t->nrecs ? t->recs[t->nrecs - 1].ts_ns : first;
	bool before = t->nmarkers && t->nrecs && first < t->markers[0].ts_ns;
	size_t n = 1 + before + t->nmarkers;

	rep->phases = calloc(n, sizeof(*rep->phases));
	if (!rep->phases)
		return -ENOMEM;
	rep->nphases = n;
	rep->phases[0].name = strdup("whole trace");
	rep->phases[0].start_ns = first;
	rep->phases[0].end_ns = last;
	if (before) {
		rep->phases[1].name = strdup("(before first marker)");
		rep->phases[1].start_ns = first;
		rep->phases[1].end_ns = t->markers[0].ts_ns;
	}
	for (size_t i = 0; i < t->nmarkers; i++) {
		struct rep_phase *p = &rep->phases[1 + before + i];

		p->name = strdup(t->markers[i].label);
		p->start_ns = t->markers[i].ts_ns;
		p->end_ns = i + 1 < t->nmarkers ? t->markers[i + 1].ts_ns
						: (last + 1 > p->start_ns ? last + 1 : p->start_ns);
	}
	for (size_t i = 0; i < n; i++)
		if (!rep->phases[i].name)
			return -ENOMEM;
	return 0;
}

/* Per-file state during the walk. */
struct fstate {
	uint32_t id;
	const struct dut_trace_file *f; /* NULL: no FILE entry */
	bool has_last;
	uint64_t last_end;
	size_t file_row;
	const struct relmap_rel *rel_cached;
	bool rel_valid;
	size_t rel_row;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Sorted unique ids of every file a record names, known or not. */
static int collect_ids(const struct dut_trace *t, uint32_t **ret, size_t *ret_n)
{
	uint32_t *ids = malloc((t->nrecs + t->nfiles + 1) * sizeof(*ids));
	size_t n = 0, k = 0;

	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < t->nfiles; i++)
		ids[n++] = t->files[i].id;
	for (size_t i = 0; i < t->nrecs; i++)
		if (!dut_trace_file_by_id(t, t->recs[i].file_id))
			ids[n++] = t->recs[i].file_id;
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	*ret = ids;
	*ret_n = k;
	return 0;
}

static int relation_row(struct rows *rels, struct fstate *fs, const struct relmap_rel *rel,
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
	r = rows_get(rels, name, detail, ret);
	if (r < 0)
		return r;
	fs->rel_cached = rel;
	fs->rel_valid = true;
	fs->rel_row = *ret;
	return 0;
}

static int process_row(struct rows *procs, const struct relmap *m, const struct dut_trace_rec *r,
		       uint32_t *last_pid, size_t *last_row, size_t *ret)
{
	uint32_t pid = r->flags & DUT_TRACE_F_WRITEBACK ? 0 : r->pid;
	const char *role;
	char name[64];
	int err;

	if (*last_pid == pid && *last_row != SIZE_MAX) {
		*ret = *last_row;
		return 0;
	}
	if (pid == 0) {
		snprintf(name, sizeof(name), "(kernel writeback)");
		role = "";
	} else {
		snprintf(name, sizeof(name), "pid %u", pid);
		role = relmap_role(m, pid);
	}
	err = rows_get(procs, name, role ? role : "", ret);
	if (err < 0)
		return err;
	*last_pid = pid;
	*last_row = *ret;
	return 0;
}

struct walk {
	const struct dut_trace *t;
	const struct relmap *m;
	struct report *rep;
	struct fstate *fs;
	size_t nfs;
	uint32_t *ids;
	struct rows files, rels, procs;
	uint32_t last_pid;   /* process_row cache */
	size_t last_prow;
};

static struct fstate *fstate_of(struct walk *w, uint32_t id)
{
	size_t lo = 0, hi = w->nfs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->fs[mid].id == id)
			return &w->fs[mid];
		if (w->fs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL; /* cannot happen: every record's id was collected */
}

static int walk_init(struct walk *w)
{
	int r = collect_ids(w->t, &w->ids, &w->nfs);

	if (r < 0)
		return r;
	w->fs = calloc(w->nfs ? w->nfs : 1, sizeof(*w->fs));
	if (!w->fs)
		return -ENOMEM;
	for (size_t i = 0; i < w->nfs; i++) {
		struct fstate *fs = &w->fs[i];
		enum rep_class c;
		char name[64];

		fs->id = w->ids[i];
		fs->f = dut_trace_file_by_id(w->t, fs->id);
		c = fs->f ? rep_classify(&fs->f->pg, w->m, 0, NULL) : RC_OTHER;
		snprintf(name, sizeof(name), "file #%u (no FILE entry)", fs->id);
		r = rows_add(&w->files, fs->f ? fs->f->path : name, rep_class_name(c), &fs->file_row);
		if (r < 0)
			return r;
	}
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

static int walk_rec(struct walk *w, const struct dut_trace_rec *r, size_t phase)
{
	struct fstate *fs = fstate_of(w, r->file_id);
	const struct relmap_rel *rel = NULL;
	enum rec_kind k = rec_kind(r);
	static const struct dut_pg_file no_pg = { .cls = DUT_PG_OTHER };
	const struct dut_pg_file *pg = fs->f ? &fs->f->pg : &no_pg;
	enum rep_class c = rep_classify(pg, w->m, r->ts_ns, &rel);
	struct rep_phase *ph = w->rep->phases;
	size_t rrow, prow;
	enum rep_access seq = REP_ACCESS_RANDOM;
	int err;

	if (k == RK_READ || k == RK_WRITE) {
		seq = rep_access_of(fs->has_last, fs->last_end, r->offset);
		fs->has_last = true;
		fs->last_end = r->offset + r->len;
	}
	if (!fs->f)
		w->rep->unknown_file_recs++;
	else if (pg->cls == DUT_PG_REL && w->m && !rel)
		w->rep->unmapped_rel_recs++;
	if ((err = relation_row(&w->rels, fs, rel, c, &rrow)) < 0 ||
	    (err = process_row(&w->procs, w->m, r, &w->last_pid, &w->last_prow, &prow)) < 0)
		return err;
	if ((err = stats_add(&ph[0].total, r, k, seq)) < 0 ||
	    (err = stats_add(&ph[0].cls[c], r, k, seq)) < 0 ||
	    (phase && (err = stats_add(&ph[phase].total, r, k, seq)) < 0) ||
	    (phase && (err = stats_add(&ph[phase].cls[c], r, k, seq)) < 0) ||
	    (phase && k == RK_WRITE && (err = data_tick_add(&ph[phase], r, c)) < 0) ||
	    (err = stats_add(&w->files.v[fs->file_row].st, r, k, seq)) < 0 ||
	    (err = stats_add(&w->rels.v[rrow].st, r, k, seq)) < 0 ||
	    (err = stats_add(&w->procs.v[prow].st, r, k, seq)) < 0)
		return err;
	return 0;
}

/*
 * The median lat_ns of the class's records that carry dutfs_ns: the
 * finding compares the instrument's time with the device's on the same
 * requests.  Reads, writes and fsyncs merged (one histogram per finding).
 */
static int lat_p50_with_dutfs(const struct dut_trace *t, const struct relmap *m, enum rep_class cls,
			      uint64_t *ret)
{
	struct dut_hist *h = dut_hist_new();

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *r = &t->recs[i];
		const struct dut_trace_file *f;

		if (!r->dutfs_ns || rec_kind(r) == RK_OTHER)
			continue;
		f = dut_trace_file_by_id(t, r->file_id);
		if ((f ? rep_classify(&f->pg, m, r->ts_ns, NULL) : RC_OTHER) == cls)
			dut_hist_add(h, r->lat_ns);
	}
	*ret = dut_hist_percentile(h, 50);
	dut_hist_free(h);
	return 0;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct rep_dutfs_finding *x = a, *y = b;

	if (x->share_pct != y->share_pct)
		return x->share_pct > y->share_pct ? -1 : 1;
	return (x->cls > y->cls) - (x->cls < y->cls);
}

/* Classes where dutfs took more than REP_DUTFS_SHARE_FINDING_PCT of the request time. */
static int dutfs_findings(struct report *rep, const struct dut_trace *t, const struct relmap *m)
{
	const struct rep_phase *all = &rep->phases[0];

	for (unsigned c = 0; c < RC_COUNT; c++) {
		const struct rep_dutfs *d = &all->cls[c].dutfs;
		struct rep_dutfs_finding *f = &rep->dutfs_findings[rep->ndutfs_findings];
		double share = rep_dutfs_share_pct(d);
		int r;

		if (d->reqs < REP_DUTFS_FINDING_MIN_REQS || share <= REP_DUTFS_SHARE_FINDING_PCT)
			continue;
		*f = (struct rep_dutfs_finding){ .cls = (enum rep_class)c, .share_pct = share,
						 .reqs = d->reqs,
						 .dutfs_p50_ns = dut_hist_percentile(d->hist, 50) };
		r = lat_p50_with_dutfs(t, m, f->cls, &f->lat_p50_ns);
		if (r < 0)
			return r;
		rep->ndutfs_findings++;
	}
	qsort(rep->dutfs_findings, rep->ndutfs_findings, sizeof(rep->dutfs_findings[0]), cmp_finding);
	return 0;
}

int report_build(const struct dut_trace *t, const struct relmap *m, struct report **ret)
{
	_cleanup_(report_freep) struct report *rep = calloc(1, sizeof(*rep));
	struct walk w = { .t = t, .m = m, .rep = rep, .last_prow = SIZE_MAX };
	size_t phase = 0;
	int r;

	if (!rep)
		return -ENOMEM;
	rep->syscall_view = t->hdr.flags & DUT_TRACE_HDR_SYSCALL_VIEW;
	rep->nrecs = t->nrecs;
	rep->has_footer = t->has_footer;
	rep->footer = t->footer;
	rep->truncated = t->truncated;
	rep->valid_bytes = t->valid_bytes;
	rep->have_relmap = m != NULL;
	rep->trace_version_minor = t->hdr.version_minor;

	r = phases_init(rep, t);
	if (r < 0)
		goto out;
	r = walk_init(&w);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *rec = &t->recs[i];

		/* records are sorted by ts; phases are consecutive after phases[0] */
		while (phase + 1 < rep->nphases && rec->ts_ns >= rep->phases[phase + 1].start_ns)
			phase++;
		r = walk_rec(&w, rec, phase);
		if (r < 0)
			goto out;
	}
	rep->dutfs_recorded = rep->phases[0].total.dutfs.reqs > 0;
	r = dutfs_findings(rep, t, m);
	if (r < 0)
		goto out;
	rows_finish(&w.files);
	rows_finish(&w.rels);
	rows_finish(&w.procs);
	rep->nfiles = w.files.n;
	rep->files = TAKE_PTR(w.files.v);
	rep->nrelations = w.rels.n;
	rep->relations = TAKE_PTR(w.rels.v);
	rep->nprocesses = w.procs.n;
	rep->processes = TAKE_PTR(w.procs.v);
	w.files.n = w.rels.n = w.procs.n = 0;
	*ret = TAKE_PTR(rep);
	r = 0;
out:
	rows_free(w.files.v, w.files.n);
	rows_free(w.rels.v, w.rels.n);
	rows_free(w.procs.v, w.procs.n);
	free(w.fs);
	free(w.ids);
	return r;
}
