/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer's "why" from PostgreSQL itself and from /proc (pure): what the
 * pgload run documents of an OLTP step carry in extra.server (pgload/servstat.h,
 * docs/pgload.md "Server-side evidence"), as medians over the step's runs.
 */
#ifndef DUTLAB_REPORT_ANSWER_SRV_H
#define DUTLAB_REPORT_ANSWER_SRV_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/compare/compare.h"
#include "tools/report/rundir_model.h"

struct answer_srv {
	unsigned ndocs;                /* documents of the step with server evidence */
	int version_num;               /* of the first */
	struct cmp_stat wal_sync_per_commit, wal_sync_ms;   /* wal_sync / pgload commits; ms per sync */
	struct cmp_stat ckpts, ckpt_bufs, ckpt_write_s, ckpt_sync_s;
	struct cmp_stat blks_read_per_txn, read_ms;
	struct cmp_stat server_cpu_ms, client_cpu_ms;       /* per transaction */
	struct cmp_stat cpu_share_pct;  /* (server + client CPU per txn) x clients / min(clients, CPUs)
	                                 * against the mean transaction time */
	struct cmp_stat mean_ms;       /* that mean */
	unsigned clients, cpus;        /* of the first document */
	const char *wal_why, *wal_time_why, *ckpt_why, *cpu_why;   /* borrowed from a document */
	/* shares (%) of the client backends' samples: waiting for block reads (IO:DataFileRead,
	 * DataFilePrefetch), for WAL (IO:WALSync, WALWrite, WALInit*, LWLock:WALWrite); -1: none */
	double wait_read_pct, wait_wal_pct;
	char waits[400];               /* the top backend wait events with their share */
	/* the largest waits that are neither reads, WAL nor CPU ("IPC:SyncRep 24%, ..."), "" when none */
	char other_waits[200];
	char ckpt_tps[300];            /* TPS in the seconds the checkpointer worked vs the others */
};

void answer_srv_of(const struct rundir_config *c, const char *step, struct answer_srv *ret);
/* The CPU part of the evidence: "CPU per transaction: server ..." */
void answer_srv_cpu_text(const struct answer_srv *a, char *buf, size_t n);
/* The rest: WAL, checkpoints, wait events, or why they are absent. */
void answer_srv_text(const struct answer_srv *a, char *buf, size_t n);

#endif
