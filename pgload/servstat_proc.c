/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/stat text and the server's CPU time between two snapshots (pure). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/servstat.h"

/*
 * "PID (COMM) S PPID ..." where COMM is the executable's name or a process
 * title's first 15 bytes and may itself hold ") (": the fields after it
 * start at the last ')'.  Field numbers as in proc(5): utime 14, stime 15,
 * cutime 16, cstime 17, starttime 22.
 */
int pgl_pstat_parse(const char *text, struct pgl_proc_stat *ret)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
	struct pgl_proc_stat st = { 0 };
	char *end;
	long pid;
	size_t len;

	if (!open || !close || close < open)
		return -EINVAL;
	pid = strtol(text, &end, 10);
	if (end == text || pid <= 0 || end > open)
		return -EINVAL;
	st.pid = (int)pid;
	len = (size_t)(close - open - 1);
	if (len >= sizeof(st.comm))
		len = sizeof(st.comm) - 1;
	memcpy(st.comm, open + 1, len);
	p = close + 1;
	/* field 3 onwards */
	for (int field = 3; field <= 22; field++) {
		long long v;

		while (*p == ' ')
			p++;
		if (!*p)
			return -EINVAL;
		if (field == 3) {
			st.state = *p++;
			if (*p && *p != ' ')
				return -EINVAL;
			continue;
		}
		/* a few fields (tty_nr, nice) may be negative; the ones kept are not */
		v = strtoll(p, &end, 10);
		if (end == p || (*end && *end != ' ' && *end != '\n'))
			return -EINVAL;
		p = end;
		switch (field) {
		case 4: st.ppid = (int)v; break;
		case 14: st.utime = (uint64_t)v; break;
		case 15: st.stime = (uint64_t)v; break;
		case 16: st.cutime = (uint64_t)v; break;
		case 17: st.cstime = (uint64_t)v; break;
		case 22: st.starttime = (uint64_t)v; break;
		default: break;
		}
	}
	*ret = st;
	return 0;
}

static uint64_t own_ticks(const struct pgl_proc_stat *p)
{
	return p->utime + p->stime;
}

static const struct pgl_proc_stat *find_kid(const struct pgl_proc_snap *s, const struct pgl_proc_stat *k)
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
		const struct pgl_proc_stat *was = find_kid(a, &b->kids[i]);

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
