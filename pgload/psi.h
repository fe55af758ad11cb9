/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a restore phase waited on: pressure stall information (PSI), the run
 * queue, the server's I/O, and the verdict drawn from them.  This is the
 * pure part (parsers, accounting, classification); psi_linux.c reads /proc.
 *
 * PSI (/proc/pressure/cpu, /proc/pressure/io, Linux 4.20+, CONFIG_PSI and
 * not psi=0) counts, system-wide, the microseconds during which "some"
 * runnable task waited for a CPU (cpu) or some task was stalled on I/O (io),
 * and for io also "full": every non-idle task stalled at once.  Over a phase
 * the difference of the totals divided by the time between the two readings
 * (not the child's wall time, which is shorter) is the share of the phase
 * spent so.  A kernel without PSI has no file (or fails the read with
 * EOPNOTSUPP): the shares are then unknown, never 0.
 *
 * The run queue: procs_running and procs_blocked of /proc/stat (runnable
 * tasks, and tasks in uninterruptible sleep, which is mostly disk I/O),
 * sampled every 100 ms during the phase; procs_running counts the sampling
 * thread itself, which is taken off.
 */
#ifndef PGL_PSI_H
#define PGL_PSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One line ("some" or "full") of a /proc/pressure file. */
struct pgl_psi_line {
	bool known;
	uint64_t total_us;
};

struct pgl_psi {
	struct pgl_psi_line some, full;
};

/*
 * Parse a /proc/pressure/{cpu,io,memory} text: "some avg10=.. avg60=..
 * avg300=.. total=N" and (Linux 5.13+ for cpu) a "full" line.  -EINVAL
 * when there is no well-formed "some" line.
 */
int pgl_psi_parse(const char *text, struct pgl_psi *ret);

/* procs_running and procs_blocked of a /proc/stat text; -EINVAL without both. */
int pgl_runq_parse(const char *text, unsigned *ret_running, unsigned *ret_blocked);

/*
 * The machine's CPU time from the aggregate "cpu" line of /proc/stat, in
 * clock ticks: busy = user + nice + system + irq + softirq (guest time is
 * inside user), steal = time the hypervisor gave the virtual CPUs to
 * someone else, iowait = idle with I/O outstanding.
 */
struct pgl_hostcpu {
	uint64_t busy, steal, iowait, idle;
};

/* -EINVAL without a well-formed "cpu " line of at least 8 fields. */
int pgl_hostcpu_parse(const char *text, struct pgl_hostcpu *ret);

/* /proc/PID/io (see proc(5)). */
struct pgl_proc_io {
	uint64_t rchar, wchar;                 /* read(2)/write(2) bytes, page cache included */
	uint64_t read_bytes, write_bytes;      /* bytes that went to (or came from) the block layer */
	uint64_t cancelled_write_bytes;        /* dirtied, then truncated before written */
};

/* -EINVAL when a field is missing or malformed. */
int pgl_proc_io_parse(const char *text, struct pgl_proc_io *ret);
/* *a += b */
void pgl_proc_io_add(struct pgl_proc_io *a, const struct pgl_proc_io *b);

/* A phase's evidence: differences and sums over the phase (add up for a total). */
struct pgl_pressure {
	bool cpu_known, io_known, io_full_known;
	uint64_t cpu_some_us, io_some_us, io_full_us;
	uint64_t psi_window_ns;             /* between the two readings (a little over the wall time) */
	char psi_note[96];                  /* why PSI is unknown, or "" */
	unsigned runq_samples;              /* 0: run queue unknown */
	unsigned host_cpus;                 /* online CPUs, to read the run queue against */
	uint64_t runq_sum, blocked_sum;
	bool server_io_known;
	struct pgl_proc_io server_io;       /* the server's processes, difference over the phase */
};

/* The difference b - a of two readings of one pressure file into *p. */
void pgl_pressure_psi_delta(const struct pgl_psi *a, const struct pgl_psi *b, bool cpu,
			    struct pgl_pressure *p);
/* Add phase b to a total a (a quantity is known in the total when known in every phase). */
void pgl_pressure_add(struct pgl_pressure *a, const struct pgl_pressure *b, bool first);

/* Share of the time between the readings (0..1; -1 when unknown) */
double pgl_pressure_cpu_some(const struct pgl_pressure *p);
double pgl_pressure_io_some(const struct pgl_pressure *p);
double pgl_pressure_io_full(const struct pgl_pressure *p);
/* Means over the samples (-1 when unknown). */
double pgl_pressure_runq_mean(const struct pgl_pressure *p);
double pgl_pressure_blocked_mean(const struct pgl_pressure *p);

/*
 * The verdict.  In order:
 *   unknown      the phase did not run, lasted under 50 ms, or the server's
 *                CPU was not measured (then it is on another host and this
 *                host's PSI says nothing about it);
 *   cpu-bound    cores busy >= 80% of the usable CPUs (the work kept the
 *                CPUs it could use busy);
 *   cpu-starved  CPU some-pressure >= 20% and above the I/O one: tasks were
 *                runnable but waited for a CPU (other programs, or more
 *                runnable tasks than CPUs); without PSI: on average at least
 *                half a task more runnable than there are CPUs;
 *   io-bound     I/O some-pressure >= 20% (or, without PSI, on average at
 *                least half a task blocked in uninterruptible sleep);
 *   lock-or-other-wait  neither: locks, the client, the network, sleeping;
 *   waiting      neither PSI nor the run queue known: CPU, I/O or locks.
 */
enum pgl_bound {
	PGL_BOUND_UNKNOWN,
	PGL_BOUND_CPU,
	PGL_BOUND_CPU_STARVED,
	PGL_BOUND_IO,
	PGL_BOUND_OTHER,
	PGL_BOUND_WAITING,
};

#define PGL_BOUND_CPU_SHARE 0.8      /* of the usable CPUs */
#define PGL_BOUND_PRESSURE 0.2       /* of the wall time */
#define PGL_BOUND_SATURATED 0.8      /* both CPU and I/O pressure this high: cannot tell */
#define PGL_BOUND_BLOCKED 0.5        /* tasks, without PSI */
#define PGL_BOUND_RUNQ_EXCESS 0.5    /* runnable tasks beyond the CPUs, without PSI */

struct pgl_bound_in {
	bool ran;
	uint64_t wall_ns;
	bool cpu_known;                 /* server CPU measured */
	double cores_busy;
	unsigned usable_cpus;
	const struct pgl_pressure *pr;
};

const char *pgl_bound_name(enum pgl_bound b);
/* The verdict and, in reason, the numbers behind it ("cores busy 0.4 of 2; cpu pressure 63% ..."). */
enum pgl_bound pgl_bound_classify(const struct pgl_bound_in *in, char *reason, size_t len);

#endif
