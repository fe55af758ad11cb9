/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/pressure, /proc/stat and /proc/PID/io for a restore phase (see psi_linux.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "pgload/psi_linux.h"

#define SAMPLE_NS 100000000L

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int pgl_psi_read(const char *resource, struct pgl_psi *ret)
{
	const char *dir = getenv("PGLOAD_PRESSURE_DIR");
	char path[512], buf[512];
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir && dir[0] ? dir : "/proc/pressure", resource);
	if ((r = dut_read_text(path, buf, sizeof(buf))) < 0)
		return r;
	return pgl_psi_parse(buf, ret);
}

int pgl_proc_io_read(long pid, struct pgl_proc_io *ret)
{
	char path[64], buf[512];
	int r;

	snprintf(path, sizeof(path), "/proc/%ld/io", pid);
	if ((r = dut_read_text(path, buf, sizeof(buf))) < 0)
		return r;
	return pgl_proc_io_parse(buf, ret);
}

/* procs_running and procs_blocked; /proc/stat has a line per CPU, hence the buffer. */
static int runq_read(unsigned *running, unsigned *blocked)
{
	static char buf[1 << 16];    /* only the sampling thread uses it */
	int r = dut_read_text("/proc/stat", buf, sizeof(buf));

	/* -EFBIG: parse the first 64 KiB; the parser fails if procs_running is not in them */
	return r < 0 && r != -EFBIG ? r : pgl_runq_parse(buf, running, blocked);
}

int pgl_hostcpu_read(struct pgl_hostcpu *ret)
{
	char buf[4096];             /* the aggregate line comes first */
	int r = dut_read_text("/proc/stat", buf, sizeof(buf));

	return r < 0 && r != -EFBIG ? r : pgl_hostcpu_parse(buf, ret);
}

static void *sample_loop(void *arg)
{
	struct pgl_phase_sampler *s = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	do {
		unsigned run, blk;

		if (runq_read(&run, &blk) == 0) {
			/* procs_running counts this thread, running while it reads */
			s->runq_sum += run ? run - 1 : 0;
			s->blocked_sum += blk;
			s->samples++;
		}
		next.tv_nsec += SAMPLE_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	} while (!atomic_load(&s->stop));
	return NULL;
}

void pgl_phase_sampler_start(struct pgl_phase_sampler *s)
{
	memset(s, 0, sizeof(*s));
	atomic_init(&s->stop, false);
	s->cpu0_r = pgl_psi_read("cpu", &s->cpu0);
	s->io0_r = pgl_psi_read("io", &s->io0);
	s->t0_ns = now_ns();
	s->thread_started = pthread_create(&s->thread, NULL, sample_loop, s) == 0;
}

static void psi_note(struct pgl_pressure *p, int r)
{
	if (p->psi_note[0] || r == 0)
		return;
	snprintf(p->psi_note, sizeof(p->psi_note), "%s",
		 r == -ENOENT ? "no /proc/pressure (kernel without CONFIG_PSI)" :
		 r == -EOPNOTSUPP ? "PSI disabled (psi=0 on the kernel command line)" :
		 r == -EINVAL ? "/proc/pressure/* not in the expected format" : strerror(-r));
}

void pgl_phase_sampler_stop(struct pgl_phase_sampler *s, struct pgl_pressure *ret)
{
	struct pgl_psi cpu1 = { 0 }, io1 = { 0 }, none = { 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t t1;
	int cpu1_r, io1_r;

	/* read before the join, which can wait up to one sampling interval */
	cpu1_r = pgl_psi_read("cpu", &cpu1);
	io1_r = pgl_psi_read("io", &io1);
	t1 = now_ns();
	atomic_store(&s->stop, true);
	if (s->thread_started)
		pthread_join(s->thread, NULL);
	pgl_pressure_psi_delta(s->cpu0_r ? &none : &s->cpu0, cpu1_r ? &none : &cpu1, true, ret);
	pgl_pressure_psi_delta(s->io0_r ? &none : &s->io0, io1_r ? &none : &io1, false, ret);
	ret->psi_window_ns = t1 - s->t0_ns;
	ret->psi_note[0] = '\0';
	psi_note(ret, s->cpu0_r ? s->cpu0_r : cpu1_r);
	psi_note(ret, s->io0_r ? s->io0_r : io1_r);
	ret->runq_samples = s->samples;
	ret->host_cpus = cpus > 0 ? (unsigned)cpus : 0;
	ret->runq_sum = s->runq_sum;
	ret->blocked_sum = s->blocked_sum;
}
