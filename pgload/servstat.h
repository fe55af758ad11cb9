/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Server-side evidence of a pgload run, from PostgreSQL itself and /proc:
 *   - cumulative counters of pg_stat_database, pg_stat_bgwriter /
 *     pg_stat_checkpointer and pg_stat_wal / pg_stat_io, read before and
 *     after the measured interval (their deltas);
 *   - a histogram of pg_stat_activity wait events of the client backends and
 *     the checkpointer, WAL writer and background writer, sampled on a
 *     separate connection;
 *   - CPU seconds of the postmaster's children (/proc/PID/stat) and of
 *     pgload itself (getrusage) over the interval.
 *
 * This file and servstat.c / servstat_proc.c are pure (which query a server
 * version needs, deltas, the histogram, /proc text parsing, CPU accounting,
 * the renderers); servstat_pg.c talks to the server and servstat_sys.c reads
 * /proc.  A counter a server version does not have is absent (have = false,
 * with the reason), never 0.
 */
#ifndef PGL_SERVSTAT_H
#define PGL_SERVSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "lib/pstat.h"

enum pgl_ctr {
	/* pg_stat_database, the target database's row */
	PGL_CTR_XACT_COMMIT, PGL_CTR_XACT_ROLLBACK, PGL_CTR_BLKS_READ, PGL_CTR_BLKS_HIT,
	PGL_CTR_BLK_READ_TIME, PGL_CTR_BLK_WRITE_TIME, PGL_CTR_TEMP_FILES, PGL_CTR_TEMP_BYTES,
	/* checkpoints: pg_stat_bgwriter before 17, pg_stat_checkpointer from 17 */
	PGL_CTR_CKPT_TIMED, PGL_CTR_CKPT_REQ, PGL_CTR_BUF_CHECKPOINT, PGL_CTR_BUF_CLEAN,
	PGL_CTR_BUF_BACKEND, PGL_CTR_BUF_BACKEND_FSYNC, PGL_CTR_CKPT_WRITE_TIME,
	PGL_CTR_CKPT_SYNC_TIME,
	/* pg_stat_wal (14+); write/sync from pg_stat_io (object wal) from 18 */
	PGL_CTR_WAL_RECORDS, PGL_CTR_WAL_FPI, PGL_CTR_WAL_BYTES, PGL_CTR_WAL_BUFFERS_FULL,
	PGL_CTR_WAL_WRITE, PGL_CTR_WAL_SYNC, PGL_CTR_WAL_WRITE_TIME, PGL_CTR_WAL_SYNC_TIME,
	PGL_CTR_COUNT
};

/* Which setting a timing counter needs to be non-zero. */
enum pgl_ctr_timing { PGL_TIMING_NONE, PGL_TIMING_IO, PGL_TIMING_WAL_IO };

struct pgl_ctr_info {
	const char *name;          /* the JSON key (PostgreSQL 15's column name) */
	const char *unit;          /* "count", "blocks", "bytes", "ms" */
	enum pgl_ctr_timing timing;
};
extern const struct pgl_ctr_info pgl_ctr_info[PGL_CTR_COUNT];

/* One reading of the counters (or a delta); have[c] false: absent. */
struct pgl_ctr_set {
	double v[PGL_CTR_COUNT];
	bool have[PGL_CTR_COUNT];
};

/* One query of a snapshot: one row, column i fills cols[i]. */
#define PGL_CTR_QUERY_MAX_COLS 8
struct pgl_ctr_query {
	const char *view;          /* what it reads, for messages */
	const char *sql;
	bool needs_dbname;         /* $1 = the target database's name */
	unsigned ncols;
	enum pgl_ctr cols[PGL_CTR_QUERY_MAX_COLS];
};

#define PGL_CTR_MAX_QUERIES 4
/* The queries for server_version_num (e.g. 150020) into q; returns how many. */
size_t pgl_ctr_queries(int version_num, struct pgl_ctr_query q[PGL_CTR_MAX_QUERIES]);
/* Why counter c is absent on that version, or NULL when the version has it. */
const char *pgl_ctr_absent_why(int version_num, enum pgl_ctr c);
/* Store one query's row (text values, NULL for SQL NULL) into s. -EINVAL on a bad number. */
int pgl_ctr_store_row(const struct pgl_ctr_query *q, const char *const *vals, struct pgl_ctr_set *s);
/*
 * d = after - before where both have the counter.  A counter that went
 * backwards (statistics reset in between) is absent; *ret_reset says so.
 */
void pgl_ctr_delta(const struct pgl_ctr_set *before, const struct pgl_ctr_set *after,
		   struct pgl_ctr_set *d, bool *ret_reset);

/* ---- wait events ---- */

#define PGL_WAITS_MAX 96
#define PGL_WAIT_INTERVAL_NS 100000000ull     /* 100 ms; see docs/pgload.md for its cost */

struct pgl_wait_entry {
	char proc[16];             /* "backend", "checkpointer", "walwriter", "bgwriter" */
	char type[24], event[48];  /* type "CPU", event "running" when PostgreSQL shows none */
	uint64_t count;
};

struct pgl_waits {
	uint64_t samples;          /* queries of pg_stat_activity */
	uint64_t backend_samples;  /* client backend rows over all samples */
	uint64_t dropped;          /* rows whose (proc, type, event) did not fit */
	bool own_role_only;        /* no pg_read_all_stats: only our role's client backends sampled */
	size_t n;
	struct pgl_wait_entry e[PGL_WAITS_MAX];
	/* per second since the start: samples, and those with the checkpointer at work */
	uint32_t *sec_samples, *sec_ckpt_busy;
	size_t nsecs, secs_cap;
};

/* The short name of a backend_type pg_stat_activity shows, or NULL when not sampled. */
const char *pgl_wait_proc(const char *backend_type);
/*
 * Count one row: backend_type, wait_event_type and wait_event as
 * pg_stat_activity has them (NULL or "" when none), in second sec.
 * -ENOMEM only for the per-second arrays.
 */
int pgl_waits_add(struct pgl_waits *w, const char *backend_type, const char *type,
		  const char *event, uint64_t sec);
/* One more query of pg_stat_activity, in second sec (before its rows). -ENOMEM. */
int pgl_waits_sample(struct pgl_waits *w, uint64_t sec);
/* Sort: by process (backend first), then by count, most first. */
void pgl_waits_sort(struct pgl_waits *w);
/* The share (0..1) of e among the samples of its process kind. */
double pgl_wait_share(const struct pgl_waits *w, const struct pgl_wait_entry *e);
void pgl_waits_free(struct pgl_waits *w);

/* ---- /proc/PID/stat and CPU time ---- */

/* struct dut_proc_stat and dut_pstat_parse(): lib/pstat.h */

/* The postmaster and its children at one moment. */
struct pgl_proc_snap {
	struct dut_proc_stat pm;
	struct dut_proc_stat *kids;
	size_t nkids;
};

struct pgl_cpu_delta {
	uint64_t ticks;            /* CPU of the postmaster and its children in the interval */
	unsigned kids_start, kids_end;
	unsigned started;          /* children at the end that were not there at the start */
	unsigned exited;           /* children at the start that were gone at the end */
};

/*
 * The server's CPU ticks between two snapshots: the postmaster's own, each
 * child's growth (a child new at the end counts whole), plus the children
 * the postmaster reaped in between, from its cutime/cstime, less what those
 * that were there at the start had used before it.  -EINVAL when the
 * snapshots are of different postmasters.
 */
int pgl_cpu_account(const struct pgl_proc_snap *a, const struct pgl_proc_snap *b,
		    struct pgl_cpu_delta *ret);
void pgl_proc_snap_free(struct pgl_proc_snap *s);

/* ---- the result ---- */

struct pgl_servstat {
	bool collected;            /* false: --no-server-stats, or it could not start (note) */
	char note[300];            /* what was not collected, and why */
	int version_num;
	char dbname[128];
	char track_io_timing[8], track_wal_io_timing[8];   /* "" when the server has no such setting */
	double interval_s;         /* between the two counter readings */
	bool have_counters, stats_reset;
	struct pgl_ctr_set delta;
	const char *absent_why[PGL_CTR_COUNT];   /* for each absent delta */
	struct pgl_waits waits;
	/* CPU over [bench start, last client done] */
	bool have_server_cpu;
	char cpu_note[200];        /* why server CPU is absent */
	struct pgl_cpu_delta cpu;
	double server_cpu_s, client_cpu_s, cpu_wall_s;
	unsigned ncpus;
	/* the whole machine over the same interval (/proc/stat, /proc/pressure/cpu) */
	bool have_host_cpu;
	double host_busy_s, host_steal_s, host_iowait_s;
	double psi_cpu_some;       /* share of the interval; -1: unknown (no PSI) */
};

/*
 * After the deltas: fill absent_why (version, reset, or the timing setting
 * that was off: its times stay absent rather than 0).
 */
void pgl_servstat_finish_counters(struct pgl_servstat *s);
/* The human lines of a run summary. */
void pgl_servstat_print(const struct pgl_servstat *s, uint64_t committed, FILE *out);
/* The "server" member of the run phase's extra (NULL on out of memory). */
json_object *pgl_servstat_to_json(const struct pgl_servstat *s, uint64_t committed);
void pgl_servstat_free(struct pgl_servstat *s);

#endif
