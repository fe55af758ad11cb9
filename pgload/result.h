/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a pgload run and a pgload init measure: one struct each, filled by
 * the measuring code (run.c, load.c), read by two renderers (report.c:
 * human text and the dutlab-result JSON document).  Merging per-thread
 * numbers and computing rates is pure code here (result.c).
 */
#ifndef PGL_RESULT_H
#define PGL_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/hist.h"
#include "pgload/lag.h"
#include "pgload/retry.h"
#include "pgload/throttle.h"
#include "pgload/script.h"
#include "pgload/servstat.h"
#include "pgload/settings.h"
#include "pgload/spin.h"

/*
 * The server's memory budget (pgload cluster --memory) and the database's
 * size, as seen when a run or an init ends: the report states how much of
 * the data fits in memory.  0 where unknown (no budget, -d CONNINFO).
 */
struct pgl_memory_info {
	uint64_t budget_bytes;          /* the cgroup's limit; 0: no budget */
	uint64_t peak_bytes;            /* the cgroup's peak usage since the server started */
	uint64_t shared_buffers_bytes;  /* as pgload cluster init wrote it */
	uint64_t database_bytes;        /* pg_database_size(current_database()) */
};

enum pgl_protocol { PGL_PROTO_SIMPLE, PGL_PROTO_EXTENDED, PGL_PROTO_PREPARED };
const char *pgl_protocol_name(enum pgl_protocol p);
int pgl_protocol_parse(const char *s, enum pgl_protocol *ret);

/* One second of one thread (index = whole seconds since the run started). */
struct pgl_sec {
	uint64_t committed, failed, retries;
	uint64_t lat_sum_ns, lat_max_ns;
	uint64_t lag_sum_ns;
};

struct pgl_thread_result {
	unsigned id, nclients;
	uint64_t committed, failed;
	uint64_t conn_ns_total;         /* sum of the connection set-up times */
	unsigned nconns;
	unsigned aborted_clients;
	struct pgl_retry_stats retry;
	struct pgl_lag lag;
	struct dut_hist *lat;           /* committed transactions, ns */
	struct dut_hist *lagh;          /* schedule lag (only with -R) */
	struct pgl_sec *secs;
	size_t nsecs, secs_cap;
	uint64_t script_committed[PGL_MAX_MIX], script_failed[PGL_MAX_MIX];
	uint64_t script_lat_sum_ns[PGL_MAX_MIX];
	uint64_t spin_hits, spin_misses, spin_skips; /* see pgload/spin.h */
	char first_error[256];          /* what aborted the first client, "" if none */
};

struct pgl_run_config {
	char target[512];               /* pgdata or conninfo without the password */
	int64_t scale;
	unsigned clients, threads;
	double duration_s;              /* 0 when -t is used */
	uint64_t txns_per_client;       /* 0 when -T is used */
	double rate;                    /* -R, 0 = as fast as possible */
	enum pgl_protocol protocol;
	bool pipeline;
	unsigned max_tries;
	uint64_t seed;
	struct pgl_mix mix;
	bool standby_lag;               /* --standby-lag: sample even without a standby seen */
	enum pgl_spin_mode spin_mode;   /* --spin */
	uint64_t spin_ns;               /* the budget it resolved to (0: no spinning) */
	bool no_server_stats;           /* --no-server-stats: no servstat.h collection */
};

struct pgl_run_result {
	struct pgl_run_config cfg;
	struct pgl_settings settings;
	uint64_t t0_ns;                 /* threads start connecting */
	uint64_t bench_start_ns;        /* every connection is up: transactions start */
	uint64_t end_ns;                /* last thread done */
	unsigned nthreads;
	struct pgl_thread_result *th;
	bool interrupted;               /* stopped by SIGINT/SIGTERM */
	struct pgl_replica_lag replica; /* standbys' replay lag (lag.h), filled by the sampler */
	struct pgl_memory_info mem;     /* filled by main after the run */
	struct pgl_servstat server;     /* PostgreSQL's counters, wait events, CPU (servstat.h) */
	/* Filled by pgl_run_result_finish(): */
	uint64_t committed, failed;
	uint64_t conn_ns_total;
	unsigned nconns, aborted_clients;
	uint64_t spin_hits, spin_misses, spin_skips;
	struct pgl_retry_stats retry;
	struct pgl_lag lag;
	struct dut_hist *lat, *lagh;
	struct pgl_sec *secs;
	size_t nsecs;
	double tps_incl, tps_excl;
	struct dut_hist_summary lat_sum, lag_sum;
};

/* Add a committed (or failed) transaction to the thread's second `sec`. -ENOMEM. */
int pgl_thread_sec_add(struct pgl_thread_result *t, uint64_t sec, bool committed,
		       uint64_t lat_ns, uint64_t lag_ns, unsigned retries);

/* Merge the threads, compute tps with and without connection time.  -ENOMEM. */
int pgl_run_result_finish(struct pgl_run_result *r);
void pgl_run_result_free(struct pgl_run_result *r);

/* pgload init. */
#define PGL_INIT_MAX_PHASES 8
struct pgl_init_result {
	char target[512];
	int64_t scale;
	unsigned jobs, fillfactor;
	char tables_on[64], indexes_on[64];
	bool freeze;                    /* loaded with COPY FREEZE (one job) */
	struct pgl_settings settings;
	unsigned nphases;
	struct { char name[32]; uint64_t duration_ns; } phases[PGL_INIT_MAX_PHASES];
	uint64_t rows, bytes_sent;
	uint64_t total_ns;
	struct pgl_memory_info mem;     /* filled by main after the load */
};

#endif
