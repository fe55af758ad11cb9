/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a workload needs around it: the server (conninfo and one admin
 * connection), the dutfs phase markers, and the relmap that is snapshotted
 * at the start, after each phase and at the end.  Workloads call
 * pgl_phase_begin/end around each phase; the session does the rest.
 */
#ifndef PGL_SESSION_H
#define PGL_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "lib/error.h"
#include "pgload/mark.h"
#include "pgload/notes.h"
#include "pgload/dss/dss.h"
#include "pgload/relmap.h"
#include "pgload/result.h"

struct pgl_session {
	const char *conninfo;
	char target[512];            /* for reports: pgdata, or the conninfo */
	PGconn *admin;
	struct pgl_marker marker;
	bool relmap_on;              /* --relmap given */
	struct pgl_relmap relmap;
	struct pgl_settings settings;
	struct pgl_notes notes;      /* for main to print (and empty) */
};

/* 0 or -errno with err; s->marker.where says where the markers go (for --debug). */
int pgl_session_open(struct pgl_session *s, const char *conninfo, const char *pgdata,
		     const char *dutfs_control, bool relmap_on, struct dut_error *err);
/* The phase's marker (and after it, the relation snapshot); what fails goes to s->notes. */
void pgl_phase_begin(struct pgl_session *s, const char *phase);
void pgl_phase_end(struct pgl_session *s, const char *phase);
/* Record the backends now connected (the benchmark's clients) in the relmap (a failure: s->notes). */
void pgl_session_note_backends(struct pgl_session *s);
/* Final snapshot (a failure: s->notes, the map keeps what was seen) and the relmap file (0 or -errno with err). */
int pgl_session_write_relmap(struct pgl_session *s, const char *path, struct dut_error *err);
/* Write relation map m to path as a dutlab-relmap document (0 or -errno with err). */
int pgl_relmap_save(const struct pgl_relmap *m, const char *path, struct dut_error *err);

/* `pgload dss --relmap`: these snapshots, for the DSS half (dss_relmap.c). */
extern const struct dss_relmap_ops pgl_dss_relmap_ops;
void pgl_session_close(struct pgl_session *s);

/* Workloads: an ops table (main picks one by name). */
struct pgl_init_opts {
	int64_t scale;
	unsigned jobs;
	unsigned fillfactor;
	const char *tables_on, *indexes_on;
	/* or NULL: after each statement the server acknowledged, a line naming
	 * it, fdatasynced before the next is sent (dutlab crash, docs/crash.md) */
	const char *ack_log;
};

/* The figures of one -P interval: since the start, and over the interval. */
struct pgl_progress {
	double t_s;                  /* seconds since the measured run started */
	double tps, lat_ms;          /* committed per second, mean latency */
	uint64_t failed;
};

struct pgl_run_opts {
	struct pgl_run_config cfg;
	unsigned progress_s;         /* -P, 0 = off */
	/* Called every progress_s by the run's supervising thread (the program
	 * prints; NULL: no progress). */
	void (*progress)(const struct pgl_progress *p);
};

struct pgl_workload_ops {
	const char *name;
	const char *description;
	int (*init)(struct pgl_session *s, const struct pgl_init_opts *o,
		    struct pgl_init_result *ret, struct dut_error *err);
	/* Fills *ret even when the run ends early (partial results). */
	int (*run)(struct pgl_session *s, const struct pgl_run_opts *o,
		   struct pgl_run_result *ret, struct dut_error *err);
};

extern const struct pgl_workload_ops pgl_oltp_workload;
/* The run half of the oltp workload (run.c; the init half is load.c). */
int pgl_oltp_run(struct pgl_session *s, const struct pgl_run_opts *o,
		 struct pgl_run_result *ret, struct dut_error *err);

/* Set by SIGINT/SIGTERM: stop starting transactions, report what was done. */
extern volatile int pgl_stop_requested;

#endif
