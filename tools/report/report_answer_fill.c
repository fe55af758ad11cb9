/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The answer's why of a dutprobe fill step; see report_answer_fill.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/result.h"
#include "tools/report/report_answer_fill.h"
#include "tools/report/rundir_stats.h"

/* Within this of the emptiest level, a level counts as flat; a fall below it is a penalty. */
#define FILL_FLAT_SHARE 0.20
#define FILL_MAX_LEVELS 16

struct level {
	double pct, iops;
};

static int cmp_level(const void *a, const void *b)
{
	const struct level *x = a, *y = b;

	return x->pct < y->pct ? -1 : x->pct > y->pct;
}

/* "10,693 at 30%, 4,981 at 60%, 8,121 at 90%" */
static void levels_text(const struct level *v, size_t n, char *buf, size_t len)
{
	size_t l = 0;
	char a[32];

	buf[0] = 0;
	for (size_t i = 0; i < n && l < len; i++)
		l += (size_t)snprintf(buf + l, len - l, "%s%s at %.0f%%", i ? ", " : "",
				      rundir_fmt_num(v[i].iops, 0, a, sizeof(a)), v[i].pct);
}

void answer_why_fill(struct rdoc *d, const struct rundir_config *c, const char *step)
{
	const struct dut_result *docs[1];

	if (!rundir_config_docs(c, step, docs, 1))
		return;
	for (int q = 1; q <= 1024; q *= 2) {
		struct level v[FILL_MAX_LEVELS];
		char name[32], lv[400];
		size_t n = 0;
		bool falls = true, flat = true;

		snprintf(name, sizeof(name), "iops_qd%d", q);
		for (size_t p = 0; p < dut_result_phase_count(docs[0]) && n < FILL_MAX_LEVELS; p++) {
			const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));
			struct cmp_stat s;

			if (strncmp(pn, "level_", 6) != 0)
				continue;
			s = rundir_metric(c, step, pn, name);
			if (!s.n || s.median <= 0)
				continue;
			v[n++] = (struct level){ .pct = atof(pn + 6), .iops = s.median };
		}
		if (n < 2)
			continue;
		qsort(v, n, sizeof(v[0]), cmp_level);
		for (size_t i = 1; i < n; i++) {
			falls &= v[i].iops <= v[i - 1].iops * (1 + FILL_FLAT_SHARE / 2);
			flat &= v[i].iops >= v[0].iops * (1 - FILL_FLAT_SHARE) &&
				v[i].iops <= v[0].iops * (1 + FILL_FLAT_SHARE);
		}
		levels_text(v, n, lv, sizeof(lv));
		if (flat)
			rdoc_item(d, "%s, step %s, QD %d: random-write IOPS stayed within %.0f%% of the emptiest "
				  "level (%s): no overwrite penalty as the target filled.", c->name, step, q,
				  100 * FILL_FLAT_SHARE, lv);
		else if (falls && v[n - 1].iops < v[0].iops * (1 - FILL_FLAT_SHARE))
			rdoc_item(d, "%s, step %s, QD %d: random-write IOPS fell as the target filled (%s): "
				  "%.2fx at %.0f%% of what it did at %.0f%%: the shape of the overwrite penalty of "
				  "a flash drive that must erase before it writes (on an image or a file, "
				  "see What this run did not measure).", c->name, step, q, lv, v[n - 1].iops / v[0].iops,
				  v[n - 1].pct, v[0].pct);
		else
			rdoc_item(d, "%s, step %s, QD %d: random-write IOPS did not fall steadily with the fill "
				  "level (%s): the levels differ by more than a fill effect explains in that "
				  "order, so this run's differences are noise or caching, "
				  "not a penalty of the drive.", c->name, step, q, lv);
	}
}
