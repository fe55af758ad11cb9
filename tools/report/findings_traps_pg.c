/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The traps of the PostgreSQL step kinds (pure): an OLTP step served by the
 * page cache, connection time inside its TPS, a contended CPU; a DSS step
 * whose plans varied or whose queries read memory.  The kinds' ops call them
 * (tools/kinds/oltp_run.c, dss.c); the traps of every kind, the
 * target's link and the empty drive: findings_traps.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/run_manifest.h"
#include "tools/compare/compare.h"
#include "tools/report/findings.h"
#include "tools/report/findings_priv.h"
#include "tools/report/rundir_stats.h"

/* Fewer transactions than this say nothing about reads per transaction. */
#define PAGE_CACHE_MIN_TX 100

static int page_cache_finding(const struct rundir_model *m, size_t ci, const char *step,
			      struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	const char *mark = rundir_step_mark(c, step);
	const struct dut_result *docs[1];
	struct rundir_io_mix mix;
	struct finding f = { .kind = FIND_PAGE_CACHE, .config = ci, .other = ci, .trap = true };
	char a[32], b[32], db[64] = "", budget[160];
	json_object *cfg;
	uint64_t tx;

	if (!mark)
		return 0;
	rundir_io_mix_of(c, mark, &mix);
	tx = rundir_traced_transactions(c, step, mark);
	if (!mix.ntraced || tx < PAGE_CACHE_MIN_TX)
		return 0;
	f.count[0] = mix.total.ops[REP_READ];
	f.count[1] = tx;
	f.count[2] = mix.ntraced;
	f.value[0] = (double)f.count[0] / (double)tx;
	if (f.value[0] >= FIND_MEMORY_READS_PER_TX)
		return 0;
	f.value[1] = (double)c->memory_budget_bytes;
	if (rundir_config_docs(c, step, docs, 1)) {
		/* pgload's config.memory, named as the manifest's memory (lib/run_manifest.h) */
		cfg = findings_doc_member(docs[0], "config");
		if (!f.value[1])
			f.value[1] = json_object_get_double(rundir_jget(rundir_jget(cfg, DUT_RM_MEMORY), DUT_RM_BUDGET_BYTES));
		f.value[2] = json_object_get_double(rundir_jget(findings_doc_member(docs[0], "target"),
								DUT_RM_DATABASE_BYTES));
	}
	if (f.value[2] > 0)
		snprintf(db, sizeof(db), "a database of %s MiB", rundir_fmt_num(f.value[2] / MIB, 0, a, sizeof(a)));
	if (f.value[1] > 0)
		snprintf(budget, sizeof(budget), "the memory budget was %s MiB%s%s: lower it below the "
			 "database or raise the scale until reads reach the device",
			 rundir_fmt_num(f.value[1] / MIB, 0, b, sizeof(b)), *db ? " against " : "", db);
	else
		snprintf(budget, sizeof(budget), "use a memory budget ([postgres] memory = SIZE, below "
			 "the database size%s%s) or a larger scale", *db ? ", here " : "", db);
	return findings_add(fs, &f, step,
		   "%s, step %s: this measured the page cache, not the device: %s device reads for %s "
		   "transactions (%.4f per transaction, %u traced repetition%s); %s", c->name, step,
		   rundir_fmt_count(f.count[0], a, sizeof(a)), rundir_fmt_count(tx, b, sizeof(b)), f.value[0],
		   mix.ntraced, mix.ntraced == 1 ? "" : "s", budget);
}

/* Connection set-up above this share of an OLTP step's time is a finding. */
#define CONNECT_SHARE_PCT 10.0

static int connect_finding(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	struct cmp_stat in = rundir_metric(c, step, "run", "tps_including_connections");
	struct cmp_stat ex = rundir_metric(c, step, "run", "tps_excluding_connections");
	struct cmp_stat avg = rundir_metric(c, step, "run", "connection_time_avg");
	struct finding f = { .kind = FIND_CONNECT, .config = ci, .other = ci, .trap = true };
	char a[32], b[32], t[64] = "";

	if (!in.n || !ex.n || ex.median <= 0)
		return 0;
	/* same transactions: the share of the time that went to connecting */
	f.value[0] = 100.0 * (1.0 - in.median / ex.median);
	f.value[1] = in.median;
	f.value[2] = ex.median;
	f.value[3] = avg.n ? avg.median : NAN;
	f.count[0] = in.n;
	if (f.value[0] < CONNECT_SHARE_PCT)
		return 0;
	if (avg.n)
		snprintf(t, sizeof(t), "; mean connection time %.1f ms", avg.median / 1e6);
	return findings_add(fs, &f, step,
		   "%s, step %s: connection set-up dominated: it took %.0f%% of the step's time; TPS "
		   "including connections %s vs excluding them %s tx/s (medians of %u run%s%s). The "
		   "TPS measured connecting as much as the device: run longer (duration), or with "
		   "persistent connections", c->name, step, f.value[0],
		   rundir_fmt_num(in.median, 1, a, sizeof(a)), rundir_fmt_num(ex.median, 1, b, sizeof(b)),
		   in.n, in.n == 1 ? "" : "s", t);
}

/* The queries whose plan varied between the repetitions of configuration ci (step st). */
static int dss_unstable_finding(const struct rundir_model *m, size_t ci, const char *step,
				struct findings *fs)
{
	const struct dut_result *cd[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(&m->configs[ci], step, cd, RUNDIR_MAX_DOCS);
	/* the configuration against itself: cmp marks plans that varied inside an input */
	struct cmp_input in[2] = {
		{ .source = m->configs[ci].name, .docs = (struct dut_result *const *)cd, .ndocs = nd },
		{ .source = m->configs[ci].name, .docs = (struct dut_result *const *)cd, .ndocs = nd },
	};
	struct cmp_opts o = { .baseline = 0 };
	struct finding f = { .kind = FIND_DSS_UNSTABLE, .config = ci, .other = ci, .trap = true };
	struct dut_error err = { { 0 } };
	struct cmp *cmp = NULL;
	char qs[512];
	size_t len = 0;
	int r;

	if (!nd)
		return 0;
	r = cmp_build(in, 2, &o, &cmp, &err);
	if (r == -EINVAL)
		return 0;
	if (r < 0)
		return r;
	qs[0] = 0;
	for (size_t q = 0; q < cmp->nqueries; q++)
		if (cmp->queries[q].cell[0].plan_unstable) {
			f.count[0]++;
			len += (size_t)snprintf(qs + len, len < sizeof(qs) ? sizeof(qs) - len : 0, "%sQ%u",
						len ? ", " : "", cmp->queries[q].q);
		}
	cmp_free(cmp);
	if (!f.count[0])
		return 0;
	return findings_add(fs, &f, qs,
		   "%s, step %s: the plan of %s changed between repetitions (plan fingerprints differ), "
		   "so %s out of m-time: its times compare different plans, not the storage",
		   m->configs[ci].name, step, qs, f.count[0] == 1 ? "it is" : "they are");
}

/*
 * Other processes' share of the machine's CPU capacity during an OLTP step
 * above this is a finding (dutfs's own time known; without it the bar is
 * FIND_CONTENDED_UNKNOWN_DUTFS, as dutfs alone can take a quarter of 2 CPUs);
 * and so is CPU time stolen by the hypervisor above FIND_STEAL_SHARE.
 */
#define FIND_CONTENDED_SHARE 0.25
#define FIND_CONTENDED_UNKNOWN_DUTFS 0.40
#define FIND_STEAL_SHARE 0.10

struct cpu_split {
	double cap_s;              /* wall time x CPUs of pgload's measured interval */
	double busy_s, steal_s, ours_s, dutfs_s;   /* dutfs_s NAN: not recorded */
};

/* The machine's CPU in repetition r of step (pgload's servstat and the manifest's dutfs time). */
static bool cpu_split_of(const struct rundir_rep *rep, const char *step, struct cpu_split *ret)
{
	const struct rundir_step *st = rundir_rep_step(rep, step);
	const struct dut_result *d = st && st->ndocs ? st->docs[0].doc : NULL;
	json_object *srv = d ? rundir_server_json(d) : NULL, *cpu = NULL, *host = NULL;
	double wall, cpus, sv, cl;

	if (!srv || !json_object_object_get_ex(srv, "cpu", &cpu) ||
	    !json_object_object_get_ex(cpu, "host", &host))
		return false;
	wall = rundir_server_cpu(d, "wall_s");
	cpus = rundir_server_cpu(d, "cpus");
	sv = rundir_server_cpu(d, "server_s");
	cl = rundir_server_cpu(d, "client_s");
	if (isnan(wall) || isnan(cpus) || isnan(sv) || isnan(cl) || wall <= 0 || cpus <= 0)
		return false;
	*ret = (struct cpu_split){ .cap_s = wall * cpus, .ours_s = sv + cl, .dutfs_s = NAN,
				   .busy_s = json_object_get_double(rundir_jget(host, "busy_s")),
				   .steal_s = json_object_get_double(rundir_jget(host, "steal_s")) };
	/* dutfs's time over the whole step, scaled to pgload's interval inside it */
	if (!isnan(st->dutfs_cpu_s) && st->wall_ns > 0)
		ret->dutfs_s = st->dutfs_cpu_s * fmin(1.0, wall * 1e9 / (double)st->wall_ns);
	return true;
}

static int contended_finding(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	struct finding f = { .kind = FIND_CONTENDED, .config = ci, .other = ci, .trap = true };
	struct cpu_split w = { 0 };
	double worst = -1, other = 0;
	unsigned n = 0;
	char dut[80] = "";

	/* the repetition where other work took the most (as a share, or by steal) */
	for (size_t r = 0; r < c->nreps; r++) {
		struct cpu_split x;
		double o, score;

		if (!cpu_split_of(&c->reps[r], step, &x))
			continue;
		n++;
		o = fmax(0, (x.busy_s - x.ours_s - (isnan(x.dutfs_s) ? 0 : x.dutfs_s)) / x.cap_s);
		score = fmax(o, x.steal_s / x.cap_s);
		if (score > worst) {
			worst = score;
			other = o;
			w = x;
		}
	}
	if (!n)
		return 0;
	if (other < (isnan(w.dutfs_s) ? FIND_CONTENDED_UNKNOWN_DUTFS : FIND_CONTENDED_SHARE) &&
	    w.steal_s / w.cap_s < FIND_STEAL_SHARE)
		return 0;
	f.value[0] = other;
	f.value[1] = w.busy_s / w.cap_s;
	f.value[2] = w.ours_s / w.cap_s;
	f.value[3] = w.dutfs_s / w.cap_s;
	f.value[4] = w.steal_s / w.cap_s;
	f.count[0] = n;
	if (!isnan(w.dutfs_s))
		snprintf(dut, sizeof(dut), ", dutfs %.0f%%", 100 * f.value[3]);
	return findings_add(fs, &f, step,
		   "%s, step %s: other work competed for the CPUs: the machine's CPUs were %.0f%% busy, the "
		   "server and pgload used %.0f%%%s, %s %.0f%%, and the hypervisor stole %.0f%% (the worst of "
		   "%u repetition%s), so these figures are those of a shared machine, not of the "
		   "device alone; run it on a quiet machine, or with repetitions so that the spread "
		   "shows the noise", c->name, step, 100 * f.value[1], 100 * f.value[2], dut,
		   isnan(w.dutfs_s) ? "dutfs and other processes" : "other processes", 100 * other,
		   100 * f.value[4], n, n == 1 ? "" : "s");
}

/*
 * A DSS step whose queries (the "dss/queries start" phase pgload dss
 * marks) read almost nothing from the device against the data the load
 * and keys phases wrote to tables and indexes: memory served them, and the
 * query times compare CPU and caches, not the storage.
 */
#define DSS_MEMORY_READ_SHARE 0.10

static int dss_page_cache_finding(const struct rundir_model *m, size_t ci, const char *step,
				  struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	struct finding f = { .kind = FIND_PAGE_CACHE, .config = ci, .other = ci, .trap = true };
	struct rundir_io_mix q, load, keys;
	double data, read;
	char a[32], b[32], budget[200];

	rundir_io_mix_of(c, RUNDIR_DSS_PHASE("queries"), &q);
	rundir_io_mix_of(c, RUNDIR_DSS_PHASE("load"), &load);
	rundir_io_mix_of(c, RUNDIR_DSS_PHASE("keys"), &keys);
	if (!q.ntraced || !load.ntraced)
		return 0;
	data = 0;
	for (int k = RC_HEAP; k <= RC_TOAST; k++)
		data += (double)load.cls[k].bytes[REP_WRITE] + (double)keys.cls[k].bytes[REP_WRITE];
	if (data <= 0)
		data = (double)load.total.bytes[REP_WRITE] + (double)keys.total.bytes[REP_WRITE];
	read = (double)q.total.bytes[REP_READ];
	if (data <= 0 || read >= DSS_MEMORY_READ_SHARE * data)
		return 0;
	f.value[0] = read;
	f.value[1] = data;
	f.value[2] = (double)c->memory_budget_bytes;
	f.count[2] = q.ntraced;
	if (f.value[2] > 0)
		snprintf(budget, sizeof(budget), "the memory budget was %s MiB: lower it well below the "
			 "data or raise the scale", rundir_fmt_num(f.value[2] / MIB, 0, a, sizeof(a)));
	else
		snprintf(budget, sizeof(budget), "use a memory budget ([postgres] memory = SIZE, well below "
			 "the data, and room for ANALYZE and the queries' sorts) or a larger scale");
	return findings_add(fs, &f, step,
		   "%s, step %s: the queries measured memory, not the device: they read %s MiB from it "
		   "against about %s MiB of tables and indexes the load wrote (%u traced repetition%s); %s",
		   c->name, step, rundir_fmt_num(read / MIB, 1, a, sizeof(a)), rundir_fmt_num(data / MIB, 1, b, sizeof(b)),
		   q.ntraced, q.ntraced == 1 ? "" : "s", budget);
}

int findings_traps_oltp(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	int r = page_cache_finding(m, ci, step, fs);

	if (r == 0)
		r = connect_finding(m, ci, step, fs);
	if (r == 0)
		r = contended_finding(m, ci, step, fs);
	return r;
}

int findings_traps_dss(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	int r = dss_unstable_finding(m, ci, step, fs);

	if (r == 0)
		r = dss_page_cache_finding(m, ci, step, fs);
	return r;
}
