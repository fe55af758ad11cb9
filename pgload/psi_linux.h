/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The /proc side of psi.h: pressure files, the run queue sampler, /proc/PID/io.
 * PGLOAD_PRESSURE_DIR replaces /proc/pressure (a seam for tests: an empty
 * directory is a kernel without PSI).
 */
#ifndef PGL_PSI_LINUX_H
#define PGL_PSI_LINUX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "pgload/psi.h"

/* /proc/pressure/<resource>; -ENOENT or -EOPNOTSUPP without PSI, -EINVAL unparsable. */
int pgl_psi_read(const char *resource, struct pgl_psi *ret);
/* The machine's CPU time (/proc/stat); -errno or -EINVAL. */
int pgl_hostcpu_read(struct pgl_hostcpu *ret);
/* /proc/PID/io; -errno (-EACCES: not ours and not root). */
int pgl_proc_io_read(long pid, struct pgl_proc_io *ret);

/* PSI at the start and end of a phase, and the run queue every 100 ms in between. */
struct pgl_phase_sampler {
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;
	struct pgl_psi cpu0, io0;
	int cpu0_r, io0_r;
	uint64_t t0_ns;              /* CLOCK_MONOTONIC of the start readings */
	unsigned samples;            /* written by the thread, read after join */
	uint64_t runq_sum, blocked_sum;
};

/* Take the start readings and start the sampling thread (without it, no run queue). */
void pgl_phase_sampler_start(struct pgl_phase_sampler *s);
/* Stop, take the end readings; fills the PSI and run-queue parts of *ret. */
void pgl_phase_sampler_stop(struct pgl_phase_sampler *s, struct pgl_pressure *ret);

#endif
