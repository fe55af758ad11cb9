/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Numbers taken out of a loaded run model (pure): which documents a step
 * produced, a metric's median and range over a configuration's repetitions,
 * and the I/O mix of its traces.  Findings, tables and charts all read the
 * run through these functions, so they agree.
 */
#ifndef DUTLAB_RUNDIR_STATS_H
#define DUTLAB_RUNDIR_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/compare/compare.h"
#include "tools/report/report.h"
#include "tools/report/rundir_model.h"
#include "tools/kinds/step_kinds.h"

/*
 * The kind of a result document: DOC_<kind> for each step kind of
 * tools/kinds/meson.build (the documents that kind's steps write), and DOC_OTHER
 * for a document no kind recognises.  Generated from that list, so adding a
 * kind adds its value here too.
 */
#define DUTLAB_DOC_KIND_VALUE(k) DOC_##k,
enum rundir_doc_kind {
	DOC_OTHER = 0,
	DUTLAB_STEP_KINDS(DUTLAB_DOC_KIND_VALUE)
};

/* The kind of a result document, and its label (rundir_kinds.c: each kind's recognition fields). */
enum rundir_doc_kind rundir_doc_kind_of(const struct dut_result *r);
const char *rundir_doc_kind_name(enum rundir_doc_kind k);

/*
 * Where an slc knee (one member of a dutprobe slc document's knees) lies in
 * bytes written: "bytes_at", the estimate inside its window, or in
 * documents that predate it "bytes_before", the window boundary.  NULL when
 * the knee has neither.
 */
struct json_object *rundir_knee_bytes(struct json_object *knee);

/* A step name of the run (in order of first appearance) and the kind of its documents (rundir_kinds.c). */
struct rundir_stepinfo {
	const char *name;          /* borrowed from the model */
	enum rundir_doc_kind kind;    /* of the first loaded document; DOC_OTHER when none */
};

int rundir_steps(const struct rundir_model *m, struct rundir_stepinfo **ret, size_t *ret_n);

/*
 * The loaded documents of a step in a configuration, every repetition (and
 * every repeat inside one), in order; at most max.  Returns how many.
 */
size_t rundir_config_docs(const struct rundir_config *c, const char *step,
		       const struct dut_result **out, size_t max);
#define RUNDIR_MAX_DOCS 256

/*
 * rundir_config_docs, and for each document who made it, for a legend:
 * "ext4-ordered rep 2", or "ext4-ordered rep 2 run 3" for the third
 * document of a step with repeat > 1.
 */
#define RUNDIR_DOC_LABEL_MAX 160
size_t rundir_config_docs_labeled(const struct rundir_config *c, const char *step, const struct dut_result **out,
			       char (*labels)[RUNDIR_DOC_LABEL_MAX], size_t max);

/* Median and range over the configuration's documents of a step; n = 0: none has it. */
struct cmp_stat rundir_metric(const struct rundir_config *c, const char *step, const char *phase,
			   const char *metric);
/* A latency percentile ("p50", "p99", ...) in ns. */
struct cmp_stat rundir_latency(const struct rundir_config *c, const char *step, const char *phase,
			    const char *lat, const char *pct);
/* A phase's duration in seconds. */
struct cmp_stat rundir_duration(const struct rundir_config *c, const char *step, const char *phase);

/* Repetitions of a configuration whose step produced at least one document. */
unsigned rundir_config_nreps_with(const struct rundir_config *c, const char *step);

/* I/O of one class: ops, sequential ops and bytes per direction (enum rep_dir). */
struct rundir_io_class {
	uint64_t ops[2], seq_ops[2], bytes[2];
	uint64_t seq_bytes[2];     /* bytes of the seq_ops */
	uint64_t rewrite_ops[2];   /* of seq_ops: tail rewrites / re-reads (tools/report/report.h) */
	uint64_t fsyncs;           /* fsync and fdatasync */
};

/* The I/O mix of a configuration: its traces summed (whole traces, or one phase of them). */
struct rundir_io_mix {
	unsigned ntraced;          /* repetitions with a loaded trace */
	unsigned nrelmap;          /* of them, with a relation map */
	struct rundir_io_class cls[RC_COUNT];
	struct rundir_io_class total;
	uint64_t span_ns;          /* the phases' lengths summed (whole traces: first..last record) */
};

/*
 * phase NULL: the whole traces; else the phases of that name (the dutfs
 * marker of a step, rundir_step_mark()); ntraced counts the traces that have it.
 */
void rundir_io_mix_of(const struct rundir_config *c, const char *phase, struct rundir_io_mix *ret);
/*
 * The latencies of one class (cls RC_COUNT: every class) in the same
 * traces and phases as rundir_io_mix_of, merged into h (dut_hist_init'ed by
 * the caller): what = REP_READ, REP_WRITE, or 2 for fsyncs.
 */
void rundir_io_lat_of(const struct rundir_config *c, const char *phase, int cls, int what,
		   struct dut_hist *h);

/*
 * The access pattern of one direction (enum rep_dir) of a class, as a
 * phrase for the report, into buf: "sequential appends with rewrites of the
 * tail page" (reads: "sequential with re-reads of the tail page") when at
 * least RUNDIR_PATTERN_MIN_SHARE_PCT of the requests are sequential and tail
 * rewrites are at least RUNDIR_PATTERN_REWRITE_PCT of them,
 * "sequential" when that share is sequential without many rewrites,
 * "random" when at least that share is random, else "mixed".  NULL when the
 * class has no request that way.  The numbers follow in parentheses:
 * "(52.1% appends, 47.7% tail rewrites, 0.2% random of 25,019 writes)".
 */
#define RUNDIR_PATTERN_MIN_SHARE_PCT 90.0
#define RUNDIR_PATTERN_REWRITE_PCT 10.0
const char *rundir_io_pattern(const struct rundir_io_class *x, int dir, char *buf, size_t n);

/*
 * Did configuration a run entirely before b (every step of a's repetitions
 * started before the first of b's)?  false when the manifest has no start
 * times, or the repetitions were interleaved.
 */
bool rundir_configs_sequential(const struct rundir_config *a, const struct rundir_config *b);

/*
 * The target an identify step of a configuration looked at, as the
 * experiment named it (the manifest's device.experiment_path, first
 * repetition that has it; dutprobe's own target.path is the run's staging
 * mount), and its target name into *ret_name (may be NULL); NULL when the
 * manifest does not say.
 */
const char *rundir_identify_target(const struct rundir_config *c, const char *step, const char **ret_name);

/* The marker of a step in a configuration (its manifest "mark"), or NULL when it never ran there. */
const char *rundir_step_mark(const struct rundir_config *c, const char *step);
/* pgload dss marks each of its phases "dss/<phase> start" .. "dss/<phase> end":
 * the trace phase (rundir_io_mix_of) of phase name, a string literal. */
#define RUNDIR_DSS_PHASE(name) "dss/" name " start"

/* The member key of o (o may be NULL), or NULL. */
struct json_object *rundir_jget(struct json_object *o, const char *key);
/* The string member key of o, or "" when absent or not a string. */
const char *rundir_jstr(struct json_object *o, const char *key);
/* "1,100.0-1,300.0" of s's min and max times scale, "(1 value)", or "-" with none. */
const char *rundir_fmt_range(const struct cmp_stat *s, double scale, int decimals, char *buf, size_t n);
/* s's median times scale, or "-" with none. */
const char *rundir_fmt_median(const struct cmp_stat *s, double scale, int decimals, char *buf, size_t n);

/* "12,345" (thousands separators), into buf. */
const char *rundir_fmt_count(uint64_t v, char *buf, size_t n);
/* A number with thousands separators and the given decimals: "1,321.8". */
const char *rundir_fmt_num(double v, int decimals, char *buf, size_t n);

/* The transactions of a step (pgload's "committed", every run of it) over the
 * repetitions whose trace has the step's marker: the denominator of every
 * per-transaction figure taken from the traces. */
uint64_t rundir_traced_transactions(const struct rundir_config *c, const char *step, const char *mark);
/*
 * The same when a trace was kept within trace-max by rotation: only the
 * transactions of the seconds whose records are still in the traces (from
 * pgload's per-second commits), so that reads or flushes per transaction
 * divide like by like.  *ret_cut_s: the most seconds a repetition's step
 * lost at its start (0: none).
 */
uint64_t rundir_traced_transactions_cut(const struct rundir_config *c, const char *step, const char *mark,
				     double *ret_cut_s);

#endif
