/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Data-file writes against TPS dips of an OLTP step, from the run model
 * (pure).  A run of the step is one pgload document; its trace phase is the
 * step's marker, the d-th phase of that name for the d-th document of a rep
 * (a step with repeat = k marks each run).  pgload's per-second series starts
 * when the clients have connected: the marker (written just before pgload
 * starts) plus the run's connection_time_total, to REP_TICK_NS.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report/report_answer_bursts.h"
#include "tools/report/rundir_stats.h"

#define MIB (1024.0 * 1024.0)

/* The occurrence-th phase named mark in rep, or NULL. */
static const struct rep_phase *nth_phase(const struct report *rep, const char *mark, size_t occurrence)
{
	for (size_t p = 1; rep && p < rep->nphases; p++)
		if (strcmp(rep->phases[p].name, mark) == 0 && occurrence-- == 0)
			return &rep->phases[p];
	return NULL;
}

struct runs {
	struct burst_run *v;
	size_t n;
};

static void runs_free(struct runs *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free((void *)rs->v[i].tps);
		free((void *)rs->v[i].write_bytes);
		free((void *)rs->v[i].ckpt);
	}
	free(rs->v);
}

/* The data-file writes of the run's seconds, summed over the rep's traces (the PGDATA mount and the others). */
static int run_writes(const struct rundir_rep *rp, const char *mark, size_t occurrence, uint64_t offset_ns,
		      size_t nsecs, uint64_t **ret)
{
	uint64_t *sum = NULL, *one = NULL;
	bool found = false;

	if (!(sum = calloc(nsecs, sizeof(*sum))) || !(one = calloc(nsecs, sizeof(*one)))) {
		free(sum);
		return -ENOMEM;
	}
	for (size_t t = 0; t <= rp->nmore; t++) {
		const struct report *io = t == 0 ? rp->io : rp->more_io[t - 1];
		const struct rep_phase *ph = nth_phase(io, mark, occurrence);

		if (!ph)
			continue;
		found = true;
		burst_rebin(ph->data_write_ticks, ph->ndata_ticks, REP_TICK_NS, offset_ns, one, nsecs);
		for (size_t i = 0; i < nsecs; i++)
			sum[i] += one[i];
	}
	free(one);
	if (!found) {
		free(sum);
		sum = NULL;
	}
	*ret = sum;
	return 0;
}

/* One pgload document's run: NULL tps (*ret untouched) when it has no per-second series. */
static int run_of(const struct rundir_rep *rp, const char *mark, size_t occurrence, const struct dut_result *doc,
		  struct burst_run *ret)
{
	struct dut_result_phase *ph = dut_result_find_phase(doc, "run");
	struct dut_series *tps = ph ? dut_phase_get_series(ph, "per_second") : NULL;
	struct dut_series *srv = ph ? dut_phase_get_series(ph, "server_per_second") : NULL;
	int tc = tps ? dut_series_col(tps, "tps") : -1, bc = srv ? dut_series_col(srv, "checkpointer_busy") : -1;
	size_t n = tps && tc >= 0 ? dut_series_nrows(tps) : 0;
	struct burst_run r = { .nsecs = n };
	uint64_t *w = NULL;
	double conn = 0, *t;
	const char *unit;
	int err;

	if (!n)
		return 0;
	if (dut_phase_get_metric(ph, "connection_time_total", &conn, &unit) < 0 || !(conn > 0))
		conn = 0;
	if (!(t = calloc(n, sizeof(*t))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		double v = dut_series_get(tps, i, (size_t)tc);

		t[i] = isnan(v) ? 0 : v;
	}
	r.tps = t;
	if (mark && (err = run_writes(rp, mark, occurrence,
				      (uint64_t)(conn / REP_TICK_NS + 0.5) * REP_TICK_NS, n, &w)) < 0) {
		free(t);
		return err;
	}
	r.write_bytes = w;
	/* checkpointer samples cover the seconds the series has (the last may lack one) */
	if (bc >= 0 && dut_series_nrows(srv) + 1 >= n) {
		bool *ck = calloc(n, sizeof(*ck));

		if (!ck) {
			free(t);
			free(w);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n && i < dut_series_nrows(srv); i++)
			ck[i] = dut_series_get(srv, i, (size_t)bc) > 0;
		r.ckpt = ck;
	}
	*ret = r;
	return 0;
}

int answer_bursts_of(const struct rundir_config *c, const char *step, struct burst_result *ret)
{
	struct runs rs = { 0 };
	int err = 0;

	for (size_t k = 0; k < c->nreps && err == 0; k++) {
		const struct rundir_rep *rp = &c->reps[k];
		const struct rundir_step *s = rundir_rep_step(rp, step);

		for (size_t d = 0; s && d < s->ndocs && err == 0; d++) {
			struct burst_run r = { 0 }, *nv;

			if (!s->docs[d].doc)
				continue;
			if ((err = run_of(rp, s->mark, d, s->docs[d].doc, &r)) < 0 || !r.tps)
				break;
			if (!(nv = realloc(rs.v, (rs.n + 1) * sizeof(*nv)))) {
				free((void *)r.tps);
				free((void *)r.write_bytes);
				free((void *)r.ckpt);
				err = -ENOMEM;
				break;
			}
			rs.v = nv;
			rs.v[rs.n++] = r;
		}
	}
	if (err == 0 && !rs.n)
		err = -ENOENT;
	if (err == 0)
		err = burst_analyse(rs.v, rs.n, ret);
	runs_free(&rs);
	return err;
}

static size_t put(char *buf, size_t n, size_t l, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t n, size_t l, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (l >= n)
		return l;
	va_start(ap, fmt);
	k = vsnprintf(buf + l, n - l, fmt, ap);
	va_end(ap);
	return k < 0 ? l : l + (size_t)k;
}

void answer_bursts_text(const struct burst_result *b, const char *view, char *buf, size_t n)
{
	bool traced = b->ntraced_secs > 0, ckpt = b->nckpt_secs_known > 0;
	char a[32], x[32];
	size_t l = 0;

	l = put(buf, n, l, "data-file writes against TPS dips: ");
	if (!b->nsecs) {
		put(buf, n, l, "no whole second to compare (runs of less than 3 s; the first and the last "
		    "second are left out)");
		return;
	}
	if (!b->ndips)
		l = put(buf, n, l, "no TPS dip (no second below %.0f%% of the median %s tx/s in the %zu whole "
			"seconds of %zu run%s)", BURST_DIP_PCT, rundir_fmt_num(b->tps.median, 0, a, sizeof(a)), b->nsecs,
			b->nruns, b->nruns == 1 ? "" : "s");
	else
		l = put(buf, n, l, "%zu TPS dip%s (seconds below %.0f%% of the median %s tx/s) in %zu whole seconds "
			"of %zu run%s: %s%zu at a data-file write burst (same or previous second), %s%zu at a "
			"checkpoint, %zu at neither", b->ndips, b->ndips == 1 ? "" : "s", BURST_DIP_PCT,
			rundir_fmt_num(b->tps.median, 0, a, sizeof(a)), b->nsecs, b->nruns, b->nruns == 1 ? "" : "s",
			traced ? "" : "(writes not traced) ", b->dips_burst, ckpt ? "" : "(checkpoints not sampled) ",
			b->dips_ckpt, b->dips_neither);
	if (!traced) {
		put(buf, n, l, "; data-file writes unknown (no trace of the step)");
		return;
	}
	if (!b->write_bytes) {
		put(buf, n, l, "; no write to a table's or index's file reached the trace (view %s) in those "
		    "seconds", *view ? view : "?");
		return;
	}
	l = put(buf, n, l, "; %s MiB written to tables and indexes (view %s), ",
		rundir_fmt_num((double)b->write_bytes / MIB, 1, a, sizeof(a)), *view ? view : "?");
	if (!b->nburst_secs)
		put(buf, n, l, "no second a burst (at least %.0fx the median second and %u MiB)", BURST_FACTOR,
		    BURST_FLOOR_BYTES >> 20);
	else if (!b->tps_other.n)
		put(buf, n, l, "every second a burst (TPS median %s)", rundir_fmt_num(b->tps_burst.median, 0, a, sizeof(a)));
	else
		put(buf, n, l, "TPS median %s in the %zu burst second%s (at least %.0fx the median second and "
		    "%u MiB), %s in the other %u", rundir_fmt_num(b->tps_burst.median, 0, a, sizeof(a)), b->nburst_secs,
		    b->nburst_secs == 1 ? "" : "s", BURST_FACTOR, BURST_FLOOR_BYTES >> 20,
		    rundir_fmt_num(b->tps_other.median, 0, x, sizeof(x)), b->tps_other.n);
}

void answer_bursts_row(struct rdoc *d, const char *cfg, const char *step, const struct burst_result *b)
{
	bool traced = b->ntraced_secs > 0, ckpt = b->nckpt_secs_known > 0;
	char a[32];

	rdoc_cell(d, "%s", cfg);
	rdoc_cell(d, "%s", step);
	rdoc_cell(d, "%zu", b->nruns);
	rdoc_cell(d, "%zu", b->nsecs);
	rdoc_cell(d, "%s", b->tps.n ? rundir_fmt_num(b->tps.median, 0, a, sizeof(a)) : "-");
	rdoc_cell(d, "%zu", b->ndips);
	if (traced)
		rdoc_cell(d, "%zu", b->dips_burst);
	else
		rdoc_cell(d, "-");
	if (ckpt)
		rdoc_cell(d, "%zu", b->dips_ckpt);
	else
		rdoc_cell(d, "-");
	rdoc_cell(d, "%zu", b->dips_neither);
	if (traced)
		rdoc_cell(d, "%zu", b->nburst_secs);
	else
		rdoc_cell(d, "-");
	rdoc_cell(d, "%s", b->tps_burst.n ? rundir_fmt_num(b->tps_burst.median, 0, a, sizeof(a)) : "-");
	rdoc_cell(d, "%s", b->tps_other.n ? rundir_fmt_num(b->tps_other.median, 0, a, sizeof(a)) : "-");
	rdoc_cell(d, "%s", !traced ? "-" : !b->write_bytes ? "none" :
		  rundir_fmt_num((double)b->write_bytes / MIB, 1, a, sizeof(a)));
}

/* The why list's item of an OLTP step of a configuration (nothing when it has no per-second series). */
void answer_bursts_item(struct rdoc *d, const struct rundir_config *c, const char *step)
{
	struct burst_result b;
	char text[900];
	int r = answer_bursts_of(c, step, &b);

	if (r == -ENOMEM)
		d->oom = true;
	if (r < 0)
		return;
	answer_bursts_text(&b, c->view, text, sizeof(text));
	rdoc_item(d, "%s, step %s, %s.", c->name, step, text);
}

void answer_bursts_step(struct rdoc *d, const struct rundir_model *m, const char *step, bool *open)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		struct burst_result b;
		int r = answer_bursts_of(&m->configs[i], step, &b);

		if (r == -ENOMEM)
			d->oom = true;
		if (r < 0 || !b.nsecs)
			continue;   /* the why list says when no second could be compared */
		if (!*open)
			rdoc_table(d, "Data-file write bursts against TPS dips, per second of the OLTP steps "
				   "(the first and last second of each run left out): a dip is a second below "
				   "70% of the run's median TPS; a burst a second whose writes to tables' and "
				   "indexes' files (the trace) are at least 2x the run's median second and 1 MiB; "
				   "a dip is at a burst or a checkpoint (pgload's checkpointer samples) when "
				   "that is in the same or the previous second.", ANSWER_BURSTS_HEADERS);
		*open = true;
		answer_bursts_row(d, m->configs[i].name, step, &b);
	}
}
