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
		[FIND_FILL_DROP] = "fill-drop",
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

		r = add(fs, &f, rep_class_name(top),
			"%s: %.0f%% of the bytes written went to %s (%s of %s MiB)%s", who,
			f.value[0], class_phrase(top), run_fmt_num((double)best / MIB, 1, a, sizeof(a)),
			run_fmt_num((double)all / MIB, 1, b, sizeof(b)), relmap_caveat(&mix));
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- dutprobe ---- */

static json_object *jget(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static json_object *doc_member(const struct dut_result *r, const char *key)
{
	return jget(dut_result_json(r), key);
}

static int cache_findings(const struct run_model *m, size_t ci, const char *step,
			  struct findings *fs)
{
	const struct run_config *c = &m->configs[ci];
	const struct dut_result *docs[RUN_MAX_DOCS];
	size_t nd = run_config_docs(c, step, docs, RUN_MAX_DOCS);

	for (size_t d = 0; d < nd; d++) {
		json_object *link = jget(doc_member(docs[d], "target"), "link");
		double ceiling = json_object_get_double(jget(doc_member(docs[d], "target"),
							     "link_ceiling_bytes_per_s"));

		for (size_t p = 0; p < dut_result_phase_count(docs[d]); p++) {
			struct dut_result_phase *ph = dut_result_phase_at(docs[d], p);
			json_object *flag = jget(dut_phase_extra(ph), "cache_not_device");
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
		json_object *knees = ph ? jget(dut_phase_extra(ph), "knees") : NULL;
		json_object *k = knees ? json_object_array_get_idx(knees, 0) : NULL;
		const char *conf = json_object_get_string(jget(k, "confidence"));
		struct finding f = { .kind = FIND_SLC_KNEE, .config = ci, .other = ci };
		char a[32], b[32], e[32];
		int r;

		if (!k)
			continue;
		f.value[0] = json_object_get_double(run_knee_bytes(k));
		f.value[1] = json_object_get_double(jget(k, "bw_before"));
		f.value[2] = json_object_get_double(jget(k, "bw_after"));
		f.value[3] = json_object_get_double(jget(k, "rel_change"));
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
	json_object *by = ph ? jget(dut_phase_extra(ph), "by_queue_depth") : NULL;

	for (size_t i = 0; by && i < json_object_array_length(by); i++) {
		json_object *e = json_object_array_get_idx(by, i);

		if (json_object_get_int64(jget(e, "queue_depth")) == qd)
			return json_object_get_boolean(jget(e, "steady_state"));
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

		if (strcmp(json_object_get_string(jget(ph, "name")), dut_phase_name(hi)) != 0)
			continue;
		json_object_object_foreach(jget(ph, "metrics"), name, val) {
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
	char s1[32], s2[32], s3[32], s4[32], s5[32], s6[32], verdict[160];

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
	if (v.n < 2 || base.n < 2)
		snprintf(verdict, sizeof(verdict), "with one repetition the run-to-run spread is unknown");
	else
		snprintf(verdict, sizeof(verdict), "the difference %s the run-to-run spread (the min-max "
			 "ranges %s)", f.exceeds ? "exceeds" : "does not exceed",
			 f.exceeds ? "do not overlap" : "overlap");
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
	char qs[512], a[32], b[32], mt[200];
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
	if (cmp->sum[0].m_defined)
		snprintf(mt, sizeof(mt), "m-time over the %u queries that kept their plans: %s s vs %s s "
			 "(%.2fx)", cmp->nqualifying, run_fmt_num(f.value[0], 3, a, sizeof(a)),
			 run_fmt_num(f.value[1], 3, b, sizeof(b)), f.value[2]);
	else
		snprintf(mt, sizeof(mt), "m-time is undefined: no query kept its plan");
	if (f.count[0])
		r = add(fs, &f, qs, "%s: this DSS configuration changed the plans of %s (against %s), so "
			"those are out of m-time; %s", m->configs[ci].name, qs, m->configs[0].name, mt);
	else
		r = add(fs, &f, "", "%s: every DSS query kept the plan it had in %s; %s",
			m->configs[ci].name, m->configs[0].name, mt);
	cmp_free(cmp);
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
