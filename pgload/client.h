/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One benchmark thread and the clients it drives: each client is a libpq
 * connection in non-blocking mode, advanced by a small state machine when
 * its socket is ready (run.c polls; client.c reacts).  Everything here is
 * owned by one thread; only the live_* counters are read by the main
 * thread (relaxed atomics, for -P progress).
 */
#ifndef PGL_CLIENT_H
#define PGL_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "pgload/result.h"
#include "pgload/spin.h"
#include "pgload/rng.h"
#include "pgload/throttle.h"

enum pgl_cstate {
	CS_CHOOSE,      /* pick and start the next transaction */
	CS_THROTTLE,    /* waiting for its -R slot (sched_ns) */
	CS_BUSY,        /* statement(s) sent, reading results */
	CS_ROLLBACK,    /* ROLLBACK sent after an error */
	CS_DONE,
	CS_ABORTED,
};

struct pgl_client {
	PGconn *conn;
	int sock;
	unsigned id;
	enum pgl_cstate state;
	bool want_write;                /* libpq has unsent data: wait for EPOLLOUT */
	uint32_t ep_events;             /* what its socket is registered for (0: not) */
	unsigned script;                /* index in the mix */
	unsigned stmt;                  /* statement awaiting its result (non-pipelined) */
	bool sync_pending;              /* pipelined: waiting for PGRES_PIPELINE_SYNC */
	int64_t vars[PGL_NVARS];
	unsigned tries;
	enum pgl_errclass err;          /* error seen in the current try */
	char errmsg[256];               /* ... and its text */
	int after_rollback;             /* enum pgl_retry_action to apply */
	uint64_t sched_ns, start_ns, lag_ns;
	uint64_t sent_ns;               /* when the round in flight was sent (only if spinning) */
	uint64_t txns;                  /* transactions finished (committed or failed) */
	char pbuf[PGL_MAX_PARAMS][24];
	const char *pvals[PGL_MAX_PARAMS];
};

struct pgl_thread {
	const struct pgl_run_config *cfg;
	const char *conninfo;
	struct pgl_thread_result *res;
	struct pgl_client *clients;
	unsigned nclients;
	struct pgl_rng rng;
	struct pgl_sched sched;
	uint64_t bench_start_ns, deadline_ns, end_ns;
	char sql[1024];
	char stmt_names[PGL_MAX_MIX][PGL_MAX_STMTS][24]; /* prepared names, "pgl_S_I" */
	struct pgl_spin spin;           /* used when the thread drives one client */
	/* Read by the progress reporter: */
	uint64_t live_committed, live_failed, live_lat_sum_ns;
};

/* Fill th->stmt_names for th->cfg's mix (before any connect). */
void pgl_thread_name_stmts(struct pgl_thread *th);
/* Connect (timed) and prepare; on failure the client is aborted and the error kept. */
int pgl_client_connect(struct pgl_thread *th, struct pgl_client *c);
/* Advance a client that needs no I/O (CS_CHOOSE, a due CS_THROTTLE). */
void pgl_client_kick(struct pgl_thread *th, struct pgl_client *c, uint64_t now_ns);
/* The spin slot of the round c has in flight (spin.h). */
struct pgl_spin_slot pgl_client_spin_slot(const struct pgl_thread *th, const struct pgl_client *c);
/* Its socket is readable (or had an error). */
void pgl_client_input(struct pgl_thread *th, struct pgl_client *c);
/* Its socket is writable: flush what libpq holds. */
void pgl_client_output(struct pgl_thread *th, struct pgl_client *c);
void pgl_client_close(struct pgl_client *c);

#endif
