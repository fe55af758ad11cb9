-- SPDX-License-Identifier: GPL-2.0-or-later
-- The dutlab results schema as version 1 created it (results_schema_step(1),
-- unchanged since): the upgrade test builds an old database from this file.
-- tools_results checks that the step compiled into dutlab is still this text.
CREATE SCHEMA IF NOT EXISTS dutlab;
CREATE TABLE dutlab.schema_version (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now(),
  dutlab_version text NOT NULL);
CREATE TABLE dutlab.hosts (
  host_id bigserial PRIMARY KEY,
  hostname text NOT NULL, kernel text NOT NULL, cpu_model text NOT NULL,
  cpus integer NOT NULL, mem_bytes bigint NOT NULL,
  UNIQUE (hostname, kernel, cpu_model, cpus, mem_bytes));
CREATE TABLE dutlab.runs (
  run_id text PRIMARY KEY,            -- experiment@hostname@started_at
  experiment text NOT NULL, description text NOT NULL, source text NOT NULL,
  repetitions integer NOT NULL, status text NOT NULL,
  started_at timestamptz NOT NULL, finished_at timestamptz,
  host_id bigint NOT NULL REFERENCES dutlab.hosts,
  rundir text NOT NULL,               -- where it was pushed from
  pushed_at timestamptz NOT NULL DEFAULT now(), pushed_by text NOT NULL,
  manifest jsonb NOT NULL);
CREATE INDEX runs_experiment_started ON dutlab.runs (experiment, started_at);
CREATE INDEX runs_host_started ON dutlab.runs (host_id, started_at);
CREATE TABLE dutlab.configs (
  run_id text NOT NULL REFERENCES dutlab.runs ON DELETE CASCADE,
  config_idx integer NOT NULL, name text NOT NULL, status text NOT NULL, reason text NOT NULL,
  view text NOT NULL, filesystem text NOT NULL, replica text NOT NULL,
  memory_budget_bytes bigint NOT NULL, pg_version text NOT NULL,
  PRIMARY KEY (run_id, config_idx));
CREATE TABLE dutlab.reps (
  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,
  status text NOT NULL, filesystems text NOT NULL,
  PRIMARY KEY (run_id, config_idx, rep),
  FOREIGN KEY (run_id, config_idx) REFERENCES dutlab.configs ON DELETE CASCADE);
CREATE TABLE dutlab.steps (
  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,
  step_idx integer NOT NULL, name text NOT NULL, type text NOT NULL, tool text NOT NULL,
  status text NOT NULL, exit_code integer NOT NULL, started_at timestamptz,
  wall_ns bigint NOT NULL, dutfs_cpu_s double precision,
  PRIMARY KEY (run_id, config_idx, rep, step_idx),
  FOREIGN KEY (run_id, config_idx, rep) REFERENCES dutlab.reps ON DELETE CASCADE);
CREATE TABLE dutlab.documents (
  doc_id bigserial PRIMARY KEY,
  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,
  step_idx integer NOT NULL, file text NOT NULL, tool text NOT NULL, workload text NOT NULL,
  doc jsonb NOT NULL,
  FOREIGN KEY (run_id, config_idx, rep, step_idx) REFERENCES dutlab.steps ON DELETE CASCADE);
CREATE INDEX documents_run ON dutlab.documents (run_id);
CREATE TABLE dutlab.results (
  doc_id bigint NOT NULL REFERENCES dutlab.documents ON DELETE CASCADE,
  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,
  tool text NOT NULL, workload text NOT NULL, step text NOT NULL, phase text NOT NULL,
  metric text NOT NULL, value double precision NOT NULL, unit text NOT NULL);
CREATE INDEX results_run ON dutlab.results (run_id, config_idx);
CREATE INDEX results_metric ON dutlab.results (step, metric);
CREATE TABLE dutlab.devices (
  run_id text NOT NULL, config_idx integer NOT NULL, rep integer NOT NULL,
  step_idx integer NOT NULL, model text NOT NULL, serial text NOT NULL,
  firmware text NOT NULL, link text NOT NULL, ceiling_bytes_per_s double precision,
  source text NOT NULL,
  PRIMARY KEY (run_id, config_idx, rep, step_idx),
  FOREIGN KEY (run_id, config_idx, rep, step_idx) REFERENCES dutlab.steps ON DELETE CASCADE);
CREATE TABLE dutlab.findings (
  run_id text NOT NULL REFERENCES dutlab.runs ON DELETE CASCADE,
  seq integer NOT NULL, kind text NOT NULL, config_idx integer NOT NULL,
  config text NOT NULL, other_idx integer NOT NULL, subject text NOT NULL,
  trap boolean NOT NULL, exceeds boolean NOT NULL, shown boolean NOT NULL,
  counts bigint[] NOT NULL, vals double precision[] NOT NULL, text text NOT NULL,
  PRIMARY KEY (run_id, seq));
CREATE VIEW dutlab.run_metrics AS
SELECT r.run_id, r.experiment, r.started_at, h.hostname, c.config_idx, c.name AS config,
       c.filesystem, coalesce(d.model, '') AS model, coalesce(d.firmware, '') AS firmware,
       m.step, m.phase, m.metric, m.unit,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY m.value) AS value, count(*) AS reps
FROM dutlab.results m
JOIN dutlab.runs r USING (run_id)
JOIN dutlab.hosts h USING (host_id)
JOIN dutlab.configs c USING (run_id, config_idx)
LEFT JOIN LATERAL (SELECT dv.model, dv.firmware FROM dutlab.devices dv
  WHERE dv.run_id = m.run_id AND dv.config_idx = m.config_idx
  ORDER BY dv.rep, dv.step_idx LIMIT 1) d ON true
GROUP BY r.run_id, r.experiment, r.started_at, h.hostname, c.config_idx, c.name,
         c.filesystem, d.model, d.firmware, m.step, m.phase, m.metric, m.unit;
CREATE VIEW dutlab.metric_spread AS
SELECT experiment, config, dimension, key, step, phase, metric, unit,
       count(DISTINCT run_id) AS runs,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY value) AS median,
       min(value) AS min, max(value) AS max
FROM (SELECT rm.*, x.dimension, x.key FROM dutlab.run_metrics rm,
      LATERAL (VALUES ('model', nullif(rm.model, '')),
                      ('firmware', nullif(rm.model || ' ' || rm.firmware, ' ')),
                      ('filesystem', rm.filesystem),
                      ('host', rm.hostname)) AS x(dimension, key)) s
WHERE key IS NOT NULL AND key <> ''
GROUP BY experiment, config, dimension, key, step, phase, metric, unit;
CREATE VIEW dutlab.newest_per_host AS
SELECT run_id, experiment, started_at, hostname, config_idx, config, filesystem, model,
       firmware, step, phase, metric, unit, value, reps
FROM (SELECT rm.*, dense_rank() OVER (PARTITION BY hostname, experiment
                                      ORDER BY started_at DESC, run_id DESC) AS newest
      FROM dutlab.run_metrics rm) x
WHERE newest = 1;
CREATE VIEW dutlab.regressions AS
SELECT experiment, config, step, phase, metric, unit, run_id, hostname, started_at, value,
       earlier_min, earlier_max, n - 1 AS earlier_runs,
       CASE WHEN value < earlier_min THEN 'below' ELSE 'above' END AS direction
FROM (SELECT rm.*, row_number() OVER w AS pos,
             count(*) OVER (PARTITION BY experiment, config, step, phase, metric, unit) AS n,
             min(value) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_min,
             max(value) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_max
      FROM dutlab.run_metrics rm
      WINDOW w AS (PARTITION BY experiment, config, step, phase, metric, unit
                   ORDER BY started_at, run_id)) x
WHERE pos = n AND n >= 3 AND (value < earlier_min OR value > earlier_max);
