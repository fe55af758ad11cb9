/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Findings from a run model (pure): each one computed, then said with its numbers. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "tools/compare/compare.h"
#include "tools/report/findings.h"
#include "tools/report/findings_priv.h"
#include "tools/report/rundir_stats.h"

/* Fewer random reads than this say nothing about where random reads go. */
#define MIN_RANDOM_READS 10

void findings_free(struct findings *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].subject);
		free(f->v[i].text);
	}
	free(f->v);
	free(f);
}

const char *finding_kind_name(enum finding_kind k)
{
	static const char *const names[FIND_KIND_COUNT] = {
		[FIND_RANDOM_READS] = "random-reads", [FIND_WRITE_BYTES] = "write-bytes",
		[FIND_CACHE_ROW] = "cache-row", [FIND_DSS_PLANS] = "dss-plans",
		[FIND_TPS_RATIO] = "tps-ratio", [FIND_SLC_KNEE] = "slc-knee",
		[FIND_FILL_DROP] = "fill-drop", [FIND_PAGE_CACHE] = "page-cache",
		[FIND_NO_FLASH] = "no-flash", [FIND_EMPTY_DRIVE] = "empty-drive",
		[FIND_CONNECT] = "connect", [FIND_CEILING] = "ceiling",
		[FIND_DSS_UNSTABLE] = "dss-unstable", [FIND_CONTENDED] = "contended",
		[FIND_CRASH] = "crash",
	};

	return (unsigned)k < FIND_KIND_COUNT ? names[k] : "?";
}

static const char *class_phrase(enum rep_class c)
{
	static const char *const p[RC_COUNT] = {
		[RC_HEAP] = "heap relations", [RC_INDEX] = "indexes", [RC_TOAST] = "TOAST",
		[RC_FSM] = "free space maps", [RC_VM] = "visibility maps", [RC_WAL] = "WAL",
		[RC_SLRU] = "SLRU files (pg_xact, ...)", [RC_TEMP] = "temporary files",
		[RC_OTHER] = "other files",
	};
	return p[c];
}

static const char *relmap_caveat(const struct rundir_io_mix *mix)
{
	if (mix->nrelmap == mix->ntraced)
		return "";
	if (!mix->nrelmap)
		return " (unknown relation kind: no relmap, so every relation file counts as heap)";
	return " (some traces had no relmap: their relation files count as heap)";
}

/* ---- I/O mix ---- */

/*
 * The I/O mix findings of a configuration, for one step (the trace phase
 * between its markers) or, with step NULL, for the whole traces.
 * *ret_any says whether the traces had that step.
 */
int findings_io(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs,
		       bool *ret_any)
{
	const struct rundir_config *c = &m->configs[ci];
	const char *mark = step ? rundir_step_mark(c, step) : NULL;
	struct rundir_io_mix mix;
	char a[32], b[32], who[300];
	uint64_t rnd_all, best = 0;
	enum rep_class top = RC_HEAP;
	int r;

	*ret_any = false;
	if (step && !mark)
		return 0;
	rundir_io_mix_of(c, mark, &mix);
	if (!mix.ntraced || !(mix.total.ops[REP_READ] + mix.total.ops[REP_WRITE]))
		return 0;
	*ret_any = true;
	if (step)
		snprintf(who, sizeof(who), "%s, step %s", c->name, step);
	else
		snprintf(who, sizeof(who), "%s", c->name);
	rnd_all = mix.total.ops[REP_READ] - mix.total.seq_ops[REP_READ];
	for (int k = 0; k < RC_COUNT; k++) {
		uint64_t rnd = mix.cls[k].ops[REP_READ] - mix.cls[k].seq_ops[REP_READ];

		if (rnd > best) {
			best = rnd;
			top = (enum rep_class)k;
		}
	}
	if (rnd_all >= MIN_RANDOM_READS) {
		struct finding f = { .kind = FIND_RANDOM_READS, .config = ci, .other = ci,
				     .count = { best, rnd_all }, .value = { rep_pct(best, rnd_all) } };

		r = findings_add(fs, &f, rep_class_name(top),
			"%s: %.0f%% of random reads hit %s (%s of %s, %u traced repetition%s)%s",
			who, f.value[0], class_phrase(top), rundir_fmt_count(best, a, sizeof(a)),
			rundir_fmt_count(rnd_all, b, sizeof(b)), mix.ntraced, mix.ntraced == 1 ? "" : "s",
			relmap_caveat(&mix));
		if (r < 0)
			return r;
	}
	best = 0;
	for (int k = 0; k < RC_COUNT; k++)
		if (mix.cls[k].bytes[REP_WRITE] > best) {
			best = mix.cls[k].bytes[REP_WRITE];
			top = (enum rep_class)k;
		}
	if (mix.total.bytes[REP_WRITE]) {
		uint64_t all = mix.total.bytes[REP_WRITE];
		struct finding f = { .kind = FIND_WRITE_BYTES, .config = ci, .other = ci,
				     .count = { best, all }, .value = { rep_pct(best, all) } };

		const char *unit = all >= (1u << 20) ? "MiB" : all >= 1024 ? "KiB" : "bytes";
		double div = all >= (1u << 20) ? MIB : all >= 1024 ? 1024.0 : 1.0;

		r = findings_add(fs, &f, rep_class_name(top),
			"%s: %.0f%% of the bytes written went to %s (%s of %s %s)%s", who,
			f.value[0], class_phrase(top), rundir_fmt_num((double)best / div, div > 1 ? 1 : 0, a, sizeof(a)),
			rundir_fmt_num((double)all / div, div > 1 ? 1 : 0, b, sizeof(b)), unit, relmap_caveat(&mix));
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- dutprobe ---- */

int findings_cache(const struct rundir_model *m, size_t ci, const char *step,
			  struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);

	for (size_t d = 0; d < nd; d++) {
		json_object *link = rundir_jget(findings_doc_member(docs[d], "target"), "link");
		double ceiling = json_object_get_double(rundir_jget(findings_doc_member(docs[d], "target"),
							     "link_ceiling_bytes_per_s"));

		for (size_t p = 0; p < dut_result_phase_count(docs[d]); p++) {
			struct dut_result_phase *ph = dut_result_phase_at(docs[d], p);
			json_object *flag = rundir_jget(dut_phase_extra(ph), "cache_not_device");
			struct finding f = { .kind = FIND_CACHE_ROW, .config = ci, .other = ci };
			char a[32], b[32];
			const char *unit;
			int r;

			if (!flag || !json_object_get_boolean(flag) ||
			    dut_phase_get_metric(ph, "bw", &f.value[0], &unit) < 0)
				continue;
			f.value[1] = ceiling;
			r = findings_add(fs, &f, dut_phase_name(ph),
				"%s: the page cache served %s, not the device: %s MB/s exceeds the interface "
				"ceiling of %s MB/s (%s)", c->name, dut_phase_name(ph),
				rundir_fmt_num(f.value[0] / MB, 0, a, sizeof(a)),
				rundir_fmt_num(ceiling / MB, 0, b, sizeof(b)),
				link ? json_object_get_string(link) : "link unknown");
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int findings_slc(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);

	for (size_t d = 0; d < nd; d++) {
		struct dut_result_phase *ph = dut_result_find_phase(docs[d], "write");
		json_object *knees = ph ? rundir_jget(dut_phase_extra(ph), "knees") : NULL;
		json_object *k = knees ? json_object_array_get_idx(knees, 0) : NULL;
		const char *conf = json_object_get_string(rundir_jget(k, "confidence"));
		struct finding f = { .kind = FIND_SLC_KNEE, .config = ci, .other = ci };
		char a[32], b[32], e[32];
		int r;

		if (!k)
			continue;
		f.value[0] = json_object_get_double(rundir_knee_bytes(k));
		f.value[1] = json_object_get_double(rundir_jget(k, "bw_before"));
		f.value[2] = json_object_get_double(rundir_jget(k, "bw_after"));
		f.value[3] = json_object_get_double(rundir_jget(k, "rel_change"));
		r = findings_add(fs, &f, step,
			"%s: sequential write throughput %s after %s MiB written: %s -> %s MB/s (%+.0f%%, "
			"confidence %s)%s", c->name, f.value[3] < 0 ? "fell" : "rose",
			rundir_fmt_num(f.value[0] / MIB, 0, e, sizeof(e)),
			rundir_fmt_num(f.value[1] / MB, 1, a, sizeof(a)),
			rundir_fmt_num(f.value[2] / MB, 1, b, sizeof(b)), f.value[3] * 100, conf ? conf : "?",
			f.value[3] < 0 ? ": a write cache (SLC) of about that size" :
			": a slow start, not a write cache running full");
		if (r < 0)
			return r;
	}
	return 0;
}

/* "level_30%" -> 30; -1 when the name is not a level. */
static double level_pct(const char *phase)
{
	char *end;
	double v;

	if (strncmp(phase, "level_", 6) != 0)
		return -1;
	v = strtod(phase + 6, &end);
	return end != phase + 6 && *end == '%' ? v : -1;
}

/* Did both levels reach steady state at this queue depth (extra.by_queue_depth[].steady_state)? */
static bool level_steady(const struct dut_result *doc, const char *phase, long qd)
{
	struct dut_result_phase *ph = dut_result_find_phase(doc, phase);
	json_object *by = ph ? rundir_jget(dut_phase_extra(ph), "by_queue_depth") : NULL;

	for (size_t i = 0; by && i < json_object_array_length(by); i++) {
		json_object *e = json_object_array_get_idx(by, i);

		if (json_object_get_int64(rundir_jget(e, "queue_depth")) == qd)
			return json_object_get_boolean(rundir_jget(e, "steady_state"));
	}
	return false;
}

static const char *steady_note(const struct dut_result *doc, const char *hi, const char *lo,
			       const char *qd)
{
	long q = strtol(qd, NULL, 10);

	if (level_steady(doc, hi, q) && level_steady(doc, lo, q))
		return "";
	return "; steady state was not reached at both levels, so these are not yet the drive's "
	       "sustained figures";
}

/* A crash campaign's outcome, per repetition's document: damage found, a blind control, or clean and proven. */
int findings_crash(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	const struct dut_result *docs[16];
	size_t n = rundir_config_docs(c, step, docs, 16);
	int r = 0;

	for (size_t k = 0; k < n && r == 0; k++) {
		struct dut_result_phase *ph = dut_result_find_phase(docs[k], "campaign");
		struct finding f = { .kind = FIND_CRASH, .config = ci, .other = ci };
		static const char *const keys[] = { "regular_damaged", "regular_states", "commits_lost" };
		static const char *const ctl[] = { "fpw_off_detected", "fpw_off_states", "fsync_off_detected",
						   "fsync_off_states" };
		const char *first = NULL;
		json_object *v;
		double d;

		if (!ph)
			continue;
		for (size_t i = 0; i < 3; i++)
			if (dut_phase_get_metric(ph, keys[i], &d, NULL) == 0 && d >= 0)
				f.count[i] = (uint64_t)d;
		for (size_t i = 0; i < 4; i++)
			if (dut_phase_get_metric(ph, ctl[i], &d, NULL) == 0)
				f.value[i] = d;
		v = rundir_jget(rundir_jget(dut_phase_extra(ph), "verdict"), "reproduce");
		first = v ? json_object_get_string(v) : NULL;
		if (f.count[0]) {
			f.exceeds = true;
			r = findings_add(fs, &f, step, "Step %s, %s, repetition %zu: %" PRIu64 " of %" PRIu64 " crash states with "
				"fsync honoured were damaged (%" PRIu64 " acknowledged commits lost in all); the first one "
				"again: %s", step, c->name, k + 1, f.count[0], f.count[1], f.count[2],
				first ? first : "see the step's section");
		} else if ((f.value[1] && !f.value[0]) || (f.value[3] && !f.value[2])) {
			f.exceeds = true;
			r = findings_add(fs, &f, step, "Step %s, %s, repetition %zu: no damage in %" PRIu64 " crash states, but the "
				"%s negative control saw no damage either (%.0f of %.0f states): the checks could not "
				"see, so the clean result proves nothing; run more control states (controls = N)", step,
				c->name, k + 1, f.count[1], f.value[1] && !f.value[0] ? "full_page_writes=off" : "fsync=off",
				f.value[1] && !f.value[0] ? f.value[0] : f.value[2],
				f.value[1] && !f.value[0] ? f.value[1] : f.value[3]);
		} else {
			r = findings_add(fs, &f, step, "Step %s, %s, repetition %zu: %" PRIu64 " crash states with fsync honoured, "
				"none damaged (no acknowledged commit lost, amcheck clean)%s", step, c->name, k + 1,
				f.count[1], f.value[1] || f.value[3] ? "; the negative controls saw damage, so the "
				"checks can see it" : "; no negative control ran, so that is not proven able to fail");
		}
	}
	return r;
}

int findings_fill(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	const struct dut_result *docs[1];

	if (!rundir_config_docs(c, step, docs, 1))
		return 0;
	/* the first document's levels; the values are medians over all of them */
	struct dut_result_phase *lo = NULL, *hi = NULL;

	for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
		struct dut_result_phase *ph = dut_result_phase_at(docs[0], p);
		double pct = level_pct(dut_phase_name(ph));

		if (pct < 0)
			continue;
		if (!lo || pct < level_pct(dut_phase_name(lo)))
			lo = ph;
		if (!hi || pct > level_pct(dut_phase_name(hi)))
			hi = ph;
	}
	if (!lo || lo == hi)
		return 0;
	/* one finding per queue depth: the metrics iops_qd<N> of the fullest level */
	json_object *phases = findings_doc_member(docs[0], "phases");

	for (size_t p = 0; p < json_object_array_length(phases); p++) {
		json_object *ph = json_object_array_get_idx(phases, p);

		if (strcmp(json_object_get_string(rundir_jget(ph, "name")), dut_phase_name(hi)) != 0)
			continue;
		json_object_object_foreach(rundir_jget(ph, "metrics"), name, val) {
			struct finding f = { .kind = FIND_FILL_DROP, .config = ci, .other = ci };
			struct cmp_stat full, empty;
			char a[32], b[32];
			int r;

			(void)val;
			if (strncmp(name, "iops_qd", 7) != 0)
				continue;
			full = rundir_metric(c, step, dut_phase_name(hi), name);
			empty = rundir_metric(c, step, dut_phase_name(lo), name);
			if (!full.n || !empty.n || empty.median <= 0)
				continue;
			f.value[0] = full.median;
			f.value[1] = empty.median;
			f.value[2] = full.median / empty.median;
			f.value[3] = level_pct(dut_phase_name(hi));
			f.value[4] = level_pct(dut_phase_name(lo));
			r = findings_add(fs, &f, name + 5,
				"%s: random-write IOPS at QD %s: %s at %.0f%% full vs %s at %.0f%% full (%.2fx)%s",
				c->name, name + 7, rundir_fmt_num(f.value[0], 0, a, sizeof(a)), f.value[3],
				rundir_fmt_num(f.value[1], 0, b, sizeof(b)), f.value[4], f.value[2],
				steady_note(docs[0], dut_phase_name(hi), dut_phase_name(lo), name + 7));
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* ---- comparisons with the first configuration ---- */

static int tps_finding(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci], *b = &m->configs[0];
	struct cmp_stat v = rundir_metric(c, step, "run", "tps"), base = rundir_metric(b, step, "run", "tps");
	struct finding f = { .kind = FIND_TPS_RATIO, .config = ci, .other = 0 };
	char s1[32], s2[32], s3[32], s4[32], s5[32], s6[32], verdict[300];

	if (!v.n || !base.n || base.median <= 0)
		return 0;
	f.value[0] = v.median / base.median;
	f.value[1] = v.median;
	f.value[2] = base.median;
	f.value[3] = v.min;
	f.value[4] = v.max;
	f.value[5] = base.min;
	f.value[6] = base.max;
	f.count[0] = v.n;
	f.count[1] = base.n;
	f.exceeds = v.n > 1 && base.n > 1 && (v.min > base.max || v.max < base.min);
	f.count[2] = rundir_configs_sequential(b, c);
	f.shown = f.exceeds && !f.count[2];
	if (v.n < 2 || base.n < 2)
		snprintf(verdict, sizeof(verdict), "the difference is not shown: with one repetition the "
			 "run-to-run spread is unknown (run at least 2 repetitions)");
	else if (!f.exceeds)
		snprintf(verdict, sizeof(verdict), "the difference is not shown: it does not exceed the "
			 "run-to-run spread (the min-max ranges overlap)");
	else if (f.count[2])
		snprintf(verdict, sizeof(verdict), "the min-max ranges do not overlap, but the "
			 "configurations ran one after another, not interleaved, so a drift over the run "
			 "(caches warming, the drive's state) would look the same: the difference is not shown");
	else
		snprintf(verdict, sizeof(verdict), "the difference exceeds the run-to-run spread (the "
			 "min-max ranges do not overlap)");
	return findings_add(fs, &f, step,
		   "%s: %.2fx the TPS of %s in step %s (%s vs %s tx/s, medians of %u and %u repetitions; "
		   "ranges %s-%s and %s-%s tx/s): %s", c->name, f.value[0], b->name, step,
		   rundir_fmt_num(v.median, 1, s1, sizeof(s1)), rundir_fmt_num(base.median, 1, s2, sizeof(s2)),
		   v.n, base.n, rundir_fmt_num(v.min, 1, s3, sizeof(s3)), rundir_fmt_num(v.max, 1, s4, sizeof(s4)),
		   rundir_fmt_num(base.min, 1, s5, sizeof(s5)), rundir_fmt_num(base.max, 1, s6, sizeof(s6)),
		   verdict);
}

/* "Q2, Q9 and Q17" into buf. */
static void query_list(const struct cmp *cmp, size_t input, char *buf, size_t n, uint64_t *ret_count)
{
	size_t len = 0, total = 0, k = 0;

	for (size_t q = 0; q < cmp->nqueries; q++)
		total += cmp->queries[q].cell[input].plan_differs;
	buf[0] = 0;
	for (size_t q = 0; q < cmp->nqueries && len < n; q++) {
		if (!cmp->queries[q].cell[input].plan_differs)
			continue;
		k++;
		len += (size_t)snprintf(buf + len, n - len, "%sQ%u",
					k == 1 ? "" : k == total ? " and " : ", ", cmp->queries[q].q);
	}
	*ret_count = total;
}

/*
 * Whether an m-time difference is shown, as tps_finding judges TPS: each
 * side's range is the sum of its qualifying queries' fastest (slowest)
 * runs; one repetition has no range, and configurations that ran one after
 * another cannot tell the storage from a drift.  Sets f->exceeds and f->shown.
 */
static void dss_verdict(const struct rundir_model *m, size_t ci, const struct cmp_input *in,
			const struct cmp *cmp, struct finding *f, char *buf, size_t n)
{
	double lo[2] = { 0, 0 }, hi[2] = { 0, 0 };
	bool sequential = rundir_configs_sequential(&m->configs[0], &m->configs[ci]);

	for (size_t q = 0; q < cmp->nqueries; q++) {
		if (cmp->queries[q].why != CMP_QUALIFIES)
			continue;
		for (int i = 0; i < 2; i++) {
			lo[i] += cmp->queries[q].cell[i].t_s.min;
			hi[i] += cmp->queries[q].cell[i].t_s.max;
		}
	}
	f->exceeds = in[0].ndocs > 1 && in[1].ndocs > 1 && (lo[1] > hi[0] || hi[1] < lo[0]);
	f->shown = f->exceeds && !sequential;
	if (in[0].ndocs < 2 || in[1].ndocs < 2)
		snprintf(buf, n, "the difference is not shown: with one repetition the run-to-run spread "
			 "is unknown (run at least 2 repetitions)");
	else if (!f->exceeds)
		snprintf(buf, n, "the difference is not shown: it does not exceed the run-to-run spread "
			 "(m-time ranges %.3f-%.3f s and %.3f-%.3f s overlap)", lo[1], hi[1], lo[0], hi[0]);
	else if (sequential)
		snprintf(buf, n, "the m-time ranges do not overlap, but the configurations ran one after "
			 "another, not interleaved, so a drift over the run would look the same: the "
			 "difference is not shown");
	else
		snprintf(buf, n, "the difference exceeds the run-to-run spread (m-time ranges %.3f-%.3f s "
			 "and %.3f-%.3f s)", lo[1], hi[1], lo[0], hi[0]);
}

static int dss_finding(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct dut_result *bd[RUNDIR_MAX_DOCS], *cd[RUNDIR_MAX_DOCS];
	struct cmp_input in[2] = {
		{ .source = m->configs[0].name, .docs = (struct dut_result *const *)bd,
		  .ndocs = rundir_config_docs(&m->configs[0], step, bd, RUNDIR_MAX_DOCS) },
		{ .source = m->configs[ci].name, .docs = (struct dut_result *const *)cd,
		  .ndocs = rundir_config_docs(&m->configs[ci], step, cd, RUNDIR_MAX_DOCS) },
	};
	struct cmp_opts o = { .baseline = 0 };
	struct finding f = { .kind = FIND_DSS_PLANS, .config = ci, .other = 0 };
	struct dut_error err = { { 0 } };
	struct cmp *cmp = NULL;
	char qs[512], a[32], b[32], mt[600];
	int r;

	if (!in[0].ndocs || !in[1].ndocs)
		return 0;
	r = cmp_build(in, 2, &o, &cmp, &err);
	if (r == -EINVAL)
		return 0;     /* not comparable: the comparison table says why */
	if (r < 0)
		return r;
	query_list(cmp, 1, qs, sizeof(qs), &f.count[0]);
	f.count[1] = cmp->nqueries;
	f.count[2] = cmp->nqualifying;
	f.value[0] = cmp->sum[1].m_time_s;
	f.value[1] = cmp->sum[0].m_time_s;
	f.value[2] = cmp->sum[0].m_defined && f.value[1] > 0 ? f.value[0] / f.value[1] : NAN;
	if (cmp->sum[0].m_defined) {
		char verdict[300];

		dss_verdict(m, ci, in, cmp, &f, verdict, sizeof(verdict));
		snprintf(mt, sizeof(mt), "m-time over the %u queries that kept their plans: %s s vs %s s "
			 "(%.2fx): %s", cmp->nqualifying, rundir_fmt_num(f.value[0], 3, a, sizeof(a)),
			 rundir_fmt_num(f.value[1], 3, b, sizeof(b)), f.value[2], verdict);
	} else {
		snprintf(mt, sizeof(mt), "m-time is undefined: no query kept its plan");
	}
	if (f.count[0])
		r = findings_add(fs, &f, qs, "%s: this DSS configuration changed the plans of %s (against %s), so "
			"those are out of m-time; %s", m->configs[ci].name, qs, m->configs[0].name, mt);
	else
		r = findings_add(fs, &f, "", "%s: every DSS query kept the plan it had in %s; %s",
			m->configs[ci].name, m->configs[0].name, mt);
	cmp_free(cmp);
	return r;
}

/* oltp-run: TPS against the first configuration (none for the first itself). */
int findings_tps(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	return ci ? tps_finding(m, ci, step, fs) : 0;
}

/* dss: m-time against the first configuration (none for the first itself). */
int findings_dss(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs)
{
	return ci ? dss_finding(m, ci, step, fs) : 0;
}
