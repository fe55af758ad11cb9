-- SPDX-License-Identifier: GPL-2.0-or-later
-- Synthetic runs for the scale check of the dutlab results schema
-- (docs/results.md, "Scale"): :n runs of 20 experiments on 200 hosts, each
-- run two configurations (ext4-ordered, xfs) x one repetition x two steps
-- (identify, rw), the device from the host (10 models, 3 firmwares each),
-- and 5 metrics of rw: 10 result rows per run.  Into an initialised schema:
--   psql "$DB" -v n=100000 -f scale-synthetic.sql
\set ON_ERROR_STOP 1
BEGIN;
INSERT INTO dutlab.hosts (hostname, kernel, cpu_model, cpus, mem_bytes)
SELECT 'synth-' || h, 'Linux 6.1.0', 'synthetic CPU', 8, 17179869184 FROM generate_series(1, 200) h
ON CONFLICT DO NOTHING;
INSERT INTO dutlab.runs (run_id, experiment, description, source, repetitions, status, started_at,
                         host_id, rundir, pushed_by, manifest)
SELECT 'synth-exp-' || (i % 20) || '@synth-' || (1 + i % 200) || '@' || i, 'synth-exp-' || (i % 20), '',
       'synthetic', 1, 'complete', timestamptz '2026-01-01' + i * interval '1 minute', h.host_id,
       '/synthetic', 'scale-synthetic.sql', '{}'
FROM generate_series(1, :n) i JOIN dutlab.hosts h ON h.hostname = 'synth-' || (1 + i % 200);
INSERT INTO dutlab.configs (run_id, config_idx, name, status, reason, view, filesystem, replica,
                            memory_budget_bytes, pg_version)
SELECT run_id, c, (ARRAY['ext4-ordered', 'xfs'])[c + 1], 'complete', '', 'syscall',
       (ARRAY['ext4-ordered', 'xfs'])[c + 1], 'none', 0, 'postgres (PostgreSQL) 15'
FROM dutlab.runs, generate_series(0, 1) c WHERE source = 'synthetic';
INSERT INTO dutlab.reps (run_id, config_idx, rep, status, filesystems)
SELECT c.run_id, c.config_idx, 1, 'complete', c.filesystem
FROM dutlab.configs c JOIN dutlab.runs r USING (run_id) WHERE r.source = 'synthetic';
INSERT INTO dutlab.steps (run_id, config_idx, rep, step_idx, name, type, tool, status, exit_code, wall_ns)
SELECT p.run_id, p.config_idx, 1, s, (ARRAY['id', 'rw'])[s + 1], (ARRAY['identify', 'oltp-run'])[s + 1],
       (ARRAY['dutprobe', 'pgload'])[s + 1], 'ok', 0, 1000000000
FROM dutlab.reps p JOIN dutlab.runs r USING (run_id), generate_series(0, 1) s WHERE r.source = 'synthetic';
INSERT INTO dutlab.devices (run_id, config_idx, rep, step_idx, model, serial, firmware, link, source)
SELECT p.run_id, p.config_idx, 1, 0, 'Model-' || (r.host_id % 10), 'SN' || r.host_id,
       'FW-' || (r.host_id % 3), 'nvme: PCIe 4.0 x4', 'nvme'
FROM dutlab.reps p JOIN dutlab.runs r USING (run_id) WHERE r.source = 'synthetic';
INSERT INTO dutlab.documents (run_id, config_idx, rep, step_idx, file, tool, workload, doc)
SELECT p.run_id, p.config_idx, 1, 1, 'rw.json', 'pgload', 'oltp', '{}'
FROM dutlab.reps p JOIN dutlab.runs r USING (run_id) WHERE r.source = 'synthetic';
INSERT INTO dutlab.results (doc_id, run_id, config_idx, rep, tool, workload, step, phase, metric, value, unit)
SELECT d.doc_id, d.run_id, d.config_idx, 1, 'pgload', 'oltp', 'rw', 'run', m.metric,
       m.base * (1 + 0.1 * random()), m.unit
FROM dutlab.documents d JOIN dutlab.runs r USING (run_id),
     (VALUES ('tps', 1000.0, 'tx/s'), ('txn.p50', 1e6, 'ns'), ('txn.p99', 5e6, 'ns'),
             ('txn.mean', 1.2e6, 'ns'), ('failed', 0.0, '')) AS m(metric, base, unit)
WHERE r.source = 'synthetic';
COMMIT;
ANALYZE;
