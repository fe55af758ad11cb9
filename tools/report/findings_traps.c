/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Findings (pure), the traps: what a run did not measure although its
 * numbers look as if it had (a step served by memory, an empty drive,
 * connection time in TPS, a figure above the link, a contended CPU, an
 * unstable DSS plan).  The other findings: findings.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "tools/compare/compare.h"
#include "tools/report/findings.h"
#include "tools/report/findings_priv.h"
#include "tools/report/rundir_stats.h"

/* ---- traps: what the run did not measure ---- */

/* What the documents of a configuration say its target is. */
struct target_facts {
	const char *path, *kind, *through;
	const char *link_kind;     /* identify's: none, virtual, pcie, sata, usb, unknown */
	const char *link_desc;
	double ceiling;            /* B/s; 0: unknown */
	bool loop;                 /* a loop device, or through one (an image) */
};

static const char *jstr(json_object *o, const char *key)
{
	json_object *v = rundir_jget(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

/* A probe document's link description as identify's link kind. */
static const char *link_kind_of_desc(const char *d)
{
	if (strstr(d, "paravirtual"))
		return "virtual";
	if (strncmp(d, "loop", 4) == 0 || strstr(d, "no link"))
		return "none";
	if (!*d || strncmp(d, "unknown", 7) == 0)
		return "unknown";
	return "physical";
}

/* From the first identify document, else the first other dutprobe document; false: none. */
static bool target_facts_of(const struct rundir_config *c, const struct rundir_stepinfo *steps,
			    size_t nsteps, struct target_facts *ret)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t s = 0; s < nsteps; s++) {
			const struct dut_result *docs[1];
			enum rundir_doc_kind k = steps[s].kind;
			json_object *t, *link;

			if (pass == 0 ? k != DOC_PROBE_IDENTIFY :
			    k != DOC_PROBE_BENCH && k != DOC_PROBE_FILL && k != DOC_PROBE_SLC)
				continue;
			if (!rundir_config_docs(c, steps[s].name, docs, 1))
				continue;
			t = findings_doc_member(docs[0], "target");
			link = rundir_jget(t, "link");
			*ret = (struct target_facts){ .path = jstr(t, "path"), .kind = jstr(t, "kind"),
						      .through = jstr(t, "through") };
			if (pass == 0) {
				json_object *bd = rundir_jget(t, "block_device");

				/* the target as the experiment names it, not the run's staging mount */
				for (size_t r = 0; r < c->nreps; r++) {
					const struct rundir_step *st = rundir_rep_step(&c->reps[r], steps[s].name);

					if (st && st->experiment_path && *st->experiment_path) {
						ret->path = st->experiment_path;
						break;
					}
				}
				ret->link_kind = jstr(link, "kind");
				ret->link_desc = jstr(link, "description");
				ret->ceiling = json_object_get_double(rundir_jget(link, "ceiling_bytes_per_s"));
				ret->loop = rundir_jget(bd, "loop") || strstr(ret->through, "loop") ||
					    strncmp(jstr(bd, "name"), "loop", 4) == 0;
			} else {
				ret->link_desc = json_object_get_string(link) ? json_object_get_string(link) : "";
				ret->link_kind = link_kind_of_desc(ret->link_desc);
				ret->ceiling = json_object_get_double(rundir_jget(t, "link_ceiling_bytes_per_s"));
				ret->loop = strncmp(ret->link_desc, "loop", 4) == 0;
			}
			return true;
		}
	return false;
}

static int no_flash_finding(const struct rundir_model *m, size_t ci, const struct target_facts *t,
			    struct findings *fs)
{
	bool image = t->loop || strcmp(t->kind, "file") == 0 || strcmp(t->kind, "directory") == 0;
	/* a virtual or absent link has no drive of its own behind it; an unknown one
	 * says so only under a file system's file or directory (a disk may just hide its link) */
	bool nolink = strcmp(t->link_kind, "virtual") == 0 || strcmp(t->link_kind, "none") == 0 ||
		      (image && strcmp(t->link_kind, "unknown") == 0);
	struct finding f = { .kind = FIND_NO_FLASH, .config = ci, .other = ci, .trap = true,
			     .value = { t->ceiling } };
	char thr[300] = "";

	if (!t->loop && !nolink)
		return 0;
	if (*t->through)
		snprintf(thr, sizeof(thr), ", through %s", t->through);
	return findings_add(fs, &f, t->link_kind,
		   "%s: no flash behind this: the target %s (%s%s) sits on a link dutprobe describes as "
		   "\"%s\", so its figures are "
		   "those of %s, not of a drive; this run did not measure a flash device. To measure "
		   "one, give a disk or partition with a physical link (PCIe, SATA, USB) as the target",
		   m->configs[ci].name, *t->path ? t->path : "(path not recorded)",
		   t->loop ? "a loop image" : *t->kind ? t->kind : "kind unknown", thr,
		   *t->link_desc ? t->link_desc : "an unknown link",
		   strcmp(t->link_kind, "virtual") == 0 ? "the hypervisor and the host's storage and cache" :
		   t->loop ? "the backing file's file system and page cache" : "whatever is behind it");
}

/* Write rows of a bench document ("SEQ1M Q8T1 W"), or any phase of a fill document. */
static bool doc_writes(const struct dut_result *d, enum rundir_doc_kind k)
{
	if (k == DOC_PROBE_FILL || k == DOC_PROBE_SLC)
		return true;
	if (k != DOC_PROBE_BENCH)
		return false;
	for (size_t p = 0; p < dut_result_phase_count(d); p++) {
		const char *n = dut_phase_name(dut_result_phase_at(d, p));
		size_t len = strlen(n);

		if (len > 2 && strcmp(n + len - 2, " W") == 0)
			return true;
	}
	return false;
}

/*
 * A bench write step with no fill or sequential write before it in the
 * repetition, or a fill that says it was not preconditioned, or either on a
 * freshly created file or image (the runner makes them for the step).
 */
static int empty_drive_findings(const struct rundir_model *m, size_t ci, const struct target_facts *t,
				bool have_t, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	const struct rundir_rep *rp = c->nreps ? &c->reps[0] : NULL;
	bool written = false;

	for (size_t s = 0; rp && s < rp->nsteps; s++) {
		const struct rundir_step *st = &rp->steps[s];
		const struct dut_result *d = st->ndocs ? st->docs[0].doc : NULL;
		enum rundir_doc_kind k = d ? rundir_doc_kind_of(d) : DOC_OTHER;
		/* the step's own target: a bench lays out its own file */
		json_object *dt = d ? findings_doc_member(d, "target") : NULL;
		bool fresh = strcmp(jstr(dt, "kind"), "file") == 0 ||
			     strncmp(jstr(dt, "link"), "loop", 4) == 0 ||
			     (have_t && t->loop);
		json_object *pre = d ? rundir_jget(findings_doc_member(d, "config"), "preconditioned") : NULL;
		struct finding f = { .kind = FIND_EMPTY_DRIVE, .config = ci, .other = ci, .trap = true };
		const char *why = NULL;
		int r;

		if (!d || !doc_writes(d, k))
			continue;
		if (k == DOC_PROBE_BENCH && !written)
			why = "no fill or sequential write ran on the target before it in the repetition";
		else if (k == DOC_PROBE_FILL && pre && !json_object_get_boolean(pre))
			why = "dutprobe fill says the target was not preconditioned";
		else if (k == DOC_PROBE_BENCH && fresh)
			why = t->loop ? "the target is a loop image the run created, never written before"
				      : "the target is a file the step created, never written before";
		written = true;
		if (!why)
			continue;
		r = findings_add(fs, &f, st->name,
			"%s, step %s: the drive was empty or not preconditioned for this write test (%s): "
			"an SSD's figures on empty or fresh space are not its sustained ones. Precondition "
			"the device (a fill step, or slc over the whole span, before the write test) on a "
			"disk or partition", c->name, st->name, why);
		if (r < 0)
			return r;
	}
	return 0;
}

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
		cfg = findings_doc_member(docs[0], "config");
		if (!f.value[1])
			f.value[1] = json_object_get_double(rundir_jget(rundir_jget(cfg, "memory"), "budget_bytes"));
		f.value[2] = json_object_get_double(rundir_jget(findings_doc_member(docs[0], "target"), "database_bytes"));
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

static int ceiling_add(const struct rundir_model *m, size_t ci, const char *step, const char *what,
		       double bps, const struct target_facts *t, struct findings *fs)
{
	struct finding f = { .kind = FIND_CEILING, .config = ci, .other = ci, .trap = true,
			     .value = { bps, t->ceiling } };
	char a[32], b[32];

	return findings_add(fs, &f, step,
		   "%s, step %s: %s of %s MB/s exceeds the interface ceiling of %s MB/s (%s): a cache "
		   "served it (the page cache, or one in front of the link), not the device",
		   m->configs[ci].name, step, what, rundir_fmt_num(bps / MB, 0, a, sizeof(a)),
		   rundir_fmt_num(t->ceiling / MB, 0, b, sizeof(b)), t->link_desc);
}

/* Any step's figure above the link: probe throughput (not bench: cache_findings), or trace I/O. */
static int ceiling_findings(const struct rundir_model *m, size_t ci, const struct rundir_stepinfo *st,
			    const struct target_facts *t, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd;
	double best = 0;
	char what[64] = "";

	if (t->ceiling <= 0 || st->kind == DOC_PROBE_BENCH || st->kind == DOC_PROBE_IDENTIFY)
		return 0;
	nd = rundir_config_docs(c, st->name, docs, RUNDIR_MAX_DOCS);
	if (st->kind == DOC_PROBE_SLC) {
		for (size_t d = 0; d < nd; d++) {
			struct dut_result_phase *ph = dut_result_find_phase(docs[d], "write");
			json_object *k = ph ? json_object_array_get_idx(rundir_jget(dut_phase_extra(ph), "knees"), 0) : NULL;
			double lv[2] = { json_object_get_double(rundir_jget(k, "bw_before")),
					 json_object_get_double(rundir_jget(k, "bw_after")) };
			double bytes;
			uint64_t ns;
			const char *unit;

			for (int i = 0; i < 2; i++)
				if (lv[i] > best) {
					best = lv[i];
					snprintf(what, sizeof(what), "the sequential write level");
				}
			if (ph && dut_phase_get_metric(ph, "bytes_written", &bytes, &unit) == 0 &&
			    dut_phase_get_duration(ph, &ns) == 0 && ns && bytes * 1e9 / (double)ns > best) {
				best = bytes * 1e9 / (double)ns;
				snprintf(what, sizeof(what), "the mean sequential write throughput");
			}
		}
	} else if (st->kind == DOC_PROBE_FILL) {
		for (size_t d = 0; d < nd; d++) {
			double bs = json_object_get_double(rundir_jget(findings_doc_member(docs[d], "config"), "block_bytes"));

			for (size_t p = 0; bs > 0 && p < dut_result_phase_count(docs[d]); p++) {
				struct dut_result_phase *ph = dut_result_phase_at(docs[d], p);

				for (int q = 1; q <= 256; q *= 2) {
					char name[32];
					const char *unit;
					double v;

					snprintf(name, sizeof(name), "iops_qd%d", q);
					if (dut_phase_get_metric(ph, name, &v, &unit) == 0 && v * bs > best) {
						best = v * bs;
						snprintf(what, sizeof(what), "random writes at QD %d", q);
					}
				}
			}
		}
	} else {
		/* the trace between the step's markers: the bytes dutfs passed per second */
		const char *mark = rundir_step_mark(c, st->name);
		struct rundir_io_mix mix;

		if (!mark)
			return 0;
		rundir_io_mix_of(c, mark, &mix);
		if (mix.span_ns)
			best = (double)(mix.total.bytes[REP_READ] + mix.total.bytes[REP_WRITE]) * 1e9 /
			       (double)mix.span_ns;
		snprintf(what, sizeof(what), "the traced I/O (reads and writes)");
	}
	if (best <= t->ceiling)
		return 0;
	return ceiling_add(m, ci, st->name, what, best, t, fs);
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

int findings_traps(const struct rundir_model *m, size_t ci, const struct rundir_stepinfo *steps, size_t nsteps,
		   struct findings *fs)
{
	struct target_facts t;
	bool have_t = target_facts_of(&m->configs[ci], steps, nsteps, &t);
	int r = 0;

	if (have_t)
		r = no_flash_finding(m, ci, &t, fs);
	if (r == 0)
		r = empty_drive_findings(m, ci, &t, have_t, fs);
	for (size_t s = 0; r == 0 && s < nsteps; s++) {
		if (steps[s].kind == DOC_OLTP) {
			r = page_cache_finding(m, ci, steps[s].name, fs);
			if (r == 0)
				r = connect_finding(m, ci, steps[s].name, fs);
			if (r == 0)
				r = contended_finding(m, ci, steps[s].name, fs);
		}
		if (r == 0 && steps[s].kind == DOC_DSS)
			r = dss_unstable_finding(m, ci, steps[s].name, fs);
		if (r == 0 && steps[s].kind == DOC_DSS)
			r = dss_page_cache_finding(m, ci, steps[s].name, fs);
		if (r == 0 && have_t)
			r = ceiling_findings(m, ci, &steps[s], &t, fs);
	}
	return r;
}
