/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One builder's statistics into another's (pure): the report of a trace
 * cut into time windows, each built on its own (report_build_par.c), is
 * the report of the whole pass.
 *
 * Why that holds: a record goes to rows, phases and classes by its own
 * fields and time, and everything it adds to is a counter, a saturating
 * sum of non-negative values or a histogram, which merge exactly and in
 * any order; rows are sorted by their totals and names at the end, so the
 * order they were made in does not show.  The one thing that depends on
 * the record before is whether a read or write continues its file's last
 * one (rep_access_of).  A window's builder cannot know that for its first
 * read or write of a file: it counts it as random and notes where it went
 * (struct rep_first_rw); absorbing the window counts it again against the
 * file's last request before the window (the last of the windows absorbed
 * so far), in the row, relation, process and phase class it went to.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report/report_build_priv.h"

/* The rows of src into dst (by name); map[i]: src row i's index in dst. */
static int rows_absorb(struct rep_rows *dst, const struct rep_rows *src, size_t *map)
{
	for (size_t i = 0; i < src->n; i++) {
		int r = rep_rows_get(dst, src->v[i].name, src->v[i].detail, &map[i]);

		if (r < 0 || (r = rep_stats_merge(&dst->v[map[i]].st, &src->v[i].st)) < 0)
			return r;
	}
	return 0;
}

/* Data-file bytes per tick: the sums, over the longer series (grown the same way as one pass grows it). */
static int ticks_absorb(struct rep_phase *a, const struct rep_phase *b)
{
	if (b->ndata_ticks > a->ndata_ticks) {
		uint64_t *v = realloc(a->data_write_ticks, b->ndata_ticks * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + a->ndata_ticks, 0, (b->ndata_ticks - a->ndata_ticks) * sizeof(*v));
		a->data_write_ticks = v;
		a->ndata_ticks = b->ndata_ticks;
	}
	for (size_t i = 0; i < b->ndata_ticks; i++)
		a->data_write_ticks[i] += b->data_write_ticks[i];
	return 0;
}

static void seq_count(struct rep_dirstats *d, enum rep_access acc, uint64_t done)
{
	d->seq_ops++;
	d->seq_bytes += done;
	d->rewrite_ops += acc == REP_ACCESS_TAIL_REWRITE;
}

/*
 * File fa (a's) gets the records of fb (b's, the next window): count b's
 * first read or write of the file again against a's last one, then fb's
 * last becomes the file's.
 */
static void first_rw_absorb(struct report_builder *a, struct fstate *fa, const struct fstate *fb,
			    const size_t *rel_map, const size_t *proc_map)
{
	const struct rep_first_rw *f = &fb->first;

	if (f->set && fa->has_last) {
		enum rep_access acc = rep_access_of(true, fa->last_end, f->offset, rep_fstate_page(a, fa));

		if (acc != REP_ACCESS_RANDOM) {
			seq_count(&fa->row.st.dir[f->d], acc, f->done);
			seq_count(&a->rels.v[rel_map[f->rel_row]].st.dir[f->d], acc, f->done);
			seq_count(&a->procs.v[proc_map[f->proc_row]].st.dir[f->d], acc, f->done);
			seq_count(&a->rep->phases[f->phase].cls[f->cls].dir[f->d], acc, f->done);
		}
	}
	if (fb->has_last) {
		fa->has_last = true;
		fa->last_end = fb->last_end;
	}
}

int report_builder_absorb(struct report_builder *a, struct report_builder *b)
{
	struct report *ra = a->rep, *rb = b->rep;
	size_t *rel_map = NULL, *proc_map = NULL;
	int r = -ENOMEM;

	/* a starts the trace (its first reads and writes need no second count), b follows: not the same trace otherwise */
	if (a->later || !b->later || ra->nphases != rb->nphases)
		return -EINVAL;
	for (size_t i = 0; i < a->nfs; i++)
		if ((r = rep_part_flush(a, &a->fs[i])) < 0)
			return r;
	for (size_t i = 0; i < b->nfs; i++)
		if ((r = rep_part_flush(b, &b->fs[i])) < 0)
			return r;
	rel_map = calloc(b->rels.n + 1, sizeof(*rel_map));
	proc_map = calloc(b->procs.n + 1, sizeof(*proc_map));
	if (!rel_map || !proc_map)
		goto out;
	if ((r = rows_absorb(&a->rels, &b->rels, rel_map)) < 0 ||
	    (r = rows_absorb(&a->procs, &b->procs, proc_map)) < 0)
		goto out;
	for (size_t i = 0; i < b->nfs; i++) {
		const struct fstate *fb = &b->fs[i];
		struct fstate *fa;

		/* may insert into a->fs: fa is looked up for each file, after the one before */
		if ((r = rep_fstate_of(a, fb->id, &fa)) < 0 ||
		    (r = rep_stats_merge(&fa->row.st, &fb->row.st)) < 0)
			goto out;
		first_rw_absorb(a, fa, fb, rel_map, proc_map);
	}
	for (size_t p = 0; p < ra->nphases; p++) {
		for (unsigned c = 0; c < RC_COUNT; c++)
			if ((r = rep_stats_merge(&ra->phases[p].cls[c], &rb->phases[p].cls[c])) < 0)
				goto out;
		if ((r = ticks_absorb(&ra->phases[p], &rb->phases[p])) < 0)
			goto out;
	}
	for (unsigned c = 0; c < RC_COUNT; c++) {
		const struct dut_shist *h = b->dutfs_lat[c];

		if (!h || !h->count)
			continue;
		if (!a->dutfs_lat[c] && !(a->dutfs_lat[c] = dut_shist_new())) {
			r = -ENOMEM;
			goto out;
		}
		if ((r = dut_shist_merge(a->dutfs_lat[c], h)) < 0)
			goto out;
	}
	ra->unknown_file_recs += rb->unknown_file_recs;
	ra->unmapped_rel_recs += rb->unmapped_rel_recs;
	a->nrecs += b->nrecs;
	a->added |= b->added;
	r = 0;
out:
	free(rel_map);
	free(proc_map);
	return r;
}

int report_build_ways(const struct dut_trace *t, const struct relmap *m, const struct rep_pages *pages,
		      unsigned ways, struct report **ret)
{
	struct report_builder *b[REP_PAR_MAX_WAYS] = { 0 };
	uint64_t first = t->nrecs ? t->recs[0].ts_ns : 0;
	uint64_t last = t->nrecs ? t->recs[t->nrecs - 1].ts_ns : 0;
	int r = 0;

	if (ways < 1 || ways > REP_PAR_MAX_WAYS)
		return -EINVAL;
	for (unsigned i = 0; i < ways && r == 0; i++) {
		size_t lo = t->nrecs * i / ways, hi = t->nrecs * (i + 1) / ways;

		if ((r = report_builder_new(t, first, last, m, &b[i])) < 0)
			break;
		report_builder_set_pages(b[i], pages);
		b[i]->later = i > 0;
		r = report_builder_add(b[i], t->recs + lo, hi - lo);
		if (r == 0 && i > 0)
			r = report_builder_absorb(b[0], b[i]);
	}
	if (r == 0) {
		r = report_builder_finish(b[0], ret);
		b[0] = NULL;
	}
	for (unsigned i = 0; i < ways; i++)
		report_builder_free(b[i]);
	return r;
}
