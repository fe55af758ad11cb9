/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Steady-state criteria (SNIA PTS, fio steadystate); see steady.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/steady.h"

#define SS_MAX_WINDOW 1000u

void ss_criterion_default(struct ss_criterion *ret)
{
	*ret = (struct ss_criterion){ .kind = SS_SNIA, .window = 5, .range_pct = 20, .slope_pct = 10 };
}

/* "12.5%" or "12.5" -> 12.5; the whole text must be used up to `stop`. */
static int parse_pct(const char *s, const char *stop, double *ret)
{
	char *end;
	double v;

	if (s == stop)
		return -EINVAL;
	v = strtod(s, &end);
	if (end < stop && *end == '%')
		end++;
	if (end != stop || !(v > 0) || v > 1000)
		return -EINVAL;
	*ret = v;
	return 0;
}

int ss_parse(const char *s, struct ss_criterion *ret, struct dut_error *err)
{
	struct ss_criterion c;
	const char *at = strchr(s, '@'), *colon = strchr(s, ':');
	const char *end = at ? at : s + strlen(s);
	size_t namelen = (size_t)((colon && colon < end ? colon : end) - s);

	ss_criterion_default(&c);
	if (at) {
		char *e;
		unsigned long w = strtoul(at + 1, &e, 10);

		if (*e || at[1] < '0' || at[1] > '9' || w < 2 || w > SS_MAX_WINDOW) {
			dut_error_set(err, "steady-state \"%s\": window after '@' must be 2..%u rounds", s,
				      SS_MAX_WINDOW);
			return -EINVAL;
		}
		c.window = (unsigned)w;
	}
	if (namelen == 4 && !strncmp(s, "snia", 4)) {
		c.kind = SS_SNIA;
		if (colon && colon < end) {
			const char *comma = memchr(colon + 1, ',', (size_t)(end - colon - 1));

			if (!comma || parse_pct(colon + 1, comma, &c.range_pct) < 0 ||
			    parse_pct(comma + 1, end, &c.slope_pct) < 0) {
				dut_error_set(err, "steady-state \"%s\": expected snia:RANGE%%,SLOPE%% (e.g. snia:20%%,10%%)", s);
				return -EINVAL;
			}
		}
	} else if ((namelen == 4 && !strncmp(s, "iops", 4)) ||
		   (namelen == 10 && !strncmp(s, "iops_slope", 10))) {
		double v;

		c.kind = namelen == 4 ? SS_FIO_IOPS : SS_FIO_SLOPE;
		if (!colon || colon > end || parse_pct(colon + 1, end, &v) < 0) {
			dut_error_set(err, "steady-state \"%s\": expected %.*s:N%% (e.g. %.*s:10%%)", s,
				      (int)namelen, s, (int)namelen, s);
			return -EINVAL;
		}
		if (c.kind == SS_FIO_IOPS)
			c.range_pct = v;
		else
			c.slope_pct = v;
	} else {
		dut_error_set(err, "steady-state \"%s\": unknown criterion (expected snia, snia:20%%,10%%, iops:10%%, iops_slope:2%%; optional @WINDOW)",
			      s);
		return -EINVAL;
	}
	*ret = c;
	return 0;
}

char *ss_describe(const struct ss_criterion *c, char *buf, size_t len)
{
	switch (c->kind) {
	case SS_SNIA:
		snprintf(buf, len, "snia:%g%%,%g%%@%u", c->range_pct, c->slope_pct, c->window);
		break;
	case SS_FIO_IOPS:
		snprintf(buf, len, "iops:%g%%@%u", c->range_pct, c->window);
		break;
	case SS_FIO_SLOPE:
		snprintf(buf, len, "iops_slope:%g%%@%u", c->slope_pct, c->window);
		break;
	}
	return buf;
}

int ss_evaluate(const struct ss_criterion *c, const double *y, size_t n, struct ss_eval *ret)
{
	struct ss_eval e = { 0 };
	size_t w = c->window;
	const double *v;
	double sum = 0, xbar, sxy = 0, sxx = 0, maxdev = 0;

	if (w < 2 || n < w)
		return -EAGAIN;
	v = y + (n - w);
	e.min = e.max = v[0];
	for (size_t i = 0; i < w; i++) {
		sum += v[i];
		e.min = fmin(e.min, v[i]);
		e.max = fmax(e.max, v[i]);
	}
	e.mean = sum / (double)w;
	if (!(e.mean > 0))
		return -EINVAL;
	xbar = (double)(w - 1) / 2;
	for (size_t i = 0; i < w; i++) {
		sxy += ((double)i - xbar) * (v[i] - e.mean);
		sxx += ((double)i - xbar) * ((double)i - xbar);
		maxdev = fmax(maxdev, fabs(v[i] - e.mean));
	}
	e.slope = sxy / sxx;
	e.range_pct = (e.max - e.min) / e.mean * 100;
	e.excursion_pct = fabs(e.slope) * (double)(w - 1) / e.mean * 100;
	e.max_dev_pct = maxdev / e.mean * 100;
	e.slope_pct = fabs(e.slope) / e.mean * 100;
	switch (c->kind) {
	case SS_SNIA:
		e.attained = e.range_pct <= c->range_pct && e.excursion_pct <= c->slope_pct;
		break;
	case SS_FIO_IOPS:
		e.attained = e.max_dev_pct <= c->range_pct;
		break;
	case SS_FIO_SLOPE:
		e.attained = e.slope_pct <= c->slope_pct;
		break;
	}
	*ret = e;
	return 0;
}
