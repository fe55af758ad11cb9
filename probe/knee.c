/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Change-point detection by binary segmentation; see knee.h for the model. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/knee.h"

#define CHI2_1_95 3.841458820694124

struct prefix {
	const double *y;
	double *s, *s2;           /* s[i] = sum y[0..i), s2[i] = sum y^2 */
};

static double seg_mean(const struct prefix *p, size_t a, size_t b)
{
	return (p->s[b] - p->s[a]) / (double)(b - a);
}

static double seg_rss(const struct prefix *p, size_t a, size_t b)
{
	double sum = p->s[b] - p->s[a];
	double r = (p->s2[b] - p->s2[a]) - sum * sum / (double)(b - a);

	return r > 0 ? r : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double seg_median(const double *y, size_t a, size_t b, double *scratch)
{
	size_t n = b - a;

	memcpy(scratch, y + a, n * sizeof(*y));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

struct split {
	size_t k, ci_lo, ci_hi;
	double t_stat;
};

/* Best split of [a, b) and whether it is significant; 1 = accepted. */
static int best_split(const struct prefix *p, size_t a, size_t b, const struct knee_opts *o,
		      struct split *ret)
{
	size_t m = b - a, best = 0;
	double rss1, rss2 = INFINITY, floor_rss, m1, m2, s2, t;

	if (m < 2 * o->min_seg)
		return 0;
	rss1 = seg_rss(p, a, b);
	for (size_t k = a + o->min_seg; k + o->min_seg <= b; k++) {
		double r = seg_rss(p, a, k) + seg_rss(p, k, b);

		if (r < rss2) {
			rss2 = r;
			best = k;
		}
	}
	m1 = seg_mean(p, a, best);
	m2 = seg_mean(p, best, b);
	if (fabs(m1 - m2) < o->min_rel_change * fmax(fabs(m1), fabs(m2)) || m1 == m2)
		return 0;
	/* A noiseless series has RSS2 = 0: floor it so the logarithms stay finite. */
	floor_rss = 1e-12 * (fabs(p->s2[b] - p->s2[a]) + 1e-300);
	if ((double)m * log(fmax(rss1, floor_rss) / fmax(rss2, floor_rss)) <= o->penalty * log((double)m))
		return 0;
	s2 = rss2 / (double)(m - 2);
	t = s2 > 0 ? fabs(m1 - m2) / sqrt(s2 * (1.0 / (double)(best - a) + 1.0 / (double)(b - best)))
		   : INFINITY;
	ret->k = best;
	ret->t_stat = t;
	ret->ci_lo = ret->ci_hi = best;
	for (size_t k = a + o->min_seg; k + o->min_seg <= b; k++) {
		double r = seg_rss(p, a, k) + seg_rss(p, k, b);

		if ((double)m * log(fmax(r, floor_rss) / fmax(rss2, floor_rss)) <= CHI2_1_95) {
			if (k < ret->ci_lo)
				ret->ci_lo = k;
			if (k > ret->ci_hi)
				ret->ci_hi = k;
		}
	}
	return 1;
}

struct work {
	struct split splits[KNEE_MAX];
	size_t n;
};

static void segment(const struct prefix *p, size_t a, size_t b, const struct knee_opts *o,
		    struct work *w, unsigned depth)
{
	struct split sp;

	/* Depth bound: each level at least halves nothing in the worst case, so cap it. */
	if (w->n >= o->max_knees || depth > 2 * KNEE_MAX || !best_split(p, a, b, o, &sp))
		return;
	w->splits[w->n++] = sp;
	segment(p, a, sp.k, o, w, depth + 1);
	segment(p, sp.k, b, o, w, depth + 1);
}

static int cmp_split(const void *a, const void *b)
{
	size_t x = ((const struct split *)a)->k, y = ((const struct split *)b)->k;

	return (x > y) - (x < y);
}

static double median3(double a, double b, double c)
{
	if (a > b) {
		double t = a;

		a = b;
		b = t;
	}
	/* now a <= b */
	return c <= a ? a : c >= b ? b : c;
}

void knee_opts_default(struct knee_opts *o)
{
	o->smooth = true;
	o->min_seg = 3;
	o->min_rel_change = 0.15;
	o->penalty = 3;
	o->max_knees = KNEE_MAX;
}

static const char *confidence(const struct split *sp, size_t before)
{
	double width = (double)(sp->ci_hi - sp->ci_lo);

	if (sp->t_stat >= 10 && width <= fmax(1, 0.05 * (double)before))
		return "high";
	if (sp->t_stat >= 5 && width <= fmax(1, 0.20 * (double)before))
		return "medium";
	return "low";
}

/* The segments between the splits (sorted), with their means and raw-sample medians. */
static void build_segments(const struct prefix *p, const double *y, size_t n, const struct work *w,
			   double *scratch, struct knee_result *r)
{
	size_t start = 0;

	r->nsegments = 0;
	for (size_t i = 0; i <= w->n; i++) {
		size_t end = i < w->n ? w->splits[i].k : n;
		struct knee_segment *s = &r->segments[r->nsegments++];

		s->first = start;
		s->end = end;
		s->mean = end > start ? seg_mean(p, start, end) : NAN;
		s->median = end > start ? seg_median(y, start, end, scratch) : NAN;
		start = end;
	}
}

int knee_detect(const double *y, size_t n, const struct knee_opts *opts, struct knee_result *ret)
{
	struct knee_opts o;
	struct knee_result r = { 0 };
	struct work w = { .n = 0 };
	struct prefix p = { .y = y };
	_cleanup_free_ double *buf = NULL;

	if (!y && n)
		return -EINVAL;
	if (opts)
		o = *opts;
	else
		knee_opts_default(&o);
	if (o.min_seg < 1)
		o.min_seg = 1;
	if (o.max_knees > KNEE_MAX)
		o.max_knees = KNEE_MAX;

	/* s (n + 1), s2 (n + 1), then n doubles of scratch for the medians. */
	buf = malloc((3 * n + 2) * sizeof(double));
	if (!buf)
		return -ENOMEM;
	p.s = buf;
	p.s2 = buf + n + 1;
	/*
	 * Fit on a running median of 3: it removes a lone spike (one window that
	 * caught a stall's catch-up) that least squares would chase, and keeps
	 * every step edge exactly where it is.  Medians of plateaus use raw y.
	 */
	p.s[0] = p.s2[0] = 0;
	for (size_t i = 0; i < n; i++) {
		double v = y[i];

		if (o.smooth && i > 0 && i + 1 < n)
			v = median3(y[i - 1], y[i], y[i + 1]);
		p.s[i + 1] = p.s[i] + v;
		p.s2[i + 1] = p.s2[i] + v * v;
	}

	if (n < 2 * o.min_seg)
		r.why_none = "series too short to find a knee";
	else
		segment(&p, 0, n, &o, &w, 0);
	qsort(w.splits, w.n, sizeof(w.splits[0]), cmp_split);
	/*
	 * The split test compares the means of the segment it cut; the knee
	 * reports the medians of the final neighbours, which later cuts and
	 * spikes can bring together.  A knee whose final medians differ by
	 * less than min_rel_change is no knee by the documented rule: merge it.
	 */
	for (;;) {
		build_segments(&p, y, n, &w, buf + 2 * n + 2, &r);
		size_t drop = w.n;

		for (size_t i = 0; i < w.n && drop == w.n; i++) {
			double mb = r.segments[i].median, ma = r.segments[i + 1].median;

			if (!(fabs(ma - mb) >= o.min_rel_change * fmax(fabs(ma), fabs(mb))) || ma == mb)
				drop = i;
		}
		if (drop == w.n)
			break;
		memmove(&w.splits[drop], &w.splits[drop + 1], (w.n - drop - 1) * sizeof(w.splits[0]));
		w.n--;
	}
	for (size_t i = 0; i < w.n; i++) {
		struct knee_point *kp = &r.knees[r.nknees++];
		const struct knee_segment *b = &r.segments[i], *a = &r.segments[i + 1];

		kp->index = w.splits[i].k;
		kp->ci_lo = w.splits[i].ci_lo;
		kp->ci_hi = w.splits[i].ci_hi;
		kp->t_stat = w.splits[i].t_stat;
		kp->median_before = b->median;
		kp->median_after = a->median;
		kp->mean_before = b->mean;
		kp->mean_after = a->mean;
		kp->rel_change = b->median != 0 ? (a->median - b->median) / b->median : NAN;
		kp->confidence = confidence(&w.splits[i], kp->index - b->first);
	}
	if (!r.nknees && !r.why_none)
		r.why_none = "no significant change of level (one plateau)";
	*ret = r;
	return 0;
}

/* Share of sample i's work done at rate b1 when the rest went at b2 (time adds up). */
static double before_share(double y, double b1, double b2)
{
	double f;

	if (!(y > 0) || !(b1 > 0) || !(b2 > 0) || b1 == b2)
		return NAN;
	f = (1 / y - 1 / b2) / (1 / b1 - 1 / b2);
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

void knee_locate(const struct knee_point *k, const double *y, const uint64_t *end, size_t n,
		 struct knee_locus *ret)
{
	struct knee_locus l = { 0 };
	size_t i0 = k->index ? k->index - 1 : 0;
#define START(i) ((i) ? end[(i) - 1] : 0)

	if (!n || k->index >= n + 1) {
		*ret = l;
		return;
	}
	l.lo = START(k->ci_lo ? k->ci_lo - 1 : 0);
	l.hi = end[k->ci_hi < n ? k->ci_hi : n - 1];
	l.at = START(k->index);
	/* the work done at the before level in the two samples around the split */
	if (k->index > 0 && k->index < n) {
		double f0 = before_share(y[i0], k->median_before, k->median_after);
		double f1 = before_share(y[k->index], k->median_before, k->median_after);

		if (isfinite(f0) && isfinite(f1))
			l.at = START(i0) + (uint64_t)llround(f0 * (double)(end[i0] - START(i0)) +
							     f1 * (double)(end[k->index] - START(k->index)));
	}
	if (l.at < l.lo)
		l.at = l.lo;
	if (l.at > l.hi)
		l.at = l.hi;
#undef START
	*ret = l;
}
