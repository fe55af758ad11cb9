/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Report building: trace + relation map -> struct report.  Pure: no I/O. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/cleanup.h"
#include "tools/report/report.h"
#include "tools/report/report_seconds.h"
#include "tools/report/report_priv.h"

static const char *const by_names[] = {
	[REP_BY_CLASS] = "class", [REP_BY_FILE] = "file", [REP_BY_RELATION] = "relation",
	[REP_BY_PHASE] = "phase", [REP_BY_PROCESS] = "process",
};

const char *rep_class_name(enum rep_class c)
{
	return (unsigned)c < RC_COUNT ? dut_io_class_name((enum dut_io_class)c) : "other";
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

/* ---- the WAL page of a trace alone (report.h) ---- */

void rep_wal_guess_add(struct rep_wal_guess *g, const struct dut_trace_rec *r)
{
	if (r->op != DUT_OP_WRITE || r->result <= 0)
		return;
	g->writes++;
	for (unsigned i = 0; i < REP_WAL_GUESS_SIZES; i++) {
		uint64_t page = 1024ull << i;

		if (r->offset % page || r->len % page)
			break; /* not aligned to this page, so to none larger */
		g->aligned[i]++;
	}
}

uint32_t rep_wal_guess_page(const struct rep_wal_guess *g)
{
	if (g->writes < REP_WAL_GUESS_MIN_WRITES)
		return 0;
	for (unsigned i = REP_WAL_GUESS_SIZES; i-- > 0 && 1024u << i >= REP_TAIL_PAGE_BYTES;) {
		/* aligned / writes >= PCT / 100, in integers */
		if (g->aligned[i] * 100 >= g->writes * REP_WAL_GUESS_ALIGNED_PCT)
			return 1024u << i;
	}
	return 0;
}

int rep_wal_block_parse(const char *s, uint32_t *ret_bytes)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || v == 0 || v > 65536)
		return -EINVAL;
	if (strcasecmp(end, "kb") == 0 || strcasecmp(end, "k") == 0 || (*end == '\0' && v <= 64))
		v *= 1024;
	else if (*end != '\0')
		return -EINVAL;
	/* 1024 << 0..6 */
	if (v < 1024 || v > 65536 || (v & (v - 1)))
		return -EINVAL;
	*ret_bytes = (uint32_t)v;
	return 0;
}

double rep_pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

double rep_dutfs_share_pct(const struct rep_dutfs *d)
{
	return rep_pct(d->sum_ns, d->req_sum_ns);
}

bool rep_dutfs_is_finding(const struct rep_dutfs *cls, const struct rep_dutfs *total)
{
	return cls->reqs >= REP_DUTFS_FINDING_MIN_REQS &&
	       rep_dutfs_share_pct(cls) > REP_DUTFS_SHARE_FINDING_PCT &&
	       rep_pct(cls->req_sum_ns, total->req_sum_ns) >= REP_DUTFS_FINDING_MIN_TIME_PCT;
}

enum rep_class rep_classify(const struct dut_pg_file *pg, const struct relmap *m, uint64_t ts_ns,
			    const struct relmap_rel **ret_rel)
{
	const struct relmap_rel *rel = NULL;
	enum rep_class c;

	if (pg->cls == DUT_PG_REL)
		rel = relmap_lookup(m, pg->tablespace_oid, pg->db_oid, pg->relfilenode, ts_ns);
	/* no relmap, or a relation it does not name: heap (lib/io_class.h) */
	c = (enum rep_class)dut_io_class_of_file(pg, rel != NULL, rel ? rel->kind : RELMAP_TABLE);
	if (ret_rel)
		*ret_rel = rel;
	return c;
}

/* ---- stats ---- */

void rep_stats_free(struct rep_stats *st)
{
	dut_shist_free(st->dir[0].lat);
	dut_shist_free(st->dir[1].lat);
	dut_shist_free(st->fsync_lat);
	dut_shist_free(st->dutfs.hist);
}

/* A histogram exists once it has a value: an empty source adds nothing, not even one. */
static int hist_merge_into(struct dut_shist **dst, const struct dut_shist *src)
{
	if (!src || !src->count)
		return 0;
	if (!*dst && !(*dst = dut_shist_new()))
		return -ENOMEM;
	return dut_shist_merge(*dst, src);
}

int rep_stats_merge(struct rep_stats *dst, const struct rep_stats *src)
{
	int r;

	for (unsigned i = 0; i < 2; i++) {
		struct rep_dirstats *d = &dst->dir[i];
		const struct rep_dirstats *s = &src->dir[i];

		d->ops += s->ops;
		d->bytes += s->bytes;
		d->seq_ops += s->seq_ops;
		d->errors += s->errors;
		d->seq_bytes += s->seq_bytes;
		d->rewrite_ops += s->rewrite_ops;
		for (unsigned b = 0; b < REP_SIZE_BINS; b++)
			d->size_bins[b] += s->size_bins[b];
		if ((r = hist_merge_into(&d->lat, s->lat)) < 0)
			return r;
	}
	dst->fsyncs += src->fsyncs;
	dst->other_ops += src->other_ops;
	dst->dutfs.reqs += src->dutfs.reqs;
	dst->dutfs.sum_ns = rep_sat_add(dst->dutfs.sum_ns, src->dutfs.sum_ns);
	dst->dutfs.req_sum_ns = rep_sat_add(dst->dutfs.req_sum_ns, src->dutfs.req_sum_ns);
	if ((r = hist_merge_into(&dst->fsync_lat, src->fsync_lat)) < 0 ||
	    (r = hist_merge_into(&dst->dutfs.hist, src->dutfs.hist)) < 0)
		return r;
	return 0;
}

void rep_stats_reset(struct rep_stats *st)
{
	struct dut_shist *h[4] = { st->dir[0].lat, st->dir[1].lat, st->fsync_lat, st->dutfs.hist };

	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < 4; i++)
		if (h[i])
			dut_shist_reset(h[i]);
	st->dir[0].lat = h[0];
	st->dir[1].lat = h[1];
	st->fsync_lat = h[2];
	st->dutfs.hist = h[3];
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

int rep_rows_add(struct rep_rows *rs, const char *name, const char *detail, size_t *ret_idx)
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
int rep_rows_get(struct rep_rows *rs, const char *name, const char *detail, size_t *ret_idx)
{
	for (size_t i = 0; i < rs->n; i++) {
		if (strcmp(rs->v[i].name, name) == 0) {
			*ret_idx = i;
			return 0;
		}
	}
	return rep_rows_add(rs, name, detail, ret_idx);
}

void rep_rows_free(struct rep_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].detail);
		rep_stats_free(&v[i].st);
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
void rep_rows_finish(struct rep_rows *rs)
{
	size_t k = 0;

	for (size_t i = 0; i < rs->n; i++) {
		if (stats_ops(&rs->v[i].st) == 0) {
			free(rs->v[i].name);
			free(rs->v[i].detail);
			rep_stats_free(&rs->v[i].st);
			continue;
		}
		rs->v[k++] = rs->v[i];
	}
	rs->n = k;
	if (rs->n > 1)   /* rs->v may be NULL when there are none */
		qsort(rs->v, rs->n, sizeof(rs->v[0]), cmp_row);
}

void report_free(struct report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nphases; i++) {
		free(rep->phases[i].name);
		rep_stats_free(&rep->phases[i].total);
		free(rep->phases[i].data_write_ticks);
		for (unsigned c = 0; c < RC_COUNT; c++)
			rep_stats_free(&rep->phases[i].cls[c]);
	}
	free(rep->phases);
	rep_rows_free(rep->files, rep->nfiles);
	rep_rows_free(rep->relations, rep->nrelations);
	rep_rows_free(rep->processes, rep->nprocesses);
	rep_rotation_free(rep->rot);
	free(rep);
}
DUT_DEFINE_FREEP(struct report *, report_free)

