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

#include <stddef.h>

#include <json-c/json.h>

#include "lib/error.h"
#include "tools/findings.h"
#include "tools/run_model.h"

/* The schema version this dutlab creates and reads. */
#define RESULTS_SCHEMA_VERSION 1

/* --- pure (results_flat.c) --- */

/*
 * The run id: "EXPERIMENT@HOSTNAME@STARTED_AT" from the manifest, the same
 * for every push of one run directory (and of its copies).  -EINVAL (err
 * says which field) when the manifest lacks one of the three.
 */
int results_run_id(const struct run_model *m, char *buf, size_t len, struct dut_error *err);

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

/* --- the schema (results_schema.c) --- */

/* SQL that takes the schema from version v - 1 to v (1 <= v <= RESULTS_SCHEMA_VERSION). */
const char *results_schema_step(int v);

#endif
