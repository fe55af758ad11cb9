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
#include "tools/compare.h"
#include "tools/findings.h"
#include "tools/run_stats.h"

#define MB 1e6
#define MIB (1024.0 * 1024.0)
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

/* Append a finding; f's subject and the text are formatted here.  -ENOMEM. */
static int add(struct findings *fs, const struct finding *f, const char *subject,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int add(struct findings *fs, const struct finding *f, const char *subject,
	       const char *fmt, ...)
{
	struct finding *v = realloc(fs->v, (fs->n + 1) * sizeof(*v));
	va_list ap;
	int n;

	if (!v)
		return -ENOMEM;
	fs->v = v;
	v[fs->n] = *f;
	v[fs->n].subject = strdup(subject);
	va_start(ap, fmt);
	n = vasprintf(&v[fs->n].text, fmt, ap);
	va_end(ap);
	if (n < 0 || !v[fs->n].subject) {
		free(v[fs->n].subject);
		if (n >= 0)
			free(v[fs->n].text);
		return -ENOMEM;
	}
	fs->n++;
	return 0;
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

static const char *relmap_caveat(const struct run_io_mix *mix)
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
static int io_findings(const struct run_model *m, size_t ci, const char *step, struct findings *fs,
		       bool *ret_any)
{
	const struct run_config *c = &m->configs[ci];
	const char *mark = step ? run_step_mark(c, step) : NULL;
	struct run_io_mix mix;
	char a[32], b[32], who[300];
	uint64_t rnd_all, best = 0;
	enum rep_class top = RC_HEAP;
	int r;

	*ret_any = false;
	if (step && !mark)
		return 0;
	run_io_mix_of(c, mark, &mix);
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

		r = add(fs, &f, rep_class_name(top),
			"%s: %.0f%% of random reads hit %s (%s of %s, %u traced repetition%s)%s",
			who, f.value[0], class_phrase(top), run_fmt_count(best, a, sizeof(a)),
			run_fmt_count(rnd_all, b, sizeof(b)), mix.ntraced, mix.ntraced == 1 ? "" : "s",
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

		r = add(fs, &f, rep_class_name(top),
			"%s: %.0f%% of the bytes written went to %s (%s of %s %s)%s", who,
			f.value[0], class_phrase(top), run_fmt_num((double)best / div, div > 1 ? 1 : 0, a, sizeof(a)),
			run_fmt_num((double)all / div, div > 1 ? 1 : 0, b, sizeof(b)), unit, relmap_caveat(&mix));
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- dutprobe ---- */

static json_object *doc_member(const struct dut_result *r, const char *key)
{
	return run_jget(dut_result_json(r), key);
}

static int cache_findings(const struct run_model *m, size_t ci, const char *step,
			  struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	const struct dut_result *docs[RUN_MAX_DOCS];
	size_t nd = run_config_docs(c, step, docs, RUN_MAX_DOCS);

	for (size_t d = 0; d < nd; d++) {
		json_object *link = run_jget(doc_member(docs[d], "target"), "link");
		double ceiling = json_object_get_double(run_jget(doc_member(docs[d], "target"),
							     "link_ceiling_bytes_per_s"));

		for (size_t p = 0; p < dut_result_phase_count(docs[d]); p++) {
			struct dut_result_phase *ph = dut_result_phase_at(docs[d], p);
			json_object *flag = run_jget(dut_phase_extra(ph), "cache_not_device");
			struct finding f = { .kind = FIND_CACHE_ROW, .config = ci, .other = ci };
			char a[32], b[32];
			const char *unit;
			int r;

			if (!flag || !json_object_get_boolean(flag) ||
			    dut_phase_get_metric(ph, "bw", &f.value[0], &unit) < 0)
				continue;
			f.value[1] = ceiling;
			r = add(fs, &f, dut_phase_name(ph),
				"%s: the page cache served %s, not the device: %s MB/s exceeds the interface "
				"ceiling of %s MB/s (%s)", c->name, dut_phase_name(ph),
				run_fmt_num(f.value[0] / MB, 0, a, sizeof(a)),
				run_fmt_num(ceiling / MB, 0, b, sizeof(b)),
				link ? json_object_get_string(link) : "link unknown");
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int slc_findings(const struct run_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	const struct dut_result *docs[RUN_MAX_DOCS];
	size_t nd = run_config_docs(c, step, docs, RUN_MAX_DOCS);

	for (size_t d = 0; d < nd; d++) {
		struct dut_result_phase *ph = dut_result_find_phase(docs[d], "write");
		json_object *knees = ph ? run_jget(dut_phase_extra(ph), "knees") : NULL;
		json_object *k = knees ? json_object_array_get_idx(knees, 0) : NULL;
		const char *conf = json_object_get_string(run_jget(k, "confidence"));
		struct finding f = { .kind = FIND_SLC_KNEE, .config = ci, .other = ci };
		char a[32], b[32], e[32];
		int r;

		if (!k)
			continue;
		f.value[0] = json_object_get_double(run_knee_bytes(k));
		f.value[1] = json_object_get_double(run_jget(k, "bw_before"));
		f.value[2] = json_object_get_double(run_jget(k, "bw_after"));
		f.value[3] = json_object_get_double(run_jget(k, "rel_change"));
		r = add(fs, &f, step,
			"%s: sequential write throughput %s after %s MiB written: %s -> %s MB/s (%+.0f%%, "
			"confidence %s)%s", c->name, f.value[3] < 0 ? "fell" : "rose",
			run_fmt_num(f.value[0] / MIB, 0, e, sizeof(e)),
			run_fmt_num(f.value[1] / MB, 1, a, sizeof(a)),
			run_fmt_num(f.value[2] / MB, 1, b, sizeof(b)), f.value[3] * 100, conf ? conf : "?",
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
	json_object *by = ph ? run_jget(dut_phase_extra(ph), "by_queue_depth") : NULL;

	for (size_t i = 0; by && i < json_object_array_length(by); i++) {
		json_object *e = json_object_array_get_idx(by, i);

		if (json_object_get_int64(run_jget(e, "queue_depth")) == qd)
			return json_object_get_boolean(run_jget(e, "steady_state"));
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
static int crash_findings(const struct run_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	const struct dut_result *docs[16];
	size_t n = run_config_docs(c, step, docs, 16);
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
		v = run_jget(run_jget(dut_phase_extra(ph), "verdict"), "reproduce");
		first = v ? json_object_get_string(v) : NULL;
		if (f.count[0]) {
			f.exceeds = true;
			r = add(fs, &f, step, "Step %s, %s, repetition %zu: %" PRIu64 " of %" PRIu64 " crash states with "
				"fsync honoured were damaged (%" PRIu64 " acknowledged commits lost in all); the first one "
				"again: %s", step, c->name, k + 1, f.count[0], f.count[1], f.count[2],
				first ? first : "see the step's section");
		} else if ((f.value[1] && !f.value[0]) || (f.value[3] && !f.value[2])) {
			f.exceeds = true;
			r = add(fs, &f, step, "Step %s, %s, repetition %zu: no damage in %" PRIu64 " crash states, but the "
				"%s negative control saw no damage either (%.0f of %.0f states): the checks could not "
				"see, so the clean result proves nothing; run more control states (controls = N)", step,
				c->name, k + 1, f.count[1], f.value[1] && !f.value[0] ? "full_page_writes=off" : "fsync=off",
				f.value[1] && !f.value[0] ? f.value[0] : f.value[2],
				f.value[1] && !f.value[0] ? f.value[1] : f.value[3]);
		} else {
			r = add(fs, &f, step, "Step %s, %s, repetition %zu: %" PRIu64 " crash states with fsync honoured, "
				"none damaged (no acknowledged commit lost, amcheck clean)%s", step, c->name, k + 1,
				f.count[1], f.value[1] || f.value[3] ? "; the negative controls saw damage, so the "
				"checks can see it" : "; no negative control ran, so that is not proven able to fail");
		}
	}
	return r;
}

static int fill_findings(const struct run_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	const struct dut_result *docs[1];

	if (!run_config_docs(c, step, docs, 1))
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
	json_object *phases = doc_member(docs[0], "phases");

	for (size_t p = 0; p < json_object_array_length(phases); p++) {
		json_object *ph = json_object_array_get_idx(phases, p);

		if (strcmp(json_object_get_string(run_jget(ph, "name")), dut_phase_name(hi)) != 0)
			continue;
		json_object_object_foreach(run_jget(ph, "metrics"), name, val) {
			struct finding f = { .kind = FIND_FILL_DROP, .config = ci, .other = ci };
			struct cmp_stat full, empty;
			char a[32], b[32];
			int r;

			(void)val;
			if (strncmp(name, "iops_qd", 7) != 0)
				continue;
			full = run_metric(c, step, dut_phase_name(hi), name);
			empty = run_metric(c, step, dut_phase_name(lo), name);
			if (!full.n || !empty.n || empty.median <= 0)
				continue;
			f.value[0] = full.median;
			f.value[1] = empty.median;
			f.value[2] = full.median / empty.median;
			f.value[3] = level_pct(dut_phase_name(hi));
			f.value[4] = level_pct(dut_phase_name(lo));
			r = add(fs, &f, name + 5,
				"%s: random-write IOPS at QD %s: %s at %.0f%% full vs %s at %.0f%% full (%.2fx)%s",
				c->name, name + 7, run_fmt_num(f.value[0], 0, a, sizeof(a)), f.value[3],
				run_fmt_num(f.value[1], 0, b, sizeof(b)), f.value[4], f.value[2],
				steady_note(docs[0], dut_phase_name(hi), dut_phase_name(lo), name + 7));
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* ---- comparisons with the first configuration ---- */

static int tps_finding(const struct run_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct run_config *c = &m->configs[ci], *b = &m->configs[0];
	struct cmp_stat v = run_metric(c, step, "run", "tps"), base = run_metric(b, step, "run", "tps");
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
	f.count[2] = run_configs_sequential(b, c);
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
	return add(fs, &f, step,
		   "%s: %.2fx the TPS of %s in step %s (%s vs %s tx/s, medians of %u and %u repetitions; "
		   "ranges %s-%s and %s-%s tx/s): %s", c->name, f.value[0], b->name, step,
		   run_fmt_num(v.median, 1, s1, sizeof(s1)), run_fmt_num(base.median, 1, s2, sizeof(s2)),
		   v.n, base.n, run_fmt_num(v.min, 1, s3, sizeof(s3)), run_fmt_num(v.max, 1, s4, sizeof(s4)),
		   run_fmt_num(base.min, 1, s5, sizeof(s5)), run_fmt_num(base.max, 1, s6, sizeof(s6)),
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
static void dss_verdict(const struct run_model *m, size_t ci, const struct cmp_input *in,
			const struct cmp *cmp, struct finding *f, char *buf, size_t n)
{
	double lo[2] = { 0, 0 }, hi[2] = { 0, 0 };
	bool sequential = run_configs_sequential(&m->configs[0], &m->configs[ci]);

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

static int dss_finding(const struct run_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct dut_result *bd[RUN_MAX_DOCS], *cd[RUN_MAX_DOCS];
	struct cmp_input in[2] = {
		{ .source = m->configs[0].name, .docs = (struct dut_result *const *)bd,
		  .ndocs = run_config_docs(&m->configs[0], step, bd, RUN_MAX_DOCS) },
		{ .source = m->configs[ci].name, .docs = (struct dut_result *const *)cd,
		  .ndocs = run_config_docs(&m->configs[ci], step, cd, RUN_MAX_DOCS) },
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
			 "(%.2fx): %s", cmp->nqualifying, run_fmt_num(f.value[0], 3, a, sizeof(a)),
			 run_fmt_num(f.value[1], 3, b, sizeof(b)), f.value[2], verdict);
	} else {
		snprintf(mt, sizeof(mt), "m-time is undefined: no query kept its plan");
	}
	if (f.count[0])
		r = add(fs, &f, qs, "%s: this DSS configuration changed the plans of %s (against %s), so "
			"those are out of m-time; %s", m->configs[ci].name, qs, m->configs[0].name, mt);
	else
		r = add(fs, &f, "", "%s: every DSS query kept the plan it had in %s; %s",
			m->configs[ci].name, m->configs[0].name, mt);
	cmp_free(cmp);
	return r;
}

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
	json_object *v = run_jget(o, key);

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
static bool target_facts_of(const struct run_config *c, const struct run_stepinfo *steps,
			    size_t nsteps, struct target_facts *ret)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t s = 0; s < nsteps; s++) {
			const struct dut_result *docs[1];
			enum run_doc_kind k = steps[s].kind;
			json_object *t, *link;

			if (pass == 0 ? k != DOC_PROBE_IDENTIFY :
			    k != DOC_PROBE_BENCH && k != DOC_PROBE_FILL && k != DOC_PROBE_SLC)
				continue;
			if (!run_config_docs(c, steps[s].name, docs, 1))
				continue;
			t = doc_member(docs[0], "target");
			link = run_jget(t, "link");
			*ret = (struct target_facts){ .path = jstr(t, "path"), .kind = jstr(t, "kind"),
						      .through = jstr(t, "through") };
			if (pass == 0) {
				json_object *bd = run_jget(t, "block_device");

				/* the target as the experiment names it, not the run's staging mount */
				for (size_t r = 0; r < c->nreps; r++) {
					const struct run_step *st = run_rep_step(&c->reps[r], steps[s].name);

					if (st && st->experiment_path && *st->experiment_path) {
						ret->path = st->experiment_path;
						break;
					}
				}
				ret->link_kind = jstr(link, "kind");
				ret->link_desc = jstr(link, "description");
				ret->ceiling = json_object_get_double(run_jget(link, "ceiling_bytes_per_s"));
				ret->loop = run_jget(bd, "loop") || strstr(ret->through, "loop") ||
					    strncmp(jstr(bd, "name"), "loop", 4) == 0;
			} else {
				ret->link_desc = json_object_get_string(link) ? json_object_get_string(link) : "";
				ret->link_kind = link_kind_of_desc(ret->link_desc);
				ret->ceiling = json_object_get_double(run_jget(t, "link_ceiling_bytes_per_s"));
				ret->loop = strncmp(ret->link_desc, "loop", 4) == 0;
			}
			return true;
		}
	return false;
}

static int no_flash_finding(const struct run_model *m, size_t ci, const struct target_facts *t,
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
	return add(fs, &f, t->link_kind,
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
static bool doc_writes(const struct dut_result *d, enum run_doc_kind k)
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
static int empty_drive_findings(const struct run_model *m, size_t ci, const struct target_facts *t,
				bool have_t, struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	const struct run_rep *rp = c->nreps ? &c->reps[0] : NULL;
	bool written = false;

	for (size_t s = 0; rp && s < rp->nsteps; s++) {
		const struct run_step *st = &rp->steps[s];
		const struct dut_result *d = st->ndocs ? st->docs[0].doc : NULL;
		enum run_doc_kind k = d ? run_doc_kind_of(d) : DOC_OTHER;
		/* the step's own target: a bench lays out its own file */
		json_object *dt = d ? doc_member(d, "target") : NULL;
		bool fresh = strcmp(jstr(dt, "kind"), "file") == 0 ||
			     strncmp(jstr(dt, "link"), "loop", 4) == 0 ||
			     (have_t && t->loop);
		json_object *pre = d ? run_jget(doc_member(d, "config"), "preconditioned") : NULL;
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
		r = add(fs, &f, st->name,
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

static int page_cache_finding(const struct run_model *m, size_t ci, const char *step,
			      struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	const char *mark = run_step_mark(c, step);
	const struct dut_result *docs[1];
	struct run_io_mix mix;
	struct finding f = { .kind = FIND_PAGE_CACHE, .config = ci, .other = ci, .trap = true };
	char a[32], b[32], db[64] = "", budget[160];
	json_object *cfg;
	uint64_t tx;

	if (!mark)
		return 0;
	run_io_mix_of(c, mark, &mix);
	tx = run_traced_transactions(c, step, mark);
	if (!mix.ntraced || tx < PAGE_CACHE_MIN_TX)
		return 0;
	f.count[0] = mix.total.ops[REP_READ];
	f.count[1] = tx;
	f.count[2] = mix.ntraced;
	f.value[0] = (double)f.count[0] / (double)tx;
	if (f.value[0] >= FIND_MEMORY_READS_PER_TX)
		return 0;
	f.value[1] = (double)c->memory_budget_bytes;
	if (run_config_docs(c, step, docs, 1)) {
		cfg = doc_member(docs[0], "config");
		if (!f.value[1])
			f.value[1] = json_object_get_double(run_jget(run_jget(cfg, "memory"), "budget_bytes"));
		f.value[2] = json_object_get_double(run_jget(doc_member(docs[0], "target"), "database_bytes"));
	}
	if (f.value[2] > 0)
		snprintf(db, sizeof(db), "a database of %s MiB", run_fmt_num(f.value[2] / MIB, 0, a, sizeof(a)));
	if (f.value[1] > 0)
		snprintf(budget, sizeof(budget), "the memory budget was %s MiB%s%s: lower it below the "
			 "database or raise the scale until reads reach the device",
			 run_fmt_num(f.value[1] / MIB, 0, b, sizeof(b)), *db ? " against " : "", db);
	else
		snprintf(budget, sizeof(budget), "use a memory budget ([postgres] memory = SIZE, below "
			 "the database size%s%s) or a larger scale", *db ? ", here " : "", db);
	return add(fs, &f, step,
		   "%s, step %s: this measured the page cache, not the device: %s device reads for %s "
		   "transactions (%.4f per transaction, %u traced repetition%s); %s", c->name, step,
		   run_fmt_count(f.count[0], a, sizeof(a)), run_fmt_count(tx, b, sizeof(b)), f.value[0],
		   mix.ntraced, mix.ntraced == 1 ? "" : "s", budget);
}

/* Connection set-up above this share of an OLTP step's time is a finding. */
#define CONNECT_SHARE_PCT 10.0

static int connect_finding(const struct run_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	struct cmp_stat in = run_metric(c, step, "run", "tps_including_connections");
	struct cmp_stat ex = run_metric(c, step, "run", "tps_excluding_connections");
	struct cmp_stat avg = run_metric(c, step, "run", "connection_time_avg");
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
	return add(fs, &f, step,
		   "%s, step %s: connection set-up dominated: it took %.0f%% of the step's time; TPS "
		   "including connections %s vs excluding them %s tx/s (medians of %u run%s%s). The "
		   "TPS measured connecting as much as the device: run longer (duration), or with "
		   "persistent connections", c->name, step, f.value[0],
		   run_fmt_num(in.median, 1, a, sizeof(a)), run_fmt_num(ex.median, 1, b, sizeof(b)),
		   in.n, in.n == 1 ? "" : "s", t);
}

static int ceiling_add(const struct run_model *m, size_t ci, const char *step, const char *what,
		       double bps, const struct target_facts *t, struct findings *fs)
{
	struct finding f = { .kind = FIND_CEILING, .config = ci, .other = ci, .trap = true,
			     .value = { bps, t->ceiling } };
	char a[32], b[32];

	return add(fs, &f, step,
		   "%s, step %s: %s of %s MB/s exceeds the interface ceiling of %s MB/s (%s): a cache "
		   "served it (the page cache, or one in front of the link), not the device",
		   m->configs[ci].name, step, what, run_fmt_num(bps / MB, 0, a, sizeof(a)),
		   run_fmt_num(t->ceiling / MB, 0, b, sizeof(b)), t->link_desc);
}

/* Any step's figure above the link: probe throughput (not bench: cache_findings), or trace I/O. */
static int ceiling_findings(const struct run_model *m, size_t ci, const struct run_stepinfo *st,
			    const struct target_facts *t, struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	const struct dut_result *docs[RUN_MAX_DOCS];
	size_t nd;
	double best = 0;
	char what[64] = "";

	if (t->ceiling <= 0 || st->kind == DOC_PROBE_BENCH || st->kind == DOC_PROBE_IDENTIFY)
		return 0;
	nd = run_config_docs(c, st->name, docs, RUN_MAX_DOCS);
	if (st->kind == DOC_PROBE_SLC) {
		for (size_t d = 0; d < nd; d++) {
			struct dut_result_phase *ph = dut_result_find_phase(docs[d], "write");
			json_object *k = ph ? json_object_array_get_idx(run_jget(dut_phase_extra(ph), "knees"), 0) : NULL;
			double lv[2] = { json_object_get_double(run_jget(k, "bw_before")),
					 json_object_get_double(run_jget(k, "bw_after")) };
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
			double bs = json_object_get_double(run_jget(doc_member(docs[d], "config"), "block_bytes"));

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
		const char *mark = run_step_mark(c, st->name);
		struct run_io_mix mix;

		if (!mark)
			return 0;
		run_io_mix_of(c, mark, &mix);
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
static int dss_unstable_finding(const struct run_model *m, size_t ci, const char *step,
				struct findings *fs)
{
	const struct dut_result *cd[RUN_MAX_DOCS];
	size_t nd = run_config_docs(&m->configs[ci], step, cd, RUN_MAX_DOCS);
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
	return add(fs, &f, qs,
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
static bool cpu_split_of(const struct run_rep *rep, const char *step, struct cpu_split *ret)
{
	const struct run_step *st = run_rep_step(rep, step);
	const struct dut_result *d = st && st->ndocs ? st->docs[0].doc : NULL;
	json_object *srv = d ? run_server_json(d) : NULL, *cpu = NULL, *host = NULL;
	double wall, cpus, sv, cl;

	if (!srv || !json_object_object_get_ex(srv, "cpu", &cpu) ||
	    !json_object_object_get_ex(cpu, "host", &host))
		return false;
	wall = run_server_cpu(d, "wall_s");
	cpus = run_server_cpu(d, "cpus");
	sv = run_server_cpu(d, "server_s");
	cl = run_server_cpu(d, "client_s");
	if (isnan(wall) || isnan(cpus) || isnan(sv) || isnan(cl) || wall <= 0 || cpus <= 0)
		return false;
	*ret = (struct cpu_split){ .cap_s = wall * cpus, .ours_s = sv + cl, .dutfs_s = NAN,
				   .busy_s = json_object_get_double(run_jget(host, "busy_s")),
				   .steal_s = json_object_get_double(run_jget(host, "steal_s")) };
	/* dutfs's time over the whole step, scaled to pgload's interval inside it */
	if (!isnan(st->dutfs_cpu_s) && st->wall_ns > 0)
		ret->dutfs_s = st->dutfs_cpu_s * fmin(1.0, wall * 1e9 / (double)st->wall_ns);
	return true;
}

static int contended_finding(const struct run_model *m, size_t ci, const char *step, struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
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
	return add(fs, &f, step,
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

static int dss_page_cache_finding(const struct run_model *m, size_t ci, const char *step,
				  struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	struct finding f = { .kind = FIND_PAGE_CACHE, .config = ci, .other = ci, .trap = true };
	struct run_io_mix q, load, keys;
	double data, read;
	char a[32], b[32], budget[200];

	run_io_mix_of(c, RUN_DSS_PHASE("queries"), &q);
	run_io_mix_of(c, RUN_DSS_PHASE("load"), &load);
	run_io_mix_of(c, RUN_DSS_PHASE("keys"), &keys);
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
			 "data or raise the scale", run_fmt_num(f.value[2] / MIB, 0, a, sizeof(a)));
	else
		snprintf(budget, sizeof(budget), "use a memory budget ([postgres] memory = SIZE, well below "
			 "the data, and room for ANALYZE and the queries' sorts) or a larger scale");
	return add(fs, &f, step,
		   "%s, step %s: the queries measured memory, not the device: they read %s MiB from it "
		   "against about %s MiB of tables and indexes the load wrote (%u traced repetition%s); %s",
		   c->name, step, run_fmt_num(read / MIB, 1, a, sizeof(a)), run_fmt_num(data / MIB, 1, b, sizeof(b)),
		   q.ntraced, q.ntraced == 1 ? "" : "s", budget);
}

static int trap_findings(const struct run_model *m, size_t ci, const struct run_stepinfo *steps,
			 size_t nsteps, struct findings *fs)
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

int findings_build(const struct run_model *m, struct findings **ret)
{
	struct findings *fs = calloc(1, sizeof(*fs));
	_cleanup_free_ struct run_stepinfo *steps = NULL;
	size_t nsteps;
	int r;

	if (!fs)
		return -ENOMEM;
	r = run_steps(m, &steps, &nsteps);
	for (size_t ci = 0; r == 0 && ci < m->nconfigs; ci++) {
		r = trap_findings(m, ci, steps, nsteps, fs);
		for (size_t s = 0; r == 0 && s < nsteps; s++) {
			const char *name = steps[s].name;

			switch (steps[s].kind) {
			case DOC_OLTP:
				r = ci ? tps_finding(m, ci, name, fs) : 0;
				break;
			case DOC_DSS:
				r = ci ? dss_finding(m, ci, name, fs) : 0;
				break;
			case DOC_PROBE_BENCH:
				r = cache_findings(m, ci, name, fs);
				break;
			case DOC_PROBE_SLC:
				r = slc_findings(m, ci, name, fs);
				break;
			case DOC_PROBE_FILL:
				r = fill_findings(m, ci, name, fs);
				break;
			case DOC_OLTP_INIT:
			case DOC_PROBE_IDENTIFY:
			case DOC_RESTORE:
			case DOC_CRASH:
				r = crash_findings(m, ci, name, fs);
				break;
			case DOC_OTHER:
				break;
			}
		}
		/* the I/O of each step, between its markers; the whole traces when no step has markers */
		bool any = false, one;

		for (size_t s = 0; r == 0 && s < nsteps; s++) {
			r = io_findings(m, ci, steps[s].name, fs, &one);
			any |= one;
		}
		if (r == 0 && !any)
			r = io_findings(m, ci, NULL, fs, &one);
	}
	if (r < 0) {
		findings_free(fs);
		return r;
	}
	*ret = fs;
	return 0;
}
