/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/stat text and the server's CPU time between two snapshots (pure). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/servstat.h"

static uint64_t own_ticks(const struct dut_proc_stat *p)
{
	return p->utime + p->stime;
}

static const struct dut_proc_stat *find_kid(const struct pgl_proc_snap *s, const struct dut_proc_stat *k)
{
	for (size_t i = 0; i < s->nkids; i++)
		if (s->kids[i].pid == k->pid && s->kids[i].starttime == k->starttime)
			return &s->kids[i];
	return NULL;
}

int pgl_cpu_account(const struct pgl_proc_snap *a, const struct pgl_proc_snap *b,
		    struct pgl_cpu_delta *ret)
{
	struct pgl_cpu_delta d = { .kids_start = (unsigned)a->nkids, .kids_end = (unsigned)b->nkids };
	int64_t t;

	if (a->pm.pid != b->pm.pid || a->pm.starttime != b->pm.starttime)
		return -EINVAL;
	t = (int64_t)own_ticks(&b->pm) - (int64_t)own_ticks(&a->pm);
	/* the children it reaped in between, whole lifetimes ... */
	t += (int64_t)(b->pm.cutime + b->pm.cstime) - (int64_t)(a->pm.cutime + a->pm.cstime);
	for (size_t i = 0; i < a->nkids; i++)
		if (!find_kid(b, &a->kids[i])) {
			/* ... less what those alive at the start had used before it */
			t -= (int64_t)own_ticks(&a->kids[i]);
			d.exited++;
		}
	for (size_t i = 0; i < b->nkids; i++) {
		const struct dut_proc_stat *was = find_kid(a, &b->kids[i]);

		t += (int64_t)own_ticks(&b->kids[i]) - (was ? (int64_t)own_ticks(was) : 0);
		d.started += !was;
	}
	/* a child reaped between reading the children and the postmaster can go negative */
	d.ticks = t > 0 ? (uint64_t)t : 0;
	*ret = d;
	return 0;
}

void pgl_proc_snap_free(struct pgl_proc_snap *s)
{
	free(s->kids);
	s->kids = NULL;
	s->nkids = 0;
}
