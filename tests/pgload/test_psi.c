/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pgload/psi.c: /proc/pressure, /proc/stat and /proc/PID/io texts, and the restore verdict. */
#include <errno.h>
#include <string.h>

#include "pgload/psi.h"
#include "pgload/restore.h"
#include "tests/cu_main.h"

static void test_psi_parse(void)
{
	static const struct {
		const char *text;
		int r;
		bool full;
		uint64_t some_us, full_us;
	} rows[] = {
		/* Linux 6.1 io */
		{ "some avg10=6.80 avg60=31.54 avg300=28.22 total=5576146414\n"
		  "full avg10=0.56 avg60=0.52 avg300=2.31 total=2321187060\n", 0, true, 5576146414u, 2321187060u },
		/* cpu before 5.13: no full line */
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=17\n", 0, false, 17, 0 },
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=17", 0, false, 17, 0 },
		{ "", -EINVAL },
		{ "full avg10=0.00 avg60=0.00 avg300=0.00 total=3\n", -EINVAL },      /* no some */
		{ "some avg10=0.00 avg60=0.00 avg300=0.00\nfull total=3\n", -EINVAL }, /* total on another line */
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=x\n", -EINVAL },
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=12y\n", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pgl_psi p = { 0 };
		int r = pgl_psi_parse(rows[i].text, &p);

		CU_CHECK(r == rows[i].r, "row %zu: r %d want %d", i, r, rows[i].r);
		if (r)
			continue;
		CU_CHECK(p.some.known && p.some.total_us == rows[i].some_us && p.full.known == rows[i].full &&
			 p.full.total_us == rows[i].full_us, "row %zu: some %llu full %d %llu", i,
			 (unsigned long long)p.some.total_us, p.full.known, (unsigned long long)p.full.total_us);
	}
}

static void test_runq_parse(void)
{
	unsigned run = 99, blk = 99;

	CU_CHECK(pgl_runq_parse("cpu  1 2 3\ncpu0 1 2 3\nintr 5 0\nctxt 9\nbtime 1\nprocesses 77\n"
				"procs_running 8\nprocs_blocked 3\nsoftirq 1 2\n", &run, &blk) == 0 &&
		 run == 8 && blk == 3, "run %u blk %u", run, blk);
	CU_CHECK(pgl_runq_parse("procs_running 2\n", &run, &blk) == -EINVAL, "no procs_blocked");
	CU_CHECK(pgl_runq_parse("procs_running_x 2\nprocs_blocked 1\n", &run, &blk) == -EINVAL, "prefix only");
	CU_CHECK(pgl_runq_parse("procs_running two\nprocs_blocked 1\n", &run, &blk) == -EINVAL, "not a number");
}

static void test_hostcpu_parse(void)
{
	struct pgl_hostcpu h = { 0 };

	/* user nice system idle iowait irq softirq steal guest guest_nice */
	CU_CHECK(pgl_hostcpu_parse("cpu  100 5 40 1000 7 3 2 11 50 0\ncpu0 50 2 20 500 3 1 1 5 25 0\n"
				   "procs_running 2\n", &h) == 0 &&
		 h.busy == 150 && h.idle == 1000 && h.iowait == 7 && h.steal == 11,
		 "busy %llu idle %llu iowait %llu steal %llu", (unsigned long long)h.busy,
		 (unsigned long long)h.idle, (unsigned long long)h.iowait, (unsigned long long)h.steal);
	CU_CHECK(pgl_hostcpu_parse("intr 1\ncpu  1 2 3 4 5 6 7 8\n", &h) == 0 && h.busy == 1 + 2 + 3 + 6 + 7,
		 "not the first line");
	CU_CHECK(pgl_hostcpu_parse("cpu0 1 2 3 4 5 6 7 8\n", &h) == -EINVAL, "per-CPU lines only");
	CU_CHECK(pgl_hostcpu_parse("cpu  1 2 3 4 5\n", &h) == -EINVAL, "too few fields (no steal)");
	CU_CHECK(pgl_hostcpu_parse("", &h) == -EINVAL, "empty");
}

static void test_proc_io_parse(void)
{
	struct pgl_proc_io io = { 0 }, sum = { 1, 2, 3, 4, 5 };

	CU_CHECK(pgl_proc_io_parse("rchar: 323934931\nwchar: 323929600\nsyscr: 632687\nsyscw: 632675\n"
				   "read_bytes: 4096\nwrite_bytes: 323932160\ncancelled_write_bytes: 8192\n",
				   &io) == 0, "parse");
	CU_CHECK(io.rchar == 323934931u && io.wchar == 323929600u && io.read_bytes == 4096 &&
		 io.write_bytes == 323932160u && io.cancelled_write_bytes == 8192, "values");
	pgl_proc_io_add(&sum, &io);
	CU_CHECK(sum.rchar == 323934932u && sum.cancelled_write_bytes == 8197, "add");
	CU_CHECK(pgl_proc_io_parse("rchar: 1\nwchar: 2\n", &io) == -EINVAL, "truncated");
	CU_CHECK(pgl_proc_io_parse("", &io) == -EINVAL, "empty");
}

static void test_pressure_delta_and_total(void)
{
	struct pgl_psi a = { { true, 1000 }, { true, 500 } }, b = { { true, 301000 }, { true, 100500 } };
	struct pgl_psi none = { 0 };
	struct pgl_pressure p = { 0 }, q = { 0 }, t = { 0 };

	pgl_pressure_psi_delta(&a, &b, false, &p);
	p.psi_window_ns = 1000000000u;
	CU_CHECK(p.io_known && p.io_some_us == 300000 && p.io_full_known && p.io_full_us == 100000, "io delta");
	CU_CHECK(pgl_pressure_io_some(&p) > 0.299 && pgl_pressure_io_some(&p) < 0.301,
		 "30%% of 1 s: %f", pgl_pressure_io_some(&p));
	CU_CHECK(pgl_pressure_cpu_some(&p) < 0, "cpu not read: unknown, not 0");
	/* a kernel without PSI: unknown, never 0 */
	pgl_pressure_psi_delta(&none, &none, true, &q);
	CU_CHECK(!q.cpu_known && pgl_pressure_cpu_some(&q) < 0, "no PSI is unknown");
	CU_CHECK(pgl_pressure_runq_mean(&q) < 0 && pgl_pressure_blocked_mean(&q) < 0, "no samples: unknown");
	q.runq_samples = 4;
	q.runq_sum = 6;
	q.blocked_sum = 2;
	CU_CHECK(pgl_pressure_runq_mean(&q) == 1.5 && pgl_pressure_blocked_mean(&q) == 0.5, "means");
	/* the total knows io only when every phase does */
	pgl_pressure_add(&t, &p, true);
	CU_CHECK(t.io_known && !t.cpu_known, "first phase");
	pgl_pressure_add(&t, &q, false);
	CU_CHECK(!t.io_known && t.runq_samples == 4 && t.io_some_us == 300000, "second phase");
}

/* Synthetic phases of 10 s on 2 usable CPUs; -1 = unknown. */
static void test_bound_classify(void)
{
	static const struct {
		const char *what;
		uint64_t wall_ms;
		bool cpu_known;
		double busy, cpu_some, io_some, blocked;
		enum pgl_bound want;
		const char *reason;   /* a piece of the reason */
	} rows[] = {
		{ "both CPUs busy", 10000, true, 1.9, 0.05, 0.02, 0, PGL_BOUND_CPU, "cores busy 1.90 of 2" },
		{ "busy and contended is still cpu-bound", 10000, true, 1.7, 0.6, 0.0, 0, PGL_BOUND_CPU,
		  "cpu pressure 60%" },
		{ "runnable but no CPU", 10000, true, 0.7, 0.55, 0.05, 0, PGL_BOUND_CPU_STARVED, "cpu pressure 55%" },
		{ "waiting on the disk", 10000, true, 0.3, 0.02, 0.7, 1.0, PGL_BOUND_IO, "io pressure 70%" },
		{ "both, I/O more", 10000, true, 0.3, 0.3, 0.5, 0, PGL_BOUND_IO, "io pressure 50%" },
		{ "both, CPU more", 10000, true, 0.3, 0.5, 0.3, 0, PGL_BOUND_CPU_STARVED, "io pressure 30%" },
		/* a loaded machine (seen: cpu 94%, io 100%, 17 runnable on 2 CPUs): PSI cannot tell */
		{ "both saturated", 10000, true, 0.2, 0.94, 1.0, 15, PGL_BOUND_WAITING, "cannot tell which" },
		{ "neither: a lock", 10000, true, 0.1, 0.01, 0.01, 0, PGL_BOUND_OTHER, "cpu pressure 1%" },
		{ "no PSI, blocked tasks", 10000, true, 0.3, -1, -1, 1.2, PGL_BOUND_IO, "io pressure unknown" },
		{ "no PSI, nothing blocked", 10000, true, 0.3, -1, -1, 0.1, PGL_BOUND_OTHER, "0.1 blocked" },
		{ "no PSI, more runnable than CPUs", 10000, true, 0.3, -1, -1, 0.4, PGL_BOUND_CPU_STARVED,
		  "4.0 runnable on 2 CPUs" },
		{ "no PSI, more blocked than runnable beyond CPUs", 10000, true, 0.3, -1, -1, 3, PGL_BOUND_IO,
		  "3.0 blocked" },
		{ "no PSI and no run queue", 10000, true, 0.3, -1, -1, -1, PGL_BOUND_WAITING, "cannot tell" },
		{ "CPU pressure alone known", 10000, true, 0.3, 0.4, -1, -1, PGL_BOUND_CPU_STARVED, "io pressure unknown" },
		{ "server elsewhere", 10000, false, 0.3, 0.9, 0.9, 2, PGL_BOUND_UNKNOWN, "not measured" },
		{ "too short", 20, true, 2, 0.9, 0.9, 2, PGL_BOUND_UNKNOWN, "under 50 ms" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t wall_ns = rows[i].wall_ms * 1000000u, wall_us = wall_ns / 1000;
		struct pgl_pressure pr = {
			.cpu_known = rows[i].cpu_some >= 0, .io_known = rows[i].io_some >= 0,
			.cpu_some_us = rows[i].cpu_some >= 0 ? (uint64_t)(rows[i].cpu_some * wall_us) : 0,
			.io_some_us = rows[i].io_some >= 0 ? (uint64_t)(rows[i].io_some * wall_us) : 0,
			.psi_window_ns = wall_ns,
			.runq_samples = rows[i].blocked >= 0 ? 10 : 0,
			.host_cpus = 2,
			.runq_sum = strstr(rows[i].what, "runnable") ? 40 : 20, .blocked_sum = rows[i].blocked >= 0 ? (uint64_t)(rows[i].blocked * 10) : 0,
		};
		struct pgl_bound_in in = { .ran = true, .wall_ns = wall_ns, .cpu_known = rows[i].cpu_known,
					   .cores_busy = rows[i].busy, .usable_cpus = 2, .pr = &pr };
		char reason[256];
		enum pgl_bound b = pgl_bound_classify(&in, reason, sizeof(reason));

		CU_CHECK(b == rows[i].want, "%s: %s (%s), want %s", rows[i].what, pgl_bound_name(b), reason,
			 pgl_bound_name(rows[i].want));
		CU_CHECK(strstr(reason, rows[i].reason) != NULL, "%s: reason \"%s\" lacks \"%s\"", rows[i].what,
			 reason, rows[i].reason);
	}
}

/* The phase result feeds the same classification; a tiny buffer truncates, never overflows. */
static void test_restore_bound(void)
{
	struct pgl_restore_phase_result p = {
		.ran = true, .wall_ns = 2000000000u, .server_cpu_known = true, .server_cpu_ns = 200000000u,
		.client_cpu_ns = 100000000u, .usable_cpus = 1,
		.pr = { .cpu_known = true, .io_known = true, .cpu_some_us = 50000, .io_some_us = 1500000,
			.psi_window_ns = 2000000000u },
	};
	char reason[8];

	CU_CHECK(pgl_restore_bound(&p, reason, sizeof(reason)) == PGL_BOUND_IO, "io-bound");
	CU_CHECK(strlen(reason) == sizeof(reason) - 1, "truncated: \"%s\"", reason);
	CU_CHECK(strcmp(pgl_restore_verdict(&p), "waiting") == 0, "the old verdict stays");
	CU_CHECK(strcmp(pgl_bound_name(PGL_BOUND_OTHER), "lock-or-other-wait") == 0, "name");
}

static const struct cu_test tests[] = {
	{ "psi_parse", test_psi_parse },
	{ "runq_parse", test_runq_parse },
	{ "hostcpu_parse", test_hostcpu_parse },
	{ "proc_io_parse", test_proc_io_parse },
	{ "pressure_delta_and_total", test_pressure_delta_and_total },
	{ "bound_classify", test_bound_classify },
	{ "restore_bound", test_restore_bound },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_psi", .tests = tests };
