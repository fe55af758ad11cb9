/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Numbers out of a run model (pure). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/report/report_seconds.h"
#include "tools/report/rundir_stats.h"


size_t rundir_config_docs(const struct rundir_config *c, const char *step,
		       const struct dut_result **out, size_t max)
{
	size_t n = 0;

	for (size_t r = 0; r < c->nreps; r++) {
		const struct rundir_step *s = rundir_rep_step(&c->reps[r], step);

		for (size_t d = 0; s && d < s->ndocs && n < max; d++)
			if (s->docs[d].doc)
				out[n++] = s->docs[d].doc;
	}
	return n;
}

size_t rundir_config_docs_labeled(const struct rundir_config *c, const char *step, const struct dut_result **out,
			       char (*labels)[RUNDIR_DOC_LABEL_MAX], size_t max)
{
	size_t n = 0;

	for (size_t r = 0; r < c->nreps; r++) {
		const struct rundir_step *s = rundir_rep_step(&c->reps[r], step);

		for (size_t d = 0; s && d < s->ndocs && n < max; d++) {
			if (!s->docs[d].doc)
				continue;
			out[n] = s->docs[d].doc;
			if (s->ndocs > 1)
				snprintf(labels[n], RUNDIR_DOC_LABEL_MAX, "%s rep %u run %zu", c->name, c->reps[r].rep,
					 d + 1);
			else
				snprintf(labels[n], RUNDIR_DOC_LABEL_MAX, "%s rep %u", c->name, c->reps[r].rep);
			n++;
		}
	}
	return n;
}

unsigned rundir_config_nreps_with(const struct rundir_config *c, const char *step)
{
	unsigned n = 0;

	for (size_t r = 0; r < c->nreps; r++) {
		const struct rundir_step *s = rundir_rep_step(&c->reps[r], step);
		bool any = false;

		for (size_t d = 0; s && d < s->ndocs; d++)
			any |= s->docs[d].doc != NULL;
		n += any;
	}
	return n;
}

static struct dut_result_phase *doc_phase(const struct dut_result *r, const char *phase)
{
	if (phase)
		return dut_result_find_phase(r, phase);
	return dut_result_phase_count(r) ? dut_result_phase_at(r, 0) : NULL;
}

enum what { W_METRIC, W_LATENCY, W_DURATION };

static struct cmp_stat collect(const struct rundir_config *c, const char *step, const char *phase,
			       enum what w, const char *name, const char *pct)
{
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);
	double v[RUNDIR_MAX_DOCS];
	unsigned n = 0;

	for (size_t d = 0; d < nd; d++) {
		struct dut_result_phase *ph = doc_phase(docs[d], phase);
		struct dut_hist_summary s;
		const char *unit;
		uint64_t ns;

		if (!ph)
			continue;
		switch (w) {
		case W_METRIC:
			if (dut_phase_get_metric(ph, name, &v[n], &unit) == 0)
				n++;
			break;
		case W_DURATION:
			if (dut_phase_get_duration(ph, &ns) == 0)
				v[n++] = (double)ns / 1e9;
			break;
		case W_LATENCY:
			if (dut_phase_get_latency(ph, name, &s) < 0)
				break;
			v[n++] = (double)(strcmp(pct, "p50") == 0 ? s.p50 : strcmp(pct, "p90") == 0 ? s.p90 :
					  strcmp(pct, "p99") == 0 ? s.p99 : strcmp(pct, "max") == 0 ? s.max :
					  s.p999);
			break;
		}
	}
	return cmp_stat_of(v, n);
}

struct cmp_stat rundir_metric(const struct rundir_config *c, const char *step, const char *phase,
			   const char *metric)
{
	return collect(c, step, phase, W_METRIC, metric, NULL);
}

struct cmp_stat rundir_latency(const struct rundir_config *c, const char *step, const char *phase,
			    const char *lat, const char *pct)
{
	return collect(c, step, phase, W_LATENCY, lat, pct);
}

struct cmp_stat rundir_duration(const struct rundir_config *c, const char *step, const char *phase)
{
	return collect(c, step, phase, W_DURATION, NULL, NULL);
}

static void add_class(struct rundir_io_class *dst, const struct rep_stats *st)
{
	for (int d = 0; d < 2; d++) {
		dst->ops[d] += st->dir[d].ops;
		dst->seq_ops[d] += st->dir[d].seq_ops;
		dst->rewrite_ops[d] += st->dir[d].rewrite_ops;
		dst->bytes[d] += st->dir[d].bytes;
		dst->seq_bytes[d] += st->dir[d].seq_bytes;
	}
	dst->fsyncs += st->fsyncs;
}

void rundir_io_mix_of(const struct rundir_config *c, const char *phase, struct rundir_io_mix *ret)
{
	struct rundir_io_mix mix = { 0 };

	for (size_t r = 0; r < c->nreps; r++) {
		const struct rundir_rep *rp = &c->reps[r];
		bool found = false;

		/* the data directory's trace, then the other mounts' (tablespaces, WAL) */
		for (size_t t = 0; t <= rp->nmore; t++) {
			const struct report *io = t == 0 ? rp->io : rp->more_io[t - 1];

			if (!io || !io->nphases)
				continue;
			/* phases[0] is the whole trace; then one per marker (a repeated marker, several) */
			for (size_t p = phase ? 1 : 0; p < (phase ? io->nphases : 1); p++) {
				const struct rep_phase *ph = &io->phases[p];

				if (phase && strcmp(ph->name, phase) != 0)
					continue;
				found = true;
				for (int k = 0; k < RC_COUNT; k++)
					add_class(&mix.cls[k], &ph->cls[k]);
				add_class(&mix.total, &ph->total);
				/* the span once per repetition: the other mounts ran in the same time */
				if (t == 0 && ph->end_ns > ph->start_ns)
					mix.span_ns += ph->end_ns - ph->start_ns;
			}
		}
		mix.ntraced += found;
		mix.nrelmap += found && rp->io_has_relmap;
	}
	*ret = mix;
}

static void merge_lat(struct dut_hist *h, const struct rep_stats *st, int what)
{
	const struct dut_shist *src = what == 2 ? st->fsync_lat : st->dir[what].lat;

	if (src)
		dut_hist_merge_sparse(h, src);
}

void rundir_io_lat_of(const struct rundir_config *c, const char *phase, int cls, int what,
		   struct dut_hist *h)
{
	for (size_t r = 0; r < c->nreps; r++) {
		const struct rundir_rep *rp = &c->reps[r];

		for (size_t t = 0; t <= rp->nmore; t++) {
			const struct report *io = t == 0 ? rp->io : rp->more_io[t - 1];

			if (!io || !io->nphases)
				continue;
			for (size_t p = phase ? 1 : 0; p < (phase ? io->nphases : 1); p++) {
				const struct rep_phase *ph = &io->phases[p];

				if (phase && strcmp(ph->name, phase) != 0)
					continue;
				merge_lat(h, cls < RC_COUNT ? &ph->cls[cls] : &ph->total, what);
			}
		}
	}
}

const char *rundir_io_pattern(const struct rundir_io_class *x, int dir, char *buf, size_t n)
{
	uint64_t ops = x->ops[dir], seq = x->seq_ops[dir], rew = x->rewrite_ops[dir];
	double seq_pct = rep_pct(seq, ops), rew_pct = rep_pct(rew, ops);
	const char *what;
	char cnt[32];

	if (!ops)
		return NULL;
	if (seq_pct >= RUNDIR_PATTERN_MIN_SHARE_PCT)
		what = rew_pct < RUNDIR_PATTERN_REWRITE_PCT ? "sequential" :
		       dir == REP_WRITE ? "sequential appends with rewrites of the tail page" :
		       "sequential with re-reads of the tail page";
	else if (100.0 - seq_pct >= RUNDIR_PATTERN_MIN_SHARE_PCT)
		what = "random";
	else
		what = "mixed";
	snprintf(buf, n, "%s (%.1f%% %s, %.1f%% tail %s, %.1f%% random of %s %s)", what,
		 rep_pct(seq - rew, ops), dir == REP_WRITE ? "appends" : "continuing reads", rew_pct,
		 dir == REP_WRITE ? "rewrites" : "re-reads", rep_pct(ops - seq, ops),
		 rundir_fmt_count(ops, cnt, sizeof(cnt)), dir == REP_WRITE ? "writes" : "reads");
	return buf;
}

/* The first and last step start of a configuration ("" when none is known). */
static void config_span(const struct rundir_config *c, const char **first, const char **last)
{
	*first = *last = "";
	for (size_t r = 0; r < c->nreps; r++)
		for (size_t s = 0; s < c->reps[r].nsteps; s++) {
			const char *t = c->reps[r].steps[s].started_at;

			if (!t || !*t)
				continue;
			if (!**first || strcmp(t, *first) < 0)
				*first = t;
			if (strcmp(t, *last) > 0)
				*last = t;
		}
}

bool rundir_configs_sequential(const struct rundir_config *a, const struct rundir_config *b)
{
	const char *af, *al, *bf, *bl;

	config_span(a, &af, &al);
	config_span(b, &bf, &bl);
	if (!*af || !*bf)
		return false;
	/* ISO 8601 UTC times of one format order as strings; a tie (one-second
	 * resolution) counts as one after another, the safe side */
	return strcmp(al, bf) <= 0 || strcmp(bl, af) <= 0;
}

struct json_object *rundir_knee_bytes(struct json_object *knee)
{
	json_object *v;

	if (knee && json_object_object_get_ex(knee, "bytes_at", &v))
		return v;
	return knee && json_object_object_get_ex(knee, "bytes_before", &v) ? v : NULL;
}

const char *rundir_step_mark(const struct rundir_config *c, const char *step)
{
	for (size_t r = 0; r < c->nreps; r++) {
		const struct rundir_step *s = rundir_rep_step(&c->reps[r], step);

		if (s)
			return s->mark;
	}
	return NULL;
}

const char *rundir_fmt_count(uint64_t v, char *buf, size_t n)
{
	char digits[32];
	size_t len, o = 0;

	len = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (size_t i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = 0;
	return buf;
}

const char *rundir_fmt_num(double v, int decimals, char *buf, size_t n)
{
	char ip[32], frac[32] = "";
	double r = fabs(v);
	uint64_t whole;

	if (!isfinite(v)) {
		snprintf(buf, n, "-");
		return buf;
	}
	/* round once, then split, so 999.96 with 1 decimal gives "1,000.0" */
	snprintf(frac, sizeof(frac), "%.*f", decimals, r);
	whole = (uint64_t)strtod(frac, NULL);
	{
		const char *dot = strchr(frac, '.');

		rundir_fmt_count(whole, ip, sizeof(ip));
		snprintf(buf, n, "%s%s%s", v < 0 && r >= 0.5 * pow(10, -decimals) ? "-" : "", ip,
			 dot ? dot : "");
	}
	return buf;
}

struct json_object *rundir_jget(struct json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

const char *rundir_jstr(struct json_object *o, const char *key)
{
	json_object *v = rundir_jget(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

const char *rundir_fmt_range(const struct cmp_stat *s, double scale, int decimals, char *buf, size_t n)
{
	char a[32], b[32];

	if (!s->n)
		snprintf(buf, n, "-");
	else if (s->n == 1)
		snprintf(buf, n, "(1 value)");
	else
		snprintf(buf, n, "%s-%s", rundir_fmt_num(s->min * scale, decimals, a, sizeof(a)),
			 rundir_fmt_num(s->max * scale, decimals, b, sizeof(b)));
	return buf;
}

const char *rundir_fmt_median(const struct cmp_stat *s, double scale, int decimals, char *buf, size_t n)
{
	if (!s->n)
		snprintf(buf, n, "-");
	else
		rundir_fmt_num(s->median * scale, decimals, buf, n);
	return buf;
}

/* From when a rotated trace still has records (the latest of a rep's
 * traces that lost some), or 0 when no trace of the rep lost any. */
static uint64_t kept_from_ns(const struct rundir_rep *rp)
{
	uint64_t from = 0;

	for (size_t k = 0; k <= rp->nmore; k++) {
		const struct report *io = k == 0 ? rp->io : rp->more_io[k - 1];

		if (io && io->rot && io->rot->records_gone && io->rot->kept_first_ns > from)
			from = io->rot->kept_first_ns;
	}
	return from;
}

/*
 * pgload's commits in the seconds of its run from skip_s on: its
 * per_second series (t_s = 1 is the run's first second); -1 without one.
 */
static double committed_from(const struct dut_result_phase *ph, double skip_s)
{
	struct dut_series *ser = dut_phase_get_series(ph, "per_second");
	int ct = ser ? dut_series_col(ser, "t_s") : -ENOENT, cn = ser ? dut_series_col(ser, "tps") : -ENOENT;
	double tx = 0;

	if (ct < 0 || cn < 0)
		return -1;
	for (size_t i = 0; i < dut_series_nrows(ser); i++)
		if (dut_series_get(ser, i, (size_t)ct) - 1.0 >= skip_s)
			tx += dut_series_get(ser, i, (size_t)cn);
	return tx;
}

/*
 * Transactions of a step over the repetitions that have a trace with its
 * marker; with a rotated trace only those from its first kept record on.
 * The per-second series of each of a step's runs counts from that run's
 * start, which is the marker's only for its first run: a repeated step
 * (repeat = N) whose first seconds were rotated away is cut by the same
 * seconds in each run, an approximation (soak steps run once).
 */
uint64_t rundir_traced_transactions_cut(const struct rundir_config *c, const char *step, const char *mark,
				     double *ret_cut_s)
{
	double tx = 0, cut = 0;

	for (size_t r = 0; r < c->nreps; r++) {
		const struct rundir_rep *rp = &c->reps[r];
		const struct rundir_step *s = rundir_rep_step(rp, step);
		const struct rep_phase *mp = NULL;
		uint64_t from = kept_from_ns(rp);
		double skip_s = 0;

		for (size_t p = 1; rp->io && p < rp->io->nphases && !mp; p++)
			if (strcmp(rp->io->phases[p].name, mark) == 0)
				mp = &rp->io->phases[p];
		/* a rotation that removed the step's first seconds: their
		 * transactions have no records left to be divided by */
		if (mp && from > mp->start_ns)
			skip_s = (double)(from - mp->start_ns) / 1e9;
		for (size_t d = 0; mp && s && d < s->ndocs; d++) {
			struct dut_result_phase *ph = s->docs[d].doc ?
				dut_result_find_phase(s->docs[d].doc, "run") : NULL;
			const char *unit;
			double v, kept;

			if (!ph || dut_phase_get_metric(ph, "committed", &v, &unit) < 0)
				continue;
			kept = skip_s > 0 ? committed_from(ph, skip_s) : v;
			tx += kept >= 0 ? kept : v;
		}
		if (skip_s > cut)
			cut = skip_s;
	}
	if (ret_cut_s)
		*ret_cut_s = cut;
	return (uint64_t)tx;
}

uint64_t rundir_traced_transactions(const struct rundir_config *c, const char *step, const char *mark)
{
	return rundir_traced_transactions_cut(c, step, mark, NULL);
}

const char *rundir_identify_target(const struct rundir_config *c, const char *step, const char **ret_name)
{
	for (size_t r = 0; r < c->nreps; r++) {
		const struct rundir_step *s = rundir_rep_step(&c->reps[r], step);

		if (s && s->experiment_path && *s->experiment_path) {
			if (ret_name)
				*ret_name = s->experiment_target ? s->experiment_target : "";
			return s->experiment_path;
		}
	}
	return NULL;
}
