/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replay lag of streaming standbys during a pgload run (docs/pgload-standby.md).
 *
 * Four times a second the sampler (lag_sampler.c, its own connection to the
 * primary and its own thread) reads pg_stat_replication: write_lag,
 * flush_lag, replay_lag (ms) and how far the standby's replay is behind the
 * primary's current WAL position (bytes).  PostgreSQL reports NULL lag
 * times once a standby has caught up and no new WAL arrives (idle); such
 * samples keep their byte count but have no times (has_times false) and
 * are left out of the series and the percentiles.  lag.c is pure: storing
 * samples and summarising them.
 */
#ifndef PGL_LAG_H
#define PGL_LAG_H

#include <stdbool.h>
#include <stddef.h>

#define PGL_LAG_MAX_STANDBYS 8

/*
 * Four reads a second.  PostgreSQL clears the lag times (NULL) whenever the
 * standby reported having replayed everything twice in a row, which a fast
 * asynchronous standby does often even under load: at one read a second a
 * short run could see only NULLs (measured: 1 in 3 reads idle in a 3 s
 * tpcb-like run on this project's machines).
 */
#define PGL_LAG_INTERVAL_NS 250000000ull

struct pgl_lag_sample {
	double t_s;                     /* since the run started */
	double write_ms, flush_ms, replay_ms;   /* valid when has_times */
	double replay_bytes;            /* valid when has_bytes */
	bool has_times, has_bytes;
};

struct pgl_standby_lag {
	char name[64];                  /* application_name */
	char sync_state[16];            /* at its first sample: async, sync, potential, quorum */
	char state[16];                 /* streaming or catchup, at its first sample */
	struct pgl_lag_sample *s;
	size_t n, cap;
	unsigned idle_samples;          /* lag times NULL: caught up, no WAL coming */
	/* After the load: time until it replayed all WAL written by then. */
	bool catchup_measured;          /* the sampler looked */
	bool caught_up;                 /* ... and it did, within PGL_LAG_CATCHUP_MAX_S */
	double catchup_ms;
};

#define PGL_LAG_CATCHUP_MAX_S 30

struct pgl_replica_lag {
	bool sampled;                   /* a sampler ran during the run */
	unsigned nstandbys;
	struct pgl_standby_lag sb[PGL_LAG_MAX_STANDBYS];
	unsigned dropped_standbys;      /* beyond PGL_LAG_MAX_STANDBYS */
	unsigned samples;               /* pg_stat_replication reads */
	char note[256];                 /* why sampling was off or stopped early, "" */
};

struct pgl_lag_summary {
	size_t n_times, n_bytes;        /* samples with lag times, with a byte count */
	double replay_p50_ms, replay_p99_ms, replay_max_ms;
	double flush_max_ms, write_max_ms;
	double replay_bytes_max;
};

/* The standby named so, or NULL. */
struct pgl_standby_lag *pgl_replica_lag_find(struct pgl_replica_lag *rl, const char *name);
/* Add a sample of standby `name`; a new name takes the next slot.  -ENOMEM. */
int pgl_replica_lag_add(struct pgl_replica_lag *rl, const char *name, const char *state,
			const char *sync_state, const struct pgl_lag_sample *smp);
/* Percentiles by nearest rank over the samples with times.  -ENOMEM. */
int pgl_standby_lag_summarize(const struct pgl_standby_lag *l, struct pgl_lag_summary *ret);
/* "sync" (sync or quorum at its first sample) or "async". */
const char *pgl_standby_lag_mode(const struct pgl_standby_lag *l);
/* The standby the run phase's metrics describe: the first sync one, else the first; -1: none. */
int pgl_replica_lag_main(const struct pgl_replica_lag *rl);
/* "none", or the mode of the main standby. */
const char *pgl_replica_lag_mode(const struct pgl_replica_lag *rl);
void pgl_replica_lag_free(struct pgl_replica_lag *rl);

#endif
