/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PSI, run queue and /proc/PID/io texts, and the restore verdict from them (pure; see psi.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/psi.h"

/* "total=N" in the line that starts at line (up to its newline). */
static int psi_total(const char *line, uint64_t *ret)
{
	const char *eol = strchr(line, '\n'), *t = strstr(line, " total=");
	unsigned long long v;
	char *end;

	if (!t || (eol && t > eol))
		return -EINVAL;
	t += strlen(" total=");
	errno = 0;
	v = strtoull(t, &end, 10);
	if (errno || end == t || (*end && *end != '\n' && *end != ' '))
		return -EINVAL;
	*ret = v;
	return 0;
}

int pgl_psi_parse(const char *text, struct pgl_psi *ret)
{
	struct pgl_psi p = { 0 };

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		struct pgl_psi_line *dst = strncmp(l, "some ", 5) == 0 ? &p.some :
					   strncmp(l, "full ", 5) == 0 ? &p.full : NULL;

		if (!dst)
			continue;
		if (psi_total(l, &dst->total_us) < 0)
			return -EINVAL;
		dst->known = true;
	}
	if (!p.some.known)
		return -EINVAL;
	*ret = p;
	return 0;
}

/* The number after "key " at the start of a line of text. */
static int line_value(const char *text, const char *key, unsigned long long *ret)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char *end;

		if (strncmp(l, key, klen) != 0 || (l[klen] != ' ' && l[klen] != ':'))
			continue;
		l += klen + 1;
		while (*l == ' ')
			l++;
		errno = 0;
		*ret = strtoull(l, &end, 10);
		if (errno || end == l || (*end && *end != '\n'))
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

int pgl_runq_parse(const char *text, unsigned *ret_running, unsigned *ret_blocked)
{
	unsigned long long run, blk;

	if (line_value(text, "procs_running", &run) < 0 || line_value(text, "procs_blocked", &blk) < 0)
		return -EINVAL;
	*ret_running = (unsigned)run;
	*ret_blocked = (unsigned)blk;
	return 0;
}

int pgl_hostcpu_parse(const char *text, struct pgl_hostcpu *ret)
{
	unsigned long long v[8];
	const char *p = text;

	/* the first line, "cpu  user nice system idle iowait irq softirq steal ..." */
	while (p && strncmp(p, "cpu ", 4) != 0)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p || sscanf(p + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
			 &v[4], &v[5], &v[6], &v[7]) != 8)
		return -EINVAL;
	*ret = (struct pgl_hostcpu){ .busy = v[0] + v[1] + v[2] + v[5] + v[6], .idle = v[3],
				     .iowait = v[4], .steal = v[7] };
	return 0;
}

int pgl_proc_io_parse(const char *text, struct pgl_proc_io *ret)
{
	unsigned long long v[5];
	static const char *const keys[5] = { "rchar", "wchar", "read_bytes", "write_bytes",
					     "cancelled_write_bytes" };

	for (unsigned i = 0; i < 5; i++)
		if (line_value(text, keys[i], &v[i]) < 0)
			return -EINVAL;
	*ret = (struct pgl_proc_io){ .rchar = v[0], .wchar = v[1], .read_bytes = v[2],
				     .write_bytes = v[3], .cancelled_write_bytes = v[4] };
	return 0;
}

void pgl_proc_io_add(struct pgl_proc_io *a, const struct pgl_proc_io *b)
{
	a->rchar += b->rchar;
	a->wchar += b->wchar;
	a->read_bytes += b->read_bytes;
	a->write_bytes += b->write_bytes;
	a->cancelled_write_bytes += b->cancelled_write_bytes;
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

void pgl_pressure_psi_delta(const struct pgl_psi *a, const struct pgl_psi *b, bool cpu,
			    struct pgl_pressure *p)
{
	if (cpu) {
		p->cpu_known = a->some.known && b->some.known;
		p->cpu_some_us = p->cpu_known ? delta(a->some.total_us, b->some.total_us) : 0;
		return;
	}
	p->io_known = a->some.known && b->some.known;
	p->io_some_us = p->io_known ? delta(a->some.total_us, b->some.total_us) : 0;
	p->io_full_known = a->full.known && b->full.known;
	p->io_full_us = p->io_full_known ? delta(a->full.total_us, b->full.total_us) : 0;
}

void pgl_pressure_add(struct pgl_pressure *a, const struct pgl_pressure *b, bool first)
{
	a->cpu_known = (first || a->cpu_known) && b->cpu_known;
	a->io_known = (first || a->io_known) && b->io_known;
	a->io_full_known = (first || a->io_full_known) && b->io_full_known;
	a->server_io_known = (first || a->server_io_known) && b->server_io_known;
	a->cpu_some_us += b->cpu_some_us;
	a->io_some_us += b->io_some_us;
	a->io_full_us += b->io_full_us;
	a->psi_window_ns += b->psi_window_ns;
	a->runq_samples += b->runq_samples;
	if (b->host_cpus > a->host_cpus)
		a->host_cpus = b->host_cpus;
	a->runq_sum += b->runq_sum;
	a->blocked_sum += b->blocked_sum;
	pgl_proc_io_add(&a->server_io, &b->server_io);
	if (!a->psi_note[0] && b->psi_note[0])
		snprintf(a->psi_note, sizeof(a->psi_note), "%s", b->psi_note);
}

static double share(bool known, uint64_t us, uint64_t window_ns)
{
	double v;

	if (!known || !window_ns)
		return -1;
	/* the kernel sums per-CPU times read a moment apart: a share can poke over 1 */
	v = (double)us * 1000.0 / (double)window_ns;
	return v < 1 ? v : 1;
}

double pgl_pressure_cpu_some(const struct pgl_pressure *p)
{
	return share(p->cpu_known, p->cpu_some_us, p->psi_window_ns);
}

double pgl_pressure_io_some(const struct pgl_pressure *p)
{
	return share(p->io_known, p->io_some_us, p->psi_window_ns);
}

double pgl_pressure_io_full(const struct pgl_pressure *p)
{
	return share(p->io_full_known, p->io_full_us, p->psi_window_ns);
}

double pgl_pressure_runq_mean(const struct pgl_pressure *p)
{
	return p->runq_samples ? (double)p->runq_sum / p->runq_samples : -1;
}

double pgl_pressure_blocked_mean(const struct pgl_pressure *p)
{
	return p->runq_samples ? (double)p->blocked_sum / p->runq_samples : -1;
}

static const char *const bound_names[] = {
	[PGL_BOUND_UNKNOWN] = "unknown",
	[PGL_BOUND_CPU] = "cpu-bound",
	[PGL_BOUND_CPU_STARVED] = "cpu-starved",
	[PGL_BOUND_IO] = "io-bound",
	[PGL_BOUND_OTHER] = "lock-or-other-wait",
	[PGL_BOUND_WAITING] = "waiting",
};

const char *pgl_bound_name(enum pgl_bound b)
{
	return (unsigned)b < sizeof(bound_names) / sizeof(bound_names[0]) ? bound_names[b] : "unknown";
}

struct reason {
	char *buf;
	size_t len, used;
};

static void add(struct reason *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->used >= r->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->buf + r->used, r->len - r->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		r->used = r->used + (size_t)n < r->len ? r->used + (size_t)n : r->len;
}

/* "cpu pressure 63%, io pressure 4% (full 1%), 1.2 blocked" with "unknown" where unknown. */
static void add_evidence(struct reason *r, const struct pgl_pressure *pr)
{
	double cpu = pgl_pressure_cpu_some(pr), io = pgl_pressure_io_some(pr);
	double full = pgl_pressure_io_full(pr), blk = pgl_pressure_blocked_mean(pr);

	if (cpu >= 0)
		add(r, "; cpu pressure %.0f%%", cpu * 100);
	else
		add(r, "; cpu pressure unknown");
	if (io >= 0)
		add(r, ", io pressure %.0f%%", io * 100);
	else
		add(r, ", io pressure unknown");
	if (full >= 0)
		add(r, " (full %.0f%%)", full * 100);
	if (blk >= 0)
		add(r, ", %.1f runnable on %u CPUs, %.1f blocked", pgl_pressure_runq_mean(pr), pr->host_cpus, blk);
}

/* Runnable tasks beyond the CPUs, on average (-1 unknown). */
static double runq_excess(const struct pgl_pressure *pr)
{
	double q = pgl_pressure_runq_mean(pr);

	return q >= 0 && pr->host_cpus ? q - pr->host_cpus : -1;
}

enum pgl_bound pgl_bound_classify(const struct pgl_bound_in *in, char *reason, size_t len)
{
	struct reason r = { .buf = reason, .len = len };
	const struct pgl_pressure *pr = in->pr;
	double cpu, io, blk;
	enum pgl_bound b;

	if (len)
		reason[0] = '\0';
	if (!in->ran) {
		add(&r, "did not run");
		return PGL_BOUND_UNKNOWN;
	}
	if (in->wall_ns < 50000000u) {
		add(&r, "under 50 ms: too short for tick-resolution CPU times");
		return PGL_BOUND_UNKNOWN;
	}
	if (!in->cpu_known || !in->usable_cpus) {
		add(&r, "server CPU not measured (server on another host?)");
		return PGL_BOUND_UNKNOWN;
	}
	cpu = pgl_pressure_cpu_some(pr);
	io = pgl_pressure_io_some(pr);
	blk = pgl_pressure_blocked_mean(pr);
	if (in->cores_busy >= PGL_BOUND_CPU_SHARE * in->usable_cpus)
		b = PGL_BOUND_CPU;
	else if (cpu >= PGL_BOUND_SATURATED && io >= PGL_BOUND_SATURATED)
		b = PGL_BOUND_WAITING;     /* PSI is machine-wide: other work holds both */
	else if (cpu >= PGL_BOUND_PRESSURE && cpu >= io)
		b = PGL_BOUND_CPU_STARVED;
	else if (cpu < 0 && io < 0 && runq_excess(pr) >= PGL_BOUND_RUNQ_EXCESS &&
		 runq_excess(pr) >= blk)
		b = PGL_BOUND_CPU_STARVED;
	else if (io >= PGL_BOUND_PRESSURE || (io < 0 && blk >= PGL_BOUND_BLOCKED))
		b = PGL_BOUND_IO;
	else if (cpu >= 0 || io >= 0 || blk >= 0)
		b = PGL_BOUND_OTHER;
	else
		b = PGL_BOUND_WAITING;
	add(&r, "cores busy %.2f of %u", in->cores_busy, in->usable_cpus);
	add_evidence(&r, pr);
	if (b == PGL_BOUND_WAITING && cpu >= 0)
		add(&r, ": CPU and I/O pressure both at least %.0f%% across the machine (other work), "
			"cannot tell which one the restore waited for", PGL_BOUND_SATURATED * 100);
	else if (b == PGL_BOUND_WAITING)
		add(&r, ": neither PSI nor the run queue known, cannot tell CPU from I/O wait");
	return b;
}
