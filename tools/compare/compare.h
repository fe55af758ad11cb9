/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab compare: result documents of several configurations side by side.
 * Pure code (compare.c, compare_dss.c) turns read documents into a struct
 * cmp; renderers (compare_render.c) print it or write it as a result
 * document.  Nothing here opens files or prints.
 *
 * An input is one configuration.  Today each input is one result document
 * (dutlab compare RESULT...); a run directory (dutlab compare RUNDIR...)
 * will give one input per configuration, with one document per repetition,
 * which is why an input holds an array of documents.  Values of one input
 * are the median over its documents (and, for DSS queries, over the
 * repetitions inside each document).
 *
 * Definitions the output states:
 *   - DSS: a query qualifies for m-time when every input ran it, every run
 *     of it succeeded, and every run in every input carries the same plan
 *     fingerprint.  m-time = the sum of the qualifying queries' median
 *     times; m-score = their geometric mean.  Both are undefined (not 0)
 *     when no query qualifies.  The plain totals are over every query that
 *     succeeded in that input.
 *   - spread of a value with n > 1 samples: (max - min) / 2 / median.
 *   - ratio: value / baseline value (undefined when the baseline is 0).
 */
#ifndef DUTLAB_COMPARE_H
#define DUTLAB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/result.h"

#define CMP_MAX_INPUTS 26      /* labels A..Z */

struct cmp_input {
	char label[4];             /* "A", "B", ... (set by cmp_build) */
	const char *source;        /* file (or run directory) name shown to the user */
	struct dut_result *const *docs;
	size_t ndocs;              /* >= 1 */
};

struct cmp_opts {
	size_t baseline;           /* index into the inputs (0-based) */
	bool force;                /* compare despite a different SF, query set, ... */
};

/* The median and range of n samples; n == 0 means "no value". */
struct cmp_stat {
	double median, min, max;
	unsigned n;
};

enum cmp_kind { CMP_GENERIC = 0, CMP_DSS };

/* One compared value: a phase time, a phase metric, a latency percentile. */
struct cmp_row {
	char *phase;
	char *metric;              /* "time" for a DSS phase duration */
	char *unit;                /* of the values ("s", "tx/s", "ns", ...) */
	struct cmp_stat *v;        /* [ninputs]; n == 0: not in that input */
};

/* Why a DSS query is out of m-time (in the first input where it is). */
enum cmp_why {
	CMP_QUALIFIES = 0,
	CMP_WHY_PLAN_CHANGED,      /* fingerprint differs from the baseline's */
	CMP_WHY_PLAN_UNSTABLE,     /* repetitions of one input had different plans */
	CMP_WHY_NO_FINGERPRINT,    /* the document has no plan fingerprint for it */
	CMP_WHY_NOT_OK,            /* a run timed out or failed */
	CMP_WHY_MISSING,           /* the input did not run it (only with force) */
};

struct cmp_qcell {
	bool present;              /* the input ran the query */
	unsigned nruns, nfailed;   /* runs found; of them timed out or failed */
	struct cmp_stat t_s;       /* over the successful runs, seconds */
	char fingerprint[24];      /* of the first run; "" when absent */
	bool plan_unstable;        /* runs in this input had different fingerprints */
	bool plan_differs;         /* fingerprint != the baseline's */
};

struct cmp_query {
	unsigned q;
	char *title;
	enum cmp_why why;
	size_t why_input;          /* input index the reason refers to */
	struct cmp_qcell *cell;    /* [ninputs] */
};

struct cmp_dss_sum {
	bool m_defined;            /* at least one query qualifies */
	double m_time_s, m_score_s;
	double total_s, geomean_s; /* plain: every successful query of this input */
	unsigned nok;              /* queries counted in total_s */
};

struct cmp {
	enum cmp_kind kind;
	char *kind_name;           /* "pgload dss", "pgload oltp", "dutprobe bench" */
	size_t ninputs, baseline;
	struct cmp_input *inputs;  /* copies of the caller's, labelled */
	char **warnings;           /* differences accepted (--force) or worth knowing */
	size_t nwarnings;

	/* generic metrics, or DSS phase times */
	struct cmp_row *rows;
	size_t nrows;

	/* DSS only */
	double scale_factor;
	struct cmp_query *queries; /* sorted by query number */
	size_t nqueries;
	unsigned nqualifying;
	struct cmp_dss_sum *sum;   /* [ninputs] */
	char *explanation;         /* the m-time sentence, derived from the data */
};

/*
 * Compare the inputs.  -EINVAL with err set when they are not comparable
 * (fewer than 2, mixed tools or workloads, a different scale factor or
 * query set without force, nothing in common); -ENOMEM.
 */
int cmp_build(const struct cmp_input *inputs, size_t ninputs, const struct cmp_opts *o,
	      struct cmp **ret, struct dut_error *err);
void cmp_free(struct cmp *c);

/* Median, min and max of v[0..n) (v is reordered). */
struct cmp_stat cmp_stat_of(double *v, unsigned n);
/* value / baseline; false when undefined (a missing value or a zero baseline). */
bool cmp_ratio(const struct cmp_stat *v, const struct cmp_stat *base, double *ret);
const char *cmp_why_text(enum cmp_why why);

/* ---- renderers (compare_render.c) ---- */
struct cmp_render_opts {
	int argc;                  /* the command line, for the result document */
	char *const *argv;
};

struct cmp_renderer {
	const char *name;
	/* human: writes to out; json: dest is the file ("-" = stdout) */
	int (*render)(const struct cmp *c, const struct cmp_render_opts *o, FILE *out,
		      const char *dest);
};

extern const struct cmp_renderer cmp_render_human;
extern const struct cmp_renderer cmp_render_json;

/* ---- internal to compare*.c ---- */
int cmp_dss_build(struct cmp *c, bool force, struct dut_error *err);
int cmp_warn(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct cmp_row *cmp_add_row(struct cmp *c, const char *phase, const char *metric,
			    const char *unit);

#endif
