/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SQL of the "dutlab" schema, one step per version: step v takes a
 * database from version v - 1 to v (step 1 creates the schema).  A new
 * version appends a step and never edits an old one, so every database
 * created by an older dutlab has an upgrade path (docs/results.md).
 * Embedded here so that the program needs no file at run time.
 */
#include <stddef.h>

#include "tools/results/results.h"

static const char schema_v1[] =
	"CREATE SCHEMA IF NOT EXISTS dutlab;\n"
	"CREATE TABLE dutlab.schema_version (\n"
	"  version integer PRIMARY KEY,\n"
	"  applied_at timestamptz NOT NULL DEFAULT now(),\n"
	"  dutlab_version text NOT NULL);\n"
	"CREATE TABLE dutlab.hosts (\n"
	"  host_id bigserial PRIMARY KEY,\n"
	"  hostname text NOT NULL, kernel text NOT NULL, cpu_model text NOT NULL,\n"
	"  cpus integer NOT NULL, mem_bytes bigint NOT NULL,\n"
	"  UNIQUE (hostname, kernel, cpu_model, cpus, mem_bytes));\n"
	"CREATE TABLE dutlab.runs (\n"
	"  run_id text PRIMARY KEY,            -- experiment@hostname@started_at\n"
	"  experiment text NOT NULL, description text NOT NULL, source text NOT NULL,\n"
	"  repetitions integer NOT NULL, status text NOT NULL,\n"
	"  started_at timestamptz NOT NULL, finished_at timestamptz,\n"
	"  host_id bigint NOT NULL REFERENCES dutlab.hosts,\n"
	"  rundir text NOT NULL,               -- where it was pushed from\n"
	"  pushed_at timestamptz NOT NULL DEFAULT now(), pushed_by text NOT NULL,\n"
	"  manifest jsonb NOT NULL);\n"
	"CREATE INDEX runs_experiment_started ON dutlab.runs (experiment, started_at);\n"
	"CREATE INDEX runs_host_started ON dutlab.runs (host_id, started_at);\n"
	"CREATE TABLE dutlab.configs (\n"
	"  run_id text NOT NULL REFERENCES dutlab.runs ON DELETE CASCADE,\n"
	"  config_idx integer NOT NULL, name text NOT NULL, status text NOT NULL, reason text NOT NULL,\n"
	"  view text NOT NULL, filesystem text NOT NULL, replica text NOT NULL,\n"
	"  memory_budget_bytes bigint NOT NULL, pg_version text NOT NULL,\n"
	"  PRIMARY KEY (run_id, config_idx));\n"
	"CREATE TABLE dutlab.reps (\n"
	"  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,\n"
	"  status text NOT NULL, filesystems text NOT NULL,\n"
	"  PRIMARY KEY (run_id, config_idx, rep),\n"
	"  FOREIGN KEY (run_id, config_idx) REFERENCES dutlab.configs ON DELETE CASCADE);\n"
	"CREATE TABLE dutlab.steps (\n"
	"  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,\n"
	"  step_idx integer NOT NULL, name text NOT NULL, type text NOT NULL, tool text NOT NULL,\n"
	"  status text NOT NULL, exit_code integer NOT NULL, started_at timestamptz,\n"
	"  wall_ns bigint NOT NULL, dutfs_cpu_s double precision,\n"
	"  PRIMARY KEY (run_id, config_idx, rep, step_idx),\n"
	"  FOREIGN KEY (run_id, config_idx, rep) REFERENCES dutlab.reps ON DELETE CASCADE);\n"
	"CREATE TABLE dutlab.documents (\n"
	"  doc_id bigserial PRIMARY KEY,\n"
	"  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,\n"
	"  step_idx integer NOT NULL, file text NOT NULL, tool text NOT NULL, workload text NOT NULL,\n"
	"  doc jsonb NOT NULL,\n"
	"  FOREIGN KEY (run_id, config_idx, rep, step_idx) REFERENCES dutlab.steps ON DELETE CASCADE);\n"
	"CREATE INDEX documents_run ON dutlab.documents (run_id);\n"
	"CREATE TABLE dutlab.results (\n"
	"  doc_id bigint NOT NULL REFERENCES dutlab.documents ON DELETE CASCADE,\n"
	"  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,\n"
	"  tool text NOT NULL, workload text NOT NULL, step text NOT NULL, phase text NOT NULL,\n"
	"  metric text NOT NULL, value double precision NOT NULL, unit text NOT NULL);\n"
	"CREATE INDEX results_run ON dutlab.results (run_id, config_idx);\n"
	"CREATE INDEX results_metric ON dutlab.results (step, metric);\n"
	"CREATE TABLE dutlab.devices (\n"
	"  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,\n"
	"  step_idx integer NOT NULL, model text NOT NULL, serial text NOT NULL,\n"
	"  firmware text NOT NULL, link text NOT NULL, ceiling_bytes_per_s double precision,\n"
	"  source text NOT NULL,\n"
	"  PRIMARY KEY (run_id, config_idx, rep, step_idx),\n"
	"  FOREIGN KEY (run_id, config_idx, rep, step_idx) REFERENCES dutlab.steps ON DELETE CASCADE);\n"
	"CREATE TABLE dutlab.findings (\n"
	"  run_id text NOT NULL REFERENCES dutlab.runs ON DELETE CASCADE,\n"
	"  seq integer NOT NULL, kind text NOT NULL, config_idx integer NOT NULL,\n"
	"  config text NOT NULL, other_idx integer NOT NULL, subject text NOT NULL,\n"
	"  trap boolean NOT NULL, exceeds boolean NOT NULL, shown boolean NOT NULL,\n"
	"  counts bigint[] NOT NULL, vals double precision[] NOT NULL, text text NOT NULL,\n"
	"  PRIMARY KEY (run_id, seq));\n"
	/* one value per run, configuration, step, phase and metric: the median
	 * over the repetitions, with the device (the first identify of the
	 * configuration) and the host */
	"CREATE VIEW dutlab.run_metrics AS\n"
	"SELECT r.run_id, r.experiment, r.started_at, h.hostname, c.config_idx, c.name AS config,\n"
	"       c.filesystem, coalesce(d.model, '') AS model, coalesce(d.firmware, '') AS firmware,\n"
	"       m.step, m.phase, m.metric, m.unit,\n"
	"       percentile_cont(0.5) WITHIN GROUP (ORDER BY m.value) AS value, count(*) AS reps\n"
	"FROM dutlab.results m\n"
	"JOIN dutlab.runs r USING (run_id)\n"
	"JOIN dutlab.hosts h USING (host_id)\n"
	"JOIN dutlab.configs c USING (run_id, config_idx)\n"
	"LEFT JOIN LATERAL (SELECT dv.model, dv.firmware FROM dutlab.devices dv\n"
	"  WHERE dv.run_id = m.run_id AND dv.config_idx = m.config_idx\n"
	"  ORDER BY dv.rep, dv.step_idx LIMIT 1) d ON true\n"
	"GROUP BY r.run_id, r.experiment, r.started_at, h.hostname, c.config_idx, c.name,\n"
	"         c.filesystem, d.model, d.firmware, m.step, m.phase, m.metric, m.unit;\n"
	/* the spread over runs, per device model, model+firmware, filesystem and host */
	"CREATE VIEW dutlab.metric_spread AS\n"
	"SELECT experiment, config, dimension, key, step, phase, metric, unit,\n"
	"       count(DISTINCT run_id) AS runs,\n"
	"       percentile_cont(0.5) WITHIN GROUP (ORDER BY value) AS median,\n"
	"       min(value) AS min, max(value) AS max\n"
	"FROM (SELECT rm.*, x.dimension, x.key FROM dutlab.run_metrics rm,\n"
	"      LATERAL (VALUES ('model', nullif(rm.model, '')),\n"
	"                      ('firmware', nullif(rm.model || ' ' || rm.firmware, ' ')),\n"
	"                      ('filesystem', rm.filesystem),\n"
	"                      ('host', rm.hostname)) AS x(dimension, key)) s\n"
	"WHERE key IS NOT NULL AND key <> ''\n"
	"GROUP BY experiment, config, dimension, key, step, phase, metric, unit;\n"
	/* the newest run of each experiment on each host, its values (a window,
	 * not a join, so that a filter on the experiment reaches the tables) */
	"CREATE VIEW dutlab.newest_per_host AS\n"
	"SELECT run_id, experiment, started_at, hostname, config_idx, config, filesystem, model,\n"
	"       firmware, step, phase, metric, unit, value, reps\n"
	"FROM (SELECT rm.*, dense_rank() OVER (PARTITION BY hostname, experiment\n"
	"                                      ORDER BY started_at DESC, run_id DESC) AS newest\n"
	"      FROM dutlab.run_metrics rm) x\n"
	"WHERE newest = 1;\n"
	/* a metric of the newest run outside the min-max of the earlier runs of
	 * the same experiment, configuration, step and metric; it takes two
	 * earlier runs at least (one run has no spread to leave).  One window
	 * over run_metrics: a filter on its partition columns (experiment,
	 * metric) is pushed down to the tables */
	"CREATE VIEW dutlab.regressions AS\n"
	"SELECT experiment, config, step, phase, metric, unit, run_id, hostname, started_at, value,\n"
	"       earlier_min, earlier_max, n - 1 AS earlier_runs,\n"
	"       CASE WHEN value < earlier_min THEN 'below' ELSE 'above' END AS direction\n"
	"FROM (SELECT rm.*, row_number() OVER w AS pos,\n"
	"             count(*) OVER (PARTITION BY experiment, config, step, phase, metric, unit) AS n,\n"
	/* a frame from the partition's start grows, never restarts: linear */
	"             min(value) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_min,\n"
	"             max(value) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_max\n"
	"      FROM dutlab.run_metrics rm\n"
	"      WINDOW w AS (PARTITION BY experiment, config, step, phase, metric, unit\n"
	"                   ORDER BY started_at, run_id)) x\n"
	"WHERE pos = n AND n >= 3 AND (value < earlier_min OR value > earlier_max);\n";

/*
 * Version 2: filters (compare --where) that reach the runs before the views
 * aggregate them.  Each view of version 1 becomes a function of a filter,
 * FUNCTION_where(f jsonb), and the view that function with no filter, so the
 * SQL of each question is written once.  f is an object of arrays of
 * values, {"host": ["a", "b"], "metric": ["tps"]}, one key per column (any
 * value of a key matches; every key must match), and "since"/"until" as
 * timestamps (started_at >= since, < until).  The functions are plain SQL,
 * STABLE and not STRICT, so the planner inlines them and a filter given as
 * a constant is folded into index conditions (docs/results.md, "Scale").
 */
static const char schema_v2[] =
	/* the values of key k of a filter, NULL when the filter has no k */
	"CREATE FUNCTION dutlab.filter_values(f jsonb, k text) RETURNS text[]\n"
	"LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$\n"
	"  SELECT CASE WHEN jsonb_typeof(f -> k) = 'array'\n"
	"              THEN ARRAY(SELECT jsonb_array_elements_text(f -> k)) END $$;\n"
	"CREATE FUNCTION dutlab.run_metrics_where(f jsonb) RETURNS SETOF dutlab.run_metrics\n"
	"LANGUAGE sql STABLE PARALLEL SAFE AS $$\n"
	"SELECT * FROM dutlab.run_metrics rm\n"
	"WHERE (dutlab.filter_values(f, 'experiment') IS NULL OR rm.experiment = ANY (dutlab.filter_values(f, 'experiment')))\n"
	"  AND (dutlab.filter_values(f, 'config') IS NULL OR rm.config = ANY (dutlab.filter_values(f, 'config')))\n"
	"  AND (dutlab.filter_values(f, 'step') IS NULL OR rm.step = ANY (dutlab.filter_values(f, 'step')))\n"
	"  AND (dutlab.filter_values(f, 'phase') IS NULL OR rm.phase = ANY (dutlab.filter_values(f, 'phase')))\n"
	"  AND (dutlab.filter_values(f, 'metric') IS NULL OR rm.metric = ANY (dutlab.filter_values(f, 'metric')))\n"
	"  AND (dutlab.filter_values(f, 'unit') IS NULL OR rm.unit = ANY (dutlab.filter_values(f, 'unit')))\n"
	"  AND (dutlab.filter_values(f, 'host') IS NULL OR rm.hostname = ANY (dutlab.filter_values(f, 'host')))\n"
	"  AND (dutlab.filter_values(f, 'model') IS NULL OR rm.model = ANY (dutlab.filter_values(f, 'model')))\n"
	"  AND (dutlab.filter_values(f, 'firmware') IS NULL OR rm.firmware = ANY (dutlab.filter_values(f, 'firmware')))\n"
	"  AND (dutlab.filter_values(f, 'filesystem') IS NULL OR rm.filesystem = ANY (dutlab.filter_values(f, 'filesystem')))\n"
	"  AND (dutlab.filter_values(f, 'run') IS NULL OR rm.run_id = ANY (dutlab.filter_values(f, 'run')))\n"
	"  AND (f ->> 'since' IS NULL OR rm.started_at >= (f ->> 'since')::timestamptz)\n"
	"  AND (f ->> 'until' IS NULL OR rm.started_at < (f ->> 'until')::timestamptz) $$;\n"
	/* the bodies of version 1's views, over the filtered run_metrics */
	"CREATE FUNCTION dutlab.metric_spread_where(f jsonb) RETURNS SETOF dutlab.metric_spread\n"
	"LANGUAGE sql STABLE PARALLEL SAFE AS $$\n"
	"SELECT experiment, config, dimension, key, step, phase, metric, unit,\n"
	"       count(DISTINCT run_id) AS runs,\n"
	"       percentile_cont(0.5) WITHIN GROUP (ORDER BY value) AS median,\n"
	"       min(value) AS min, max(value) AS max\n"
	"FROM (SELECT rm.*, x.dimension, x.key FROM dutlab.run_metrics_where(f) rm,\n"
	"      LATERAL (VALUES ('model', nullif(rm.model, '')),\n"
	"                      ('firmware', nullif(rm.model || ' ' || rm.firmware, ' ')),\n"
	"                      ('filesystem', rm.filesystem),\n"
	"                      ('host', rm.hostname)) AS x(dimension, key)) s\n"
	"WHERE key IS NOT NULL AND key <> ''\n"
	"GROUP BY experiment, config, dimension, key, step, phase, metric, unit $$;\n"
	"CREATE FUNCTION dutlab.newest_per_host_where(f jsonb) RETURNS SETOF dutlab.newest_per_host\n"
	"LANGUAGE sql STABLE PARALLEL SAFE AS $$\n"
	"SELECT run_id, experiment, started_at, hostname, config_idx, config, filesystem, model,\n"
	"       firmware, step, phase, metric, unit, value, reps\n"
	"FROM (SELECT rm.*, dense_rank() OVER (PARTITION BY hostname, experiment\n"
	"                                      ORDER BY started_at DESC, run_id DESC) AS newest\n"
	"      FROM dutlab.run_metrics_where(f) rm) x\n"
	"WHERE newest = 1 $$;\n"
	"CREATE FUNCTION dutlab.regressions_where(f jsonb) RETURNS SETOF dutlab.regressions\n"
	"LANGUAGE sql STABLE PARALLEL SAFE AS $$\n"
	"SELECT experiment, config, step, phase, metric, unit, run_id, hostname, started_at, value,\n"
	"       earlier_min, earlier_max, n - 1 AS earlier_runs,\n"
	"       CASE WHEN value < earlier_min THEN 'below' ELSE 'above' END AS direction\n"
	"FROM (SELECT rm.*, row_number() OVER w AS pos,\n"
	"             count(*) OVER (PARTITION BY experiment, config, step, phase, metric, unit) AS n,\n"
	"             min(value) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_min,\n"
	"             max(value) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_max\n"
	"      FROM dutlab.run_metrics_where(f) rm\n"
	"      WINDOW w AS (PARTITION BY experiment, config, step, phase, metric, unit\n"
	"                   ORDER BY started_at, run_id)) x\n"
	"WHERE pos = n AND n >= 3 AND (value < earlier_min OR value > earlier_max) $$;\n"
	"CREATE OR REPLACE VIEW dutlab.metric_spread AS SELECT * FROM dutlab.metric_spread_where('{}');\n"
	"CREATE OR REPLACE VIEW dutlab.newest_per_host AS SELECT * FROM dutlab.newest_per_host_where('{}');\n"
	"CREATE OR REPLACE VIEW dutlab.regressions AS SELECT * FROM dutlab.regressions_where('{}');\n";

static const char *const steps[RESULTS_SCHEMA_VERSION] = {
	schema_v1,
	schema_v2,
};

const char *results_schema_step(int v)
{
	if (v < 1 || v > RESULTS_SCHEMA_VERSION)
		return NULL;
	return steps[v - 1];
}
