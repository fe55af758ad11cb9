/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The syscalls behind the CPU figures of a run (servstat.h has the pure part). */
#ifndef PGL_SERVSTAT_SYS_H
#define PGL_SERVSTAT_SYS_H

#include "pgload/servstat.h"

/* The process pm_pid and its children now.  -errno. */
int pgl_proc_snap_take(int pm_pid, struct pgl_proc_snap *ret);
/* Clock ticks per second of /proc's times. */
long pgl_clock_ticks(void);
/* User + system CPU seconds of this process, all its threads. */
double pgl_self_cpu_s(void);

#endif
