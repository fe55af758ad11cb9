/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc and getrusage for the CPU time of a run (the parsing is servstat_proc.c). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "pgload/servstat_sys.h"

/*
 * The postmaster is read first: a child reaped between the two readings is
 * then missed (its interval's CPU lost) rather than counted twice.
 */
int pgl_proc_snap_take(int pm_pid, struct pgl_proc_snap *ret)
{
	_cleanup_(dut_closedirp) DIR *d = NULL;
	struct pgl_proc_snap s = { 0 };
	size_t cap = 0;
	struct dirent *de;
	int r;

	if ((r = dut_pstat_read(pm_pid, &s.pm)) < 0)
		return r;
	if (!(d = opendir("/proc")))
		return -errno;
	while ((de = readdir(d))) {
		struct dut_proc_stat st;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (dut_pstat_read(atoi(de->d_name), &st) < 0 || st.ppid != pm_pid)
			continue;      /* gone meanwhile, or not a child */
		if (s.nkids == cap) {
			struct dut_proc_stat *k = realloc(s.kids, (cap ? cap * 2 : 32) * sizeof(*k));

			if (!k) {
				pgl_proc_snap_free(&s);
				return -ENOMEM;
			}
			s.kids = k;
			cap = cap ? cap * 2 : 32;
		}
		s.kids[s.nkids++] = st;
	}
	*ret = s;
	return 0;
}

long pgl_clock_ticks(void)
{
	long t = sysconf(_SC_CLK_TCK);

	return t > 0 ? t : 100;
}

double pgl_self_cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}
