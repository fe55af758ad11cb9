/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run manifest (manifest.json of a run directory, docs/report.md "Run
 * directory of dutlab run"): its schema name and version, and the name of
 * every member, for the one writer (tools/run/manifest.c) and the reader
 * (tools/report/rundir_model.c).  A member is added here first; the writer
 * and the reader then name it the same way.  The same writer makes the
 * run's replica.json ("dutlab-replica"), which shares most of these names.
 *
 * A repetition's "memory" object copies pgload's result documents
 * (config.memory, target.database_bytes; docs/dutlab-run.md) member for
 * member, so its names here are also those of pgload's writer
 * (pgload/report.c) and of the readers of its documents (the runner's
 * runner_rep.c, the report's findings): DUT_RM_MEMORY, DUT_RM_BUDGET_BYTES,
 * DUT_RM_SHARED_BUFFERS_BYTES, DUT_RM_PEAK_BYTES, DUT_RM_DATABASE_BYTES,
 * DUT_RM_DATABASE_PER_BUDGET.
 */
#ifndef DUT_RUN_MANIFEST_H
#define DUT_RUN_MANIFEST_H

#define DUT_RUN_MANIFEST_SCHEMA "dutlab-run"
#define DUT_RUN_MANIFEST_VERSION 1
/* a reader refuses a larger manifest (a run of thousands of steps is a few MiB) */
#define DUT_RUN_MANIFEST_MAX_BYTES (64u << 20)

/* members, in alphabetical order */
#define DUT_RM_ARGV                    "argv"
#define DUT_RM_ARTIFACTS               "artifacts"
#define DUT_RM_BINDIR                  "bindir"
#define DUT_RM_BLOCK_SIZE_KB           "block_size_kb"
#define DUT_RM_BUDGET_BYTES            "budget_bytes"
#define DUT_RM_CONFIGS                 "configs"
#define DUT_RM_CPU_MODEL               "cpu_model"
#define DUT_RM_CPUS                    "cpus"
#define DUT_RM_DATABASE_BYTES          "database_bytes"
#define DUT_RM_DATABASE_PER_BUDGET     "database_per_budget"
#define DUT_RM_DESCRIPTION             "description"
#define DUT_RM_DEVICE                  "device"
#define DUT_RM_DIMENSIONS              "dimensions"
#define DUT_RM_DIMS                    "dims"
#define DUT_RM_DIR                     "dir"
#define DUT_RM_DUTFS                   "dutfs"
#define DUT_RM_DUTFS_CPU_S             "dutfs_cpu_s"
#define DUT_RM_EST_NS                  "est_ns"
#define DUT_RM_EXIT_CODE               "exit_code"
#define DUT_RM_EXPERIMENT              "experiment"
#define DUT_RM_FILESYSTEM              "filesystem"
#define DUT_RM_FINISHED_AT             "finished_at"
#define DUT_RM_HOST                    "host"
#define DUT_RM_HOSTNAME                "hostname"
#define DUT_RM_INDEX                   "index"
#define DUT_RM_INDEXES_ON              "indexes_on"
#define DUT_RM_KERNEL                  "kernel"
#define DUT_RM_KEY                     "key"
#define DUT_RM_LOGS                    "logs"
#define DUT_RM_MAJOR                   "major"
#define DUT_RM_MARK                    "mark"
#define DUT_RM_MEM_BYTES               "mem_bytes"
#define DUT_RM_MEMORY                  "memory"
#define DUT_RM_MEMORY_BUDGET_BYTES     "memory_budget_bytes"
#define DUT_RM_NAME                    "name"
#define DUT_RM_ORDER                   "order"
#define DUT_RM_PATH                    "path"
#define DUT_RM_PEAK_BYTES              "peak_bytes"
#define DUT_RM_PHASE                   "phase"
#define DUT_RM_PHASES                  "phases"
#define DUT_RM_POSTGRES                "postgres"
#define DUT_RM_PROGRESS_NS             "progress_ns"
#define DUT_RM_REASON                  "reason"
#define DUT_RM_REP                     "rep"
#define DUT_RM_REPEAT                  "repeat"
#define DUT_RM_REPETITIONS             "repetitions"
#define DUT_RM_REPLICA                 "replica"
#define DUT_RM_REPLICA_LAG             "replica_lag"
#define DUT_RM_REPORT_EVERY_NS         "report_every_ns"
#define DUT_RM_REPS                    "reps"
#define DUT_RM_RESULT                  "result"
#define DUT_RM_RESULTS                 "results"
#define DUT_RM_SCHEMA                  "schema"
#define DUT_RM_SCHEMA_VERSION          "schema_version"
#define DUT_RM_SERIES                  "series"
#define DUT_RM_SETTINGS                "settings"
#define DUT_RM_SHAPE                   "shape"
#define DUT_RM_SHARED_BUFFERS_BYTES    "shared_buffers_bytes"
#define DUT_RM_SOURCE                  "source"
#define DUT_RM_STARTED_AT              "started_at"
#define DUT_RM_STATUS                  "status"
#define DUT_RM_STEP                    "step"
#define DUT_RM_STEPS                   "steps"
#define DUT_RM_TABLES_ON               "tables_on"
#define DUT_RM_TARGETS                 "targets"
#define DUT_RM_TOOL                    "tool"
#define DUT_RM_TRACE                   "trace"
#define DUT_RM_TRACE_MAX_BYTES         "trace_max_bytes"
#define DUT_RM_TRACE_SEGMENTS          "trace_segments"
#define DUT_RM_TYPE                    "type"
#define DUT_RM_VALUES                  "values"
#define DUT_RM_VERSION                 "version"
#define DUT_RM_VIEW                    "view"
#define DUT_RM_WAL_BLOCK_SIZE_KB       "wal_block_size_kb"
#define DUT_RM_WALL_NS                 "wall_ns"

#endif
