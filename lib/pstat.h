/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text of /proc/PID/stat, parsed once for everyone (pgload's server CPU,
 * the runner's and dutlab crash's process checks).  Pure but for
 * dut_pstat_read() (pstat_linux.c).
 */
#ifndef DUT_PSTAT_H
#define DUT_PSTAT_H

#include <stdint.h>
#include <sys/types.h>

struct dut_proc_stat {
	int pid, ppid;
	char state;                              /* R, S, D, Z, X, ... */
	char comm[64];
	uint64_t utime, stime, cutime, cstime;   /* clock ticks */
	uint64_t starttime;                      /* ticks after boot: tells a reused pid apart */
};

/* Parse the text of /proc/PID/stat (comm may hold spaces and parentheses). 0 or -EINVAL. */
int dut_pstat_parse(const char *text, struct dut_proc_stat *ret);

/* Read and parse /proc/PID/stat: 0, -EINVAL when it does not parse, or the errno of open/read (ENOENT: gone). */
int dut_pstat_read(pid_t pid, struct dut_proc_stat *ret);

#endif
