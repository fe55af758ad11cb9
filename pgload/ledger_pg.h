/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ledger workload's server side (pgload/ledger.h says what it proves). */
#ifndef PGL_LEDGER_PG_H
#define PGL_LEDGER_PG_H

#include <libpq-fe.h>

#include "pgload/ledger.h"

/* ledger_txn, ledger_item and the baseline of the balances (ledger_base), then a CHECKPOINT. */
int pgl_ledger_init_tables(PGconn *c, struct dut_error *err);

struct pgl_ledger_run_opts {
	const char *conninfo;
	const char *dir;             /* client-NNN.ledger files go here */
	unsigned clients;
	double duration_s;
	uint64_t seed;
	uint64_t checkpoint_at_ms;   /* 0: no CHECKPOINT of ours */
};

struct pgl_ledger_run_result {
	uint64_t committed, in_flight, elapsed_ns;
	unsigned aborted_clients;
	char first_error[300];
};

/* Runs until the duration passed, every client failed, or pgl_stop_requested. */
int pgl_ledger_run(const struct pgl_ledger_run_opts *o, struct pgl_ledger_run_result *ret,
		   struct dut_error *err);

/* What the check compares with the files (struct pgl_ledger_db). */
int pgl_ledger_read_db(PGconn *c, struct pgl_ledger_db *d, struct dut_error *err);

#endif
