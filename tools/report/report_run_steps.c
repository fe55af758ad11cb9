/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tables of a run report's step sections that are not OLTP or DSS
 * (pure): dutprobe identify, bench, slc and fill, pgload restore, and the
 * replay lag of a standby during an OLTP step.  report_run.c calls them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "tools/compare/compare.h"
#include "tools/report/report_doc.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_stats.h"

#define MIB (1024.0 * 1024.0)
#define SPREAD_NOTE "Values are medians over the runs of each configuration (runs: its result " \
	"documents, one per repetition, or one per repeat of a step); the spread is the min-max " \
	"range of those runs (not an IQR)."

/* The standby's replay lag during an OLTP step, per configuration with a replica (pgload's samples). */
void report_replica_lag_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	bool any = false;

	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];
		struct cmp_stat p50 = rundir_metric(c, step, "run", "replay_lag_ms_p50");
		struct cmp_stat p99 = rundir_metric(c, step, "run", "replay_lag_ms_p99");
		struct cmp_stat mx = rundir_metric(c, step, "run", "replay_lag_ms_max");
		struct cmp_stat bytes = rundir_metric(c, step, "run", "replay_lag_bytes_max");
		struct cmp_stat cu = rundir_metric(c, step, "run", "replay_catchup_ms");
		char a[64];

		if (!c->replica[0] || strcmp(c->replica, "none") == 0)
			continue;
		if (!any)
			rdoc_table(d, "Replay lag of the standby during the step (pgload samples it four times a "
				   "second): the medians over the runs of each run's p50, p99 and maximum; catch-up "
				   "= how long the standby took to replay the rest after the step.",
				   "configuration|>runs|>replay lag p50 (ms)|>p99 (ms)|>max (ms)|>max behind (MiB)|"
				   ">catch-up (ms)");
		any = true;
		rdoc_cell(d, "%s", c->name);
		rdoc_cell(d, "%u", p50.n ? p50.n : bytes.n);
		rdoc_cell(d, "%s", rundir_fmt_median(&p50, 1, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_median(&p99, 1, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_median(&mx, 1, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_median(&bytes, 1 / MIB, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_median(&cu, 1, 0, a, sizeof(a)));
	}
}

/*
 * pgload restore: per phase its wall time, the server's and pg_restore's CPU,
 * what the host's tasks waited on (PSI), the server's block I/O, and the
 * verdict with the numbers behind it.  Documents from before PSI have no
 * "bound": their old verdict is shown, the new cells "-".
 */
void report_restore_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	rdoc_table(d, "Restore phases (pgload restore). " SPREAD_NOTE " cores busy = (server + pg_restore "
		   "CPU time) / wall time, of the CPUs the phase can use (min of -j, TOC entries, CPUs). "
		   "cpu wait % = share of the phase during which some runnable task waited for a CPU; "
		   "io wait % = some task was stalled on I/O, io full % = every non-idle task was "
		   "(pressure stall information, /proc/pressure, whole host, so other programs count; "
		   "\"-\" = unknown, a kernel without PSI, never 0). blocked = tasks in uninterruptible "
		   "sleep (/proc/stat every 100 ms, mean). server writes MB = of the server's processes "
		   "(/proc/PID/io): page-cache pages they dirtied for the block layer (write_bytes; counted "
		   "again when a page is dirtied after writeback, so it can exceed the other; 0 on tmpfs) / "
		   "bytes they passed to write(2) (wchar; sockets included). verdict (first repetition): cpu-bound "
		   "when cores busy is at least 80% of the usable CPUs; cpu-starved when cpu wait is at "
		   "least 20% and above io wait (runnable, but the CPUs were taken); io-bound when io wait "
		   "is at least 20%; lock-or-other-wait when neither (locks, the client, the network); "
		   "unknown when the server's CPU was not measured or the phase took under 50 ms.",
		   "configuration|phase|>runs|>time (s)|>server CPU (s)|>restore CPU (s)|>cores busy|"
		   ">cpu wait %|>io wait %|>io full %|>blocked|>server writes MB (dirtied / write(2))|verdict|evidence");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[1];
		const struct rundir_config *c = &m->configs[i];

		if (!rundir_config_docs(c, step, docs, 1))
			continue;
		for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
			struct dut_result_phase *ph = dut_result_phase_at(docs[0], p);
			const char *pn = dut_phase_name(ph);
			json_object *x = dut_phase_extra(ph);
			struct cmp_stat st[] = {
				rundir_metric(c, step, pn, "server_cpu_s"), rundir_metric(c, step, pn, "restore_cpu_s"),
				rundir_metric(c, step, pn, "cores_busy"), rundir_metric(c, step, pn, "psi_cpu_some"),
				rundir_metric(c, step, pn, "psi_io_some"), rundir_metric(c, step, pn, "psi_io_full"),
				rundir_metric(c, step, pn, "blocked_mean"),
			};
			static const struct { double scale; int dec; } fmt[] = {
				{ 1, 3 }, { 1, 3 }, { 1, 2 }, { 100, 0 }, { 100, 0 }, { 100, 0 }, { 1, 1 },
			};
			struct cmp_stat dirtied = rundir_metric(c, step, pn, "server_write_bytes");
			struct cmp_stat written = rundir_metric(c, step, pn, "server_wchar_bytes");
			char b[64];
			struct cmp_stat t = rundir_duration(c, step, pn);
			const char *bound = json_object_get_string(rundir_jget(x, "bound"));
			const char *why = json_object_get_string(rundir_jget(x, "bound_reason"));
			const char *v = bound ? bound : json_object_get_string(rundir_jget(x, "verdict"));
			char a[64];

			if (!t.n)
				continue;
			rdoc_cell(d, "%s", c->name);
			rdoc_cell(d, "%s", pn);
			rdoc_cell(d, "%u", t.n);
			rdoc_cell(d, "%s", rundir_fmt_median(&t, 1, 3, a, sizeof(a)));
			for (size_t k = 0; k < sizeof(st) / sizeof(st[0]); k++)
				rdoc_cell(d, "%s", rundir_fmt_median(&st[k], fmt[k].scale, fmt[k].dec, a, sizeof(a)));
			rdoc_cell(d, "%s / %s", rundir_fmt_median(&dirtied, 1e-6, 1, a, sizeof(a)),
				  rundir_fmt_median(&written, 1e-6, 1, b, sizeof(b)));
			rdoc_cell(d, "%s", v ? v : "unknown");
			rdoc_cell(d, "%s", why && why[0] ? why : "-");
		}
	}
}

/*
 * With one document, the spread shown is that document's own: dutprobe bench
 * keeps the min and max of its repetitions as <metric>_min and <metric>_max.
 */
static bool own_range(const struct rundir_config *c, const char *step, const char *phase,
		      const char *metric, struct cmp_stat *v)
{
	struct cmp_stat lo, hi;
	char name[64];

	snprintf(name, sizeof(name), "%s_min", metric);
	lo = rundir_metric(c, step, phase, name);
	snprintf(name, sizeof(name), "%s_max", metric);
	hi = rundir_metric(c, step, phase, name);
	if (v->n != 1 || lo.n != 1 || hi.n != 1)
		return false;
	v->min = lo.median;
	v->max = hi.median;
	v->n = 2;   /* a range to print */
	return true;
}

/* median and range cells of a bench metric */
static void bench_cells(struct rdoc *d, const struct rundir_config *c, const char *step, const char *pn,
			const char *metric, double scale, int dec)
{
	struct cmp_stat v = rundir_metric(c, step, pn, metric);
	bool own = own_range(c, step, pn, metric, &v);
	char a[64];

	rdoc_cell(d, "%s", rundir_fmt_median(&v, scale, dec, a, sizeof(a)));
	rdoc_cell(d, "%s%s", rundir_fmt_range(&v, scale, dec, a, sizeof(a)), own ? " (its own reps)" : "");
}

void report_bench_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	rdoc_table(d, "dutprobe bench rows. Each document's value is already the median of its own "
		   "repetitions; here: the median over the documents of the configuration, with their "
		   "min-max range (with one document: the min-max of its own repetitions, marked \"its own "
		   "reps\"). cache = above the link's ceiling (the page cache, not the device).",
		   "configuration|row|>documents|>MB/s|>MB/s min-max|>IOPS|>IOPS min-max|>p99 (ms)|cache");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];
		const struct dut_result *docs[1];

		if (!rundir_config_docs(c, step, docs, 1))
			continue;
		for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
			struct dut_result_phase *ph = dut_result_phase_at(docs[0], p);
			const char *pn = dut_phase_name(ph);
			struct cmp_stat bw = rundir_metric(c, step, pn, "bw");
			struct cmp_stat p99 = rundir_latency(c, step, pn, "io", "p99");
			json_object *flag = rundir_jget(dut_phase_extra(ph), "cache_not_device");
			char a[64];

			rdoc_cell(d, "%s", c->name);
			rdoc_cell(d, "%s", pn);
			rdoc_cell(d, "%u", bw.n);
			bench_cells(d, c, step, pn, "bw", 1e-6, 1);
			bench_cells(d, c, step, pn, "iops", 1, 0);
			rdoc_cell(d, "%s", rundir_fmt_median(&p99, 1e-6, 2, a, sizeof(a)));
			rdoc_cell(d, "%s", flag && json_object_get_boolean(flag) ? "cache" : "");
		}
	}
}

/* The median of a pass's per-window throughput (B/s; 0 without windows): the level a DBA reads. */
double report_slc_level(struct dut_result_phase *ph)
{
	struct dut_series *ws = dut_phase_get_series(ph, "per_window");
	int col = ws ? dut_series_col(ws, "bw") : -1;
	size_t n = ws ? dut_series_nrows(ws) : 0;
	_cleanup_free_ double *v = NULL;
	unsigned k = 0;

	if (col < 0 || !n || n > UINT32_MAX || !(v = calloc(n, sizeof(*v))))
		return 0;
	for (size_t i = 0; i < n; i++) {
		double x = dut_series_get(ws, i, (size_t)col);

		if (isfinite(x))
			v[k++] = x;
	}
	return k ? cmp_stat_of(v, k).median : 0;
}

/* One pass of dutprobe slc (the first, or the one after the idle wait): its level, then its knees. */
static void slc_pass_rows(struct rdoc *d, const char *cfg, size_t doc, const char *pass,
			  struct dut_result_phase *ph, double ceiling)
{
	json_object *x = dut_phase_extra(ph);
	json_object *knees = rundir_jget(x, "knees");
	size_t nk = knees ? json_object_array_length(knees) : 0;
	double bytes = 0, med = report_slc_level(ph);
	uint64_t dur = 0;
	char a[32], b[32];

	dut_phase_get_metric(ph, "bytes_written", &bytes, NULL);
	dut_phase_get_duration(ph, &dur);
	for (size_t j = 0; j < nk || (j == 0 && !nk); j++) {
		json_object *kn = nk ? json_object_array_get_idx(knees, j) : NULL;

		rdoc_cell(d, "%s", cfg);
		rdoc_cell(d, "%zu", doc);
		rdoc_cell(d, "%s", pass);
		rdoc_cell(d, "%s", rundir_fmt_num(bytes / MIB, 0, a, sizeof(a)));
		rdoc_cell(d, "%s", dur ? rundir_fmt_num(bytes / ((double)dur / 1e9) / 1e6, 1, a, sizeof(a)) : "-");
		rdoc_cell(d, "%s%s", med > 0 ? rundir_fmt_num(med / 1e6, 1, b, sizeof(b)) : "-",
			  ceiling > 0 && med > ceiling ? " (above the link's ceiling: cache, not device)" : "");
		if (!kn) {
			const char *why = rundir_jstr(x, "no_knee_reason");

			rdoc_cell(d, "no knee: one level over the %s MiB written%s%s%s", rundir_fmt_num(bytes / MIB, 0, a, sizeof(a)),
				  *why ? " (" : "", why, *why ? ")" : "");
			for (int e = 0; e < 5; e++)
				rdoc_cell(d, "-");
			continue;
		}
		rdoc_cell(d, "%zu at %s MiB", j + 1, rundir_fmt_num(json_object_get_double(rundir_knee_bytes(kn)) / MIB, 0, a, sizeof(a)));
		rdoc_cell(d, "%s-%s", rundir_fmt_num(json_object_get_double(rundir_jget(kn, "ci95_lo_bytes")) / MIB, 0, a, sizeof(a)),
			  rundir_fmt_num(json_object_get_double(rundir_jget(kn, "ci95_hi_bytes")) / MIB, 0, b, sizeof(b)));
		rdoc_cell(d, "%s", rundir_fmt_num(json_object_get_double(rundir_jget(kn, "bw_before")) / 1e6, 1, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_num(json_object_get_double(rundir_jget(kn, "bw_after")) / 1e6, 1, a, sizeof(a)));
		rdoc_cell(d, "%+.0f%%", json_object_get_double(rundir_jget(kn, "rel_change")) * 100);
		rdoc_cell(d, "%s", json_object_get_string(rundir_jget(kn, "confidence")) ?: "?");
	}
}

void report_slc_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	rdoc_table(d, "Sequential write throughput (dutprobe slc), each pass: the first, and the one after "
		   "the idle wait (how much write cache came back). throughput = bytes over the pass's time; "
		   "median = of its windows, the level. A knee is where the level changed (the end of the "
		   "write cache when it falls), with the 95% interval of its position.",
		   "configuration|document|pass|>written (MiB)|>throughput (MB/s)|>median (MB/s)|knee|"
		   ">95% interval (MiB)|>before (MB/s)|>after (MB/s)|>change|confidence");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[RUNDIR_MAX_DOCS];
		size_t nd = rundir_config_docs(&m->configs[i], step, docs, RUNDIR_MAX_DOCS);

		for (size_t k = 0; k < nd; k++) {
			json_object *root = dut_result_json(docs[k]);
			double ceiling = json_object_get_double(rundir_jget(rundir_jget(root, "target"), "link_ceiling_bytes_per_s"));
			double idle_ns = json_object_get_double(rundir_jget(rundir_jget(root, "config"), "idle_ns"));
			struct dut_result_phase *ph = dut_result_find_phase(docs[k], "write");
			char pass[64], a[32];

			if (ph)
				slc_pass_rows(d, m->configs[i].name, k + 1, "write", ph, ceiling);
			ph = dut_result_find_phase(docs[k], "write_after_idle");
			snprintf(pass, sizeof(pass), "write after %s s idle", rundir_fmt_num(idle_ns / 1e9, 0, a, sizeof(a)));
			if (ph)
				slc_pass_rows(d, m->configs[i].name, k + 1, pass, ph, ceiling);
			else if (idle_ns > 0) {
				rdoc_cell(d, "%s", m->configs[i].name);
				rdoc_cell(d, "%zu", k + 1);
				rdoc_cell(d, "%s", pass);
				rdoc_cell(d, "not run (the first pass failed or the run was interrupted)");
				for (int e = 0; e < 8; e++)
					rdoc_cell(d, "-");
			}
		}
	}
}

void report_fill_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	rdoc_table(d, "Random-write IOPS per fill level and queue depth (dutprobe fill). " SPREAD_NOTE,
		   "configuration|level|queue depth|>runs|>IOPS|>IOPS min-max");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];
		const struct dut_result *docs[1];
		json_object *phases;

		if (!rundir_config_docs(c, step, docs, 1) ||
		    !json_object_object_get_ex(dut_result_json(docs[0]), "phases", &phases))
			continue;
		for (size_t p = 0; p < json_object_array_length(phases); p++) {
			json_object *ph = json_object_array_get_idx(phases, p);
			const char *pn = json_object_get_string(rundir_jget(ph, "name"));

			json_object_object_foreach(rundir_jget(ph, "metrics"), name, val) {
				struct cmp_stat st;
				char a[64];

				(void)val;
				if (strncmp(name, "iops_qd", 7) != 0)
					continue;
				st = rundir_metric(c, step, pn, name);
				rdoc_cell(d, "%s", c->name);
				rdoc_cell(d, "%s", strncmp(pn, "level_", 6) == 0 ? pn + 6 : pn);
				rdoc_cell(d, "%s", name + 7);
				rdoc_cell(d, "%u", st.n);
				rdoc_cell(d, "%s", rundir_fmt_median(&st, 1, 0, a, sizeof(a)));
				rdoc_cell(d, "%s", rundir_fmt_range(&st, 1, 0, a, sizeof(a)));
			}
		}
	}
}

/* dutprobe identify: the target, the device beneath it, its link and ceiling, per configuration. */
void report_identify_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	rdoc_table(d, "The target of each configuration as the experiment names it, and as dutprobe "
		   "identify saw it (the first repetition's document; identify looks at the run's mount of "
		   "the target).", "configuration|target|kind (as identify saw it)|through|device|model|link|"
		   ">ceiling (MB/s)");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[1];
		json_object *t, *bd, *link;
		const char *tp, *tn = "";
		char a[32];
		double ceil;

		if (!rundir_config_docs(&m->configs[i], step, docs, 1))
			continue;
		t = rundir_jget(dut_result_json(docs[0]), "target");
		bd = rundir_jget(t, "block_device");
		link = rundir_jget(t, "link");
		ceil = json_object_get_double(rundir_jget(link, "ceiling_bytes_per_s"));
		tp = rundir_identify_target(&m->configs[i], step, &tn);
		rdoc_cell(d, "%s", m->configs[i].name);
		if (tp)
			rdoc_cell(d, "%s (target %s)", tp, tn);
		else
			rdoc_cell(d, "%s", rundir_jstr(t, "path"));
		rdoc_cell(d, "%s", rundir_jstr(t, "kind"));
		rdoc_cell(d, "%s", rundir_jstr(t, "through"));
		rdoc_cell(d, "%s", rundir_jstr(bd, "name"));
		rdoc_cell(d, "%s", *rundir_jstr(bd, "model") ? rundir_jstr(bd, "model") : rundir_jstr(bd, "vendor"));
		rdoc_cell(d, "%s", rundir_jstr(link, "description"));
		rdoc_cell(d, "%s", ceil > 0 ? rundir_fmt_num(ceil / 1e6, 0, a, sizeof(a)) : "unknown");
	}
}
