/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab results: run directories into a PostgreSQL schema "dutlab"
 * (docs/results.md).
 *
 * results_flat.c is pure (run ids, the metrics of a result document, the
 * device an identify document names); results_schema.c holds the SQL of
 * every schema version; results_db.c talks to the server (libpq);
 * results_cmd.c is the `dutlab results` command (init, push, compare).
 */
#ifndef DUTLAB_RESULTS_H
#define DUTLAB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "lib/error.h"
#include "tools/report/findings.h"
#include "tools/report/rundir_model.h"

/* The schema version this dutlab creates and reads. */
#define RESULTS_SCHEMA_VERSION 2

/* --- pure (results_flat.c) --- */

/*
 * The run id: "EXPERIMENT@HOSTNAME@STARTED_AT" from the manifest, the same
 * for every push of one run directory (and of its copies).  -EINVAL (err
 * says which field) when the manifest lacks one of the three.
 */
int results_run_id(const struct rundir_model *m, char *buf, size_t len, struct dut_error *err);

/* One number of a result document. */
struct results_metric {
	char *phase;     /* the phase's name */
	char *name;      /* a metric's name, or "LATENCY.FIELD" (txn.p99) */
	char *unit;      /* "" when the document gives none */
	double value;
};

struct results_metrics {
	struct results_metric *v;
	size_t n;
};

/*
 * Every metric and every latency summary field of every phase of a result
 * document (dut_result_json()); series are left out.  -ENOMEM.
 */
int results_flatten(json_object *doc, struct results_metrics *ret);
void results_metrics_clear(struct results_metrics *m);

/* The document's config.workload, else "" (borrowed). */
const char *results_workload(json_object *doc);

/* The device an identify document (dutprobe identify) names. */
struct results_device {
	char model[256], serial[256], firmware[128];
	char link[512];        /* link kind, and its description after ": " */
	double ceiling_bytes_per_s;   /* 0: unknown */
	const char *source;    /* where model/serial/firmware came from: "inner_drive", "nvme", "block_device" */
};

/* -ENOENT when the document has no target with a device or a link. */
int results_device_from_identify(json_object *doc, struct results_device *ret);

/* --- filters of compare (results_where.c) --- */

/*
 * Add one --where KEY=VALUE to the filter f, a JSON object the schema's
 * functions *_where read: KEY -> an array of values (any matches) for
 * experiment, config, step, phase, metric, unit, host, model, firmware,
 * filesystem and run; "since"/"until" -> one date or timestamp (started_at
 * >= since, < until).  -EINVAL, err says what was wrong.
 */
int results_where_add(json_object *f, const char *arg, struct dut_error *err);
/* The filter for people: "host = a or b; metric = tps; since 2026-11-01", "every run" when empty. */
void results_where_text(json_object *f, char *buf, size_t len);

/* --- the answer of compare, and its report (results_report.c) --- */

/* A query's answer, as text (numeric columns marked). */
struct results_table {
	const char *name;            /* "spread", "newest_per_host", "regressions" */
	size_t ncols, nrows;
	char **cols;
	bool *numeric;
	char **cells;                /* nrows * ncols; NULL: SQL NULL */
};

struct results_cmp {
	struct results_table t[3];
};

void results_cmp_clear(struct results_cmp *cmp);
/* The headings of the three tables, in the order of results_cmp.t. */
extern const char *const results_titles[3];
/* A cell as shown: floats to 6 significant digits, NULL as "-". */
void results_cell_text(const struct results_table *t, size_t r, size_t c, char *buf, size_t len);

struct charts;
struct rdoc;
/* At most this many charts; the report says how many more there were. */
#define RESULTS_MAX_CHARTS 32
/*
 * Charts of the spread table: per experiment, step, phase and metric, one
 * chart per dimension (model, firmware, filesystem, host) with two keys or
 * more, else one per host; the median and min-max per configuration and key.
 * *ret_left_out: charts not built past RESULTS_MAX_CHARTS.  -ENOMEM.
 */
int results_charts_build(const struct results_cmp *cmp, struct charts **ret, size_t *ret_left_out);
/* The comparison as a report document for render_md()/render_html(); charts under charts/. */
int results_report_build(const struct results_cmp *cmp, const char *filter_text, const struct charts *cs,
			 size_t charts_left_out, struct rdoc **ret);

/* --- the schema (results_schema.c) --- */

/* SQL that takes the schema from version v - 1 to v (1 <= v <= RESULTS_SCHEMA_VERSION). */
const char *results_schema_step(int v);

#endif
